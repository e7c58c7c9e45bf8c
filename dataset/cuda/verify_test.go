package cuda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/generator"
	"smart/internal/testctx"
)

// tools returns the compilers, skipping the test where they are not installed (CI installs
// them: .ci/run).
func tools(t *testing.T) Tools {
	t.Helper()
	tl, err := FindTools()
	if err != nil {
		t.Skip(err)
	}
	return tl
}

// TestVerifyEveryOC is the check of the generator: every OC on j2d5pt and j3d7pt (3 random
// settings each), on three more named stencils, on random stencils of orders 1 to 4 in 2-D and
// 3-D and on a float32 stencil (1 each), compiled to PTX by clang and run on the CPU against the
// reference. Each variant costs about a third of a CPU second (g++ with AddressSanitizer).
func TestVerifyEveryOC(t *testing.T) {
	v := verifier(t, Verifier{Seed: 1})
	type set struct {
		st      *smart.Stencil
		samples int
	}
	sets := []set{{named(t, "j2d5pt", 0, 0), 3}, {named(t, "j3d7pt", 0, 0), 3}}
	if !testing.Short() {
		sets = append(sets, set{named(t, "j2d9pt", 0, 0), 1}, set{named(t, "j3d27pt", 0, 0), 1}, set{named(t, "box", 3, 4), 1})
		for order := 1; order <= 4; order++ {
			for dims := 2; dims <= 3; dims++ {
				st, err := generator.Spec{Dims: dims, Order: order, Seed: 1}.Stencil(order)
				if err != nil {
					t.Fatal(err)
				}
				sets = append(sets, set{st, 1})
			}
		}
		f32 := named(t, "j3d27pt", 0, 0)
		f32.Dtype = smart.Float32
		sets = append(sets, set{f32, 1})
	}
	rng := rand.New(rand.NewPCG(2024, 4))
	var variants []Variant
	names := map[string]string{}
	for _, s := range sets {
		for _, oc := range smart.Combinations() {
			vs, err := Sample(s.st, oc, s.samples, smart.SM80(), rng)
			if err != nil {
				t.Fatalf("%s: %v", s.st.Name, err)
			}
			for _, v := range vs {
				names[v.Stencil.ID()] = s.st.Name
			}
			variants = append(variants, vs...)
		}
	}
	start := time.Now()
	results, err := v.Verify(context.Background(), variants)
	if err != nil {
		t.Fatal(err)
	}
	perOC := map[smart.Combination]int{}
	for _, r := range results {
		if !r.OK() {
			t.Errorf("%s (%s, steps %d): %s", names[r.StencilID], r.StencilID, r.Steps, r)
		}
		perOC[r.OC]++
	}
	if len(perOC) != len(smart.Combinations()) {
		t.Errorf("verified %d OCs, want %d", len(perOC), len(smart.Combinations()))
	}
	t.Logf("verified %d variants of %d stencils in %v", len(results), len(sets), time.Since(start).Round(time.Second))
}

