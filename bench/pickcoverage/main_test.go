package main

import (
	"math"
	"reflect"
	"testing"

	"smart/calibrate"
	"smart/models"
)

// TestTally: rows inside [lo, hi] cover, those under lo are measured faster than the band, those
// over hi slower; the median is of the residuals, the stencils counted once.
func TestTally(t *testing.T) {
	a := &calibrate.Band{Model: "a", Interval: models.Interval{LogLo: -0.5, LogHi: 0.5}}
	b := &calibrate.Band{Model: "b", Interval: models.Interval{LogLo: 0, LogHi: 1}}
	got := tally("picked", []residual{{"s1", -1, a}, {"s1", 0.2, a}, {"s2", 0.6, a}, {"s2", 0.6, b}, {"s3", 2, b}})
	want := Tally{Kind: "picked", Rows: 5, Stencils: 3, Coverage: 2.0 / 5, Below: 1.0 / 5, Above: 2.0 / 5, MedianLn: 0.6, Models: []string{"a", "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tally %+v\nwant %+v", got, want)
	}
	if even := tally("random", []residual{{"s1", 1, a}, {"s1", 2, a}}); math.Abs(even.MedianLn-1.5) > 1e-12 || even.Above != 1 {
		t.Errorf("two rows: %+v; want the median 1.5, both above", even)
	}
	if empty := tally("none", nil); empty.Rows != 0 || empty.Coverage != 0 {
		t.Errorf("no rows: %+v", empty)
	}
}
