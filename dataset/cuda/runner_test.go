package cuda

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/dataset"
	"smart/generator"
	"smart/space"
)

// emulatedRunner is a Runner whose harness and modules run on the CPU under the emulation
// preludes, so the runner's protocol, verification and failure handling are tested without a
// GPU. It builds into the package's shared cache (runnerCache), and cuts no variant short
// unless a test asks. Its hang timeout is 2000 times an emulated run on an idle machine: the
// tests that plant a hang set one scaled from a run measured as they go (runTime).
func emulatedRunner(t *testing.T) *Runner {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not installed")
	}
	dir := runnerCache()
	r := &Runner{Compiler: Emulation(gxx, dir), CacheDir: dir, GPU: "emulated", Name: "CPU emulation",
		Reps: 5, Steps: 2, PerTU: 8, Jobs: 2, Timeout: 20 * time.Second, Seed: 7, Cut: Cut{Stencil: -1}}
	t.Cleanup(func() { r.Close() })
	return r
}

// runTime measures how long a run (Steps steps) of a plain variant of st takes on r as loaded
// as the machine is now, the slowest of its samples: the tests scale their time limits from it.
func runTime(t *testing.T, r *Runner, st *smart.Stencil) time.Duration {
	t.Helper()
	ms, err := r.EvaluateBatch(context.Background(), []smart.Query{base(st, 16, 2)})
	if err != nil || ms[0].Status != smart.StatusOK {
		t.Fatalf("baseline: %v %+v", err, ms)
	}
	return time.Duration(ms[0].MaxMs * float64(r.Steps) * float64(time.Millisecond))
}

