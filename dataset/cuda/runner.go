package cuda

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"smart"
	"smart/internal/atomicfile"
)

//go:embed cxx/gpu_harness.h
var gpuHarness string

//go:embed cxx/emulation_runtime.h
var emulationRuntime string

// Compiler turns a benchmark translation unit into an executable: nvcc for a GPU, or g++ under
// the CUDA-emulation preludes so that the runner itself is tested without one.
type Compiler struct {
	Path string   // the compiler
	Args []string // flags before "-o BINARY SOURCE"
	// Headers are written into the build directory before compiling (name -> text).
	Headers map[string]string
}

// NVCC compiles for the GPU of compute capability arch (e.g. "sm_90").
func NVCC(path, arch string) Compiler {
	return Compiler{Path: path, Args: []string{"-O3", "-std=c++17", "-arch=" + arch, "-lineinfo"}}
}

// Emulation compiles with g++ under smart's CUDA-emulation prelude and an emulated runtime: the
// binary runs the benchmark harness on the CPU. Times it reports are CPU times of the emulation,
// meaningless as GPU figures; it exists to test the runner.
func Emulation(gxx, buildDir string) Compiler {
	return Compiler{Path: gxx,
		Args: []string{"-std=c++20", "-O1", "-pthread", "-x", "c++",
			"-include", filepath.Join(buildDir, "emulation.h"), "-include", filepath.Join(buildDir, "emulation_runtime.h")},
		Headers: map[string]string{"emulation.h": emulationPrelude, "emulation_runtime.h": emulationRuntime}}
}

// Runner measures generated kernels on an NVIDIA GPU with nvcc and CUDA events. It is the
// measuring instrument behind `smart bench --backend cuda`: a smart.BatchEvaluator whose rows
// are Source measured. Many variants of one stencil go into one translation unit; translation
// units compile in parallel (with a cache keyed by the source's hash) while compiled ones run,
// one at a time, on the GPU.
type Runner struct {
	Compiler Compiler // NVCC for the device's compute capability
	CacheDir string   // build cache: sources and binaries, named by the source's hash
	Device   int      // CUDA device index
	GPU      string   // catalogue name recorded in rows
	Name     string   // the device's own name, recorded in rows

	Reps    int           // timed runs per variant (at least 5)
	Steps   int           // time steps per run; time per step is a run's time over Steps
	PerTU   int           // variants per translation unit
	Jobs    int           // parallel nvcc processes
	Timeout time.Duration // a variant whose run (Steps steps) gives no sign for this long is killed: a hang
	// CompileTimeout bounds one compiler run (a translation unit, or a variant alone when its
	// unit failed): past it the compiler is killed and its variants fail to compile (0 means
	// 10 minutes).
	CompileTimeout time.Duration
	Seed           uint64 // seed of the random input grid
	// SlowFactor: a variant whose first timed run is over SlowFactor times the fastest run of
	// its stencil so far is timed twice, not Reps times (0 means 10; negative: never). Its row
	// says so in Reps.
	SlowFactor float64

	// generate makes a variant's kernel; nil means Generate. Tests plant faults through it.
	generate func(st *smart.Stencil, t smart.Tuning) (*Kernel, error)

	mu     sync.Mutex
	copyBW float64
	best   map[string]float64 // fastest run (ms, all Steps) per stencil ID, for SlowFactor
}

// FindNVCC looks for nvcc on PATH and in /usr/local/cuda/bin.
func FindNVCC() (string, error) {
	if p, err := exec.LookPath("nvcc"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/local/cuda/bin/nvcc"); err == nil {
		return "/usr/local/cuda/bin/nvcc", nil
	}
	return "", errors.New("nvcc not found on PATH or in /usr/local/cuda/bin: install the CUDA toolkit to measure on a GPU")
}

// ArchOf turns a compute capability such as "9.0" into nvcc's "sm_90".
func ArchOf(cc string) (string, error) {
	major, minor, ok := strings.Cut(cc, ".")
	if !ok || major == "" || minor == "" {
		return "", fmt.Errorf("compute capability %q is not of the form major.minor", cc)
	}
	return "sm_" + major + minor, nil
}

// CopyBandwidth is the device-to-device copy bandwidth (GB/s, bytes read plus written) the last
// run measured, or 0 before the first.
func (r *Runner) CopyBandwidth() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.copyBW
}

