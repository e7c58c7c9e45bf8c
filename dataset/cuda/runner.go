package cuda

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"smart"
	"smart/internal/atomicfile"
)

//go:embed cxx/gpu_harness.h
var gpuHarness string

// Compiler builds the benchmark harness (an executable) and modules of generated kernels that
// the harness loads: nvcc for a GPU (cubins through the driver API), or g++ under the
// CUDA-emulation preludes (shared objects through dlopen) so that the runner itself is tested
// without one.
type Compiler struct {
	Path string // the compiler
	// Args are the flags that build a module, before "-o MODULE SOURCE".
	Args []string
	// HarnessArgs are the flags that build the harness, before "-o BINARY SOURCE"; HarnessLibs
	// come after the source.
	HarnessArgs, HarnessLibs []string
	Ext                      string // a module's file name extension
	// Headers are written into the build directory before compiling (name -> text).
	Headers map[string]string
}

// NVCC compiles for the GPU of compute capability arch (e.g. "sm_90"): modules are cubins (device
// code only), the harness links the driver API.
func NVCC(path, arch string) Compiler {
	common := []string{"-O3", "-std=c++17", "-arch=" + arch, "-lineinfo"}
	return Compiler{Path: path, Args: append([]string{"-cubin"}, common...), HarnessArgs: common,
		HarnessLibs: []string{"-lcuda"}, Ext: ".cubin"}
}

// Runner measures generated kernels on an NVIDIA GPU with nvcc and CUDA events. It is the
// measuring instrument behind `smart bench --backend cuda`: a smart.BatchEvaluator whose rows
// are Source measured.
//
// Variants of one stencil are compiled together into modules (translation units of device code
// only), in parallel and ahead of the GPU (Prefetch), with a cache keyed by the source's hash,
// the compiler and its flags. A compile under way when the runner is closed finishes into the
// cache on its own unless the last batch was cancelled (Close), so a call that stops on a time
// limit leaves the next call its modules built.
// One harness process per stencil holds the CUDA context, the grids and the reference result,
// loads each module as it is built and checks and times its variants one at a time; a crash or a
// hang costs its variant, and the next variant gets a new process. Variants far slower than
// their stencil's fastest so far are cut short (Cut). Close ends the processes and the compiles.
type Runner struct {
	Compiler Compiler // NVCC for the device's compute capability
	CacheDir string   // build cache: sources and modules, named by the source's hash
	Device   int      // CUDA device index
	GPU      string   // catalogue name recorded in rows
	Name     string   // the device's own name, recorded in rows

	Reps  int // timed samples of a variant measured in full (at least 5)
	Steps int // time steps per run; time per step is a run's time over Steps
	// PerTU and UnitBytes bound a translation unit: at most PerTU variants (0 means 24) and
	// UnitBytes of kernel source (0 means 64 KiB), so heavy variants (fused steps of a large
	// stencil) compile in small units on many cores rather than stall the GPU behind one.
	PerTU, UnitBytes int
	Jobs             int           // parallel compiler processes
	Timeout          time.Duration // a variant whose run (Steps steps) gives no sign for this long is killed: a hang
	// CompileTimeout bounds one compiler run (a translation unit, or a variant alone when its
	// unit failed): past it the compiler is killed and its variants fail to compile (0 means
	// 10 minutes).
	// A compile left to finish after Close is bounded by it too.
	CompileTimeout time.Duration
	Seed           uint64 // seed of the random input grid
	Cut            Cut    // which variants are timed less
	// Sample is the least length of a timed sample of a variant near its stencil's best: the
	// mean of as many runs as fill it, since short runs are noisy (0 means 10 ms).
	Sample time.Duration

	// generate makes a variant's kernel; nil means Generate. Tests plant faults through it.
	generate func(st *smart.Stencil, t smart.Tuning) (*Kernel, error)

	mu     sync.Mutex
	copyBW float64
	best   map[string]float64 // fastest median ms per step, by stencil ID and by "ID|OC"
	builds map[string]*build  // by output file
	sem    chan struct{}      // compiler slots
	// turn closes when the compile started last has its slot: each compile waits for the one
	// before it, so that slots go in the order compiles were asked for (Go's scheduler would
	// otherwise let a batch prefetched later overtake the one the GPU needs first).
	turn   chan struct{}
	bg     context.Context // compiles outlive a batch (Prefetch), not the runner
	stopBG context.CancelCauseFunc
	// cancelled says the last batch ended on its context's cancellation (an interrupt): Close
	// then ends the compiles under way rather than leave them to finish.
	cancelled bool
	wg        sync.WaitGroup
	servers   []*server // live harness processes, the most recently used last
	// Where the time went, for Times: compiler runs and their wall time, harness processes
	// started, time spent running variants and waiting for their modules.
	compiles, starts      int
	compileT, gpuT, waitT time.Duration
}

