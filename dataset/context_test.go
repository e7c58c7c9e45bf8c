package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/space"
)

// TestScanContextStops: a context ended while a data set is read stops the scan at the next
// look (every scanCheck rows), with an error wrapping context.Canceled that names the file and
// the rows read; a context ended before stops it at the first row.
func TestScanContextStops(t *testing.T) {
	dir := filepath.Join("..", "data", "measured", "h100-sxm", "campaign") // 20,225 rows
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	_, _, err := ScanContext(ctx, dir, func(smart.Measurement) error {
		if seen++; seen == 1 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), filepath.Join(dir, RowsFile)) || !strings.Contains(err.Error(), "stopped after 4096 rows") {
		t.Errorf("cancelled at the first row: %v, want context.Canceled after 4096 rows of %s", err, dir)
	}
	if seen != scanCheck {
		t.Errorf("%d rows read after the cancel, want %d", seen, scanCheck)
	}
	seen = 0
	if _, _, err := ScanContext(ctx, dir, func(smart.Measurement) error { seen++; return nil }); !errors.Is(err, context.Canceled) || seen != 0 {
		t.Errorf("cancelled before: %v after %d rows, want context.Canceled before any", err, seen)
	}
	if _, rows, err := ReadAllContext(ctx, dir); !errors.Is(err, context.Canceled) || len(rows) != 0 {
		t.Errorf("ReadAllContext cancelled before: %v after %d rows, want context.Canceled before any", err, len(rows))
	}
}

// TestCancelledReads: a cancelled context stops each reader of whole data sets with an error
// wrapping context.Canceled, and LabelWith writes no labels.
func TestCancelledReads(t *testing.T) {
	dir := handMade(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"ComputeStats", func() error { _, err := ComputeStats(ctx, dir); return err }},
		{"FastestMeasured", func() error { _, err := FastestMeasured(ctx, []string{dir}); return err }},
		{"ComputeLabels", func() error { _, err := ComputeLabels(ctx, dir, LabelOptions{Classes: 2}); return err }},
		{"LabelWith", func() error { _, err := LabelWith(ctx, dir, LabelOptions{Classes: 2}); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled: %v, want an error wrapping context.Canceled", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, LabelsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled LabelWith left %s: %v", LabelsFile, err)
	}
}

// TestItemsInterrupted: a plan interrupted while a space is built says so once, without the
// chain of spaces that stopped.
func TestItemsInterrupted(t *testing.T) {
	sts := testStencils(t, 2, 2)
	plan, err := NewPlan(sts, testOCs[:2], 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopping := func(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*space.Space, error) {
		cancel()
		return nil, fmt.Errorf("setting space of %s under %s: generating the search space: %w", st.Name, oc, ctx.Err())
	}
	_, err = plan.Items(ctx, sts, smart.SM80(), stopping, nil)
	if !errors.Is(err, context.Canceled) || err.Error() != "drawing the settings: context canceled" {
		t.Errorf("interrupted: %v; want \"drawing the settings: context canceled\"", err)
	}
}
