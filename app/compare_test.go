package app

import (
	"context"
	"slices"
	"testing"

	"smart"
	"smart/generator"
)

func TestParseRatios(t *testing.T) {
	for _, tc := range []struct {
		text  string
		want  []float64
		field string
	}{
		{"0.01, 0.02,,0.5", []float64{0.01, 0.02, 0.5}, ""},
		{"", nil, ""},
		{"0.01,x", nil, "Ratios"},
	} {
		got, err := ParseRatios(tc.text)
		if f := refusedField(t, err); f != tc.field || !slices.Equal(got, tc.want) {
			t.Errorf("ParseRatios(%q) = %v, refused %q; want %v, %q", tc.text, got, f, tc.want, tc.field)
		}
	}
}

// TestTuneBenchCases: the simulated stencil is a case with its optimum, on the GPU named; a
// strategy that needs a prior is refused where no case has one.
func TestTuneBenchCases(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := TuneBench{Methods: []string{"random", "bayes-transfer"}, Seeds: 1, RandomSeeds: 1, Budget: 5, Share: 0.95,
		Sim: st, SimOC: smart.Combination(smart.ST), SimGPU: "h100"}
	contenders, err := b.Check()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := b.Cases(context.Background())
	if err != nil || len(cases) != 1 || cases[0].Name != "j2d5pt ST on H100-SXM (simulated)" || cases[0].Optimum <= 0 {
		t.Fatalf("cases %+v, %v", cases, err)
	}
	_, err = b.Run(context.Background(), cases, contenders, func(string, int, int) {})
	if refusedField(t, err) != "Methods" {
		t.Errorf("bayes-transfer without a prior: %v; want a SettingError of Methods", err)
	}
	b.SimGPU = "nosuch"
	if _, err := b.Cases(context.Background()); refusedField(t, err) != "GPU" {
		t.Errorf("an unknown GPU: %v; want a SettingError of GPU", err)
	}
}