// Times reports where the runner's time went since it was made: the compiler runs and their
// summed wall time (each uses one core), the time the GPU loop spent with the harness (start-ups
// included) and waiting for modules to be built, and the harness processes started.
func (r *Runner) Times() (compile, gpu, wait time.Duration, compiles, starts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compileT, r.gpuT, r.waitT, r.compiles, r.starts
}

// Cut is the protocol's rule for timing slow variants less. A variant is cut when its time per
// step is over Stencil times its stencil's fastest so far and over OC times its OC's fastest so
// far: it is stopped after its first launch (unchecked) when that launch is already over, or
// otherwise timed by its checked run alone. So a cut variant is never its stencil's or its OC's
// best: the labels learnt from a data set are those of the full protocol. Variants within Near
// times the stencil's fastest get samples of Runner.Sample.
type Cut struct {
	Stencil float64 // 0 means 3; negative: never cut
	OC      float64 // 0 means 1.1
	Near    float64 // 0 means 1.5
}

// Thresholds returns the ms per step over which a variant is cut (0: none) and under which its
// samples are long (0: always), given its stencil's and its OC's fastest so far (0: unknown).
func (c Cut) Thresholds(stencilBest, ocBest float64) (stop, near float64) {
	if c.Stencil == 0 {
		c.Stencil = 3
	}
	if c.OC == 0 {
		c.OC = 1.1
	}
	if c.Near == 0 {
		c.Near = 1.5
	}
	if stencilBest > 0 {
		near = c.Near * stencilBest
	}
	if c.Stencil > 0 && stencilBest > 0 && ocBest > 0 {
		stop = max(c.Stencil*stencilBest, c.OC*ocBest)
	}
	return stop, near
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
// harness process measured, or 0 before the first.
func (r *Runner) CopyBandwidth() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.copyBW
}

func (r *Runner) defaults() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Reps < 5 {
		r.Reps = 5
	}
	if r.Steps <= 0 {
		r.Steps = 8
	}
	if r.PerTU <= 0 {
		r.PerTU = 24
	}
	if r.UnitBytes <= 0 {
		r.UnitBytes = 64 << 10
	}
	if r.Jobs <= 0 {
		r.Jobs = runtime.NumCPU()
	}
	if r.Timeout <= 0 {
		r.Timeout = 30 * time.Second
	}
	if r.CompileTimeout <= 0 {
		r.CompileTimeout = 10 * time.Minute
	}
	if r.Sample <= 0 {
		r.Sample = 10 * time.Millisecond
	}
	if r.sem == nil {
		r.sem = make(chan struct{}, r.Jobs)
		r.turn = make(chan struct{})
		close(r.turn)
		r.builds = map[string]*build{}
		r.bg, r.stopBG = context.WithCancelCause(context.Background())
	}
}

// BatchSize is the number of variants a batch needs for every parallel compiler job to build a
// full translation unit.
func (r *Runner) BatchSize() int {
	r.defaults()
	return r.PerTU * r.Jobs
}

// Close ends the harness processes and drops the compiles not yet begun. Those under way go on
// to finish into the build cache (each within CompileTimeout), so that the next call, here or in
// another process, finds them built: a call that stops on its time limit while a module
// compiles would otherwise compile it again the next time and stop again. After a batch that
// its context's cancellation cut off (an interrupt) they are ended too. The runner can be used
// again after it.
func (r *Runner) Close() error {
	r.mu.Lock()
	servers := r.servers
	r.servers = nil
	stop, cause := r.stopBG, errLeft
	if r.cancelled {
		cause = context.Canceled
	}
	r.sem, r.stopBG, r.cancelled = nil, nil, false
	r.mu.Unlock()
	for _, s := range servers {
		s.close()
	}
	if stop != nil {
		stop(cause)
	}
	r.wg.Wait()
	return nil
}

// errLeft is the end of a compile that the runner's Close left to finish into the cache.
var errLeft = errors.New("the runner was closed; the compile goes on into the build cache")

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
	st      *smart.Stencil // the stencil with the runner's Steps
	kernels []*Kernel
	rows    []int // index into the batch of each kernel
	source  string
	build   *build
}

// build is one compiler run; done closes when path (the output) exists or err says why not.
type build struct {
	done chan struct{}
	path string
	err  error
}

