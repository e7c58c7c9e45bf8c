package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
)

var (
	literature = Constants{Origin: ConstantsLiterature}
	calibrated = Constants{Origin: ConstantsCalibration, File: "cal.json", SHA256: "0123456789ab", FittedOn: "90 rows of 2 data sets, H100-SXM"}
)

// simulatedWith is a simulated data set's meta on the A100 with the given constants.
func simulatedWith(c Constants) Meta {
	return Meta{Sources: []smart.Source{smart.Simulated}, Devices: []Device{{GPU: "A100-40GB", Name: AnalyticModel, Constants: c}},
		Params: StencilParams()}
}

// TestConstantsRecorded: the analytic model's constants a data set was simulated with are read
// back from meta.json and shown with its provenance; a data set written before they were
// recorded loads, its constants unknown.
func TestConstantsRecorded(t *testing.T) {
	for _, tc := range []struct {
		c    Constants
		want string
	}{
		{literature, "simulated on A100-40GB (analytic model (roofline)), with the literature's constants"},
		{calibrated, "simulated on A100-40GB (analytic model (roofline)), with the constants of calibration cal.json (sha256 0123456789ab, fitted on 90 rows of 2 data sets, H100-SXM)"},
		{Constants{}, "simulated on A100-40GB (analytic model (roofline)), with unknown constants (not recorded)"},
	} {
		dir := filepath.Join(t.TempDir(), "sim")
		w, err := Create(dir, simulatedWith(tc.c))
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		m, err := ReadMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Devices[0].Constants; got != tc.c {
			t.Errorf("constants %+v read back as %+v", tc.c, got)
		}
		if got := m.Provenance(); got != tc.want {
			t.Errorf("provenance %q; want %q", got, tc.want)
		}
	}

	// A measured device has no constants to show; a mixed data set shows each GPU's.
	mixed := Meta{Sources: []smart.Source{smart.Measured, smart.Simulated}, Devices: []Device{
		{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3", Driver: "550.54", CUDA: "12.4"},
		{GPU: "A100-40GB", Name: AnalyticModel, Constants: literature},
		{GPU: "V100", Name: AnalyticModel, Constants: calibrated},
		{GPU: "T4", Name: "analytic model (roofline, calibrated: old.json)"}}}
	want := "with mixed constants: the literature's constants on A100-40GB; the constants of calibration cal.json (sha256 0123456789ab, fitted on 90 rows of 2 data sets, H100-SXM) on V100; unknown constants (not recorded) on T4"
	if got := mixed.Provenance(); !strings.HasSuffix(got, want) || strings.Contains(got, "H100-SXM (NVIDIA H100 80GB HBM3), driver 550.54, CUDA 12.4, with") {
		t.Errorf("provenance %q; want it to end %q", got, want)
	}
	if got := (Meta{Sources: []smart.Source{smart.Measured}, Devices: mixed.Devices[:1]}).Provenance(); strings.Contains(got, "constants") {
		t.Errorf("a measured data set's provenance names constants: %q", got)
	}
}

// TestConstantsChecked: meta.json's constants that cannot be right are refused, naming the field.
func TestConstantsChecked(t *testing.T) {
	for _, tc := range []struct {
		c    Constants
		want string
	}{
		{Constants{Origin: "fitted"}, `field "devices[0].constants.origin" is "fitted"; use literature or calibration`},
		{Constants{File: "cal.json"}, `field "devices[0].constants.origin" is empty`},
		{Constants{Origin: ConstantsLiterature, File: "cal.json"}, `names a calibration file, but its origin is literature`},
		{Constants{Origin: ConstantsCalibration, File: "cal.json"}, `a calibration's constants need its file and the first 12 hex digits of its sha256`},
	} {
		dir := filepath.Join(t.TempDir(), "sim")
		if _, err := Create(dir, simulatedWith(tc.c)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("constants %+v: %v; want %q", tc.c, err, tc.want)
		}
	}
	// As read from a file edited by hand.
	dir := filepath.Join(t.TempDir(), "sim")
	w, err := Create(dir, simulatedWith(literature))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"origin": "literature"`, `"origin": "guessed"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMeta(dir); err == nil || !strings.Contains(err.Error(), path+`: field "devices[0].constants.origin" is "guessed"`) {
		t.Errorf("edited meta.json: %v", err)
	}
}

// TestMergeKeepsConstants: data sets simulated on one GPU with other constants are not merged,
// even with allowMixed (no row says which constants gave it); the same constants given from
// another path merge as one; a mixed merge of GPUs keeps each GPU's constants.
func TestMergeKeepsConstants(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	lit := runShard(t, sts, plan, nil, simulatedWith(literature))
	cal := runShard(t, sts, plan, nil, simulatedWith(calibrated))
	moved := calibrated
	moved.File = "/elsewhere/cal.json"
	calAgain := runShard(t, sts, plan, nil, simulatedWith(moved))
	old := runShard(t, sts, plan, nil, simulatedWith(Constants{}))

	for _, tc := range []struct {
		with, want string
	}{
		{cal, "were simulated on A100-40GB with different constants of the analytic model (the literature's constants and the constants of calibration cal.json"},
		{old, "with different constants of the analytic model (the literature's constants and unknown constants (not recorded))"},
	} {
		for _, allowMixed := range []bool{false, true} {
			out := filepath.Join(t.TempDir(), "m")
			_, err := Merge(ctx, out, []string{lit, tc.with}, allowMixed)
			var mixed *MixedError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &mixed) || !mixed.Always {
				t.Errorf("merge with %s (allowMixed %v): %v; want a *MixedError saying %q, whatever allowMixed", tc.with, allowMixed, err, tc.want)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused merge left %s: %v", out, err)
			}
		}
	}

	same := filepath.Join(t.TempDir(), "same")
	if _, err := Merge(ctx, same, []string{cal, calAgain}, false); err != nil {
		t.Fatalf("merging data sets of one calibration: %v", err)
	}
	if m, _ := ReadMeta(same); len(m.Devices) != 1 || m.Devices[0].Constants != calibrated {
		t.Errorf("merge of one calibration's data sets: devices %+v", m.Devices)
	}

	onV100 := simulatedWith(calibrated)
	onV100.Devices[0].GPU = "V100"
	calV100 := runShard(t, sts, plan, nil, onV100)
	mixed := filepath.Join(t.TempDir(), "mixed")
	if _, err := Merge(ctx, mixed, []string{lit, calV100}, true); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMeta(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Devices) != 2 || m.Devices[0].Constants != literature || m.Devices[1].Constants != calibrated {
		t.Fatalf("mixed merge: devices %+v; want the literature's and the calibration's", m.Devices)
	}
	if got := m.Provenance(); !strings.Contains(got, "with mixed constants: the literature's constants on A100-40GB; the constants of calibration cal.json (sha256 0123456789ab, fitted on 90 rows of 2 data sets, H100-SXM) on V100") {
		t.Errorf("mixed merge's provenance %q", got)
	}
	// The refusal names the two inputs that clash, not the first input.
	litOnV100 := simulatedWith(literature)
	litOnV100.Devices[0].GPU = "V100"
	litV100 := runShard(t, sts, plan, nil, litOnV100)
	_, err = Merge(ctx, filepath.Join(t.TempDir(), "three"), []string{lit, litV100, calV100}, true)
	if want := litV100 + " and " + calV100 + " were simulated on V100"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("merge of %s, %s and %s: %v; want it to begin %q", lit, litV100, calV100, err, want)
	}
}

// TestResumeKeepsConstants: a simulated data set is not resumed with other constants; one written
// before they were recorded is.
func TestResumeKeepsConstants(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sim")
	w, err := Create(dir, simulatedWith(literature))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := CheckRun(dir, simulatedWith(calibrated)); err == nil || !strings.Contains(err.Error(), "it was simulated with the literature's constants, now with the constants of calibration cal.json") {
		t.Errorf("resuming with a calibration's constants: %v", err)
	}
	if _, err := CheckRun(dir, simulatedWith(literature)); err != nil {
		t.Errorf("resuming with the same constants: %v", err)
	}
	old := filepath.Join(t.TempDir(), "old")
	if w, err = Create(old, simulatedWith(Constants{})); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := CheckRun(old, simulatedWith(literature)); err != nil {
		t.Errorf("resuming a data set of unknown constants: %v", err)
	}
}