func randomSetting(t *testing.T, st *smart.Stencil, oc smart.Combination, rng *rand.Rand) smart.Setting {
	t.Helper()
	sp, err := space.ForStencil(st, oc, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	set, err := sp.Random(rng)
	if err != nil {
		t.Fatalf("%s: %v", oc, err)
	}
	return set
}

// kernelHead is how every generated kernel's parameter list and body begin.
const kernelHead = "(const real* __restrict__ in, real* __restrict__ out) {"

// atLaunch puts code at the start of k's kernels, run once per launch (by the first thread of
// the first block); it may sleep and write files (<chrono>, <cstdio> and <thread> are included).
func atLaunch(k *Kernel, code string) {
	guard := "\n  if (threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z == 0) { " + code + " }"
	k.Source = "#include <chrono>\n#include <cstdio>\n#include <thread>\n" + strings.ReplaceAll(k.Source, kernelHead, kernelHead+guard)
}

// smallStencil is the named stencil on a grid small enough for the emulated GPU.
func smallStencil(t *testing.T, name string) *smart.Stencil {
	t.Helper()
	named, err := generator.NamedStencil(name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return SmallCopy(named)
}

// base is a query of st's BASE OC with the given block.
func base(st *smart.Stencil, bx, by int) smart.Query {
	return smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": bx, "by": by, "shared": 0, "const": 0}}
}

// TestRunnerCancellation: the benchmark harness checks a float32 stencil whose coefficients of
// both signs leave results far below the terms summed against their magnitude, so its rounding
// is not a wrong result, while a coefficient 2^-10 off still is.
func TestRunnerCancellation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	r.Steps = 7 // enough for the rounding errors to grow over the smallest results
	offs := []smart.Offset{{-1, 0, 0}, {0, -1, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	st, err := smart.NewStencil("cancel", 2, offs, []float64{-0.25, 1e-9, 0.5, 0.3, 0.1}, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	st.Dtype = smart.Float32
	st = SmallCopy(st)
	tb := smart.Query{Stencil: st, OC: smart.Combination(smart.TB), Setting: smart.Setting{"bx": 8, "by": 4, "shared": 1, "const": 0, "tt": 4}}
	wrong := base(st, 8, 8)
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		f := noFault
		if Name(s.ID(), tu.OC, tu.Setting()) == Name(st.ID(), wrong.OC, wrong.Setting) {
			f = faultCoef
		}
		return generate(s, tu, options{fault: f})
	}
	qs := []smart.Query{base(st, 16, 2), tb, wrong}
	ms, err := r.EvaluateBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []smart.Status{smart.StatusOK, smart.StatusOK, smart.StatusWrongResult} {
		if ms[i].Status != want {
			t.Errorf("%s %s: status %s (%s), want %s", qs[i].OC, qs[i].Setting, ms[i].Status, ms[i].Error, want)
		}
	}
}

// TestRunnerNonFinite: the benchmark harness's check where values leave the element type's
// range. The reference overflowing float32, or the magnitude of the terms summed overflowing
// float64, leaves nothing to compare with (any kernel, right or wrong, passed): invalid, the
// point named. A magnitude beyond float32 alone is still a scale (kept in float64): the right
// kernel passes, a coefficient 2^-10 off does not. An output that overflows where the
// reference is finite is a wrong result naming the point and its value.
func TestRunnerNonFinite(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	stencil := func(name string, dt smart.Dtype, coefs ...float64) *smart.Stencil {
		st, err := smart.NewStencil(name, 2, []smart.Offset{{}, {1, 0, 0}}, coefs, smart.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		st.Dtype = dt
		return SmallCopy(st)
	}
	k32 := math.Sqrt(math.MaxFloat32 / 1.95) // as cancellingGiant, for float32
	overflow := stencil("overflow", smart.Float32, 1, 1e38)
	big32 := stencil("big32", smart.Float32, k32, -k32)
	giant := cancellingGiant(t)
	tame := stencil("tame", smart.Float32, 0.5, 0.25)
	type want struct {
		status smart.Status
		says   []string
	}
	cases := []struct {
		st    *smart.Stencil
		fault fault
		// coef0, if set, is the first coefficient of the kernel: one far too large overflows
		// float32 where the reference does not.
		coef0 float64
		want  want
	}{
		{overflow, noFault, 0, want{smart.StatusInvalid, []string{"overflows float32", "reference at point ("}}},
		{overflow, faultCoef, 0, want{smart.StatusInvalid, []string{"overflows float32", "reference at point ("}}},
		{big32, noFault, 0, want{smart.StatusOK, nil}},
		{big32, faultCoef, 0, want{smart.StatusWrongResult, []string{"max relative error"}}},
		{giant, noFault, 0, want{smart.StatusInvalid, []string{"the magnitude of the terms summed at point (", "is inf"}}},
		{giant, faultCoef, 0, want{smart.StatusInvalid, []string{"the magnitude of the terms summed at point (", "is inf"}}},
		{tame, noFault, 1e30, want{smart.StatusWrongResult, []string{"point (", "is inf, want"}}},
	}
	var qs []smart.Query
	byName := map[string]int{}
	for i, c := range cases {
		q := base(c.st, 16, 2<<(i%2)) // the cases of a stencil differ in their setting
		qs = append(qs, q)
		byName[Name(c.st.ID(), q.OC, q.Setting)] = i
	}
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		name := Name(s.ID(), tu.OC, tu.Setting())
		c := cases[byName[name]]
		if c.coef0 != 0 {
			wrong := *s
			wrong.Points = slices.Clone(s.Points)
			wrong.Points[0].Coef = c.coef0
			s = &wrong
		}
		return generate(s, tu, options{name: name, fault: c.fault})
	}
	ms, err := r.EvaluateBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		m := ms[i]
		bad := m.Status != c.want.status
		for _, s := range c.want.says {
			bad = bad || !strings.Contains(m.Error, s)
		}
		t.Logf("%s, fault %d: %s (%s)", c.st.Name, c.fault, m.Status, m.Error)
		if bad {
			t.Errorf("%s, fault %d: %s (%s); want %s saying %q", c.st.Name, c.fault, m.Status, m.Error, c.want.status, c.want.says)
		}
	}
}

func TestRunnerMeasuresAndCatchesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	st := smallStencil(t, "j2d9pt")
	rng := rand.New(rand.NewPCG(3, 4))
	ocs := []smart.Combination{0, smart.Combination(smart.ST), smart.Combination(smart.ST | smart.RT | smart.PR), smart.Combination(smart.CM | smart.TB)}
	var qs []smart.Query
	for _, oc := range ocs {
		qs = append(qs, smart.Query{Stencil: st, OC: oc, Setting: randomSetting(t, st, oc, rng)})
	}
	// Planted failures: a wrong halo offset (wrong result), a barrier only thread 0 reaches (a
	// hang), source that does not compile, a setting that lacks a parameter, a kernel that
	// takes the process down, a module without the kernel asked for; each followed by a
	// variant that must still be measured.
	halo := smart.Query{Stencil: st, OC: 0, Setting: randomSetting(t, st, 0, rng)}
	hang := smart.Query{Stencil: st, OC: smart.Combination(smart.ST), Setting: randomSetting(t, st, smart.Combination(smart.ST), rng)}
	broken := smart.Query{Stencil: st, OC: smart.Combination(smart.BM), Setting: randomSetting(t, st, smart.Combination(smart.BM), rng)}
	hang.Setting[smart.ParamShared] = 1
	crash, missing, after := base(st, 16, 4), base(st, 8, 8), base(st, 4, 16)
	qs = append(qs, halo, hang, after, broken, smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": 32}}, crash, after, missing)
	faults := map[string]fault{Name(st.ID(), halo.OC, halo.Setting): faultHalo, Name(st.ID(), hang.OC, hang.Setting): faultDivergentBarrier}
	// The hang waits out the timeout, which every other run must stay well inside however
	// loaded the machine: 20 times a run measured now, and at least 2 s.
	r.Timeout = max(2*time.Second, 20*runTime(t, r, st))
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		name := Name(s.ID(), tu.OC, tu.Setting())
		k, err := generate(s, tu, options{fault: faults[name]})
		switch {
		case err != nil:
		case tu.OC == broken.OC:
			k.Source = strings.Replace(k.Source, "typedef", "static_assert(false, \"planted\");\ntypedef", 1)
		case name == Name(st.ID(), crash.OC, crash.Setting):
			atLaunch(k, "*(volatile int *)nullptr = 1;")
		case name == Name(st.ID(), missing.OC, missing.Setting):
			k.Source = strings.ReplaceAll(k.Source, "kernel_t1", "kernel_renamed")
		}
		return k, err
	}
	ms, err := r.EvaluateBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	want := []smart.Status{smart.StatusOK, smart.StatusOK, smart.StatusOK, smart.StatusOK,
		smart.StatusWrongResult, smart.StatusTimeout, smart.StatusOK, smart.StatusCompileError, smart.StatusInvalid,
		smart.StatusLaunchError, smart.StatusOK, smart.StatusLaunchError}
	for i, m := range ms {
		if m.Status != want[i] {
			t.Errorf("query %d (%s %s): status %s (%s), want %s", i, qs[i].OC, qs[i].Setting, m.Status, m.Error, want[i])
			continue
		}
		if m.Source != smart.Measured || m.GPU != "emulated" || m.StencilID != st.ID() && m.Status != smart.StatusInvalid {
			t.Errorf("query %d: provenance %s/%s/%s", i, m.Source, m.GPU, m.StencilID)
		}
		if m.OK() && (m.Reps != 5 || m.Runs < 5 || m.Cut != smart.CutNone || !(m.MinMs <= m.TimeMs && m.TimeMs <= m.MaxMs) || m.TimeMs <= 0) {
			t.Errorf("query %d: times %+v", i, m)
		}
		if m.Compiled != nil {
			t.Errorf("query %d: compiler facts %+v under the emulation, which has none", i, *m.Compiled)
		}
	}
	if e := ms[9].Error; !strings.Contains(e, "process died") {
		t.Errorf("crash: error %q; want the process's death", e)
	}
	if e := ms[11].Error; !strings.Contains(e, "no kernel _ZN") {
		t.Errorf("missing kernel: error %q; want the kernel's name", e)
	}
	if r.CopyBandwidth() <= 0 {
		t.Error("no copy bandwidth measured")
	}
	// One process for the stencil (the baseline's), another after the hang, another after the
	// crash.
	if r.starts != 3 {
		t.Errorf("%d harness processes started; want 3 (the first, and one after each of the hang and the crash)", r.starts)
	}
}

// TestRunnerOneProcessPerStencil: the variants of a stencil, over several modules and batches,
// run in one harness process; modules compiled ahead by Prefetch are not compiled again.
func TestRunnerOneProcessPerStencil(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	// Its own cache: it counts the compiles.
	r.CacheDir = t.TempDir()
	r.Compiler = Emulation(r.Compiler.Path, r.CacheDir)
	r.PerTU = 2
	a, b := smallStencil(t, "j2d5pt"), smallStencil(t, "j2d9pt")
	first := []smart.Query{base(a, 32, 1), base(a, 16, 2), base(a, 8, 4), base(b, 32, 1)}
	second := []smart.Query{base(a, 4, 8), base(b, 16, 2)}
	r.Prefetch(second)
	for _, batch := range [][]smart.Query{first, second} {
		ms, err := r.EvaluateBatch(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if m.Status != smart.StatusOK {
				t.Errorf("%s: %s (%s)", batch[i].Setting, m.Status, m.Error)
			}
		}
	}
	// Modules: a's first two, a's third, b's first, a's fourth, b's second; and the harness.
	compile, gpu, _, compiles, starts := r.Times()
	if starts != 2 || compiles != 6 || compile <= 0 || gpu <= 0 {
		t.Errorf("%d harness processes and %d compiles (%s compiling, %s on the GPU); want 2 and 6", starts, compiles, compile, gpu)
	}
}

// TestRunnerSlowIsNotHung: a variant whose runs together outlast the hang timeout, but each of
// which finishes within it, is measured, not killed.
func TestRunnerSlowIsNotHung(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	st := smallStencil(t, "j2d5pt")
	// Scaled from a run on this machine as loaded now: each of the six runs of the variant
	// (two launches) sleeps a third of the timeout, and works a twelfth of it: the load may
	// grow eightfold before a run outlasts the timeout.
	r.Timeout = max(3*time.Second, 12*runTime(t, r, st)).Round(time.Millisecond)
	sleep := r.Timeout / 6
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil {
			atLaunch(k, fmt.Sprintf("std::this_thread::sleep_for(std::chrono::milliseconds(%d));", sleep.Milliseconds()))
		}
		return k, err
	}
	ms, err := r.EvaluateBatch(context.Background(), []smart.Query{base(st, 32, 1)})
	if err != nil {
		t.Fatal(err)
	}
	perStep := float64(sleep.Milliseconds()) // a launch a step
	if m := ms[0]; m.Status != smart.StatusOK || m.Reps != 5 || m.MinMs < perStep {
		t.Fatalf("status %s (%s), %d reps, min %v ms a step; want ok, 5 reps of at least %v ms a step (timeout %s)", m.Status, m.Error, m.Reps, m.MinMs, perStep, r.Timeout)
	}
}