func (r *Runner) defaults() {
	if r.Reps < 5 {
		r.Reps = 5
	}
	if r.Steps <= 0 {
		r.Steps = 8
	}
	if r.PerTU <= 0 {
		r.PerTU = 24
	}
	if r.Jobs <= 0 {
		r.Jobs = runtime.NumCPU()
	}
	if r.Timeout <= 0 {
		r.Timeout = 30 * time.Second
	}
	if r.SlowFactor == 0 {
		r.SlowFactor = 10
	}
	if r.CompileTimeout <= 0 {
		r.CompileTimeout = 10 * time.Minute
	}
}

// BatchSize is the number of variants a batch needs for every parallel nvcc job to build a
// full translation unit.
func (r *Runner) BatchSize() int {
	r.defaults()
	return r.PerTU * r.Jobs
}

// Evaluate measures one variant.
func (r *Runner) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	ms, err := r.EvaluateBatch(ctx, []smart.Query{q})
	if err != nil {
		return smart.Measurement{}, err
	}
	return ms[0], nil
}

// unit is one translation unit: variants of one stencil.
type unit struct {
	st       *smart.Stencil // the stencil with the runner's Steps
	kernels  []*Kernel
	rows     []int // index into the batch of each kernel
	source   string
	binary   string
	compiled error
}

// EvaluateBatch measures the queries' variants and returns one row per query, in order. Settings
// that cannot be generated are StatusInvalid rows; compile failures, launch failures, wrong
// results and hangs are rows with that status. The error is for the runner itself (a cancelled
// context, a build directory it cannot write, a device that cannot hold the grid). A batch cut
// short by such an error returns its rows too: the variants measured before it have their
// status, the one in flight and those not reached have none.
func (r *Runner) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	r.defaults()
	out := make([]smart.Measurement, len(qs))
	var units []*unit
	byStencil := map[string]*unit{}
	for i, q := range qs {
		m := &out[i]
		*m = smart.Measurement{GPU: r.GPU, Device: r.Name, OC: q.OC, Setting: q.Setting, Source: smart.Measured}
		if q.Stencil == nil {
			m.Status, m.Error = smart.StatusInvalid, "the CUDA runner measures stencils; this query has none"
			continue
		}
		st := *q.Stencil
		st.Steps = r.Steps
		m.StencilID = q.Stencil.ID()
		t, err := smart.DecodeTuning(st.Dims, q.OC, q.Setting)
		var k *Kernel
		if err == nil {
			gen := r.generate
			if gen == nil {
				gen = Generate
			}
			k, err = gen(&st, t)
		}
		if err != nil {
			m.Status, m.Error = smart.StatusInvalid, err.Error()
			continue
		}
		u := byStencil[m.StencilID]
		if u == nil || len(u.kernels) == r.PerTU {
			u = &unit{st: &st}
			units = append(units, u)
			byStencil[m.StencilID] = u
		}
		u.kernels = append(u.kernels, k)
		u.rows = append(u.rows, i)
	}
	if err := os.MkdirAll(r.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("build cache: %w", err)
	}
	headers := map[string]string{"gpu_harness.h": gpuHarness}
	for name, text := range r.Compiler.Headers {
		headers[name] = text
	}
	for name, text := range headers {
		if err := writeIfChanged(filepath.Join(r.CacheDir, name), text); err != nil {
			return nil, fmt.Errorf("build cache: %w", err)
		}
	}

	// Compile in parallel; run each unit as soon as it is built, one at a time on the GPU.
	ctx, cancel := context.WithCancel(ctx)
	built := make(chan *unit)
	sem := make(chan struct{}, r.Jobs)
	var wg sync.WaitGroup
	defer func() {
		// No compile outlives the batch: a cancelled one must not write into the build cache
		// after the caller has moved on.
		cancel()
		wg.Wait()
	}()
	for _, u := range units {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			r.build(ctx, u)
			<-sem
			select {
			case built <- u:
			case <-ctx.Done():
			}
		}()
	}
	go func() { wg.Wait(); close(built) }()
	for range units {
		var u *unit
		select {
		case u = <-built:
		case <-ctx.Done():
			return out, ctx.Err()
		}
		if err := r.runUnit(ctx, u, out); err != nil {
			return out, err
		}
	}
	return out, ctx.Err()
}

func writeIfChanged(path, text string) error {
	if b, err := os.ReadFile(path); err == nil && string(b) == text {
		return nil
	}
	return atomicfile.Write(path, []byte(text))
}

