package space

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"smart"
	"smart/generator"
)

// TestReport: the BASE space of j2d5pt on sm_80 holds the blocks of 32 to 1024 threads of
// powers of two up to 1024 on each axis: for log2(bx)+log2(by) = 5..10, 6+7+8+9+10+11 = 51
// shapes, times shared and const (2 each) = 204 settings. All OCs add a total line.
func TestReport(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ocs := []smart.Combination{0}
	spaces, err := ForCombinations(context.Background(), st, ocs, smart.SM80(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := NewReport(st, "sm_80", ocs, spaces).WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `j2d5pt: 2-D, order 1, grid 8192x8192; resource limits of sm_80
OC    settings  groups (settings of each; the space is their product)
BASE  204       {bx,by,shared}=102 x {const}=2

parameter values (before the constraints):
  bx      1 2 4 8 16 32 64 128 256 512 1024
  by      1 2 4 8 16 32 64 128 256 512 1024
  shared  0 1
  const   0 1
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	ocs = []smart.Combination{0, smart.Combination(smart.ST)}
	done := 0
	if spaces, err = ForCombinations(context.Background(), st, ocs, smart.SM80(), func(n int) { done = n }); err != nil {
		t.Fatal(err)
	}
	r := NewReport(st, "sm_80", ocs, spaces)
	b.Reset()
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	total := r.Combinations[0].Settings.Int64() + r.Combinations[1].Settings.Int64()
	if done != 2 || !strings.Contains(b.String(), fmt.Sprintf("\nall   %d", total)) || strings.Contains(b.String(), "parameter values") {
		t.Errorf("two OCs (progress %d):\n%s", done, b.String())
	}
}

// TestVerdict: a valid setting, and one a constraint rejects, in JSON as smart space prints it.
func TestVerdict(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ForStencil(st, 0, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Verdict(0, smart.Setting{"bx": 32, "by": 4, "shared": 0, "const": 1}); !v.Valid || v.Violation != nil {
		t.Errorf("valid setting: %+v", v)
	}
	v := s.Verdict(0, smart.Setting{"bx": 1024, "by": 2, "shared": 0, "const": 0})
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"oc":"BASE","setting":{"bx":1024,"by":2,"const":0,"shared":0},"valid":false,"violation":{"param":"by","constraint":"32 \u003c= bx*by \u003c= 1024","reads":["bx","by"],"values":[1024,2],"problem":"a block of 2048 threads must hold at least a warp (32) and at most the sm_80's 1024 threads"}}`
	if string(js) != want {
		t.Errorf("got  %s\nwant %s", js, want)
	}
}

// TestSamples: a seed draws the same distinct valid settings each time, another seed others,
// and more than the space holds is refused.
func TestSamples(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ForStencil(st, 0, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Samples(0, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Samples(0, 8, 1)
	c, _ := s.Samples(0, 8, 2)
	var text strings.Builder
	if err := a.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	seen := map[string]bool{}
	for i, set := range a.Settings {
		if err := s.Check(set); err != nil {
			t.Errorf("sample %s is invalid: %v", set, err)
		}
		if seen[set.String()] {
			t.Errorf("sample %s drawn twice", set)
		}
		seen[set.String()] = true
		if lines[i] != set.String() {
			t.Errorf("line %d is %q, want %q", i, lines[i], set)
		}
	}
	if len(lines) != 8 || fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seed 1 drew %v then %v; seed 2 drew %v", a.Settings, b.Settings, c.Settings)
	}
	if _, err := s.Samples(0, int(s.Count().Int64())+1, 1); err == nil {
		t.Error("more samples than settings: no error")
	}
}
