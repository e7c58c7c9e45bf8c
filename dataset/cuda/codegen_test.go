package cuda

import (
	"math/rand/v2"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"smart"
	"smart/generator"
	"smart/space"
)

// named returns a named shape (a family needs dims and order) on its default grid.
func named(t testing.TB, name string, dims, order int) *smart.Stencil {
	t.Helper()
	offs, err := generator.Named(name, dims, order)
	if err != nil {
		t.Fatal(err)
	}
	if dims == 0 {
		sh, _ := generator.LookupShape(name)
		dims = sh.Dims
	}
	st, err := smart.NewStencil(name, dims, offs, nil, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func tuning(t testing.TB, dims int, oc, setting string) smart.Tuning {
	t.Helper()
	c, err := smart.ParseCombination(oc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := smart.ParseSetting(setting)
	if err != nil {
		t.Fatal(err)
	}
	tu, err := smart.DecodeTuning(dims, c, s)
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// TestSharedElemsGolden checks SharedElems against values worked out by hand from the layout:
// level k of tt fused levels covers the tile plus r*(tt-k) per side; boxes ping-pong between
// two buffers, planes sit in rings of 2r+2 (2 with retiming).
func TestSharedElemsGolden(t *testing.T) {
	for _, c := range []struct {
		dims    int
		oc, set string
		r, want int
	}{
		{2, "BASE", "bx=32,by=4,shared=1,const=0", 1, 34 * 6},
		{2, "BASE", "bx=32,by=4,shared=0,const=0", 1, 0},
		{2, "BM", "bx=8,by=4,shared=1,const=0,ufx=1,ufy=1,bmx=4,bmy=2", 2, (32 + 4) * (8 + 4)},
		{2, "TB", "bx=32,by=4,shared=1,const=0,tt=2", 1, 36*8 + 34*6},
		{2, "TB", "bx=32,by=4,shared=1,const=0,tt=3", 1, 38*10 + 36*8},
		{2, "TB", "bx=32,by=4,shared=0,const=0,tt=3", 1, 36*8 + 34*6},
		{2, "TB", "bx=32,by=4,shared=0,const=0,tt=2", 1, 34 * 6},
		{3, "ST", "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1", 1, 4 * 34 * 6},
		{3, "ST", "bx=32,by=4,bz=1,shared=0,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1", 1, 0},
		{3, "ST_RT", "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1", 2, 2 * 36 * 8},
		{3, "ST_TB", "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1,tt=2", 1, 4 * (36*8 + 34*6)},
		{3, "ST_TB", "bx=32,by=4,bz=1,shared=0,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1,tt=2", 1, 4 * 34 * 6},
		{3, "ST_CM", "bx=8,by=1,bz=4,shared=1,const=0,sd=2,sb=4,ufx=2,ufy=1,ufz=1,cmx=2,cmy=1,cmz=2", 1, 4 * 18 * 10},
		{2, "ST_RT_TB", "bx=1,by=64,shared=1,const=0,sd=1,sb=16,ufx=1,ufy=1,tt=2", 3, 2 * (64 + 12 + 64 + 6)},
	} {
		tu := tuning(t, c.dims, c.oc, c.set)
		if got := tu.SharedElems(c.r); got != c.want {
			t.Errorf("%s %s r=%d: SharedElems %d, want %d", c.oc, c.set, c.r, got, c.want)
		}
	}
}

// TestSharedAllocationIsSharedElems checks, for every OC and random settings of several
// stencils, that each launch asks for exactly Tuning.SharedElems of the steps it fuses. The
// CPU check runs kernels with a shared buffer of exactly that size under AddressSanitizer, so
// a kernel that used more would fail verification.
func TestSharedAllocationIsSharedElems(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	stencils := []*smart.Stencil{named(t, "j2d9pt", 0, 0), named(t, "j3d27pt", 0, 0), named(t, "box", 3, 4)}
	f32 := named(t, "j3d7pt", 0, 0)
	f32.Dtype = smart.Float32
	stencils = append(stencils, f32)
	checked := 0
	for _, st := range stencils {
		for _, oc := range smart.Combinations() {
			vs, err := Sample(st, oc, 3, smart.SM80(), rng)
			if err != nil {
				t.Logf("%s %s: %v", st.Name, oc, err)
				continue
			}
			for _, v := range vs {
				tu, _ := smart.DecodeTuning(st.Dims, oc, v.Setting)
				k, err := Generate(v.Stencil, tu)
				if err != nil {
					t.Fatalf("%s %s %s: %v", st.Name, oc, v.Setting, err)
				}
				for _, l := range k.Launches {
					fused := tu
					fused.TT = l.Steps
					if want := fused.SharedElems(st.Order()) * st.Dtype.Size(); l.SharedBytes != want {
						t.Errorf("%s %s %s %s: %d bytes of shared memory, SharedElems gives %d", st.Name, oc, v.Setting, l.Kernel, l.SharedBytes, want)
					}
					checked++
				}
				if u := tu.Usage(v.Stencil); u.SharedBytes != k.Launches[0].SharedBytes {
					t.Errorf("%s %s %s: Usage says %d shared bytes, the kernel uses %d", st.Name, oc, v.Setting, u.SharedBytes, k.Launches[0].SharedBytes)
				}
			}
		}
	}
	if checked < 300 {
		t.Errorf("checked only %d launches", checked)
	}
}

func TestLaunches(t *testing.T) {
	st := named(t, "j2d5pt", 0, 0)
	st.Grid = [3]int{41, 37, 1} // interior 39x35
	for _, c := range []struct {
		oc, set string
		steps   int
		want    []Launch
	}{
		{"BASE", "bx=32,by=4,shared=0,const=0", 3, []Launch{{"kernel_t1", [3]int{2, 9, 1}, [3]int{32, 4, 1}, 0, 1, 3}}},
		{"CM", "bx=8,by=4,shared=1,const=0,ufx=1,ufy=1,cmx=2,cmy=2", 2,
			[]Launch{{"kernel_t1", [3]int{3, 5, 1}, [3]int{8, 4, 1}, 18 * 10 * 8, 1, 2}}},
		{"ST", "bx=32,by=1,shared=1,const=0,sd=2,sb=8,ufx=1,ufy=2", 2,
			[]Launch{{"kernel_t1", [3]int{2, 5, 1}, [3]int{32, 1, 1}, 4 * 34 * 8, 1, 2}}},
		{"TB", "bx=32,by=4,shared=1,const=0,tt=3", 7, []Launch{
			{"kernel_t3", [3]int{2, 9, 1}, [3]int{32, 4, 1}, (38*10 + 36*8) * 8, 3, 2},
			{"kernel_t1", [3]int{2, 9, 1}, [3]int{32, 4, 1}, 34 * 6 * 8, 1, 1}}},
		{"TB", "bx=32,by=4,shared=1,const=0,tt=3", 6, []Launch{
			{"kernel_t3", [3]int{2, 9, 1}, [3]int{32, 4, 1}, (38*10 + 36*8) * 8, 3, 2}}},
		{"TB", "bx=32,by=4,shared=1,const=0,tt=4", 3, []Launch{
			{"kernel_t3", [3]int{2, 9, 1}, [3]int{32, 4, 1}, (38*10 + 36*8) * 8, 3, 1}}},
	} {
		s := *st
		s.Steps = c.steps
		k, err := Generate(&s, tuning(t, 2, c.oc, c.set))
		if err != nil {
			t.Fatal(err)
		}
		if len(k.Launches) != len(c.want) {
			t.Fatalf("%s %s: launches %+v, want %+v", c.oc, c.set, k.Launches, c.want)
		}
		for i, l := range k.Launches {
			if l != c.want[i] {
				t.Errorf("%s %s steps=%d: launch %d is %+v, want %+v", c.oc, c.set, c.steps, i, l, c.want[i])
			}
			if !strings.Contains(k.Source, "__global__ void __launch_bounds__("+strconv.Itoa(l.Block[0]*l.Block[1])+") "+l.Kernel+"(") {
				t.Errorf("%s: source lacks kernel %s", c.oc, l.Kernel)
			}
		}
	}
}

// TestSourceHasNoStencilText gives a stencil a name full of C++ and checks that nothing of it
// reaches the source: the header names the stencil by its ID, and all else is numbers.
func TestSourceHasNoStencilText(t *testing.T) {
	st := named(t, "j3d7pt", 0, 0)
	st.Name = `evil"); system("rm -rf /"); /* */ #include <cstdlib> // \`
	for _, oc := range smart.Combinations() {
		vs, err := Sample(st, oc, 1, smart.SM80(), rand.New(rand.NewPCG(1, uint64(oc))))
		if err != nil {
			t.Fatal(err)
		}
		tu, _ := smart.DecodeTuning(3, oc, vs[0].Setting)
		k, err := Generate(vs[0].Stencil, tu)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"evil", "system", "rm -rf", "#include", "cstdlib", `\"`} {
			if strings.Contains(k.File(), bad) {
				t.Errorf("%s: the source contains %q from the stencil's name", oc, bad)
			}
		}
		if !strings.Contains(k.Source, "// Stencil "+vs[0].Stencil.ID()+": 3-D, order 1, 7 points") {
			t.Errorf("%s: the header does not name the stencil by its ID:\n%s", oc, k.Source[:300])
		}
	}
}

var hexLiteral = regexp.MustCompile(`\(?(-?0x[0-9a-f.]+p[-+][0-9]+)(f?)\)?`)

// TestCoefficientsExact reads the coefficients back from the source, for literals and for the
// constant array, in both precisions.
func TestCoefficientsExact(t *testing.T) {
	coefs := []float64{0.1, -1.0 / 3, 1e-300, 12345.678901234567, 0}
	st, err := smart.NewStencil("c", 2, []smart.Offset{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}}, coefs, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	st.Grid = [3]int{40, 36, 1}
	for _, dt := range []smart.Dtype{smart.Float64, smart.Float32} {
		st.Dtype = dt
		for _, cnst := range []string{"0", "1"} {
			k, err := Generate(st, tuning(t, 2, "BASE", "bx=32,by=1,shared=0,const="+cnst))
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			for _, m := range hexLiteral.FindAllStringSubmatch(k.Source, -1) {
				if (m[2] == "f") != (dt == smart.Float32) {
					t.Errorf("%s: literal %s has the wrong suffix", dt, m[0])
				}
				v, err := strconv.ParseFloat(m[1], 64)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, v)
			}
			if len(got) != len(coefs) {
				t.Fatalf("%s const=%s: found %d literals %v, want %d", dt, cnst, len(got), got, len(coefs))
			}
			for i, c := range coefs {
				want := c
				if dt == smart.Float32 {
					want = float64(float32(c))
				}
				if got[i] != want {
					t.Errorf("%s const=%s: coefficient %d reads back as %v, want %v", dt, cnst, i, got[i], want)
				}
			}
		}
	}
}

func TestGenerateRejects(t *testing.T) {
	st3 := named(t, "j3d7pt", 0, 0)
	huge := named(t, "j2d5pt", 0, 0)
	huge.Grid = [3]int{64, 1 << 20, 1}
	f32 := named(t, "j2d5pt", 0, 0)
	f32.Dtype = smart.Float32
	f32.Points[0].Coef = 1e300
	sum := named(t, "j2d5pt", 0, 0)
	sum.Points[0].Coef, sum.Points[1].Coef = 1e308, 1e308
	for _, c := range []struct {
		st      *smart.Stencil
		dims    int
		oc, set string
		want    string
	}{
		{st3, 3, "ST", "bx=32,by=4,bz=2,shared=1,const=0,sd=3,sb=8,ufx=1,ufy=1,ufz=1", "bz is 2; streaming along it (sd=3) needs a block size of 1"},
		{st3, 3, "ST_BM", "bx=32,by=1,bz=4,shared=1,const=0,sd=2,sb=8,ufx=1,ufy=1,ufz=1,bmx=1,bmy=2,bmz=1", "bmy is 2; streaming along it (sd=2) merges no points"},
		{st3, 3, "BASE", "bx=64,by=32,bz=1,shared=0,const=0", "2048 threads exceeds CUDA's 1024"},
		{st3, 3, "BASE", "bx=1,by=1,bz=128,shared=0,const=0", "bz is 128; CUDA allows 1 to 64"},
		{st3, 2, "BASE", "bx=32,by=1,shared=0,const=0", "the setting is for 2-D stencils, the stencil is 3-D"},
		{huge, 2, "BASE", "bx=64,by=1,shared=0,const=0", "exceeds CUDA's limits"},
		{f32, 2, "BASE", "bx=32,by=1,shared=0,const=0", "more than the largest float32 (3.4028234663852886e+38), so results overflow; scale them down or use dtype float64"},
		{sum, 2, "BASE", "bx=32,by=1,shared=0,const=0", `field "coefficients": have absolute values summing to +Inf`},
	} {
		_, err := Generate(c.st, tuning(t, c.dims, c.oc, c.set))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want one containing %q", c.oc, c.set, err, c.want)
		}
	}
}

