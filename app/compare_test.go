package app

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/generator"
	"smart/tuner"
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
	b.SimGPU = "mi250x" // smart's CUDA kernels do not run there: refused, not a space with no setting
	if _, err := b.Cases(context.Background()); refusedField(t, err) != "GPU" || !strings.Contains(err.Error(), "AMD") {
		t.Errorf("an AMD GPU: %v; want a SettingError of GPU saying it is AMD's", err)
	}
}

// TestTuneBenchMethodTwice: a strategy named twice is refused, not compared twice over the
// same seeds.
func TestTuneBenchMethodTwice(t *testing.T) {
	b := TuneBench{Methods: []string{"random", "bayes", "random"}, Seeds: 1, RandomSeeds: 1, Budget: 5, Share: 0.95}
	if _, err := b.Check(); refusedField(t, err) != "Methods" || !strings.Contains(err.Error(), "random: is named twice") {
		t.Errorf("random named twice: %v; want a SettingError of Methods naming it", err)
	}
	// An empty name (--methods , or random,) is no strategy, however often.
	for _, names := range [][]string{{"", ""}, {"random", ""}} {
		b.Methods = names
		if _, err := b.Check(); refusedField(t, err) != "Methods" || !strings.Contains(err.Error(), "names an empty strategy") {
			t.Errorf("methods %q: %v; want a SettingError of Methods saying a name is empty", names, err)
		}
	}
}

// TestKernelTunerFigure: Kernel Tuner's figure of a benchmark_hub cache goes to that cache only,
// not to other data saved under its name.
func TestKernelTunerFigure(t *testing.T) {
	a4000 := func(f func(*Case)) []Case {
		c := Case{Case: tuner.Case{Name: "convolution_milo/A4000", Size: 4362, Optimum: 1.021171996369958}, Source: smart.Imported}
		f(&c)
		return []Case{c}
	}
	for _, c := range []struct {
		name  string
		cases []Case
		want  bool
	}{
		{"the cache", a4000(func(*Case) {}), true},
		{"smart's predictions of it", a4000(func(c *Case) { c.Source, c.Optimum = smart.Predicted, 0.981 }), false},
		{"a partial copy", a4000(func(c *Case) { c.Size = 1500 }), false},
		{"another GPU's cache renamed", a4000(func(c *Case) { c.Optimum = 0.5536000076681376 }), false},
		{"another kernel", a4000(func(c *Case) { c.Name = "nbody/A4000" }), false},
	} {
		cmp := NewComparison(0.95, 100, c.cases, []tuner.Reach{{Case: c.cases[0].Name, Method: "random", Evaluations: []int{5}}})
		var b bytes.Buffer
		if err := cmp.WriteTables(&b); err != nil {
			t.Fatal(err)
		}
		if got := cmp.Cases[0].KernelTuner != nil; got != c.want || strings.Contains(b.String(), "basin hopping") != c.want {
			t.Errorf("%s: Kernel Tuner's figure given %v, in the table %v; want %v:\n%s", c.name, got, strings.Contains(b.String(), "basin hopping"), c.want, b.String())
		}
		if noted := strings.Contains(b.String(), "not rerun here"); noted != c.want || (len(cmp.KernelTunerNote) > 0) != c.want {
			t.Errorf("%s: a note that the figures are quoted in the table %v, in JSON %q; want %v:\n%s", c.name, noted, cmp.KernelTunerNote, c.want, b.String())
		}
	}
}

