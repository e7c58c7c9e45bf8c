package app

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart/calibrate"
	"smart/internal/atomicfile"
)

func TestCalibrateCheck(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(f func(*Calibrate)) Calibrate {
		c := Calibrate{Data: []string{"d"}, Out: filepath.Join(dir, "cal.json"), Settings: calibrate.Settings{Level: 0.8}}
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name  string
		c     Calibrate
		field string
	}{
		{"valid", base(func(*Calibrate) {}), ""},
		{"another file, forced", base(func(c *Calibrate) { c.Out, c.Replace = notes, true }), ""},
		{"no data", base(func(c *Calibrate) { c.Data = nil }), "Data"},
		{"no file", base(func(c *Calibrate) { c.Out = "" }), "Out"},
		{"level 0", base(func(c *Calibrate) { c.Settings.Level = 0 }), "Level"},
		{"level 1", base(func(c *Calibrate) { c.Settings.Level = 1 }), "Level"},
		{"NaN level", base(func(c *Calibrate) { c.Settings.Level = math.NaN() }), "Level"},
		{"one fold", base(func(c *Calibrate) { c.Settings.Folds = 1 }), "Folds"},
		{"negative folds", base(func(c *Calibrate) { c.Settings.Folds = -2 }), "Folds"},
		{"two folds", base(func(c *Calibrate) { c.Settings.Folds = 2 }), ""},
		{"test of other data", base(func(c *Calibrate) { c.Test = []string{dir} }), ""},
		{"test of the data", base(func(c *Calibrate) { c.Data, c.Test = []string{dir}, []string{dir} }), "Test"},
		{"test of the data, another path", base(func(c *Calibrate) { c.Data, c.Test = []string{dir}, []string{dir + "/."} }), "Test"},
		{"test of missing data, same path", base(func(c *Calibrate) { c.Test = []string{"./d"} }), "Test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.c.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
	if err := base(func(c *Calibrate) { c.Out = notes }).Check(); !errors.As(err, new(*atomicfile.NotOursError)) || refusedField(t, err) != "Out" {
		t.Errorf("a file of another kind: %v, want a refused Out wrapping *atomicfile.NotOursError", err)
	}
	if err := base(func(c *Calibrate) { c.Out = filepath.Join(notes, "cal.json") }).Check(); err == nil {
		t.Error("a file under a file passed")
	}
}

// TestCalibrateRun: the fits to come (a fold each, then all) are announced once the data are
// read, and a run that fails writes nothing.
func TestCalibrateRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cal.json")
	var heard [][2]int
	c := Calibrate{Data: []string{"../data/measured/h100-sxm/random/j3d125pt"}, Out: out,
		Settings: calibrate.Settings{Level: 0.8, Progress: func(done, total int) { heard = append(heard, [2]int{done, total}) }}}
	_, err := c.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "at least 3") {
		t.Fatalf("one stencil: %v, want too few to leave one out", err)
	}
	if len(heard) != 0 {
		t.Errorf("progress heard %v before a refusal, want nothing", heard)
	}
	c.Data = []string{"../data/measured/h100-sxm/random/j3d125pt", "../data/measured/h100-sxm/random/j3d19pt", "../data/measured/h100-sxm/random/j3d25pt"}
	c.Settings.Folds = 2
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Run(ctx); !errors.Is(err, context.Canceled) || len(heard) != 0 {
		t.Fatalf("cancelled before: %v, progress heard %v; want context.Canceled before the fits are announced", err, heard)
	}
	// Cancelled as the fits are announced, once the data are read: the fit stops.
	ctx, cancel = context.WithCancel(context.Background())
	progress := c.Settings.Progress
	c.Settings.Progress = func(done, total int) { progress(done, total); cancel() }
	if _, err := c.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled fit: %v", err)
	}
	c.Settings.Progress = progress
	if len(heard) != 1 || heard[0] != [2]int{0, 3} {
		t.Errorf("progress heard %v, want [0 3] alone (2 folds, then all)", heard)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed fit wrote the file")
	}
	c.Settings.Level = 2
	if _, err := c.Run(context.Background()); refusedField(t, err) != "Level" {
		t.Errorf("Run of a level out of range: %v", err)
	}
}

// TestScoreCalibrationCancelled: a cancelled context stops the scoring of a calibration with an
// error wrapping context.Canceled.
func TestScoreCalibrationCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ScoreCalibration{File: "embedded", Test: []string{"../data/measured/h100-sxm/random/j3d125pt"}}.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want an error wrapping context.Canceled", err)
	}
}

// TestScoreCalibrationUnscored: a test stencil with one row (the H200 campaign's only begun
// rand3d-o3-s1-0018) has nothing to rank: it is left out of the scores and named, not dropped
// without a word.
func TestScoreCalibrationUnscored(t *testing.T) {
	f, err := ScoreCalibration{File: "embedded", Test: []string{"../data/measured/h200/campaign"}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Test) != 40 || !slices.Equal(f.Unscored, []string{"H200 rand3d-o3-s1-0018"}) {
		t.Errorf("%d scored, unscored %q; want 40 and the one begun", len(f.Test), f.Unscored)
	}
	var b strings.Builder
	if err := f.WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	if want := "note: 1 stencil of the test left out, with fewer than 2 rows the model times (nothing to rank): H200 rand3d-o3-s1-0018"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
}