// Tunings built directly (DecodeTuning rejects these settings) whose products overflow or
// whose kernel would be absurd get an error naming the parameter before any work: no division
// by zero in the launch grid, no source of gigabytes (at most 16 MB is allocated), no shared memory size
// that wraps.
func TestGenerateRejectsAbsurdTunings(t *testing.T) {
	st3 := named(t, "j3d7pt", 0, 0)
	copy2, err := smart.NewStencil("copy", 2, []smart.Offset{{}}, nil, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	copy2.Steps = smart.MaxSteps
	for _, c := range []struct {
		name    string
		st      *smart.Stencil
		oc, set string
		edit    func(*smart.Tuning)
		want    string
	}{
		{"zero block", st3, "BASE", "bx=32,by=8,bz=1,shared=0,const=0", func(t *smart.Tuning) { t.Block[0] = 0 }, "bx is 0"},
		{"tile wraps to 0", st3, "BM", "bx=32,by=8,bz=1,shared=1,const=0,bmx=1,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1",
			func(t *smart.Tuning) { t.Merge[0] = 1 << 59 }, "bmx is 576460752303423488; it must be at most 1048576"},
		{"negative unroll", st3, "BM", "bx=32,by=8,bz=1,shared=1,const=0,bmx=1,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1",
			func(t *smart.Tuning) { t.Unroll[2] = -3 }, "ufz is -3; it must be at least 1"},
		{"dims beyond 3", st3, "BASE", "bx=32,by=8,bz=1,shared=0,const=0", func(t *smart.Tuning) { t.Dims = 7 }, "dims is 7"},
		{"11 TB of shared memory", st3, "BM", "bx=32,by=8,bz=1,shared=1,const=0,bmx=1,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1",
			func(t *smart.Tuning) { t.Merge = [3]int{1 << 15, 1 << 17, 1 << 6} }, "more than CUDA can allocate"},
		{"a million fused steps", st3, "ST_RT_TB", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1,tt=2",
			func(t *smart.Tuning) { t.TT = 1 << 20 }, "tt is 1048576; each fused step is written out"},
		{"half a gigabyte of source", copy2, "TB", "bx=32,by=8,shared=1,const=0,tt=2",
			func(t *smart.Tuning) { t.TT = 1 << 20 }, "fuse at most 1024"},
	} {
		tu := tuning(t, c.st.Dims, c.oc, c.set)
		c.edit(&tu)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Generate(c.st, tu)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
			t.Errorf("%s: %d MB allocated before the error", c.name, n>>20)
		}
	}
}

