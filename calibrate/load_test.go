package calibrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart/catalog"
	"smart/data"
	"smart/dataset"
)

// copyData copies the committed data set measured/REL into a temporary directory, edits each
// of its files named in edits (old=>new, once), and returns the copy's path.
func copyData(t *testing.T, rel string, edits map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(rel))
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "data", "measured", rel))); err != nil {
		t.Fatal(err)
	}
	for file, edit := range edits {
		path := filepath.Join(dir, file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		from, to, _ := strings.Cut(edit, "=>")
		if !strings.Contains(string(b), from) {
			t.Fatalf("%q not in %s", from, path)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadRefuses: a data set Load cannot read as one GPU's measurements is an error that names
// it and says why, rather than a silent loss (of a copy bandwidth, of every row).
func TestLoadRefuses(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	const set = "h200/random/j3d19pt"
	header := func(t *testing.T) string { // rows.csv with its header alone
		dir := copyData(t, set, nil)
		b, err := os.ReadFile(filepath.Join(dir, "rows.csv"))
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(b), "\n")
		if err := os.WriteFile(filepath.Join(dir, "rows.csv"), []byte(head+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, c := range []struct {
		name string
		dir  func(t *testing.T) string
		want []string
	}{
		{"malformed copy bandwidth", func(t *testing.T) string {
			return copyData(t, set, map[string]string{"copy_bandwidth.csv": "4245.784=>4245,784"})
		}, []string{"copy_bandwidth.csv line 1"}},
		{"no rows", header, []string{"j3d19pt: no row measured ok"}},
		{"two GPUs in meta.json", func(t *testing.T) string {
			return copyData(t, set, map[string]string{"meta.json": `"devices": [=>"allow_mixed": true, "devices": [{"gpu": "H100-SXM"},`})
		}, []string{"j3d19pt holds the rows of H100-SXM and H200", "give each GPU's data set separately"}},
		{"a row of another GPU", func(t *testing.T) string {
			return copyData(t, set, map[string]string{"rows.csv": ",H200,=>,H100-SXM,"})
		}, []string{"rows.csv: row 1 is of GPU \"H100-SXM\" (device \"NVIDIA H200\"), which meta.json's devices do not name", "correct its gpu and device, or delete it"}},
		{"an AMD GPU's, which the model gives no time", func(t *testing.T) string {
			dir := copyData(t, set, map[string]string{"meta.json": `"gpu": "H200"=>"gpu": "MI250X"`})
			rows := filepath.Join(dir, "rows.csv")
			b, err := os.ReadFile(rows)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(rows, []byte(strings.ReplaceAll(string(b), ",H200,", ",MI250X,")), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, []string{"j3d19pt: the model gives none of its", "covers NVIDIA GPUs only", "nothing to fit or score"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(context.Background(), []string{c.dir(t)}, cat)
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%v; want an error saying %q", err, w)
				}
			}
		})
	}
	// A copy beside its original, whose rows would count twice.
	original := copyData(t, set, nil)
	if _, err := Load(context.Background(), []string{original, copyData(t, set, nil)}, cat); err == nil || !strings.Contains(err.Error(), "are the same data set (one copies the other); give it once") {
		t.Errorf("a data set and its copy: %v", err)
	}
	// No copy_bandwidth.csv is no error: the GPU's bandwidth comes from the catalogue.
	dir := copyData(t, set, nil)
	if err := os.Remove(filepath.Join(dir, "copy_bandwidth.csv")); err != nil {
		t.Fatal(err)
	}
	if d, err := Load(context.Background(), []string{dir}, cat); err != nil || len(d.CopyGBs) != 0 || d.Sources[0].CopyGBs != 0 {
		t.Errorf("no copy bandwidth measured: %v, %+v", err, d)
	}
}

// TestLoadCountsUnmodelled: the ok rows of classic the model gives no time (settings it estimates
// to spill heavily) are counted, with a reason, and are the rows missing from the scores.
func TestLoadCountsUnmodelled(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), []string{filepath.Join("..", "data", "measured", "h100-sxm", "classic")}, cat)
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for _, g := range d.Groups {
		scored += score(g, nil).N
	}
	s := d.Sources[0]
	if s.Rows != 1198 || s.Unmodelled == 0 || s.Rows-s.Unmodelled != scored || !strings.Contains(s.UnmodelledWhy, "spill heavily") {
		t.Errorf("source %+v, %d rows scored; want 1198 rows, the unmodelled the rest, and why", s, scored)
	}
	var f File
	f.LeaveOneOut = []Score{{GPU: "H100-SXM", Stencil: "x"}} // a fit's file: FittedOn is this run's
	f.FittedOn = d.Sources
	var b strings.Builder
	if err := f.WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	want := "of its 1198 rows measured ok left out"
	if !strings.Contains(b.String(), want) {
		t.Errorf("tables:\n%s\nwant a note %q", b.String(), want)
	}
}

// TestScoreTest: a test data set the calibration was fitted on (by its path from elsewhere, or a
// copy) is named in InSample and warned of; one of another GPU, or one the fit never read, is
// not; a test with nothing to score is an error.
func TestScoreTest(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	fitted := filepath.Join("..", "data", "measured", "h100-sxm", "random", "j3d125pt")
	abs, err := filepath.Abs(fitted)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		fittedOn Source
		dir      string
		in       bool
	}{
		{"same path, from the repository's root", Source{Dir: "data/measured/h100-sxm/random/j3d125pt", GPU: "H100-SXM"}, fitted, true},
		{"same path, absolute", Source{Dir: abs, GPU: "H100-SXM"}, fitted, true},
		{"a copy", Source{Dir: "elsewhere/j3d125pt", GPU: "H100-SXM", Stencils: 1, Rows: 126, CopyGBs: 3000.486}, copyData(t, "h100-sxm/random/j3d125pt", nil), true},
		{"another GPU", Source{Dir: "data/measured/h100-sxm/random/j3d125pt", GPU: "H200"}, fitted, false},
		{"another data set", Source{Dir: "data/measured/h100-sxm/random/j3d19pt", GPU: "H100-SXM"}, fitted, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Default()
			if err != nil {
				t.Fatal(err)
			}
			f.FittedOn, f.LeaveOneOut = []Source{c.fittedOn}, nil
			d, err := Load(context.Background(), []string{c.dir}, cat)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.ScoreTest(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := f.WriteTables(&b); err != nil {
				t.Fatal(err)
			}
			warned := strings.Contains(b.String(), "warning: "+c.dir+" is among the data sets the calibration was fitted on")
			if (len(f.InSample) == 1) != c.in || warned != c.in {
				t.Errorf("in sample %q, tables:\n%s\nwant in sample and warned: %v", f.InSample, b.String(), c.in)
			}
			if !strings.Contains(b.String(), "Scored as it is, nothing fitted") || strings.Contains(b.String(), "Other GPUs") {
				t.Errorf("tables of a scored file:\n%s", b.String())
			}
		})
	}
	// A test of one row: no stencil to score.
	f, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), []string{fitted}, cat)
	if err != nil {
		t.Fatal(err)
	}
	d.Groups[0].Samples = d.Groups[0].Samples[:1]
	if err := f.ScoreTest(context.Background(), d); err == nil || !strings.Contains(err.Error(), fitted) || !strings.Contains(err.Error(), "nothing to score") {
		t.Errorf("one row to score: %v; want an error naming the data set", err)
	}
}

