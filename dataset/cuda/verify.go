package cuda

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"smart"
)

// Tools are the compilers verification runs.
type Tools struct {
	Clang string // clang-14: compiles the kernels to PTX
	GXX   string // g++: compiles the kernels and the harness for the CPU
}

// FindTools looks clang-14 and g++ up on PATH; the error names the Debian packages to install.
func FindTools() (Tools, error) {
	var t Tools
	var missing, pkgs []string
	for _, tool := range []struct {
		name, why string
		path      *string
	}{{"clang-14", "for the PTX check", &t.Clang}, {"g++", "for the CPU check", &t.GXX}} {
		p, err := exec.LookPath(tool.name)
		if err != nil {
			missing, pkgs = append(missing, tool.name+" ("+tool.why+")"), append(pkgs, tool.name)
			continue
		}
		*tool.path = p
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("%s not found on PATH; install the Debian package(s): apt-get install %s",
			strings.Join(missing, " and "), strings.Join(pkgs, " "))
	}
	return t, nil
}

// Variant is a stencil under an OC and a setting, to verify. The stencil is verified as given:
// SmallCopy makes the copy on the small verification grid.
type Variant struct {
	Stencil *smart.Stencil
	OC      smart.Combination
	Setting smart.Setting
}

// Check is the outcome of one compiler's check of a variant.
type Check struct {
	Status smart.Status `json:"status"`           // ok, compile_error, wrong_result, timeout, launch_error or invalid
	Detail string       `json:"detail,omitempty"` // the first compiler message, where the result is wrong, ...
}

// Result is the verification of one variant: the PTX compile with clang and the run on the CPU.
type Result struct {
	StencilID string            `json:"stencil_id"`
	OC        smart.Combination `json:"oc"`
	Setting   smart.Setting     `json:"setting"`
	Steps     int               `json:"steps"`
	Grid      [3]int            `json:"grid"`
	PTX       Check             `json:"ptx"`
	CPU       Check             `json:"cpu"`
	MaxRelErr RelErr            `json:"max_rel_err"` // of the CPU run, where it produced a result
	Tolerance float64           `json:"tolerance"`
}

// RelErr is a relative error. The harness reports an infinite one where a point is NaN,
// infinite or never written, a guard cell is written or the run returns neither buffer; JSON
// has no infinity, so one that is not finite is written as null (the check's detail says what
// happened).
type RelErr float64

// MarshalJSON writes the error as a number, or null where it is not finite.
func (e RelErr) MarshalJSON() ([]byte, error) {
	if f := float64(e); !math.IsInf(f, 0) && !math.IsNaN(f) {
		return json.Marshal(f)
	}
	return []byte("null"), nil
}

// OK reports whether both checks passed.
func (r Result) OK() bool { return r.PTX.Status == smart.StatusOK && r.CPU.Status == smart.StatusOK }

// Settled reports whether the verification of the variant finished: its CPU check, the last,
// has an outcome. Verify returns unsettled results only with an error.
func (r Result) Settled() bool { return r.CPU.Status != "" }

// String writes the result on one line: the variant and each check's outcome.
func (r Result) String() string {
	s := fmt.Sprintf("%s %s: ptx %s", r.OC, r.Setting, r.PTX)
	if r.CPU.Status == smart.StatusOK {
		return s + fmt.Sprintf(", cpu ok (max relative error %.1e, tolerance %.1e)", r.MaxRelErr, r.Tolerance)
	}
	return s + ", cpu " + r.CPU.String()
}

func (c Check) String() string {
	if c.Detail == "" {
		return string(c.Status)
	}
	return fmt.Sprintf("%s: %s", c.Status, c.Detail)
}

// Verifier compiles batches of generated kernels to PTX and runs them on the CPU against the
// reference. The zero value with Tools set is ready to use.
type Verifier struct {
	Tools     Tools
	BatchSize int           // variants per translation unit; 0 means 16
	Jobs      int           // batches compiled and run at once; 0 means the number of CPUs
	Timeout   time.Duration // for one variant's CPU run; 0 means 2 minutes
	Seed      uint64        // of the random input data
	// Progress, if set, is called with the number of variants finished after each one.
	Progress func(done, total int)

	fault fault // planted in every kernel, for the tests of verification itself
	// prepared, when set, is a directory prepare filled that outlives this verification: the
	// tests' verifications share one rather than precompile the preludes each.
	prepared string
}