// TestGenerateAcceptsTallSpaces is a property of the setting space: every setting it holds
// can be generated. On grids whose interior along y or z is longer than CUDA's 65535 blocks
// (a tile of 1 there is too many blocks), random settings of every OC's space are generated.
func TestGenerateAcceptsTallSpaces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name string
		grid [3]int
	}{
		{"j2d5pt", [3]int{64, 1_000_000, 1}},
		{"j3d7pt", [3]int{64, 64, 100_000}},
		{"j3d7pt", [3]int{64, 100_000, 64}},
	} {
		st := named(t, c.name, 0, 0)
		st.Grid = c.grid
		for _, oc := range smart.Combinations() {
			sp, err := space.ForStencil(st, oc, smart.SM80())
			if err != nil {
				t.Fatal(err)
			}
			for range 8 {
				set, err := sp.Random(rng)
				if err != nil {
					t.Fatalf("%s %v %s: %v", c.name, c.grid, oc, err)
				}
				if _, err := Generate(st, tuning(t, st.Dims, oc.String(), set.String())); err != nil {
					t.Errorf("%s %v: the space holds %s %s, which does not generate: %v", c.name, c.grid, oc, set, err)
				}
			}
		}
	}
}

// TestSmallCopyFitsEveryOC checks that the verification grid leaves every OC a valid setting
// for stencils of orders 1 to 4, and that its interior extents are odd: no power-of-two tile
// above 1 divides them.
func TestSmallCopyFitsEveryOC(t *testing.T) {
	for _, c := range []struct{ dims, order int }{{2, 1}, {2, 2}, {2, 3}, {2, 4}, {3, 1}, {3, 2}, {3, 3}, {3, 4}} {
		st := named(t, "box", c.dims, c.order)
		small := SmallCopy(st)
		for a := range c.dims {
			if (small.Grid[a]-2*c.order)%2 == 0 {
				t.Errorf("%d-D order %d: the interior extent %d is even", c.dims, c.order, small.Grid[a]-2*c.order)
			}
		}
		for _, oc := range smart.Combinations() {
			sp, err := space.ForStencil(small, oc, smart.SM80())
			if err != nil {
				t.Fatal(err)
			}
			if sp.Count().Sign() == 0 {
				t.Errorf("%d-D order %d: %s has no valid setting on %v", c.dims, c.order, oc, small.Grid)
			}
		}
	}
}

// BenchmarkGenerate times generating one variant: a 729-point box under streaming, retiming,
// prefetching and two fused steps (the largest source), and the 7-point star under BASE.
func BenchmarkGenerate(b *testing.B) {
	for _, c := range []struct {
		name    string
		st      *smart.Stencil
		oc, set string
	}{
		{"j3d7pt/BASE", named(b, "j3d7pt", 0, 0), "BASE", "bx=32,by=4,bz=2,shared=1,const=0"},
		{"box3d4/ST_RT_PR_TB", named(b, "box", 3, 4), "ST_RT_PR_TB", "bx=16,by=8,bz=1,shared=1,const=1,sd=3,sb=32,ufx=1,ufy=1,ufz=4,tt=2"},
	} {
		tu := tuning(b, 3, c.oc, c.set)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Generate(c.st, tu); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
