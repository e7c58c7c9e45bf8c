package app

import (
	"encoding/json"
	"strings"
	"testing"

	"smart/data"
	"smart/features"
	"smart/generator"
)

// TestFeatureReports: the files that load get the reports features.NewReport makes, in order,
// stdin among them; those that fail are left out and named in the error.
func TestFeatureReports(t *testing.T) {
	stdin, err := data.StencilFile("j2d9pt-gol")
	if err != nil {
		t.Fatal(err)
	}
	reports, err := FeatureReports([]string{"j2d5pt", "nonexist.json", "-", "j3d13pt"}, strings.NewReader(string(stdin)), 1, true)
	if err == nil || !strings.Contains(err.Error(), "nonexist.json") || !strings.Contains(err.Error(), "j3d13pt") {
		t.Errorf("error %v; want one naming nonexist.json and j3d13pt (order 2 beyond 1)", err)
	}
	if len(reports) != 2 || reports[0].File != "j2d5pt" || reports[1].File != "-" {
		t.Fatalf("%d reports; want j2d5pt and -", len(reports))
	}
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := features.NewReport("j2d5pt", st, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(reports[0])
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("report of j2d5pt:\n%s\nwant\n%s", got, wantJSON)
	}
}