// TestRunnerCutsSlowVariants: once a stencil and an OC have a fastest variant, a variant over
// Cut's factors of both is stopped after its first launch when that launch is slow, or timed by
// its checked run alone when only later launches are; the first variant of another OC and a
// variant slow but within the stencil factor are measured in full; variants near the best get
// samples of several runs, others one run a sample.
func TestRunnerCutsSlowVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	st := smallStencil(t, "j2d5pt")
	sleepMs := 0
	const (
		slowAll   = 16 // every launch sleeps
		slowLater = 8  // every second launch sleeps
	)
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err != nil {
			return k, err
		}
		sleep := fmt.Sprintf("std::this_thread::sleep_for(std::chrono::milliseconds(%d));", sleepMs)
		switch tu.Setting()["bx"] {
		case slowAll:
			atLaunch(k, sleep)
		case slowLater:
			atLaunch(k, "static int calls = 0; if (++calls % 2 == 0) "+sleep)
		}
		return k, err
	}
	eval := func(qs ...smart.Query) []smart.Measurement {
		t.Helper()
		ms, err := r.EvaluateBatch(context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range ms {
			if m.Status != smart.StatusOK {
				t.Fatalf("query %d: %s (%s)", i, m.Status, m.Error)
			}
		}
		return ms
	}
	// A sample of the fastest holds several runs while the load grows less than tenfold.
	run := runTime(t, r, st)
	r.Sample = 10 * run
	r.best = nil // forget it
	r.Cut = Cut{}
	fastest := eval(base(st, 32, 1))[0]
	// The sleeps bound the slow variants' times from below whatever the load: 8 times the
	// fastest's slowest sample a step (the runner's best is at most that) exceeds the stencil
	// factor, 3, even in a run of which only every second launch sleeps.
	sleepMs = max(300, int(math.Ceil(8*fastest.MaxMs)))
	// A slow run, every launch asleep, is no hang.
	r.Timeout = max(r.Timeout, 4*time.Duration(r.Steps*sleepMs)*time.Millisecond)

	st3 := smart.Combination(smart.ST)
	ms := append([]smart.Measurement{fastest}, eval(base(st, slowAll, 2), base(st, slowLater, 4),
		smart.Query{Stencil: st, OC: st3, Setting: smart.Setting{"bx": slowAll, "by": 1, "shared": 0, "const": 0, "sd": 2, "sb": 2, "ufx": 1, "ufy": 1}})...)
	checks := []struct {
		name string
		cut  smart.Cut
		reps int
	}{{"fastest", smart.CutNone, 5}, {"every launch slow", smart.CutStopped, 1}, {"later launches slow", smart.CutSlow, 1},
		{"first of its OC", smart.CutNone, 5}}
	for i, c := range checks {
		if m := ms[i]; m.Cut != c.cut || m.Reps != c.reps || m.Runs < m.Reps {
			t.Errorf("%s: cut %q, %d reps, %d runs; want cut %q, %d reps", c.name, m.Cut, m.Reps, m.Runs, c.cut, c.reps)
		}
	}
	// Several runs a sample, as many as fill r.Sample, unless the load grew so much that a run
	// took a sample's length: then one run is a sample.
	if m := ms[0]; m.Runs <= m.Reps && m.MaxMs*float64(r.Steps) < float64(r.Sample.Milliseconds()) {
		t.Errorf("fastest: %d runs for %d samples of at most %v ms a step; want samples of several runs (%s each)", m.Runs, m.Reps, m.MaxMs, r.Sample)
	}
	if m := ms[3]; m.Runs != m.Reps || m.MinMs < float64(sleepMs) {
		t.Errorf("slow first of its OC: %d runs for %d samples, min %v ms a step; want one run a sample of at least %d ms", m.Runs, m.Reps, m.MinMs, sleepMs)
	}
	if m := ms[1]; m.TimeMs < float64(sleepMs) || m.TimeMs > 10*float64(sleepMs) {
		t.Errorf("stopped: %v ms a step; want the first launch's, about %d", m.TimeMs, sleepMs)
	}
	// A slow variant within the stencil factor is measured in full.
	r.Cut = Cut{Stencil: 1e9}
	if m := eval(base(st, slowAll, 4))[0]; m.Cut != smart.CutNone || m.Reps != 5 {
		t.Errorf("within the stencil factor: cut %q, %d reps; want a full measurement", m.Cut, m.Reps)
	}
}

