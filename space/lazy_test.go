package space

import (
	"math/rand/v2"
	"slices"
	"testing"

	"smart"
	"smart/catalog"
	"smart/generator/generatortest"
)

func lazyGPU(t testing.TB, name string) smart.GPU {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLazyAgreesWithSpace compares the lazy view of small stencil spaces with the chain of
// trees: every draw and neighbour is valid there, valid agrees with Check on
// every setting of the space and on every setting one parameter away, and draw can reach every
// setting of the space (each of its values passes the checks of its level, early ones
// included, so it has a positive probability).
func TestLazyAgreesWithSpace(t *testing.T) {
	cases := []struct {
		st  *smart.Stencil
		oc  smart.Combination
		gpu string
	}{
		{generatortest.Named(t, "box", 3, 3, [3]int{24, 24, 24}), smart.Combination(smart.TB), "P100"},
		{generatortest.Named(t, "box", 3, 3, [3]int{24, 24, 24}), smart.Combination(smart.ST | smart.RT | smart.PR | smart.TB), "T4"},
		{generatortest.Named(t, "star", 2, 2, [3]int{68, 36, 1}), smart.Combination(smart.ST | smart.CM), "A100"},
		{generatortest.Named(t, "star", 2, 1, [3]int{34, 34, 1}), smart.Combination(smart.BM | smart.TB), "V100"},
	}
	for _, c := range cases {
		g := lazyGPU(t, c.gpu)
		ref, err := ForStencil(c.st, c.oc, g)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := LazyForStencil(c.st, c.oc, g)
		if err != nil {
			t.Fatal(err)
		}
		name := c.st.Name + " " + c.oc.String() + " " + g.Name
		all := map[string]bool{}
		for s := range ref.All() {
			all[s.String()] = true
			v, ok := ss.Positions(s)
			if !ok || !ss.Valid(v) {
				t.Fatalf("%s: %s is in the space but the sampler rejects it", name, s)
			}
			for _, w := range ss.Neighbours(v) {
				if err := ref.Check(ss.Setting(w)); err != nil {
					t.Fatalf("%s: neighbour %s of %s is invalid: %v", name, ss.Setting(w), s, err)
				}
			}
			// Every single-parameter change the sampler calls invalid must be invalid.
			for i, p := range ss.params {
				for x := range p.Values {
					w := append([]int(nil), v...)
					w[i] = x
					if got, want := ss.Valid(w), ref.Check(ss.Setting(w)) == nil; got != want {
						t.Fatalf("%s: valid(%s) = %v, Check says %v", name, ss.Setting(w), got, want)
					}
				}
			}
		}
		buf := make([]int, ss.reads)
		for s := range ref.All() {
			v, _ := ss.Positions(s)
			for l := range ss.params {
				if !ss.ok(v, l, buf) {
					t.Fatalf("%s: draw cannot reach %s: the checks of %s reject its prefix", name, s, ss.params[l].Name)
				}
			}
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for range 1000 {
			if v, ok := ss.Draw(rng); ok && !all[ss.Setting(v).String()] {
				t.Fatalf("%s: drew %s, which is not in the space", name, ss.Setting(v))
			}
		}
	}
}

func BenchmarkDraw(b *testing.B) {
	st := generatortest.Named(b, "j3d27pt", 3, 1, [3]int{})
	g := lazyGPU(b, "A100")
	for _, oc := range []smart.Combination{smart.Combination(smart.ST | smart.BM | smart.RT | smart.PR | smart.TB), smart.Combination(smart.CM)} {
		ss, err := LazyForStencil(st, oc, g)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(oc.String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			fail := 0
			for b.Loop() {
				if _, ok := ss.Draw(rng); !ok {
					fail++
				}
			}
			b.ReportMetric(float64(fail)/float64(b.N), "dead-ends/op")
		})
	}
}

// TestLazyCheck holds Lazy.Check to Space.Check: the same verdict and message on every setting
// of a space, on every setting one value away, and on settings with a parameter unknown or
// missing; and the eager space's Lazy view draws what LazyForStencil's draws.
func TestLazyCheck(t *testing.T) {
	st := generatortest.Named(t, "star", 2, 2, [3]int{68, 36, 1})
	g := lazyGPU(t, "A100")
	oc := smart.Combination(smart.ST | smart.CM)
	ref, err := ForStencil(st, oc, g)
	if err != nil {
		t.Fatal(err)
	}
	lz, err := LazyForStencil(st, oc, g)
	if err != nil {
		t.Fatal(err)
	}
	same := func(set smart.Setting) {
		t.Helper()
		want, got := ref.Check(set), lz.Check(set)
		if (want == nil) != (got == nil) || want != nil && want.Error() != got.Error() {
			t.Fatalf("Check(%s): lazy %v, eager %v", set, got, want)
		}
	}
	valid := 0
	for s := range ref.All() {
		same(s)
		for _, p := range ref.Params() {
			for _, x := range append(slices.Clone(p.Values), -1) {
				w := s.Clone()
				w[p.Name] = x
				same(w)
				if lz.Check(w) == nil {
					valid++
				}
			}
		}
		w := s.Clone()
		w["nosuch"] = 1
		same(w)
		delete(w, "nosuch")
		delete(w, ref.Names()[0])
		same(w)
	}
	if valid == 0 {
		t.Fatal("no neighbouring setting is valid: the test compares only refusals")
	}
	if !slices.Equal(lz.Names(), ref.Names()) || lz.Dims() != ref.Dims() {
		t.Errorf("lazy names %v (%d), eager %v (%d)", lz.Names(), lz.Dims(), ref.Names(), ref.Dims())
	}
	view := ref.Lazy()
	r1, r2 := rand.New(rand.NewPCG(5, 6)), rand.New(rand.NewPCG(5, 6))
	for range 200 {
		a, okA := lz.Draw(r1)
		b, okB := view.Draw(r2)
		if okA != okB || !slices.Equal(a, b) {
			t.Fatalf("LazyForStencil drew %v (%v), Space.Lazy %v (%v)", a, okA, b, okB)
		}
	}
}