// TestVerifyBeyondSpace checks settings the setting space excludes but the generator supports:
// temporal blocking with shared=0 (input read from global memory, intermediate steps in shared
// memory), streaming along x, unroll factors beyond the merging factor.
func TestVerifyBeyondSpace(t *testing.T) {
	v := verifier(t, Verifier{})
	cases := []struct {
		st      *smart.Stencil
		oc, set string
	}{
		{named(t, "j2d9pt", 0, 0), "TB", "bx=32,by=2,shared=0,const=1,tt=3"},
		{named(t, "j2d9pt", 0, 0), "CM_TB", "bx=4,by=8,shared=0,const=0,ufx=4,ufy=4,cmx=2,cmy=2,tt=2"},
		{named(t, "j3d27pt", 0, 0), "ST_TB", "bx=8,by=4,bz=1,shared=0,const=0,sd=3,sb=4,ufx=1,ufy=1,ufz=2,tt=3"},
		{named(t, "j3d27pt", 0, 0), "ST_RT_PR_TB", "bx=1,by=8,bz=4,shared=0,const=1,sd=1,sb=4,ufx=2,ufy=1,ufz=1,tt=2"},
		{named(t, "j3d7pt", 0, 0), "ST_CM_PR_TB", "bx=8,by=1,bz=4,shared=0,const=0,sd=2,sb=2,ufx=2,ufy=1,ufz=1,cmx=2,cmy=1,cmz=1,tt=3"},
		{named(t, "j2d9pt", 0, 0), "ST_BM_RT_TB", "bx=1,by=32,shared=0,const=0,sd=1,sb=8,ufx=2,ufy=1,bmx=1,bmy=1,tt=3"},
		{named(t, "j3d13pt", 0, 0), "ST_PR", "bx=1,by=4,bz=8,shared=1,const=0,sd=1,sb=16,ufx=16,ufy=1,ufz=1"},
	}
	var variants []Variant
	for _, c := range cases {
		tu := tuning(t, c.st.Dims, c.oc, c.set)
		small := SmallCopy(c.st)
		small.Steps = VerifySteps(tu)
		variants = append(variants, Variant{small, tu.OC, tu.Setting()})
	}
	results, err := v.Verify(context.Background(), variants)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.OK() {
			t.Errorf("%s", r)
		}
	}
}

// TestVerifyCatchesFaults plants bugs in the generated kernels and checks that verification
// fails, naming the OC and the setting: a wrong halo offset gives wrong results, missing
// barriers give wrong results (reads of unwritten shared memory), and a barrier only some
// threads reach hangs until the timeout. Only the variants that hang get a short timeout: one
// that a loaded machine could outlast would turn a wrong result into a timeout.
func TestVerifyCatchesFaults(t *testing.T) {
	st := named(t, "j3d7pt", 0, 0)
	withBarriers := []string{
		"ST bx=8,by=4,bz=1,shared=1,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=2",
		"TB bx=8,by=4,bz=2,shared=1,const=1,tt=2",
		"BM bx=8,by=4,bz=1,shared=1,const=0,ufx=2,ufy=1,ufz=1,bmx=2,bmy=1,bmz=2",
	}
	for _, c := range []struct {
		fault    fault
		variants []string
		want     smart.Status
		timeout  time.Duration // 0: the default, which no correct kernel here comes near
	}{
		{faultHalo, append([]string{"BASE bx=32,by=2,bz=1,shared=0,const=0", "ST_RT bx=8,by=1,bz=4,shared=0,const=1,sd=2,sb=4,ufx=1,ufy=1,ufz=1"}, withBarriers...), smart.StatusWrongResult, 0},
		{faultNoBarrier, withBarriers, smart.StatusWrongResult, 0},
		{faultDivergentBarrier, withBarriers[:2], smart.StatusTimeout, time.Second},
	} {
		var variants []Variant
		for _, text := range c.variants {
			oc, set, _ := strings.Cut(text, " ")
			tu := tuning(t, 3, oc, set)
			small := SmallCopy(st)
			small.Steps = VerifySteps(tu)
			variants = append(variants, Variant{small, tu.OC, tu.Setting()})
		}
		v := verifier(t, Verifier{Timeout: c.timeout, fault: c.fault})
		results, err := v.Verify(context.Background(), variants)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results {
			line := r.String()
			t.Logf("fault %d: %s", c.fault, line)
			switch {
			case r.PTX.Status != smart.StatusOK:
				t.Errorf("fault %d: the faulty source should still be valid CUDA: %s", c.fault, line)
			case r.CPU.Status != c.want:
				t.Errorf("fault %d: CPU check %s, want %s: %s", c.fault, r.CPU.Status, c.want, line)
			case !strings.Contains(line, variants[i].OC.String()+" "+variants[i].Setting.String()+":"):
				t.Errorf("fault %d: the result does not name the OC and setting: %s", c.fault, line)
			}
		}
		// Unwritten points give infinite errors, which JSON cannot hold as numbers.
		if _, err := json.Marshal(NewReport("sm_80", 0, results, make([]Origin, len(results)), nil)); err != nil {
			t.Errorf("fault %d: the report is no JSON: %v", c.fault, err)
		}
	}
}