func TestCutThresholds(t *testing.T) {
	for _, c := range []struct {
		cut                Cut
		stencil, oc        float64
		wantStop, wantNear float64
	}{
		{Cut{}, 0, 0, 0, 0},            // nothing known: full measurement, long samples
		{Cut{}, 2, 0, 0, 3},            // the OC's first variant is never cut
		{Cut{}, 2, 4, 6, 3},            // 3x the stencil's best
		{Cut{}, 2, 10, 11, 3},          // 1.1x the OC's best
		{Cut{Stencil: -1}, 2, 4, 0, 3}, // never
		{Cut{Stencil: 5, OC: 2, Near: 1.2}, 1, 1, 5, 1.2},
	} {
		stop, near := c.cut.Thresholds(c.stencil, c.oc)
		if math.Abs(stop-c.wantStop) > 1e-12 || math.Abs(near-c.wantNear) > 1e-12 {
			t.Errorf("%+v.Thresholds(%v, %v) = %v, %v; want %v, %v", c.cut, c.stencil, c.oc, stop, near, c.wantStop, c.wantNear)
		}
	}
}

// TestRunnerCancelKeepsFinished: a batch cancelled while a variant runs returns the rows
// measured before it; the variant in flight and those after it have no status (not a timeout,
// crash or compile error they never had), and a batch cancelled before it starts has none.
func TestRunnerCancelKeepsFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	st := smallStencil(t, "j2d5pt")
	marker := filepath.Join(t.TempDir(), "started")
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil && tu.Setting()["bx"] == 64 {
			// The slow variant says it has started, then runs for a minute.
			atLaunch(k, fmt.Sprintf("std::fclose(std::fopen(%q, \"w\")); std::this_thread::sleep_for(std::chrono::seconds(60));", marker))
		}
		return k, err
	}
	qs := []smart.Query{base(st, 32, 1), base(st, 64, 1), base(st, 16, 1)}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(marker); err == nil {
				cancel()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	ms, err := r.EvaluateBatch(ctx, qs)
	if !errors.Is(err, context.Canceled) || len(ms) != len(qs) {
		t.Fatalf("%d rows, error %v; want %d rows and the cancel", len(ms), err, len(qs))
	}
	if ms[0].Status != smart.StatusOK || ms[1].Status != "" || ms[2].Status != "" {
		t.Fatalf("statuses %q %q %q; want ok and two unfinished", ms[0].Status, ms[1].Status, ms[2].Status)
	}

	ms, err = r.EvaluateBatch(ctx, qs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before it starts: error %v", err)
	}
	for i, m := range ms {
		if m.Status != "" {
			t.Errorf("cancelled before it starts: row %d has status %s (%s)", i, m.Status, m.Error)
		}
	}
}