// program writes a translation unit holding kernels of stencil st and a main that checks and
// times the variants named on its command line.
func program(st *smart.Stencil, ks []*Kernel) string {
	var b strings.Builder
	b.WriteString(Preamble)
	b.WriteString("#include \"gpu_harness.h\"\n")
	for _, k := range ks {
		b.WriteString(k.Source)
	}
	real := "double"
	if st.Dtype == smart.Float32 {
		real = "float"
	}
	fmt.Fprintf(&b, "\nint main(int argc, char **argv) {\n")
	fmt.Fprintf(&b, "  if (argc < 5) { std::fprintf(stderr, \"usage: %%s reps seed slow best_ms variant...\\n\", argv[0]); return 2; }\n")
	fmt.Fprintf(&b, "  static const smart_bench::Point pts[] = {")
	for i, p := range st.Points {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{%d, %d, %d, %s}", p.Off[0], p.Off[1], p.Off[2], strconv.FormatFloat(p.Coef, 'x', -1, 64))
	}
	b.WriteString("};\n")
	fmt.Fprintf(&b, "  const smart_bench::Case c{%d, %d, %d, %d, %d, %d, pts, %d, %s};\n",
		st.Dims, st.Grid[0], st.Grid[1], st.Grid[2], st.Order(), st.Steps, len(st.Points), strconv.FormatFloat(Tolerance(st), 'g', -1, 64))
	fmt.Fprintf(&b, "  smart_bench::Bench<%s> bench(c, std::atoi(argv[1]), std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]), std::atof(argv[4]));\n", real)
	b.WriteString("  if (!bench.setup()) return 3;\n")
	fmt.Fprintf(&b, "  %s *(*runs[])(%s *, %s *, cudaStream_t) = {", real, real, real)
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Name + "::run")
	}
	b.WriteString("};\n")
	b.WriteString("  for (int i = 5; i < argc; ++i) {\n")
	b.WriteString("    const int id = std::atoi(argv[i]);\n")
	fmt.Fprintf(&b, "    if (id < 0 || id >= %d) return 2;\n", len(ks))
	b.WriteString("    if (!bench.variant(id, runs[id])) return 4;\n")
	b.WriteString("  }\n  return 0;\n}\n")
	return b.String()
}

// build compiles u (from the cache when the same source was built before). When the whole unit
// fails to compile, each variant is compiled on its own so only the broken ones fail.
func (r *Runner) build(ctx context.Context, u *unit) {
	u.source = program(u.st, u.kernels)
	u.binary, u.compiled = r.compile(ctx, u.source)
}

func (r *Runner) compile(ctx context.Context, source string) (string, error) {
	c := r.Compiler
	h := sha256.New()
	for _, part := range append([]string{source, c.Path}, c.Args...) {
		h.Write([]byte(part + "\x00"))
	}
	for _, text := range c.Headers {
		h.Write([]byte(text + "\x00"))
	}
	h.Write([]byte(gpuHarness))
	key := hex.EncodeToString(h.Sum(nil)[:12])
	bin := filepath.Join(r.CacheDir, key+".bin")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	src := filepath.Join(r.CacheDir, key+".cu")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", err
	}
	tmp := bin + ".tmp"
	args := append(append([]string(nil), c.Args...), "-o", tmp, src)
	cctx, cancel := context.WithTimeout(ctx, r.CompileTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.Path, args...)
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	// A killed compiler driver leaves its children (cicc, ptxas) holding the output pipe.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() == nil && cctx.Err() != nil {
			return "", fmt.Errorf("%s gave no result within %s: killed (a compiler hang, or a unit too large to build in time)", filepath.Base(c.Path), r.CompileTimeout)
		}
		return "", fmt.Errorf("%s: %v: %s", filepath.Base(c.Path), err, firstLines(msg.String(), 6))
	}
	return bin, os.Rename(tmp, bin)
}

var resultLine = regexp.MustCompile(`^RESULT (\d+) (\w+) ?(.*)$`)

// runUnit runs u's binary over its variants, restarting it after a crash or a hang so one bad
// variant costs only itself, and fills the rows.
func (r *Runner) runUnit(ctx context.Context, u *unit, out []smart.Measurement) error {
	if err := ctx.Err(); err != nil {
		return err // a compile the cancel cut short is no compile error
	}
	if u.compiled != nil {
		if len(u.kernels) > 1 {
			// Attribute the failure: compile each variant alone.
			for i, k := range u.kernels {
				sub := &unit{st: u.st, kernels: []*Kernel{k}, rows: []int{u.rows[i]}}
				r.build(ctx, sub)
				if err := r.runUnit(ctx, sub, out); err != nil {
					return err
				}
			}
			return ctx.Err()
		}
		m := &out[u.rows[0]]
		m.Status, m.Error = smart.StatusCompileError, u.compiled.Error()
		return nil
	}
	pending := make([]int, len(u.kernels))
	for i := range pending {
		pending[i] = i
	}
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		done, err := r.runOnce(ctx, u, pending, out)
		if err != nil {
			return err
		}
		if done == 0 {
			// Nothing finished: the binary cannot even set up on this device.
			return fmt.Errorf("benchmark of stencil %s cannot start on the GPU", u.st.ID())
		}
		pending = pending[done:]
	}
	return nil
}