// TestVerifyOverflowingStencil: a float32 stencil whose values outgrow float32 within the
// verification steps (one coefficient is 1e38) cannot be verified; the variants are invalid,
// naming the overflow, not wrong results blamed on the kernel. Its float64 copy verifies.
func TestVerifyOverflowingStencil(t *testing.T) {
	v := verifier(t, Verifier{Seed: 1})
	big, err := smart.NewStencil("big", 2, []smart.Offset{{}, {1, 0, 0}}, []float64{1e-50, 1e38}, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	f32 := *big
	f32.Dtype = smart.Float32
	if err := f32.Validate(smart.Limits{}); err != nil {
		t.Fatal(err)
	}
	var variants []Variant
	for _, st := range []*smart.Stencil{&f32, big} {
		for _, text := range []string{"BASE bx=32,by=2,shared=0,const=0", "TB bx=8,by=4,shared=1,const=1,tt=2"} {
			oc, set, _ := strings.Cut(text, " ")
			tu := tuning(t, 2, oc, set)
			small := SmallCopy(st)
			small.Steps = VerifySteps(tu)
			variants = append(variants, Variant{small, tu.OC, tu.Setting()})
		}
	}
	results, err := v.Verify(context.Background(), variants)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		f32 := variants[i].Stencil.Dtype == smart.Float32
		switch {
		case r.PTX.Status != smart.StatusOK:
			t.Errorf("PTX: %s", r)
		case f32 && (r.CPU.Status != smart.StatusInvalid || !strings.HasPrefix(r.CPU.Detail, "the stencil overflows float32 within")):
			t.Errorf("float32: %s; want invalid, the stencil overflowing float32", r)
		case !f32 && !r.OK():
			t.Errorf("float64: %s", r)
		}
	}
}