func TestArchOf(t *testing.T) {
	for cc, want := range map[string]string{"9.0": "sm_90", "8.6": "sm_86", "10.0": "sm_100"} {
		if got, err := ArchOf(cc); err != nil || got != want {
			t.Errorf("ArchOf(%q) = %q, %v", cc, got, err)
		}
	}
	if _, err := ArchOf("90"); err == nil {
		t.Error("ArchOf(\"90\") accepted")
	}
}

// TestRunnerCompileHang: a compiler that hangs on one variant is killed after CompileTimeout;
// that variant fails to compile, and the other one is measured. One variant per unit: a hung
// unit of two would wait out the timeout twice, for the unit and for the variant alone.
func TestRunnerCompileHang(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	// The compiler is g++ behind a script that sleeps instead on a source holding the mark.
	script := filepath.Join(t.TempDir(), "cc.sh")
	body := fmt.Sprintf("#!/bin/sh\nfor a; do src=$a; done\nif grep -q planted_hang \"$src\"; then exec sleep 120; fi\nexec %s \"$@\"\n", r.Compiler.Path)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Compiler.Path = script
	r.PerTU = 1
	st := smallStencil(t, "j2d5pt")
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil && tu.Setting()["bx"] == 64 {
			k.Source = "// planted_hang\n" + k.Source
		}
		return k, err
	}
	// The harness and a module are built first with the default limit, then another module
	// alone, timed: the limit is ten times that build (and at least 3 s), so a loaded
	// machine's slow compiles are not taken for hangs.
	for _, q := range []smart.Query{base(st, 16, 2), base(st, 8, 4)} {
		began := time.Now()
		if ms, err := r.EvaluateBatch(context.Background(), []smart.Query{q}); err != nil || ms[0].Status != smart.StatusOK {
			t.Fatalf("baseline: %v %+v", err, ms)
		}
		r.CompileTimeout = max(3*time.Second, 10*time.Since(began)).Round(100 * time.Millisecond)
	}
	ms, err := r.EvaluateBatch(context.Background(), []smart.Query{base(st, 32, 1), base(st, 64, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Status != smart.StatusOK {
		t.Errorf("the variant beside the hang: %s (%s); want ok", ms[0].Status, ms[0].Error)
	}
	if want := fmt.Sprintf("gave no result within %s: killed", r.CompileTimeout); ms[1].Status != smart.StatusCompileError || !strings.Contains(ms[1].Error, want) {
		t.Errorf("the hanging variant: %s (%s); want a compile error saying %q", ms[1].Status, ms[1].Error, want)
	}
}

// TestRunnerDriverAPI runs the harness's GPU path, modules loaded and kernels launched through
// the driver API, over a stand-in for the driver (testdata/driverapi/cuda.h) that loads the
// emulation's modules: the kernels' names, their parameters and the launch order are those a GPU
// gets.
func TestRunnerDriverAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	fake, err := filepath.Abs("testdata/driverapi")
	if err != nil {
		t.Fatal(err)
	}
	r.Compiler.HarnessArgs = append([]string{"-DSMART_DRIVER_API", "-I", fake}, r.Compiler.HarnessArgs...)
	st := smallStencil(t, "j3d7pt")
	rng := rand.New(rand.NewPCG(5, 6))
	tb := smart.Combination(smart.ST | smart.TB)
	qs := []smart.Query{base(st, 8, 4), {Stencil: st, OC: tb, Setting: randomSetting(t, st, tb, rng)}, base(st, 4, 4)}
	qs[0].Setting["bz"], qs[2].Setting["bz"] = 2, 2
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil && tu.Setting()["bx"] == 4 && tu.OC == 0 {
			k.Source = strings.ReplaceAll(k.Source, "kernel_t1", "kernel_renamed")
		}
		return k, err
	}
	ms, err := r.EvaluateBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []smart.Status{smart.StatusOK, smart.StatusOK, smart.StatusLaunchError} {
		if ms[i].Status != want {
			t.Errorf("query %d (%s %s): %s (%s); want %s", i, qs[i].OC, qs[i].Setting, ms[i].Status, ms[i].Error, want)
		}
	}
	if e := ms[2].Error; !strings.Contains(e, "cuModuleGetFunction: named symbol not found") {
		t.Errorf("missing kernel: %q; want the driver's error", e)
	}
	for i, m := range ms {
		if ok := m.Compiled != nil; ok != (i < 2) {
			t.Errorf("query %d (%s): compiler facts %v; want them exactly where every kernel was found", i, m.Status, m.Compiled)
		}
	}
}

