package features_test

import (
	"math"
	"slices"
	"testing"

	"smart"
	"smart/features"
	"smart/generator"
)

// TestUsage holds the columns to smart.Tuning.Usage's formula, worked by hand for j3d7pt (order
// 1): 24 registers plus two a float64 value (one a float32), a value an accumulator per point a
// thread computes, plus the 2r+1 values of each point's column window when streaming.
func TestUsage(t *testing.T) {
	f64, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f32 := *f64
	f32.Dtype = smart.Float32
	st, bm := smart.Combination(smart.ST), smart.Combination(smart.ST).With(smart.BM)
	for _, tc := range []struct {
		name    string
		st      *smart.Stencil
		oc      smart.Combination
		setting string
		want    [3]float64 // registers, fused partial sums, local-memory values
	}{
		{"one point a thread", f64, 0, "bx=32,by=4,bz=2,shared=0,const=1", [3]float64{26, 0, 0}},
		// Two points along z in flight, each with its window of 3: 2 + 2*3 = 8 values.
		{"streaming, unrolled twice", f64, st, "bx=32,by=4,bz=1,shared=1,const=1,sd=3,sb=32,ufx=1,ufy=1,ufz=2", [3]float64{24 + 2*8, 0, 0}},
		{"the same in float32", &f32, st, "bx=32,by=4,bz=1,shared=1,const=1,sd=3,sb=32,ufx=1,ufy=1,ufz=2", [3]float64{24 + 8, 0, 0}},
		// Two points merged along x, a loop not unrolled and the window not in shared memory:
		// its 2 + 2*3 values are indexed at run time, in local memory.
		{"merged, not unrolled", f64, bm, "bx=32,by=4,bz=1,shared=0,const=1,sd=3,sb=32,ufx=1,ufy=1,ufz=1,bmx=2,bmy=1,bmz=1", [3]float64{24 + 2*8, 0, 2 * 8}},
	} {
		set, err := smart.ParseSetting(tc.setting)
		if err != nil {
			t.Fatal(err)
		}
		got, err := features.Usage(tc.st, tc.oc, set)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := []float64{math.Log1p(tc.want[0]), math.Log1p(tc.want[1]), math.Log1p(tc.want[2])}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want ln(1+%v) = %v", tc.name, got, tc.want, want)
		}
	}
	if len(features.UsageNames()) != 3 {
		t.Errorf("names %v for three columns", features.UsageNames())
	}
	if _, err := features.Usage(f64, st, smart.Setting{"bx": 32}); err == nil {
		t.Error("a setting missing parameters was accepted")
	}
}
