package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/campaign"
	"smart/dataset"
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

// TestBenchChecksOutBeforeDrawing: an Out that the run could not write into is refused by Open
// before a setting is drawn (minutes, for many 3-D stencils), naming Out: a directory of someone
// else's files, a data set another run writes, one with a damaged line.
func TestBenchChecksOutBeforeDrawing(t *testing.T) {
	ctx := context.Background()
	bench := func(out string, drawn *int) Bench {
		return Bench{Random: 2, Dims: 2, MaxOrder: 2, Seed: 1, Samples: 2, OCs: []smart.Combination{0}, Backend: "sim", GPU: "a100", Out: out,
			Drawing: func(int, int) { *drawn++ }}
	}
	// run measures a data set, less its items file, so that opening it again draws the settings.
	run := func(t *testing.T, out string) {
		var drawn int
		bg, err := bench(out, &drawn).Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer bg.Close()
		if _, err := bg.Run(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(out, dataset.ItemsFile)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, out string)
		want    string
	}{
		{"someone else's files", func(t *testing.T, out string) {
			os.Mkdir(out, 0o755)
			os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
		}, "is not empty and holds no data set"},
		{"being written", func(t *testing.T, out string) {
			run(t, out)
			w, _, err := dataset.Resume(out)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
		}, "is being written by another run"},
		{"a damaged line", func(t *testing.T, out string) {
			run(t, out)
			path := filepath.Join(out, dataset.RowsFile)
			b, _ := os.ReadFile(path)
			lines := strings.SplitAfter(string(b), "\n")
			lines[1] = "1,2,damaged\n"
			os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
		}, dataset.RowsFile + ":2: the row has 3 fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			tc.prepare(t, out)
			var drawn int
			bg, err := bench(out, &drawn).Open(ctx)
			if err == nil {
				bg.Close()
			}
			var se *SettingError
			if !errors.As(err, &se) || se.Field != "Out" || !strings.Contains(err.Error(), tc.want) || drawn != 0 {
				t.Errorf("Open: %v, %d stencils drawn; want none drawn and Out refused: %q", err, drawn, tc.want)
			}
		})
	}
}