// Prefetch starts compiling the variants of a batch that EvaluateBatch will be given later, so the
// compilers work ahead of the GPU; compiles start in the order asked, the harness before any
// module, since the first batch needs it. It returns at once; the compiles run until done or
// Close.
func (r *Runner) Prefetch(qs []smart.Query) {
	r.defaults()
	units, _ := r.units(qs)
	if len(units) > 0 && r.writeHeaders() == nil {
		r.startBuild(harnessSource, true)
		for _, u := range units {
			r.startBuild(u.source, false)
		}
	}
}

// Ahead is as many variants as fill a module for each compiler: handed that many beyond the
// batch it measures, no compiler waits for work while the GPU measures.
func (r *Runner) Ahead() int {
	r.defaults()
	return r.Jobs * r.PerTU
}

// units generates the queries' kernels and groups them into translation units; out holds a row
// per query, with the status of those that cannot be generated.
func (r *Runner) units(qs []smart.Query) ([]*unit, []smart.Measurement) {
	out := make([]smart.Measurement, len(qs))
	var units []*unit
	open := map[string]*unit{}
	size := map[*unit]int{}
	constant := map[*unit]int{}
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
		u := open[m.StencilID]
		if u == nil || len(u.kernels) == r.PerTU || size[u]+len(k.Source) > r.UnitBytes ||
			constant[u]+k.ConstantBytes > MaxConstantBytes {
			u = &unit{st: &st}
			units = append(units, u)
			open[m.StencilID] = u
		}
		u.kernels = append(u.kernels, k)
		u.rows = append(u.rows, i)
		size[u] += len(k.Source)
		constant[u] += k.ConstantBytes
	}
	for _, u := range units {
		u.source = moduleSource(u.kernels)
	}
	return units, out
}

// moduleSource is the translation unit of a module: the kernels and, under the emulation, the
// function through which the harness launches them (inside the module, whose emulated thread
// indices are its own).
func moduleSource(ks []*Kernel) string {
	var b strings.Builder
	b.WriteString(Preamble)
	for _, k := range ks {
		b.WriteString(k.Source)
	}
	b.WriteString(`#ifdef SMART_EMULATION
extern "C" void smart_emu_unit_launch(void (*k)(const void *, void *), dim3 grid, dim3 block, size_t shared, const void *in, void *out) {
  ::smart_emu::launch(grid, block, shared, [&] { k(in, out); });
}
#endif
`)
	return b.String()
}

// harnessSource is the harness program; it serves any stencil, so it is built once.
const harnessSource = Preamble + "#include \"gpu_harness.h\"\nint main() { return smart_bench::main_loop(); }\n"

func (r *Runner) writeHeaders() error {
	if err := os.MkdirAll(r.CacheDir, 0o755); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	headers := map[string]string{"gpu_harness.h": gpuHarness}
	for name, text := range r.Compiler.Headers {
		headers[name] = text
	}
	for name, text := range headers {
		if err := writeIfChanged(filepath.Join(r.CacheDir, name), text); err != nil {
			return fmt.Errorf("build cache: %w", err)
		}
	}
	return nil
}

