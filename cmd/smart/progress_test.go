package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestProgressLine checks the estimate of the time left: the work left over the rate so far,
// and no overflowed duration for a total no run will reach (a --budget of 2^63-1).
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		total, done int
		elapsed     time.Duration
		want        string
	}{
		{100, 25, 10 * time.Second, "ETA 30s"},
		{100, 100, 10 * time.Second, "ETA done in 10s"},
		{100, 0, time.Second, "ETA ?"},
		{math.MaxInt, 1, time.Second, "ETA > 11 days"},
	} {
		p := &progress{label: "x", total: tc.total}
		if got := p.line(tc.done, tc.elapsed); !strings.HasSuffix(got, tc.want) {
			t.Errorf("%d of %d after %s: %q, want it to end in %q", tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}
