package app

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"smart/catalog"
)

func TestParseEvaluator(t *testing.T) {
	for _, c := range []struct {
		name   string
		want   EvaluatorName
		noPath bool // the error says the path is missing
		bad    bool // the name names no evaluator
	}{
		{name: "sim", want: EvaluatorName{Kind: Sim}},
		{name: "cuda", want: EvaluatorName{Kind: CUDA}},
		{name: "model:embedded", want: EvaluatorName{Kind: Model, Path: Embedded}},
		{name: "replay:a/b:c", want: EvaluatorName{Kind: Replay, Path: "a/b:c"}},
		{name: "transfer:a.json,b.json", want: EvaluatorName{Kind: Transfer, Path: "a.json,b.json"}},
		{name: "model:", noPath: true},
		{name: "replay", noPath: true},
		{name: "foo", bad: true},
		{name: "", bad: true},
		{name: "Sim", bad: true},
	} {
		got, err := ParseEvaluator(c.name)
		var ne *NameError
		switch {
		case !c.noPath && !c.bad && (err != nil || got != c.want):
			t.Errorf("ParseEvaluator(%q) = %+v, %v; want %+v", c.name, got, err, c.want)
		case (c.noPath || c.bad) && !errors.As(err, &ne):
			t.Errorf("ParseEvaluator(%q) = %+v, %v; want a *NameError", c.name, got, err)
		case c.noPath || c.bad:
			if ne.NoPath != c.noPath || ne.Name != c.name {
				t.Errorf("ParseEvaluator(%q): %+v, want NoPath %v", c.name, ne, c.noPath)
			}
			if !c.noPath && !strings.Contains(err.Error(), "cuda, sim, model:PATH") {
				t.Errorf("ParseEvaluator(%q): %v does not list the evaluators", c.name, err)
			}
		}
		if err == nil && got.String() != strings.TrimSuffix(c.name, ":") {
			t.Errorf("ParseEvaluator(%q).String() = %q", c.name, got)
		}
	}
}

// TestDeviceGPU: a name given names a device the catalogue does not know, and may not relabel
// one it knows as another GPU.
func TestDeviceGPU(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		given, device string
		want          string // the GPU, or a fragment of the error
		field         string // the SettingError's field; "" none
	}{
		{"", "NVIDIA H100 80GB HBM3", "H100-SXM", ""},
		{"h100-sxm", "NVIDIA H100 80GB HBM3", "H100-SXM", ""},
		{"a100", "NVIDIA H100 80GB HBM3", "the rows would name the wrong GPU", "GPU"},
		{"", "NVIDIA Prototype X", "reports itself as", ""},
		{"h100-sxm", "NVIDIA Prototype X", "H100-SXM", ""},
		{"nosuch", "NVIDIA Prototype X", "nosuch", "GPU"},
	} {
		g, err := DeviceGPU(cat, c.given, c.device, 0)
		var se *SettingError
		switch {
		case err == nil && g.Name != c.want:
			t.Errorf("given %q on %q: %s, want %s", c.given, c.device, g.Name, c.want)
		case err != nil && !strings.Contains(err.Error(), c.want):
			t.Errorf("given %q on %q: %v, want %q", c.given, c.device, err, c.want)
		case err != nil && errors.As(err, &se) != (c.field != ""):
			t.Errorf("given %q on %q: %v is a SettingError: %v", c.given, c.device, err, c.field == "")
		case se != nil && (se.Field != c.field || !se.Wrong):
			t.Errorf("given %q on %q: field %q (wrong %v), want %q", c.given, c.device, se.Field, se.Wrong, c.field)
		}
	}
	var unknown *UnknownDeviceError
	if _, err := DeviceGPU(cat, "", "NVIDIA Prototype X", 2); !errors.As(err, &unknown) || unknown.Index != 2 {
		t.Errorf("an unknown device: %v, want an *UnknownDeviceError of GPU 2", err)
	}
}

// TestContenders: every compared name builds a contender of that name; NAME-transfer only for
// the strategies that read a prior; an unknown name is a NameError listing the known ones.
func TestContenders(t *testing.T) {
	names := ComparedNames()
	for _, want := range []string{"random", "bayes", "bayes-transfer", "pipeline-transfer"} {
		if !slices.Contains(names, want) {
			t.Errorf("ComparedNames() = %v, lacks %s", names, want)
		}
	}
	for _, no := range []string{"exhaustive", "random-transfer", "cstuner-transfer"} {
		if slices.Contains(names, no) {
			t.Errorf("ComparedNames() = %v, holds %s", names, no)
		}
	}
	cs, err := Contenders(names, 3, 7, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		wantSeeds := 3
		if c.Name == "random" {
			wantSeeds = 7
		}
		switch {
		case c.Name != names[i] || c.Seeds != wantSeeds || c.FirstSeed != 5:
			t.Errorf("contender %d: %s, %d seeds from %d; want %s, %d from 5", i, c.Name, c.Seeds, c.FirstSeed, names[i], wantSeeds)
		case strings.HasSuffix(c.Name, "-transfer") != (c.ForCase != nil):
			t.Errorf("contender %s: ForCase set %v", c.Name, c.ForCase != nil)
		}
	}
	var ne *NameError
	if _, err := Contenders([]string{"random", "nope"}, 1, 1, 0); !errors.As(err, &ne) || ne.Name != "nope" || !slices.Equal(ne.Known, names) {
		t.Errorf("Contenders(nope) = %v, want a NameError naming nope", err)
	}
}