// EvaluateBatch measures the queries' variants and returns one row per query, in order. Settings
// that cannot be generated are StatusInvalid rows; compile failures, launch failures, wrong
// results and hangs are rows with that status. The error is for the runner itself (a cancelled
// context, a build directory it cannot write, a device that cannot hold the grid). A batch cut
// short by such an error returns its rows too: the variants measured before it have their
// status, the one in flight and those not reached have none.
func (r *Runner) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	r.defaults()
	defer func() {
		r.mu.Lock()
		r.cancelled = errors.Is(ctx.Err(), context.Canceled)
		r.mu.Unlock()
	}()
	units, out := r.units(qs)
	if len(units) == 0 {
		return out, ctx.Err()
	}
	if err := r.writeHeaders(); err != nil {
		return nil, err
	}
	harness := r.startBuild(harnessSource, true)
	for _, u := range units {
		u.build = r.startBuild(u.source, false)
	}
	select {
	case <-harness.done:
	case <-ctx.Done():
		return out, ctx.Err()
	}
	if harness.err != nil {
		return out, fmt.Errorf("building the benchmark harness: %w", harness.err)
	}
	// Run each unit as soon as it is built, one at a time on the GPU.
	built := make(chan *unit, len(units))
	for _, u := range units {
		go func() {
			<-u.build.done
			built <- u
		}()
	}
	for range units {
		var u *unit
		waited := time.Now()
		select {
		case u = <-built:
		case <-ctx.Done():
			return out, ctx.Err()
		}
		ran := time.Now()
		err := r.runUnit(ctx, harness.path, u, out)
		r.mu.Lock()
		r.waitT += ran.Sub(waited)
		r.gpuT += time.Since(ran)
		r.mu.Unlock()
		if err != nil {
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

// startBuild compiles source (a module, or the harness) unless the cache holds it or a compile of
// it is under way, in the order asked, at most Jobs at a time.
func (r *Runner) startBuild(source string, harness bool) *build {
	c := r.Compiler
	args, libs, ext := c.Args, []string(nil), c.Ext
	if harness {
		args, libs, ext = c.HarnessArgs, c.HarnessLibs, ".bin"
	}
	h := sha256.New()
	for _, part := range append(append([]string{source, c.Path}, args...), libs...) {
		h.Write([]byte(part + "\x00"))
	}
	names := make([]string, 0, len(c.Headers))
	for name := range c.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		h.Write([]byte(c.Headers[name] + "\x00"))
	}
	if harness {
		h.Write([]byte(gpuHarness))
	}
	key := hex.EncodeToString(h.Sum(nil)[:12])
	out := filepath.Join(r.CacheDir, key+ext)

	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.builds[out]; b != nil {
		return b
	}
	b := &build{done: make(chan struct{}), path: out}
	r.builds[out] = b
	if cached(out) {
		close(b.done)
		return b
	}
	sem, bg, prev, turn := r.sem, r.bg, r.turn, make(chan struct{})
	r.turn = turn
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(b.done)
		slot := false
		select {
		case <-prev:
			select {
			case sem <- struct{}{}:
				slot = true
			case <-bg.Done():
			}
		case <-bg.Done():
		}
		close(turn)
		if !slot {
			b.err = bg.Err()
			return
		}
		began := time.Now()
		b.err = r.compile(bg, source, out, args, libs)
		<-sem
		r.mu.Lock()
		r.compiles++
		r.compileT += time.Since(began)
		r.mu.Unlock()
	}()
	return b
}

// compile builds source into out. Other processes may share the cache (the shards of a run on
// nodes that share a home directory, or a call after one that left its compiles to finish) and
// compile the same source at once: the source is replaced whole and the output is written under
// a name of this compile's own, then renamed into place, so that no compile reads or renames
// another's half-written file; a compile that sees another's output in place ends and takes it.
//
// The compiler runs under timeout(1), in a process group of its own, through a shell that does
// the rename, with its messages in a file rather than a pipe: so a compile the runner leaves
// (errLeft) still lands in the cache, within CompileTimeout, after the runner's process exits,
// and one the runner ends takes the compiler driver's children (cicc, ptxas) with it.
func (r *Runner) compile(ctx context.Context, source, out string, args, libs []string) error {
	if cached(out) { // finished meanwhile by another process
		return nil
	}
	src := strings.TrimSuffix(out, filepath.Ext(out)) + ".cu"
	if err := atomicfile.Write(src, []byte(source)); err != nil {
		return err
	}
	msgs, err := os.CreateTemp(r.CacheDir, filepath.Base(out)+".*.log")
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	defer os.Remove(msgs.Name())
	defer msgs.Close()
	// The output's temporary is removed where the compile ends without it (a compile left
	// behind still writes it).
	tmp := out + "." + rand.Text() + ".tmp"
	argv := []string{"-k", "5s", strconv.FormatFloat(r.CompileTimeout.Seconds(), 'f', -1, 64) + "s",
		"sh", "-c", renameAfter, tmp, out, r.Compiler.Path}
	argv = append(append(append(argv, args...), "-o", tmp, src), libs...)
	cmd := exec.Command("timeout", argv...)
	cmd.Stdout, cmd.Stderr = msgs, msgs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s under timeout (GNU coreutils): %w", filepath.Base(r.Compiler.Path), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	end := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		os.Remove(tmp)
	}
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case err := <-exited:
			if err == nil {
				return nil
			}
			os.Remove(tmp) // a compile killed by timeout leaves it
			if time.Since(began) >= r.CompileTimeout {
				return fmt.Errorf("%s gave no result within %s: killed (a compiler hang, or a unit too large to build in time)", filepath.Base(r.Compiler.Path), r.CompileTimeout)
			}
			msg, _ := os.ReadFile(msgs.Name())
			return fmt.Errorf("%s: %w: %s", filepath.Base(r.Compiler.Path), err, firstLines(string(msg), 6))
		case <-poll.C:
			if cached(out) {
				end()
				return nil
			}
		case <-ctx.Done():
			if context.Cause(ctx) == errLeft {
				return errLeft
			}
			end()
			return ctx.Err()
		}
	}
}

