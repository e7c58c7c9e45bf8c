package smart

import (
	"slices"
	"testing"
)

func TestSetRuns(t *testing.T) {
	var m Measurement
	times := []float64{4, 1, 3, 2}
	m.SetRuns(times)
	if m.TimeMs != 2.5 || m.MinMs != 1 || m.MaxMs != 4 || m.MeanMs != 2.5 || m.Reps != 4 {
		t.Fatalf("%+v", m)
	}
	// Sample standard deviation of 1..4: sqrt(5/3).
	if d := m.StdMs - 1.2909944487358056; d > 1e-12 || d < -1e-12 {
		t.Fatalf("std %v", m.StdMs)
	}
	if !slices.Equal(times, []float64{4, 1, 3, 2}) {
		t.Errorf("SetRuns changed its times to %v", times)
	}
	m = Measurement{StdMs: 7}
	m.SetRuns([]float64{3})
	if m.TimeMs != 3 || m.MinMs != 3 || m.MaxMs != 3 || m.MeanMs != 3 || m.Reps != 1 || m.StdMs != 7 {
		t.Fatalf("one time: %+v", m)
	}
}

func TestGPUName(t *testing.T) {
	if n := (Measurement{GPU: "H100-SXM", Device: "NVIDIA H100 80GB HBM3"}).GPUName(); n != "H100-SXM" {
		t.Errorf("GPUName = %q, want the catalogue name", n)
	}
	if n := (Measurement{Device: "A100_T4"}).GPUName(); n != "A100_T4" {
		t.Errorf("GPUName = %q, want the device's own name", n)
	}
}