// runOnce starts the binary over the pending variants and returns how many of them got a row.
func (r *Runner) runOnce(ctx context.Context, u *unit, pending []int, out []smart.Measurement) (int, error) {
	r.mu.Lock()
	best := r.best[u.st.ID()]
	r.mu.Unlock()
	args := []string{strconv.Itoa(r.Reps), strconv.FormatUint(r.Seed, 10), strconv.FormatFloat(max(r.SlowFactor, 0), 'g', -1, 64), strconv.FormatFloat(best, 'g', -1, 64)}
	for _, id := range pending {
		args = append(args, strconv.Itoa(id))
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, u.binary, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("CUDA_VISIBLE_DEVICES=%d", r.Device))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start benchmark: %w", err)
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	done, current, setupDone := 0, -1, false
	timer := time.NewTimer(r.Timeout + 60*time.Second) // setup fills the grid and runs the reference
	defer timer.Stop()
	var hung bool
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			timer.Reset(r.Timeout)
			switch {
			case strings.HasPrefix(line, "COPYBW "):
				if v, err := strconv.ParseFloat(strings.TrimPrefix(line, "COPYBW "), 64); err == nil {
					r.mu.Lock()
					r.copyBW = v
					r.mu.Unlock()
				}
			case strings.HasPrefix(line, "BEGIN "):
				setupDone = true
				current, _ = strconv.Atoi(strings.TrimPrefix(line, "BEGIN "))
			default:
				if mm := resultLine.FindStringSubmatch(line); mm != nil {
					id, _ := strconv.Atoi(mm[1])
					if id >= 0 && id < len(u.rows) {
						r.fill(&out[u.rows[id]], u.st, mm[2], mm[3])
						done++
					}
					current = -1
				}
			}
		case <-timer.C:
			hung = true
			cancel()
		}
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return done, ctx.Err()
	}
	if current >= 0 {
		// The variant in flight crashed the process or hung.
		m := &out[u.rows[current]]
		if hung {
			m.Status, m.Error = smart.StatusTimeout, fmt.Sprintf("a run of %d steps gave no sign for %s: killed (a hang, e.g. a barrier in divergent code)", u.st.Steps, r.Timeout)
		} else {
			m.Status, m.Error = smart.StatusLaunchError, fmt.Sprintf("benchmark process died: %v: %s", werr, firstLines(stderr.String(), 3))
		}
		done++
	} else if !setupDone && done == 0 {
		return 0, fmt.Errorf("benchmark of stencil %s: %v: %s", u.st.ID(), werr, firstLines(stderr.String(), 3))
	}
	return done, nil
}

// fill turns a RESULT line into a row.
func (r *Runner) fill(m *smart.Measurement, st *smart.Stencil, status, rest string) {
	f := strings.Fields(rest)
	switch status {
	case "ok":
		var times []float64
		for _, s := range f[1:] {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				times = append(times, v/float64(st.Steps))
			}
		}
		if len(times) == 0 {
			m.Status, m.Error = smart.StatusLaunchError, "no timed runs"
			return
		}
		m.Status = smart.StatusOK
		setStats(m, times)
		r.mu.Lock()
		if r.best == nil {
			r.best = map[string]float64{}
		}
		id, run := st.ID(), m.MinMs*float64(st.Steps)
		if b, ok := r.best[id]; !ok || run < b {
			r.best[id] = run
		}
		r.mu.Unlock()
	case "wrong":
		m.Status = smart.StatusWrongResult
		m.Error = fmt.Sprintf("max relative error %s, %s unwritten points (tolerance %g)", at(f, 0), at(f, 1), Tolerance(st))
	default:
		m.Status, m.Error = smart.StatusLaunchError, rest
	}
}

func at(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return "?"
}

// setStats stores the median, extremes, mean and standard deviation of per-step times.
func setStats(m *smart.Measurement, times []float64) {
	s := append([]float64(nil), times...)
	sort.Float64s(s)
	n := len(s)
	m.Reps = n
	m.MinMs, m.MaxMs = s[0], s[n-1]
	if n%2 == 1 {
		m.TimeMs = s[n/2]
	} else {
		m.TimeMs = (s[n/2-1] + s[n/2]) / 2
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	m.MeanMs = sum / float64(n)
	v := 0.0
	for _, x := range s {
		v += (x - m.MeanMs) * (x - m.MeanMs)
	}
	if n > 1 {
		m.StdMs = math.Sqrt(v / float64(n-1))
	}
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