// TestDecodeOtherFormat: another of smart's files is named by its format, not refused for a
// field a calibration lacks.
func TestDecodeOtherFormat(t *testing.T) {
	for _, c := range []struct {
		path, want string
	}{
		{"../data/measured/h100-sxm/classic/meta.json", `meta.json is format "smart-dataset/1"; a calibration file is "smart-calibration/1"`},
		{"../data/measured/fastest.json", `fastest.json is format "smart-fastest/1"; a calibration file is "smart-calibration/1"`},
		{"../data/measured/models.json", `models.json is format "smart-defaults/1"; a calibration file is "smart-calibration/1"`},
	} {
		if _, err := Read(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.path, err, c.want)
		}
	}
	if _, err := Decode("x.json", strings.NewReader(`{"level": 1}`)); err == nil || !strings.Contains(err.Error(), `x.json has no format field; a calibration file is "smart-calibration/1"`) {
		t.Errorf("no format: %v", err)
	}
	b := `{"format": "smart-calibration/1", "bands": []}`
	if _, err := DecodeBands("b.json", strings.NewReader(b)); err == nil || !strings.Contains(err.Error(), `b.json is format "smart-calibration/1"; an intervals file is "smart-intervals/1"`) {
		t.Errorf("a calibration read as intervals: %v", err)
	}
}

// TestOrigin: a calibration says where its constants come from as a simulated data set records
// them: the path as given and the sha256 of the file's bytes (what sha256sum prints), so that
// two calibrations tell apart and a copy does not.
func TestOrigin(t *testing.T) {
	raw := data.Calibration()
	f, c, err := DefaultOrigin()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	want := dataset.Constants{Origin: dataset.ConstantsCalibration, File: "data/calibration/stencil.json", SHA256: hex.EncodeToString(sum[:])[:12]}
	if c.Origin != want.Origin || c.File != want.File || c.SHA256 != want.SHA256 || !strings.Contains(c.FittedOn, "H100-SXM") {
		t.Errorf("embedded calibration's origin %+v; want %+v, fitted on the H100-SXM", c, want)
	}
	dir := t.TempDir()
	copied := filepath.Join(dir, "copy.json")
	if err := os.WriteFile(copied, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, cc, err := ReadOrigin(copied)
	if err != nil {
		t.Fatal(err)
	}
	if cc.File != copied || !cc.Same(c) {
		t.Errorf("a copy's origin %+v; want its path and the embedded one's hash %s", cc, c.SHA256)
	}
	f.Calibration.DRAMLatency *= 2
	other := filepath.Join(dir, "other.json")
	if err := Write(other, f, false); err != nil {
		t.Fatal(err)
	}
	if _, oc, err := ReadOrigin(other); err != nil || oc.Same(c) {
		t.Errorf("another calibration's origin %+v (%v); want another hash than %s", oc, err, c.SHA256)
	}
}

// TestCancelled: a cancelled context stops Load and ScoreTest with an error wrapping
// context.Canceled.
func TestCancelled(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "data", "measured", "h100-sxm", "random", "j3d125pt")
	d, err := Load(context.Background(), []string{dir}, cat)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, []string{dir}, cat); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), dir) {
		t.Errorf("Load: %v, want context.Canceled naming %s", err, dir)
	}
	if err := f.ScoreTest(ctx, d); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after 0 of 1 stencils") {
		t.Errorf("ScoreTest: %v, want context.Canceled after 0 of 1 stencils", err)
	}
}
