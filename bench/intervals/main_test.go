package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart/calibrate"
)

// TestBands: from the committed measurements, a band for each embedded runtime model and basis
// (and for the transfers by the calibrated ratio), each covering about its level of the rows of
// stencils left out of it, and the file round-trips. Four folds of stencils, not one a stencil
// as the embedded file's: the same recipe in a twentieth of the trainings.
func TestBands(t *testing.T) {
	t.Chdir("../..")
	b, err := run(context.Background(), 0.8, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.Command, " -folds 4") {
		t.Errorf("command %q does not say how it was folded", b.Command)
	}
	want := map[string]bool{}
	for _, dims := range []string{"2d", "3d"} {
		want["embedded runtime-"+dims+".smartmodel simulated"] = true
		want["embedded measured/h100-sxm/models/runtime-"+dims+".smartmodel measured"] = true
		want["embedded measured/h100-sxm/models/runtime-"+dims+".smartmodel transfer"] = true
		want["embedded measured/h100-sxm/models/runtime-"+dims+".smartmodel transfer-calibrated"] = true
	}
	for _, bd := range b.Bands {
		key := bd.Model + " " + bd.Basis
		if !want[key] {
			t.Errorf("unexpected band %s", key)
		}
		delete(want, key)
		if bd.Coverage < 0.6 || bd.Coverage > 0.95 || !(bd.LogLo < bd.LogHi) || bd.Stencils < 4 {
			t.Errorf("%s: %+v; want about 80%% held-out coverage over at least 4 stencils", key, bd)
		}
		if bd.Basis == "simulated" && (bd.TestCoverage == nil || *bd.TestCoverage < 0.5) {
			t.Errorf("%s: test coverage %v on the H200", key, bd.TestCoverage)
		}
	}
	for k := range want {
		t.Errorf("no band for %s", k)
	}
	path := filepath.Join(t.TempDir(), "iv.json")
	if err := calibrate.WriteBands(path, b); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := calibrate.DecodeBands(path, f)
	if err != nil || len(back.Bands) != len(b.Bands) || back.Bands[0].Interval != b.Bands[0].Interval {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	notes := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	if err := calibrate.WriteBands(notes, b); err == nil {
		t.Error("WriteBands replaced a file that is not an intervals file")
	}
}
