package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"smart/calibrate"
)

func TestCalibrate(t *testing.T) {
	dir := t.TempDir()
	data := []string{"../../data/measured/h100-sxm/random/j3d125pt", "../../data/measured/h100-sxm/random/j2d17pt", "../../data/measured/h100-sxm/random/j3d25pt"}
	out := filepath.Join(dir, "cal.json")
	code, stdout, stderr := runCLI(t, "", "calibrate", "--data", strings.Join(data, ","), "--folds", "2", "--test", "../../data/measured/h200/random/j3d125pt", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var printed calibrate.File
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("--json: %v", err)
	}
	f, err := calibrate.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.LeaveOneOut) != 3 || f.Folds != 2 || len(f.Test) != 1 || len(f.FittedOn) != 3 || f.Test[0].GPU != "H200" || printed.Interval != f.Interval {
		t.Errorf("wrote %d held-out scores, %d tests, %d sources (test on %q); printed interval %+v, written %+v",
			len(f.LeaveOneOut), len(f.Test), len(f.FittedOn), f.Test[0].GPU, printed.Interval, f.Interval)
	}
	if !strings.HasPrefix(f.Command, "smart calibrate --data ") {
		t.Errorf("command %q", f.Command)
	}
	// --score: the file's constants on the same test, without fitting, give the same scores.
	code, stdout, stderr = runCLI(t, "", "calibrate", "--score", out, "--test", "../../data/measured/h200/random/j3d125pt", "--json")
	var scored calibrate.File
	if code != 0 || json.Unmarshal([]byte(stdout), &scored) != nil {
		t.Fatalf("--score: exit %d: %s", code, stderr)
	}
	if !reflect.DeepEqual(scored.Test, f.Test) || scored.LeaveOneOut != nil || scored.Calibration.DRAMLatency != f.Calibration.DRAMLatency {
		t.Errorf("--score gave tests %+v (held-out %d); the fit's %+v", scored.Test, len(scored.LeaveOneOut), f.Test)
	}
	code, stdout, stderr = runCLI(t, "", "calibrate", "--score", "embedded", "--test", "../../data/measured/h200/random/j3d125pt")
	if code != 0 || !strings.Contains(stdout, "Scored as it is, nothing fitted") || strings.Contains(stdout, "Other GPUs") || !strings.Contains(stdout, "j3d125pt") ||
		strings.Contains(stdout, "left out of the fit") || strings.Contains(stdout, "warning") {
		t.Errorf("--score embedded: exit %d: %s\n%s", code, stderr, stdout)
	}
	// A data set the embedded calibration was fitted on: a warning, in_sample in --json, and
	// a note of the rows the model gives no time.
	classic := "../../data/measured/h100-sxm/classic"
	code, stdout, stderr = runCLI(t, "", "calibrate", "--score", "embedded", "--test", classic)
	for _, want := range []string{"warning: " + classic + " is among the data sets the calibration was fitted on", "note: " + classic + ": 70 of its 1198 rows measured ok left out"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--score embedded --test %s: exit %d: %s\n%s\nwant %q", classic, code, stderr, stdout, want)
		}
	}
	code, stdout, stderr = runCLI(t, "", "calibrate", "--score", "embedded", "--test", classic, "--json")
	var in calibrate.File
	if code != 0 || json.Unmarshal([]byte(stdout), &in) != nil || !reflect.DeepEqual(in.InSample, []string{classic}) || in.TestedOn[0].Unmodelled != 70 {
		t.Errorf("--score embedded --test %s --json: exit %d: %s; in sample %q, tested on %+v", classic, code, stderr, in.InSample, in.TestedOn)
	}
	// The table, and a second run replacing its own file.
	code, stdout, stderr = runCLI(t, "", "calibrate", "--data", strings.Join(data, ","), "--folds", "2", "-o", out)
	if code != 0 || !strings.Contains(stdout, "80% interval") || !strings.Contains(stdout, "j3d125pt") || !strings.Contains(stdout, "wrote "+out) {
		t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
	}
}