// Verify checks every variant and returns their results in order. Variants whose setting
// cannot be generated are invalid; the error is for the context's cancellation or a failure
// of the verifier itself (no temporary directory, a compiler that cannot be started). With an
// error the results are those settled by then (Result.Settled), the others empty of a CPU
// outcome: a cancelled run keeps what it finished.
func (v *Verifier) Verify(ctx context.Context, variants []Variant) ([]Result, error) {
	if v.Tools.Clang == "" || v.Tools.GXX == "" {
		return nil, errors.New("verify: no compilers given; use FindTools")
	}
	results := make([]Result, len(variants))
	var items []item
	for i, va := range variants {
		res := &results[i]
		*res = Result{StencilID: va.Stencil.ID(), OC: va.OC, Setting: va.Setting, Steps: va.Stencil.Steps,
			Grid: va.Stencil.Grid, Tolerance: Tolerance(va.Stencil)}
		t, err := smart.DecodeTuning(va.Stencil.Dims, va.OC, va.Setting)
		if err == nil {
			var k *Kernel
			if k, err = generate(va.Stencil, t, options{name: fmt.Sprintf("v%d", i), fault: v.fault}); err == nil {
				items = append(items, item{result: res, kernel: k, stencil: va.Stencil})
				continue
			}
		}
		res.PTX = Check{Status: smart.StatusInvalid, Detail: err.Error()}
		res.CPU = res.PTX
	}
	size := v.BatchSize
	if size <= 0 {
		size = 16
	}
	jobs := v.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	var mu sync.Mutex
	done := len(variants) - len(items)
	report := func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if v.Progress != nil {
			v.Progress(done, len(variants))
		}
	}
	if v.Progress != nil {
		v.Progress(done, len(variants))
	}
	shared := v.prepared
	if shared == "" {
		var err error
		shared, err = v.prepare(ctx)
		if shared != "" {
			defer os.RemoveAll(shared)
		}
		if err != nil {
			return results, err
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	batches := split(items, size)
	errs := make(chan error, len(batches))
	for _, batch := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if err := v.runBatch(ctx, shared, batch, report); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := ctx.Err(); err != nil {
		return results, fmt.Errorf("verify: %w", err)
	}
	if err, ok := <-errs; ok {
		return results, err
	}
	return results, nil
}

// split cuts items into batches of at most size variants and MaxConstantBytes of constant data.
func split(items []item, size int) [][]item {
	var out [][]item
	lo, bytes := 0, 0
	for i, it := range items {
		if i > lo && (i-lo == size || bytes+it.kernel.ConstantBytes > MaxConstantBytes) {
			out = append(out, items[lo:i])
			lo, bytes = i, 0
		}
		bytes += it.kernel.ConstantBytes
	}
	if lo < len(items) {
		out = append(out, items[lo:])
	}
	return out
}

// item is a generated variant in a batch.
type item struct {
	result  *Result
	kernel  *Kernel
	stencil *smart.Stencil
}

// gxxFlags compile the CPU check: AddressSanitizer reports any access outside the grid or a
// shared-memory buffer; -O0 because compiling large unrolled stencils costs more than running
// them unoptimised.
var gxxFlags = []string{"-std=c++20", "-pthread", "-O0", "-fsanitize=address", "-w"}

// prepare writes the preludes and the harness into a directory the batches share, and
// precompiles the emulation prelude and the harness, which every batch includes. A failed
// precompilation only costs time: g++ then reads the header itself.
func (v *Verifier) prepare(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "smart-verify-")
	if err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	files := map[string]string{"clang_prelude.h": clangPrelude, "emulation.h": emulationPrelude, "harness.h": harnessHeader,
		"pch.h": "#include \"emulation.h\"\n#include \"harness.h\"\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return dir, fmt.Errorf("verify: %w", err)
		}
	}
	_, err = v.compile(ctx, dir, v.Tools.GXX, append(gxxFlags, "-x", "c++-header", "-o", "pch.h.gch", "pch.h")...)
	return dir, err
}

