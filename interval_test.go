package smart

import "testing"

func TestIntervalAtLeast(t *testing.T) {
	iv := Interval{Level: 0.8, LoMs: 2, HiMs: 5, From: "errors"}
	for _, c := range []struct {
		floor, lo, hi float64
	}{{1, 2, 5}, {3, 3, 5}, {6, 6, 6}} {
		got := iv.AtLeast(c.floor)
		if got.LoMs != c.lo || got.HiMs != c.hi || got.Level != iv.Level || got.From != iv.From {
			t.Errorf("floor %g: %+v, want %g-%g", c.floor, got, c.lo, c.hi)
		}
	}
}
