package cuda

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/generator"
	"smart/tuner/space"
)

// emulatedRunner is a Runner whose binaries run on the CPU under the emulation preludes, so the
// runner's protocol, verification and failure handling are tested without a GPU.
func emulatedRunner(t *testing.T) *Runner {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ not installed")
	}
	dir := t.TempDir()
	return &Runner{Compiler: Emulation(gxx, dir), CacheDir: dir, GPU: "emulated", Name: "CPU emulation",
		Reps: 5, Steps: 2, PerTU: 8, Jobs: 2, Timeout: 20 * time.Second, Seed: 7, SlowFactor: -1}
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

// atRunStart puts code at the start of k's run function, which every timed run calls; it may
// sleep and write files (<chrono>, <cstdio> and <thread> are included).
func atRunStart(k *Kernel, code string) {
	const head = "inline real* run(real* a, real* b, cudaStream_t stream) {"
	k.Source = "#include <chrono>\n#include <cstdio>\n#include <thread>\n" + strings.Replace(k.Source, head, head+"\n  "+code, 1)
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
	// hang), source that does not compile, and a setting that lacks a parameter.
	halo := smart.Query{Stencil: st, OC: 0, Setting: randomSetting(t, st, 0, rng)}
	hang := smart.Query{Stencil: st, OC: smart.Combination(smart.ST), Setting: randomSetting(t, st, smart.Combination(smart.ST), rng)}
	broken := smart.Query{Stencil: st, OC: smart.Combination(smart.BM), Setting: randomSetting(t, st, smart.Combination(smart.BM), rng)}
	hang.Setting[smart.ParamShared] = 1
	qs = append(qs, halo, hang, broken, smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": 32}})
	faults := map[string]fault{Name(st.ID(), halo.OC, halo.Setting): faultHalo, Name(st.ID(), hang.OC, hang.Setting): faultDivergentBarrier}
	r.Timeout = 5 * time.Second
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		name := Name(s.ID(), tu.OC, tu.Setting())
		k, err := generate(s, tu, options{fault: faults[name]})
		if err == nil && tu.OC == broken.OC {
			k.Source = strings.Replace(k.Source, "typedef", "static_assert(false, \"planted\");\ntypedef", 1)
		}
		return k, err
	}
	ms, err := r.EvaluateBatch(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	want := []smart.Status{smart.StatusOK, smart.StatusOK, smart.StatusOK, smart.StatusOK,
		smart.StatusWrongResult, smart.StatusTimeout, smart.StatusCompileError, smart.StatusInvalid}
	for i, m := range ms {
		if m.Status != want[i] {
			t.Errorf("query %d (%s %s): status %s (%s), want %s", i, qs[i].OC, qs[i].Setting, m.Status, m.Error, want[i])
			continue
		}
		if m.Source != smart.Measured || m.GPU != "emulated" || m.StencilID != st.ID() && m.Status != smart.StatusInvalid {
			t.Errorf("query %d: provenance %s/%s/%s", i, m.Source, m.GPU, m.StencilID)
		}
		if m.OK() && (m.Reps != 5 || !(m.MinMs <= m.TimeMs && m.TimeMs <= m.MaxMs) || m.TimeMs <= 0) {
			t.Errorf("query %d: times %+v", i, m)
		}
	}
	if r.CopyBandwidth() <= 0 {
		t.Error("no copy bandwidth measured")
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
	r.Timeout = 3 * time.Second
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil {
			// Six runs of 1 s each: 6 s in all, twice the timeout.
			atRunStart(k, "std::this_thread::sleep_for(std::chrono::seconds(1));")
		}
		return k, err
	}
	ms, err := r.EvaluateBatch(context.Background(), []smart.Query{{Stencil: st, OC: 0, Setting: smart.Setting{"bx": 32, "by": 1, "shared": 0, "const": 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if m := ms[0]; m.Status != smart.StatusOK || m.Reps != 5 || m.MinMs < 1000/float64(r.Steps) {
		t.Fatalf("status %s (%s), %d reps, min %v ms a step; want ok, 5 reps of at least 1 s a run", m.Status, m.Error, m.Reps, m.MinMs)
	}
}

// TestRunnerTimesSlowVariantsTwice: a variant whose first timed run is over SlowFactor times the
// stencil's fastest run so far is timed twice; the fastest run is carried from one process (and
// batch) to the next.
func TestRunnerTimesSlowVariantsTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	r.SlowFactor = 2
	st := smallStencil(t, "j2d5pt")
	sleepMs := 0
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil && tu.Setting()["bx"] != 32 {
			// Every run of the other blocks sleeps on top of the same work.
			atRunStart(k, fmt.Sprintf("std::this_thread::sleep_for(std::chrono::milliseconds(%d));", sleepMs))
		}
		return k, err
	}
	q := func(bx, by int) smart.Query {
		return smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": bx, "by": by, "shared": 0, "const": 0}}
	}
	eval := func(qs ...smart.Query) []smart.Measurement {
		t.Helper()
		ms, err := r.EvaluateBatch(context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	// The sleep must outweigh SlowFactor emulated runs whatever the load: an emulated run takes
	// 9 ms on an idle machine and over 0.5 s with two busy processes per core.
	ms := eval(q(32, 1))
	sleepMs = max(300, int(10*ms[0].MinMs*float64(r.Steps)))
	r.best = nil // forget it: the next process starts from nothing

	ms = eval(q(32, 1), q(64, 1))
	if ms[0].Status != smart.StatusOK || ms[0].Reps != 5 {
		t.Errorf("fast variant: %s, %d reps; want ok, 5", ms[0].Status, ms[0].Reps)
	}
	if ms[1].Status != smart.StatusOK || ms[1].Reps != 2 || ms[1].MinMs < float64(sleepMs)/float64(r.Steps) {
		t.Errorf("slow variant: %s, %d reps, min %v ms a step; want ok, 2 reps of at least %d ms a run", ms[1].Status, ms[1].Reps, ms[1].MinMs, sleepMs)
	}
	// A later batch, a new process: it starts from the fastest run measured before.
	ms = eval(q(16, 2))
	if ms[0].Status != smart.StatusOK || ms[0].Reps != 2 {
		t.Errorf("slow variant of a later batch: %s, %d reps; want ok, 2", ms[0].Status, ms[0].Reps)
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
			atRunStart(k, fmt.Sprintf("std::fclose(std::fopen(%q, \"w\"));\n  std::this_thread::sleep_for(std::chrono::seconds(60));", marker))
		}
		return k, err
	}
	q := func(bx int) smart.Query {
		return smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": bx, "by": 1, "shared": 0, "const": 0}}
	}
	qs := []smart.Query{q(32), q(64), q(16)}

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

func TestSetStats(t *testing.T) {
	var m smart.Measurement
	setStats(&m, []float64{4, 1, 3, 2})
	if m.TimeMs != 2.5 || m.MinMs != 1 || m.MaxMs != 4 || m.MeanMs != 2.5 || m.Reps != 4 {
		t.Fatalf("%+v", m)
	}
	// Sample standard deviation of 1..4: sqrt(5/3).
	if d := m.StdMs - 1.2909944487358056; d > 1e-12 || d < -1e-12 {
		t.Fatalf("std %v", m.StdMs)
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
	r.PerTU, r.CompileTimeout = 1, 15*time.Second
	st := smallStencil(t, "j2d5pt")
	r.generate = func(s *smart.Stencil, tu smart.Tuning) (*Kernel, error) {
		k, err := Generate(s, tu)
		if err == nil && tu.Setting()["bx"] == 64 {
			k.Source = "// planted_hang\n" + k.Source
		}
		return k, err
	}
	q := func(bx int) smart.Query {
		return smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": bx, "by": 1, "shared": 0, "const": 0}}
	}
	ms, err := r.EvaluateBatch(context.Background(), []smart.Query{q(32), q(64)})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Status != smart.StatusOK {
		t.Errorf("the variant beside the hang: %s (%s); want ok", ms[0].Status, ms[0].Error)
	}
	if ms[1].Status != smart.StatusCompileError || !strings.Contains(ms[1].Error, "gave no result within 15s: killed") {
		t.Errorf("the hanging variant: %s (%s); want a compile error saying the compiler was killed", ms[1].Status, ms[1].Error)
	}
}
