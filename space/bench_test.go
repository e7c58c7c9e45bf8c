package space

import (
	"math/rand/v2"
	"testing"

	"smart"
	"smart/generator"
)

// benchStencil is the random order-4 3-D stencil of docs/performance.md's figures: stencil 0 of
// generator.Spec{Dims: 3, Order: 4, Seed: 1} on the default 512^3 grid.
func benchStencil(b *testing.B) *smart.Stencil {
	st, err := generator.Spec{Dims: 3, Order: 4, Seed: 1}.Stencil(0)
	if err != nil {
		b.Fatal(err)
	}
	if st.Order() != 4 {
		b.Fatalf("%s has order %d, want 4", st.Name, st.Order())
	}
	return st
}

// BenchmarkForStencil generates the full space for the combinations with the largest spaces
// of the random order-4 stencil (CM without streaming is the largest; see docs/performance.md).
func BenchmarkForStencil(b *testing.B) {
	st := benchStencil(b)
	for _, name := range []string{"CM", "ST_CM_RT", "ST_CM_RT_PR_TB"} {
		oc, err := smart.ParseCombination(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var s *Space
			for b.Loop() {
				if s, err = ForStencil(st, oc, smart.SM80()); err != nil {
					b.Fatal(err)
				}
			}
			n, _ := s.Len()
			b.ReportMetric(float64(n), "settings")
		})
	}
}

// BenchmarkRandom draws uniformly random valid settings of the largest space.
func BenchmarkRandom(b *testing.B) {
	s, err := ForStencil(benchStencil(b), smart.Combination(smart.CM), smart.SM80())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Random(rng); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPoint maps random points of the coordinate space to settings.
func BenchmarkPoint(b *testing.B) {
	s, err := ForStencil(benchStencil(b), smart.Combination(smart.CM), smart.SM80())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, s.Dims())
	b.ReportAllocs()
	for b.Loop() {
		for i := range x {
			x[i] = 1 - rng.Float64()
		}
		if _, err := s.Point(x); err != nil {
			b.Fatal(err)
		}
	}
}