// TestKernelTunerNote: Kernel Tuner's figures are labelled as quoted, with the conditions their
// source states, in the text and in JSON, and the conditions of smart's rows beside them (the
// seeds of each strategy, the budget) are said not to be the same; rows of a case with no
// figure are not counted, and where the figures are not printed (another share) only the label
// is.
func TestKernelTunerNote(t *testing.T) {
	conv := Case{Case: tuner.Case{Name: "convolution_milo/A4000", Size: 4362, Optimum: 1.021171996369958}, Source: smart.Imported}
	other := Case{Case: tuner.Case{Name: "k/A100", Size: 10, Optimum: 1}, Source: smart.Imported}
	reach := []tuner.Reach{
		{Case: conv.Name, Method: "random", Evaluations: make([]int, 100)},
		{Case: conv.Name, Method: "pipeline", Evaluations: []int{5, 9, 7, 3, 4}},
		{Case: conv.Name, Method: "bayes", Evaluations: []int{5, 9, 7, 3, 4}},
		{Case: other.Name, Method: "bayes", Evaluations: []int{1, 2}},
	}
	label := []string{"Kernel Tuner 1.4 (quoted)", "as given to this project, not rerun here", "default options",
		"median evaluations to 95% of the optimum over 20 runs (10 for Bayesian optimization)", "how runs that never got there count is not stated"}
	conditions := "Not the same conditions as this run's: 100 seeds of random; 5 seeds of pipeline, bayes; each search stopped at 500 evaluations"
	for _, c := range []struct {
		name       string
		share      float64
		cases      []Case
		conditions bool
	}{
		{"to 95%", 0.95, []Case{conv, other}, true},
		{"to another share", 0.8, []Case{conv, other}, false},
	} {
		cmp := NewComparison(c.share, 500, c.cases, reach)
		var b bytes.Buffer
		if err := cmp.WriteTables(&b); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(cmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range label {
			if !strings.Contains(b.String(), want) || !strings.Contains(string(js), want) {
				t.Errorf("%s: the text or the JSON lacks %q:\n%s\n%s", c.name, want, b.String(), js)
			}
		}
		if got := strings.Contains(b.String(), conditions) && strings.Contains(string(js), conditions); got != c.conditions || strings.Contains(b.String(), "Not the same") != c.conditions {
			t.Errorf("%s: conditions said %v; want %v (%q):\n%s\n%s", c.name, got, c.conditions, conditions, b.String(), js)
		}
	}
}

// TestTuneBenchDefaultMethods: the default methods leave out, with a note, those that need a
// prior where no case has one (named, they are refused: TestTuneBenchCases).
func TestTuneBenchDefaultMethods(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var notes bytes.Buffer
	b := TuneBench{Seeds: 1, RandomSeeds: 1, Budget: 5, Share: 0.95, Sim: st, SimOC: smart.Combination(smart.ST), SimGPU: "h100", Notes: &notes}
	contenders, err := b.Check()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := b.Cases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Run(context.Background(), cases, contenders, func(string, int, int) {})
	var methods []string
	for _, r := range out.Reach {
		methods = append(methods, r.Method)
	}
	if want := []string{"random", "iterml", "cstuner", "pipeline", "bayes"}; err != nil || !slices.Equal(methods, want) {
		t.Errorf("compared %v, %v; want %v", methods, err, want)
	}
	if !strings.Contains(notes.String(), "leaving out pipeline-transfer and bayes-transfer: they need a prior") {
		t.Errorf("notes %q do not say which methods were left out", notes.String())
	}
}

// TestComparisonJSON: a seed that did not reach the goal is null, not 0, and the standards'
// keys are snake_case like the rest.
func TestComparisonJSON(t *testing.T) {
	cases := []Case{{Case: tuner.Case{Name: "k/A100", Size: 10, Optimum: 1}, Source: smart.Imported}}
	c := NewComparison(0.95, 100, cases, []tuner.Reach{{Case: "k/A100", Method: "bayes", Evaluations: []int{12, 0, 7}}})
	c.Standards = []tuner.Standard{{Case: "k/A100", Method: "random", Ratio: 0.01, Budget: 4, Median: 0.9, P5: 0.8}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"evaluations":[12,null,7]`, `"standards":[{"case":"k/A100","method":"random","ratio":0.01,"budget":4,"median":0.9,"p5":0.8}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	var back Comparison
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Reach[0].Evaluations, c.Reach[0].Evaluations) || back.Standards[0] != c.Standards[0] {
		t.Errorf("read back %+v, %v; want %+v", back, err, c)
	}
}
