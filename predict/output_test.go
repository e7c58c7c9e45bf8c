package predict

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestIsReportFile: a page WriteHTML wrote is known as a report, whatever else is not, so that
// smart recommend --html replaces its own reports and nothing else.
func TestIsReportFile(t *testing.T) {
	r, err := rankAll([]GPUTime{timed("a", 1, 2)}, Workload{Steps: 10}, "")
	if err != nil {
		t.Fatal(err)
	}
	r.Stencil = StencilInfo{Name: "j2d5pt", Dims: 2, Order: 1, Points: 5, Grid: []int{64, 64}, Dtype: "float64"}
	var page bytes.Buffer
	if err := WriteHTML(&page, []*Recommendation{r}, nil, time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"report.html", page.String(), true},
		{"notes.html", "<!DOCTYPE html>\n<html><head><title>my notes</title></head></html>\n", false},
		{"short.txt", "x", false},
		{"empty", "", false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := IsReportFile(p); got != c.want || err != nil {
			t.Errorf("IsReportFile(%s) = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	if _, err := IsReportFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("IsReportFile of a missing file gave no error")
	}
}

// TestRankAllSaysWhyNone: when no GPU has a prediction the error gives each one's reason.
func TestRankAllSaysWhyNone(t *testing.T) {
	times := []GPUTime{{GPU: "W6600", Reason: "AMD GPU: smart's kernels are CUDA"}, {GPU: "T4", Reason: "its two grids need 16.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context"}}
	_, err := rankAll(times, Workload{Steps: 10}, "")
	want := "no GPU considered has a prediction (W6600: AMD GPU: smart's kernels are CUDA; T4: its two grids need 16.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
	// GPUs that share a reason are named together, five at most, and five reasons at most.
	for i := range 7 {
		times = append(times, GPUTime{GPU: fmt.Sprintf("G%d", i), Reason: "r"})
	}
	for i := range 5 {
		times = append(times, GPUTime{GPU: fmt.Sprintf("H%d", i), Reason: fmt.Sprintf("s%d", i)})
	}
	want = "no GPU considered has a prediction (W6600: AMD GPU: smart's kernels are CUDA; T4: its two grids need 16.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context; " +
		"G0, G1, G2, G3, G4 and 2 more: r; H0: s0; H1: s1; and 3 more reasons)"
	if _, err = rankAll(times, Workload{Steps: 10}, ""); err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestWriteHTMLFile: the file holds the page WriteHTML writes, and is known as a report; a
// path in a missing directory is an error that leaves nothing behind.
func TestWriteHTMLFile(t *testing.T) {
	r, err := rankAll([]GPUTime{timed("a", 1, 2)}, Workload{Steps: 10}, "")
	if err != nil {
		t.Fatal(err)
	}
	r.Stencil = StencilInfo{Name: "j2d5pt", Dims: 2, Order: 1, Points: 5, Grid: []int{64, 64}, Dtype: "float64"}
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	var page bytes.Buffer
	if err := WriteHTML(&page, []*Recommendation{r}, nil, at); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := WriteHTMLFile(path, []*Recommendation{r}, nil, at); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, page.Bytes()) {
		t.Errorf("the file differs from the page (%v)", err)
	}
	if ok, err := IsReportFile(path); !ok || err != nil {
		t.Errorf("IsReportFile = %v, %v", ok, err)
	}
	missing := filepath.Join(t.TempDir(), "no", "report.html")
	if err := WriteHTMLFile(missing, []*Recommendation{r}, nil, at); err == nil {
		t.Error("a missing directory gave no error")
	}
}