// fakeCompiled is what testdata/driverapi/cuda.h reports of k's kernels (made up from their
// names), the largest registers and the largest local memory over the launches; and whether the
// two come from different kernels.
func fakeCompiled(k *Kernel) (c smart.Compiled, apart bool) {
	var regsFrom, localFrom string
	for _, l := range k.Launches {
		name := mangled(k.Name, l.Kernel, k.Dtype)
		sum := 0
		for _, b := range []byte(name) {
			sum += int(b)
		}
		if regs := 16 + sum%64; regs > c.RegsPerThread {
			c.RegsPerThread, regsFrom = regs, name
		}
		if local := 8 * (6 - sum%7); local > c.LocalBytesPerThread || localFrom == "" {
			c.LocalBytesPerThread, localFrom = local, name
		}
	}
	return c, regsFrom != localFrom
}

// TestRunnerDataSetCompiledColumns measures into a data set, as smart bench does: under the
// emulation the columns regs and local_bytes are there and empty; through the driver API (over
// the stand-in for libcuda) they hold what the driver reported, for a variant of two kernels the
// largest of each, and read back as such.
func TestRunnerDataSetCompiledColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	fake, err := filepath.Abs("testdata/driverapi")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		driverAPI bool
	}{{"emulation", false}, {"driver API", true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := emulatedRunner(t)
			if tc.driverAPI {
				r.Compiler.HarnessArgs = append([]string{"-DSMART_DRIVER_API", "-I", fake}, r.Compiler.HarnessArgs...)
			}
			// Three steps in launches of two: a kernel of two fused steps and one of one.
			r.Steps = 3
			st := smallStencil(t, "j2d5pt")
			tb := smart.Combination(smart.TB)
			set := randomSetting(t, st, tb, rand.New(rand.NewPCG(1, 2)))
			set["tt"] = 2
			items := []dataset.Item{{Stencil: st, OC: 0, Setting: base(st, 16, 2).Setting}, {Stencil: st, OC: tb, Setting: set}}
			kernels := map[string]*Kernel{}
			r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
				k, err := Generate(s, tu)
				if err == nil {
					kernels[tu.Setting().String()] = k
				}
				return k, err
			}
			dir := t.TempDir()
			w, err := dataset.Create(dir, dataset.Meta{Sources: []smart.Source{smart.Measured}, Devices: []dataset.Device{{GPU: r.GPU, Name: r.Name}},
				Params: dataset.StencilParams()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := (&dataset.Runner{Evaluator: r, GPU: r.GPU}).Run(context.Background(), w, items); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, dataset.RowsFile))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if !strings.HasSuffix(lines[0], ",regs,local_bytes") || len(lines) != 1+len(items) {
				t.Fatalf("rows.csv:\n%s\nwant a header ending in regs,local_bytes and %d rows", data, len(items))
			}
			_, rows, err := dataset.ReadAll(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range rows {
				k := kernels[m.Setting.String()]
				if m.Status != smart.StatusOK || k == nil || len(k.Launches) != i+1 {
					t.Fatalf("row %d: %s (%s), kernel %v; want ok, of %d launches", i, m.Status, m.Error, k, i+1)
				}
				want, apart := fakeCompiled(k)
				cells := lines[1+i][strings.LastIndexByte(lines[1+i][:strings.LastIndexByte(lines[1+i], ',')], ','):]
				switch {
				case !tc.driverAPI && (m.Compiled != nil || cells != ",,"):
					t.Errorf("row %d: compiler facts %v (rows.csv ends %q); want none, empty", i, m.Compiled, cells)
				case tc.driverAPI && (m.Compiled == nil || *m.Compiled != want || cells != fmt.Sprintf(",%d,%d", want.RegsPerThread, want.LocalBytesPerThread)):
					t.Errorf("row %d: compiler facts %v (rows.csv ends %q); want %+v", i, m.Compiled, cells, want)
				case i == 1 && !apart:
					t.Errorf("the two kernels of %s: the most registers and the most local memory are one kernel's; choose a setting whose kernels differ", set)
				}
			}
		})
	}
}

