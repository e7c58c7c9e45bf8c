package app

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"smart"
	"smart/campaign"
)

// TestBenchTooShort: a Time spent before the first batch (below the least Check takes: the
// Bench is opened directly) stops a new run with nothing measured but its settings drawn and
// saved, which the next call starts from; a resumed run stopped so has done nothing, and is
// refused naming Time (campaign.ErrTooShort): given as long, every call would stop there.
func TestBenchTooShort(t *testing.T) {
	ctx := context.Background()
	b := Bench{Random: 2, Dims: 2, MaxOrder: 2, Seed: 1, Samples: 2, OCs: []smart.Combination{0}, Backend: "sim", GPU: "a100",
		Out: filepath.Join(t.TempDir(), "run"), Time: time.Nanosecond}
	call := func() (int, bool, error) {
		bg, err := b.Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer bg.Close()
		sum, err := bg.Run(ctx, nil)
		return sum.Written, sum.Stopped, err
	}
	if written, stopped, err := call(); err != nil || !stopped || written != 0 {
		t.Fatalf("first call: %d written, stopped %v, %v; want none written, stopped, no error", written, stopped, err)
	}
	written, stopped, err := call()
	var se *SettingError
	if !errors.Is(err, campaign.ErrTooShort) || !errors.As(err, &se) || se.Field != "Time" || !stopped || written != 0 {
		t.Errorf("resumed call: %d written, stopped %v, %v; want none written and ErrTooShort naming Time", written, stopped, err)
	}
	b.Time = 0
	if written, _, err := call(); err != nil || written != 4 {
		t.Errorf("without Time: %d written, %v; want the 4 variants", written, err)
	}
}