// runBatch writes a batch's sources into a temporary directory, compiles it with both compilers
// and runs the CPU check. Each item's result is filled in and reported once, when its CPU
// check is settled. shared holds the preludes (prepare).
func (v *Verifier) runBatch(ctx context.Context, shared string, batch []item, report func()) error {
	dir, err := os.MkdirTemp("", "smart-verify-")
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := v.ptx(ctx, shared, dir, batch); err != nil {
		return err
	}
	bin, live, err := v.compileCPU(ctx, shared, dir, batch)
	if err != nil {
		return err
	}
	for _, it := range batch {
		if it.result.CPU.Status != "" {
			report()
		}
	}
	if len(live) == 0 {
		return nil
	}
	return v.run(ctx, bin, live, report)
}

// ptx compiles the batch to PTX with clang, dropping the variants a compile error is blamed on
// and compiling the rest again, and checks that every kernel is in the PTX.
func (v *Verifier) ptx(ctx context.Context, shared, dir string, batch []item) error {
	live := batch
	for len(live) > 0 {
		src := buildBatch(kernelsOf(live), nil, 0)
		if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), []byte(src.kernels), 0o644); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		out, err := v.compile(ctx, dir, v.Tools.Clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
			"--cuda-gpu-arch=sm_80", "-O0", "-S", "-w", "-ferror-limit=0", "-include", filepath.Join(shared, "clang_prelude.h"), "-o", "kernels.ptx", "kernels.cu")
		if err != nil {
			return err
		}
		if out == nil {
			ptx, err := os.ReadFile(filepath.Join(dir, "kernels.ptx"))
			if err != nil {
				return fmt.Errorf("verify: clang wrote no PTX: %w", err)
			}
			for _, it := range live {
				it.result.PTX = Check{Status: smart.StatusOK}
				for _, l := range it.kernel.Launches {
					if !bytes.Contains(ptx, []byte(".entry "+mangled(it.kernel.Name, l.Kernel, it.kernel.Dtype))) {
						it.result.PTX = Check{Status: smart.StatusCompileError, Detail: "clang-14: no PTX entry for " + l.Kernel}
					}
				}
			}
			return nil
		}
		live = blame(live, src, out, "clang-14", func(it item, c Check) { it.result.PTX = c })
	}
	return nil
}

// compileCPU compiles the batch and the harness with g++ under the emulation prelude, dropping
// variants a compile error is blamed on. It returns the binary and the variants in it.
func (v *Verifier) compileCPU(ctx context.Context, shared, dir string, batch []item) (string, []item, error) {
	live := batch
	bin := filepath.Join(dir, "harness")
	for len(live) > 0 {
		var sts []*smart.Stencil
		for _, it := range live {
			sts = append(sts, it.stencil)
		}
		src := buildBatch(kernelsOf(live), sts, v.Seed)
		for name, text := range map[string]string{"kernels.cu": src.kernels, "harness.cpp": src.harness} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				return "", nil, fmt.Errorf("verify: %w", err)
			}
		}
		out, err := v.compile(ctx, dir, v.Tools.GXX, append(gxxFlags, "-fmax-errors=0", "-I", shared,
			"-include", filepath.Join(shared, "pch.h"), "-o", bin, "harness.cpp")...)
		if err != nil {
			return "", nil, err
		}
		if out == nil {
			return bin, live, nil
		}
		live = blame(live, src, out, "g++", func(it item, c Check) { it.result.CPU = c })
	}
	return "", nil, nil
}

// compile runs a compiler in dir. It returns nil output on success and the compiler's messages
// on a compile error; the error is for a compiler that could not run or a cancelled context.
func (v *Verifier) compile(ctx context.Context, dir, tool string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("verify: %w", ctx.Err())
	}
	if interrupted(cmd.ProcessState) {
		return nil, fmt.Errorf("verify: %s: %w", filepath.Base(tool), context.Canceled)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &exit):
		if len(out) == 0 {
			out = []byte(err.Error())
		}
		return out, nil
	}
	return nil, fmt.Errorf("verify: running %s: %w", filepath.Base(tool), err)
}