// TestRunnerCompilesInOrder: compiles take the compiler slots in the order they were asked for,
// the harness first, whatever the scheduler makes of the goroutines that wait: the batch the GPU
// measures next is never queued behind one prefetched for later.
func TestRunnerCompilesInOrder(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "order.log")
	// argv: -c SCRIPT sh -o OUTPUT SOURCE: log the source, then write the output.
	script := fmt.Sprintf(`printf '%%s\n' "$3" >> %q && : > "$2"`, log)
	c := Compiler{Path: sh, Args: []string{"-c", script, "sh"}, HarnessArgs: []string{"-c", script, "sh"}, Ext: ".mod"}
	r := &Runner{Compiler: c, CacheDir: filepath.Join(dir, "cache"), GPU: "emulated", PerTU: 1, Jobs: 1}
	defer r.Close()
	st := smallStencil(t, "j2d5pt")
	var batches [][]smart.Query
	for b := range 4 {
		var qs []smart.Query
		for _, bx := range []int{8, 16, 32} {
			qs = append(qs, base(st, bx, 1<<b))
		}
		batches = append(batches, qs)
		r.Prefetch(qs)
	}
	source := func(b *build) string { return strings.TrimSuffix(b.path, filepath.Ext(b.path)) + ".cu" }
	want := []string{source(r.startBuild(harnessSource, true))}
	for _, qs := range batches {
		units, _ := r.units(qs)
		for _, u := range units {
			b := r.startBuild(u.source, false) // the build Prefetch started
			<-b.done
			if b.err != nil {
				t.Fatal(b.err)
			}
			want = append(want, source(b))
		}
	}
	text, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(text)); !slices.Equal(got, want) {
		t.Errorf("compiled in the order\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