// cancellingGiant is a float64 stencil, coefficients k and -k side by side along x, whose 2
// steps leave every reference point finite (below 1.95 k^2, the data in [1, 2)) while the
// magnitude of the terms summed (at least 2 k^2 in the interior) overflows float64.
func cancellingGiant(t *testing.T) *smart.Stencil {
	t.Helper()
	k := math.Sqrt(math.MaxFloat64 / 1.95)
	st, err := smart.NewStencil("giant", 2, []smart.Offset{{}, {1, 0, 0}}, []float64{k, -k}, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return SmallCopy(st)
}

// TestVerifyNonFiniteMagnitude: where the magnitude of the terms summed overflows float64, an
// error relative to it is 0 whatever the kernel wrote, so a wrong kernel passed; such a stencil
// cannot be checked: its variants, right or wrong, are invalid, the point and the magnitude
// named.
func TestVerifyNonFiniteMagnitude(t *testing.T) {
	st := cancellingGiant(t)
	tu := tuning(t, 2, "BASE", "bx=32,by=2,shared=0,const=0")
	st.Steps = VerifySteps(tu)
	variants := []Variant{{st, tu.OC, tu.Setting()}}
	for _, f := range []fault{noFault, faultCoef} {
		results, err := verifier(t, Verifier{Seed: 1, fault: f}).Verify(context.Background(), variants)
		if err != nil {
			t.Fatal(err)
		}
		r := results[0]
		if r.CPU.Status != smart.StatusInvalid || !strings.Contains(r.CPU.Detail, "the magnitude of the terms summed at point (") ||
			!strings.Contains(r.CPU.Detail, "is inf") {
			t.Errorf("fault %d: %s; want invalid, the point whose magnitude is inf named", f, r)
		}
	}
}

// TestVerifyCancellation: a stencil with coefficients of both signs, whose results are far
// smaller than the terms summed, passes in float32 (its rounding errors, bounded by the terms'
// magnitude, are not blamed on the kernel) and in float64, while a neighbour read one element
// off or a coefficient 2^-10 off still fails in both.
func TestVerifyCancellation(t *testing.T) {
	offs := []smart.Offset{{-1, 0, 0}, {0, -1, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	f64, err := smart.NewStencil("cancel", 2, offs, []float64{-0.25, 1e-9, 0.5, 0.3, 0.1}, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	f32 := *f64
	f32.Dtype = smart.Float32
	var variants []Variant
	for _, st := range []*smart.Stencil{&f32, f64} {
		for _, text := range []string{"BASE bx=32,by=2,shared=0,const=0", "TB bx=8,by=4,shared=1,const=0,tt=4", "TB bx=8,by=8,shared=1,const=1,tt=4"} {
			oc, set, _ := strings.Cut(text, " ")
			tu := tuning(t, 2, oc, set)
			small := SmallCopy(st)
			small.Steps = VerifySteps(tu)
			variants = append(variants, Variant{small, tu.OC, tu.Setting()})
		}
	}
	for _, c := range []struct {
		fault fault
		want  smart.Status
	}{{noFault, smart.StatusOK}, {faultHalo, smart.StatusWrongResult}, {faultCoef, smart.StatusWrongResult}} {
		v := verifier(t, Verifier{Seed: 1, fault: c.fault})
		results, err := v.Verify(context.Background(), variants)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results {
			if r.PTX.Status != smart.StatusOK || r.CPU.Status != c.want {
				t.Errorf("fault %d, %s: %s; want cpu %s", c.fault, variants[i].Stencil.Dtype, r, c.want)
			}
		}
	}
}

func TestSplit(t *testing.T) {
	mk := func(bytes ...int) []item {
		var items []item
		for _, b := range bytes {
			items = append(items, item{kernel: &Kernel{ConstantBytes: b}})
		}
		return items
	}
	for _, c := range []struct {
		bytes []int
		size  int
		want  []int
	}{
		{[]int{0, 0, 0, 0, 0}, 2, []int{2, 2, 1}},
		{[]int{40000, 20000, 10000, 0, 60000}, 10, []int{2, 2, 1}},
		{[]int{65536, 1, 65535}, 10, []int{1, 2}},
		{nil, 4, nil},
	} {
		var got []int
		for _, b := range split(mk(c.bytes...), c.size) {
			got = append(got, len(b))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("split(%v, %d): batch sizes %v, want %v", c.bytes, c.size, got, c.want)
		}
	}
}

func TestBlame(t *testing.T) {
	results := make([]Result, 3)
	var live []item
	for i := range results {
		live = append(live, item{result: &results[i]})
	}
	src := batchSource{lines: []int{10, 20, 30}}
	out := "/tmp/x/kernels.cu:25:3: error: use of undeclared identifier 'j'\n" +
		"kernels.cu:26:1: error: second\nharness.cpp:5:1: error: elsewhere\n"
	rest := blame(live, src, []byte(out), "clang-14", func(it item, c Check) { it.result.PTX = c })
	if len(rest) != 2 || rest[0].result != &results[0] || rest[1].result != &results[2] {
		t.Fatalf("blame kept %d variants, want variants 0 and 2", len(rest))
	}
	if want := (Check{smart.StatusCompileError, "clang-14: use of undeclared identifier 'j'"}); results[1].PTX != want {
		t.Errorf("variant 1: %+v, want %+v", results[1].PTX, want)
	}
	// An error outside every variant is blamed on all.
	rest = blame(rest, src, []byte("harness.h:3:1: fatal error: no such file\n"), "g++", func(it item, c Check) { it.result.CPU = c })
	if len(rest) != 0 || results[0].CPU.Status != smart.StatusCompileError || !strings.Contains(results[2].CPU.Detail, "no such file") {
		t.Errorf("an unattributed error left %d variants, results %+v", len(rest), results)
	}
}

func TestParseResult(t *testing.T) {
	for _, c := range []struct {
		line string
		want Check
		rel  RelErr
	}{
		{"ok 1.5e-16", Check{Status: smart.StatusOK}, 1.5e-16},
		{"wrong 2.000e-01 point (3,4,5) is 1, want 2; 7 of 100 points wrong", Check{smart.StatusWrongResult, "point (3,4,5) is 1, want 2; 7 of 100 points wrong"}, 0.2},
		{"wrong inf run returned neither buffer", Check{smart.StatusWrongResult, "run returned neither buffer"}, RelErr(math.Inf(1))},
		{"overflow the stencil overflows float32", Check{smart.StatusInvalid, "the stencil overflows float32"}, 0},
		{"launch out of memory", Check{smart.StatusLaunchError, "out of memory"}, 0},
	} {
		var rel RelErr
		if got := parseResult(strings.Fields(c.line), &rel); got != c.want || rel != c.rel {
			t.Errorf("%q: %+v %g, want %+v %g", c.line, got, rel, c.want, c.rel)
		}
	}
}

func TestAsanDetail(t *testing.T) {
	report := `=================================================================
==42==ERROR: AddressSanitizer: use-after-poison on address 0x7f at pc 0x5 bp 0x7 sp 0x7
READ of size 8 at 0x7f thread T3
    #0 0x55d in v12::kernel_t3(double const*, double*) (/tmp/h+0x1)
`
	if got, want := asanDetail(report), "AddressSanitizer: read of 8 bytes outside the grid in kernel_t3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := asanDetail("terminate called"); got != "" {
		t.Errorf("not a report, got %q", got)
	}
}

func TestFindToolsNamesPackages(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindTools()
	if err == nil || !strings.Contains(err.Error(), "apt-get install clang-14 g++") {
		t.Errorf("error %v, want one naming the Debian packages", err)
	}
}

// TestVerifyCancelKeepsFinished cancels a verification once its first batch has settled: the
// results come back with the error, those settled all correct (a cancelled compile or CPU run
// is not blamed on a variant), the rest without a CPU outcome.
func TestVerifyCancelKeepsFinished(t *testing.T) {
	vs, err := Sample(named(t, "j2d5pt", 0, 0), smart.Combination(0), 12, smart.SM80(), rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := verifier(t, Verifier{Seed: 1, Jobs: 1, BatchSize: 4, Progress: func(done, _ int) {
		if done >= 4 {
			cancel()
		}
	}})
	results, err := v.Verify(ctx, vs)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	settled := 0
	for _, r := range results {
		switch {
		case r.Settled() && !r.OK():
			t.Errorf("a settled variant failed: %s", r)
		case r.Settled():
			settled++
		}
	}
	if settled < 4 || settled == len(vs) {
		t.Errorf("%d of %d settled; want the first batch and not all", settled, len(vs))
	}
}

// TestInterrupted: a child ended by SIGINT (Ctrl-C reaches the whole process group) is an
// interruption; one that exits with an error or dies of another signal is not.
func TestInterrupted(t *testing.T) {
	for _, c := range []struct {
		script string
		want   bool
	}{{"kill -INT $$", true}, {"exit 1", false}, {"kill -SEGV $$", false}} {
		cmd := exec.Command("sh", "-c", c.script)
		cmd.Run()
		if got := interrupted(cmd.ProcessState); got != c.want {
			t.Errorf("%q: interrupted = %v, want %v", c.script, got, c.want)
		}
	}
	if interrupted(nil) {
		t.Error("a process that never ran was interrupted")
	}
}

// TestVerifyTinyTimeout runs correct kernels with a timeout shorter than the harness's start-up:
// each variant times out once and the run ends (it used to restart the harness for ever).
func TestVerifyTinyTimeout(t *testing.T) {
	st := named(t, "j3d7pt", 0, 0)
	var variants []Variant
	for _, text := range []string{"BASE bx=32,by=2,bz=1,shared=0,const=0", "TB bx=8,by=4,bz=2,shared=1,const=1,tt=2"} {
		oc, set, _ := strings.Cut(text, " ")
		tu := tuning(t, 3, oc, set)
		small := SmallCopy(st)
		small.Steps = VerifySteps(tu)
		variants = append(variants, Variant{small, tu.OC, tu.Setting()})
	}
	// A run that restarts for ever is cut off before the test binary's deadline.
	results, err := verifier(t, Verifier{Timeout: time.Nanosecond}).Verify(testctx.Context(t), variants)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.CPU.Status != smart.StatusTimeout {
			t.Errorf("CPU check %s, want a timeout: %s", r.CPU.Status, r)
		}
	}
}