var diagnostic = regexp.MustCompile(`(?m)^(?:[^:\n]*/)?([\w.]+):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$`)

// blame attributes compile errors to the variants whose source lines they point at, records a
// compile error for each, and returns the variants not blamed. If no error points into a
// variant, all are blamed with the first message.
func blame(live []item, src batchSource, out []byte, compiler string, set func(item, Check)) []item {
	first := map[int]string{}
	msg := ""
	for _, m := range diagnostic.FindAllSubmatch(out, -1) {
		if msg == "" {
			msg = string(m[0])
		}
		if string(m[1]) != "kernels.cu" {
			continue
		}
		line, _ := strconv.Atoi(string(m[2]))
		if i := src.variantAt(line); i >= 0 {
			if _, ok := first[i]; !ok {
				first[i] = fmt.Sprintf("%s: %s", compiler, m[3])
			}
		}
	}
	if len(first) == 0 {
		if msg == "" {
			msg = firstLine(out)
		}
		for _, it := range live {
			set(it, Check{Status: smart.StatusCompileError, Detail: compiler + ": " + msg})
		}
		return nil
	}
	var rest []item
	for i, it := range live {
		if m, ok := first[i]; ok {
			set(it, Check{Status: smart.StatusCompileError, Detail: m})
		} else {
			rest = append(rest, it)
		}
	}
	return rest
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func kernelsOf(items []item) []*Kernel {
	ks := make([]*Kernel, len(items))
	for i, it := range items {
		ks[i] = it.kernel
	}
	return ks
}

// mangled is the Itanium-mangled name of kernel fn in namespace ns, as it appears in PTX.
func mangled(ns, fn string, dt smart.Dtype) string {
	t := "d"
	if dt == smart.Float32 {
		t = "f"
	}
	return fmt.Sprintf("_ZN%d%s%d%sEPK%sP%s", len(ns), ns, len(fn), fn, t, t)
}

// startGrace is the least time the harness gets to start, and to go from one variant to the next.
const startGrace = 10 * time.Second

// run runs the harness binary over the live variants. A variant that hangs past the timeout or
// takes the process down is recorded and the run resumes with the next one.
func (v *Verifier) run(ctx context.Context, bin string, live []item, report func()) error {
	timeout := v.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	for from := 0; from < len(live); {
		next, err := v.runFrom(ctx, bin, from, live, timeout, report)
		if err != nil {
			return err
		}
		from = next
	}
	return nil
}

// runFrom runs the harness from variant from and returns where to resume.
func (v *Verifier) runFrom(ctx context.Context, bin string, from int, live []item, timeout time.Duration, report func()) (int, error) {
	cmd := exec.Command(bin, strconv.Itoa(from))
	cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("verify: %w", err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("verify: starting the CPU check: %w", err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
	}()
	stop := func() {
		cmd.Process.Kill()
		for range lines {
		}
		cmd.Wait()
	}
	// The timeout is a variant's: between variants (and while the process starts) the harness
	// gets at least startGrace, or a timeout shorter than its start-up would restart it for ever.
	idle := max(timeout, startGrace)
	timer := time.NewTimer(idle)
	defer timer.Stop()
	reset := func(d time.Duration) {
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(d)
	}
	current, next := -1, from
	for {
		select {
		case <-ctx.Done():
			stop()
			return 0, fmt.Errorf("verify: %w", ctx.Err())
		case <-timer.C:
			stop()
			if current < 0 {
				return 0, fmt.Errorf("verify: the CPU check started no variant within %v of the last one (or of its start)", idle)
			}
			live[current].result.CPU = Check{Status: smart.StatusTimeout, Detail: fmt.Sprintf(
				"no result after %v: a hang (a __syncthreads not reached by every thread of a block?) or a far too slow kernel", timeout)}
			report()
			return current + 1, nil
		case line, ok := <-lines:
			if !ok {
				err := cmd.Wait()
				if ctx.Err() != nil || interrupted(cmd.ProcessState) {
					// Ctrl-C reaches the CPU run too, maybe before the context says so: an
					// interruption, not a kernel that took the process down.
					return 0, fmt.Errorf("verify: %w", context.Canceled)
				}
				if current < 0 {
					if next < len(live) && err == nil {
						// The harness ended without running the rest: should not happen.
						err = errors.New("the harness stopped early")
					}
					if next >= len(live) {
						return next, nil
					}
					current = next
				}
				detail := "the CPU run died"
				if err != nil {
					detail += ": " + err.Error()
				}
				if d := asanDetail(stderr.String()); d != "" {
					detail = d
				} else if tail := strings.TrimSpace(stderr.String()); tail != "" {
					detail += ": " + firstLine([]byte(tail))
				}
				live[current].result.CPU = Check{Status: smart.StatusLaunchError, Detail: detail}
				report()
				return current + 1, nil
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			id, err := strconv.Atoi(f[1])
			if err != nil || id < 0 || id >= len(live) {
				continue
			}
			switch f[0] {
			case "BEGIN":
				current = id
				reset(timeout)
			case "RESULT":
				live[id].result.CPU = parseResult(f[2:], &live[id].result.MaxRelErr)
				report()
				current, next = -1, id+1
				reset(idle)
			}
		}
	}
}

var (
	asanError  = regexp.MustCompile(`ERROR: AddressSanitizer: ([\w-]+)`)
	asanAccess = regexp.MustCompile(`(READ|WRITE) of size (\d+)`)
	asanFrame  = regexp.MustCompile(`#0 0x[0-9a-f]+ in (?:v\d+::)?(\w+)`)
)

// asanDetail summarises an AddressSanitizer report: what was accessed, where, and by which
// function. The guard zones around the grid are poisoned, so use-after-poison is an access
// outside the grid.
func asanDetail(stderr string) string {
	m := asanError.FindStringSubmatch(stderr)
	if m == nil {
		return ""
	}
	what := m[1]
	switch what {
	case "use-after-poison":
		what = "outside the grid"
	case "heap-buffer-overflow":
		what = "beyond an allocation (shared memory or a grid buffer)"
	case "stack-buffer-overflow":
		what = "beyond a thread's local array"
	}
	d := "AddressSanitizer: "
	if a := asanAccess.FindStringSubmatch(stderr); a != nil {
		d += fmt.Sprintf("%s of %s bytes ", strings.ToLower(a[1]), a[2])
	}
	d += what
	if f := asanFrame.FindStringSubmatch(stderr); f != nil {
		d += " in " + f[1]
	}
	return d
}

// parseResult reads the fields after "RESULT <id>".
func parseResult(f []string, maxRel *RelErr) Check {
	if len(f) == 0 {
		return Check{Status: smart.StatusLaunchError, Detail: "the harness printed an empty result"}
	}
	switch f[0] {
	case "overflow":
		// The stencil's values leave the element type's range (no kernel can match the
		// reference), or the magnitudes of its terms leave float64's (no error can be measured
		// against them): the variant cannot be verified; the kernel is not to blame.
		return Check{Status: smart.StatusInvalid, Detail: strings.Join(f[1:], " ")}
	case "ok", "wrong":
		if len(f) > 1 {
			rel, _ := strconv.ParseFloat(f[1], 64)
			*maxRel = RelErr(rel)
		}
		if f[0] == "ok" {
			return Check{Status: smart.StatusOK}
		}
		detail := ""
		if len(f) > 2 {
			detail = strings.Join(f[2:], " ")
		}
		return Check{Status: smart.StatusWrongResult, Detail: detail}
	}
	return Check{Status: smart.StatusLaunchError, Detail: strings.Join(f[1:], " ")}
}

// interrupted reports whether a child process ended by SIGINT, which a terminal's Ctrl-C sends to
// the whole process group: a compiler or CPU run stopped by the user, not one that failed.
func interrupted(ps *os.ProcessState) bool {
	if ps == nil {
		return false // it never ran
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGINT
}