// renameAfter is the shell script that runs a compiler (its arguments, after those naming the
// output's temporary and final paths) and renames the output into place once it succeeds.
const renameAfter = `tmp=$0 out=$1; shift; "$@" || { rc=$?; rm -f -- "$tmp"; exit "$rc"; }; exec mv -f -- "$tmp" "$out"`

// cached says whether the build cache holds path: a file that is not empty. The output is
// renamed into place unsynced, and a crash soon after can leave it empty: it is built again.
func cached(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() > 0
}

// runUnit checks and times u's variants on the harness of u's stencil and fills their rows. A
// unit that fails to compile is compiled again one variant at a time, so only the broken ones
// fail.
func (r *Runner) runUnit(ctx context.Context, harness string, u *unit, out []smart.Measurement) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if u.build.err != nil {
		if errors.Is(u.build.err, context.Canceled) || errors.Is(u.build.err, errLeft) {
			return fmt.Errorf("compiling: %w", u.build.err) // the runner was closed
		}
		if len(u.kernels) > 1 {
			for i, k := range u.kernels {
				sub := &unit{st: u.st, kernels: []*Kernel{k}, rows: []int{u.rows[i]}, source: moduleSource([]*Kernel{k})}
				sub.build = r.startBuild(sub.source, false)
				select {
				case <-sub.build.done:
				case <-ctx.Done():
					return ctx.Err()
				}
				if err := r.runUnit(ctx, harness, sub, out); err != nil {
					return err
				}
			}
			return ctx.Err()
		}
		m := &out[u.rows[0]]
		m.Status, m.Error = smart.StatusCompileError, u.build.err.Error()
		return nil
	}
	for i, k := range u.kernels {
		m := &out[u.rows[i]]
		srv, err := r.server(ctx, harness, u.st)
		if err != nil {
			return err
		}
		mod, err := srv.load(ctx, u.build.path, r.Timeout)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.drop(srv)
			m.Status, m.Error = smart.StatusLaunchError, err.Error()
			continue
		}
		r.mu.Lock()
		stop, near := r.Cut.Thresholds(r.best[m.StencilID], r.best[m.StencilID+"|"+m.OC.String()])
		r.mu.Unlock()
		res, err := srv.run(ctx, runCommand(i, mod, r.Reps, stop, near, r.Sample, k), r.Timeout)
		switch {
		case ctx.Err() != nil:
			r.drop(srv)
			return ctx.Err()
		case err != nil:
			return err
		}
		if res.gone {
			r.drop(srv)
		}
		r.fill(m, u.st, res)
	}
	return nil
}

// runCommand is the harness's RUN line of kernel k, the tag-th of its unit, from module mod.
func runCommand(tag, mod, reps int, stop, near float64, sample time.Duration, k *Kernel) string {
	var b strings.Builder
	fmt.Fprintf(&b, "RUN %d %d %d %s %s %s %d", tag, mod, reps, num(stop), num(near), num(float64(sample)/float64(time.Millisecond)), len(k.Launches))
	for _, l := range k.Launches {
		fmt.Fprintf(&b, " %s %d %d %d %d %d %d %d %d %d", mangled(k.Name, l.Kernel, k.Dtype),
			l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.SharedBytes, l.Steps, l.Count)
	}
	return b.String()
}

// fill turns a harness's answer about one variant into its row, and keeps the fastest times.
func (r *Runner) fill(m *smart.Measurement, st *smart.Stencil, res result) {
	// The compiler's facts hold whatever the run did: a spilling kernel that fails is a
	// spilling kernel.
	m.Status, m.Error, m.Compiled = res.status, res.err, res.compiled
	if m.Status == smart.StatusWrongResult {
		m.Error += fmt.Sprintf(" (tolerance %g)", Tolerance(st))
	}
	if m.Status != smart.StatusOK {
		return
	}
	// Sorted, so that the mean and spread sum the times in ascending order, as they always have.
	m.SetRuns(slices.Sorted(slices.Values(res.times)))
	m.Runs, m.Cut = res.runs, res.cut
	if m.Cut != smart.CutNone {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.best == nil {
		r.best = map[string]float64{}
	}
	for _, key := range []string{m.StencilID, m.StencilID + "|" + m.OC.String()} {
		if b, ok := r.best[key]; !ok || m.TimeMs < b {
			r.best[key] = m.TimeMs
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