// TestCalibrateInterrupted: a run interrupted says so once: while it reads the data sets (or
// scores a calibration file on them), and in the fits, not once per fold that stopped.
func TestCalibrateInterrupted(t *testing.T) {
	data := "../../data/measured/h100-sxm/random/j3d125pt,../../data/measured/h100-sxm/random/j2d17pt,../../data/measured/h100-sxm/random/j3d25pt"
	out := filepath.Join(t.TempDir(), "cal.json")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"calibrate", "--data", data, "-o", out},
		{"calibrate", "--score", "embedded", "--test", data},
	} {
		var stdout, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &errb}
		code := run(cancelled, e, args)
		if want := "j3d125pt/rows.csv: stopped after 0 rows: interrupted\n"; code != 1 || !strings.HasSuffix(errb.String(), want) || strings.Count(errb.String(), "interrupted") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 1 and one line ending %q", args, code, errb.String(), want)
		}
	}
	// Interrupted as the bar of the fits is drawn: once the data sets are read.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout bytes.Buffer
	errw := &cancelOnWrite{cancel: cancel}
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: errw}
	code := run(ctx, e, []string{"calibrate", "--data", data, "-o", out})
	if want := "smart calibrate: calibration: interrupted after 0 of 4 fits\n"; code != 1 || !strings.HasSuffix(errw.String(), want) || strings.Count(errw.String(), "interrupted") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one line ending %q", code, errw.String(), want)
	}
}

// cancelOnWrite is a stderr that cancels the command at its first write (a progress bar drawn
// once the data are read): a Ctrl-C as the work begins.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

func TestCalibrateRefuses(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	data := "../../data/measured/h100-sxm/random/j3d125pt"
	empty := filepath.Join(dir, "empty") // a data set whose rows.csv holds its header alone
	if err := os.CopyFS(empty, os.DirFS(data)); err != nil {
		t.Fatal(err)
	}
	rows, _ := os.ReadFile(filepath.Join(empty, "rows.csv"))
	head, _, _ := strings.Cut(string(rows), "\n")
	if err := os.WriteFile(filepath.Join(empty, "rows.csv"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no data", []string{"-o", filepath.Join(dir, "a.json")}, 2, "--data"},
		{"no output", []string{"--data", data}, 2, "-o"},
		{"level", []string{"--data", data, "-o", filepath.Join(dir, "a.json"), "--level", "1.5"}, 2, "--level 1.5"},
		{"one fold", []string{"--data", data, "-o", filepath.Join(dir, "a.json"), "--folds", "1"}, 2, "--folds 1"},
		{"not ours", []string{"--data", data, "-o", notes}, 2, "give --force"},
		{"unwritable", []string{"--data", data, "-o", filepath.Join(dir, "no", "such", "a.json")}, 1, "a.json"},
		{"missing data", []string{"--data", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "a.json")}, 1, "none"},
		{"too few stencils", []string{"--data", data, "-o", filepath.Join(dir, "a.json")}, 1, "at least 3"},
		{"score and fit", []string{"--score", "embedded", "--data", data, "--test", data}, 2, "not a fit's --data, -o"},
		{"score at a level", []string{"--score", "embedded", "--test", data, "--level", "0.9"}, 2, "--level"},
		{"score in folds", []string{"--score", "embedded", "--test", data, "--folds", "3"}, 2, "--folds"},
		{"test of the fit's data", []string{"--data", data + ",../../data/measured/h100-sxm/random/j3d19pt,../../data/measured/h100-sxm/random/j3d25pt", "--test", "../../data/measured/h100-sxm/random/../random/j3d125pt", "-o", filepath.Join(dir, "a.json")}, 2, "--test ../../data/measured/h100-sxm/random/../random/j3d125pt: the fit reads it too"},
		{"score a data set's meta.json", []string{"--score", data + "/meta.json", "--test", data}, 1, `meta.json is format "smart-dataset/1"; a calibration file is "smart-calibration/1"`},
		{"score no rows", []string{"--score", "embedded", "--test", empty}, 1, "data set " + empty + ": no row measured ok"},
		{"score without test", []string{"--score", "embedded"}, 2, "--test"},
		{"score no file", []string{"--score", filepath.Join(dir, "none.json"), "--test", data}, 1, "none.json"},
		{"score not a calibration", []string{"--score", notes, "--test", data}, 1, "notes.txt"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"calibrate"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want exit %d naming %q", c.name, code, stderr, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Errorf("notes.txt changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.json")); err == nil {
		t.Error("a failed run left a file")
	}
}
