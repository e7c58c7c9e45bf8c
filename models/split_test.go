package models_test

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart/models"
)

func TestGroupFolds(t *testing.T) {
	var groups []string
	for i := 0; i < 1000; i++ {
		groups = append(groups, fmt.Sprintf("s%d", (i*7)%97)) // 97 stencils, interleaved rows
	}
	folds, err := models.GroupFolds(groups, len(groups), 5, 42)
	if err != nil {
		t.Fatal(err)
	}
	fold := map[string]int{}
	seen := make([]bool, len(groups))
	for f, rows := range folds {
		if len(rows) < 150 || len(rows) > 250 {
			t.Errorf("fold %d holds %d of 1000 rows", f, len(rows))
		}
		for _, r := range rows {
			if seen[r] {
				t.Fatalf("row %d in two folds", r)
			}
			seen[r] = true
			if g, ok := fold[groups[r]]; ok && g != f {
				t.Fatalf("stencil %s in folds %d and %d", groups[r], g, f)
			}
			fold[groups[r]] = f
		}
	}
	for r, ok := range seen {
		if !ok {
			t.Fatalf("row %d in no fold", r)
		}
	}
	again, _ := models.GroupFolds(groups, len(groups), 5, 42)
	other, _ := models.GroupFolds(groups, len(groups), 5, 43)
	if !reflect.DeepEqual(folds, again) || reflect.DeepEqual(folds, other) {
		t.Error("folds are not a function of the seed")
	}
	if _, err := models.GroupFolds(groups[:3], 3, 5, 1); err == nil || !strings.Contains(err.Error(), "groups") {
		t.Errorf("5 folds of 3 stencils: %v", err)
	}
	if f, err := models.GroupFolds(nil, 10, 5, 1); err != nil || len(f[0]) != 2 {
		t.Errorf("ungrouped rows: %v, %v", f, err)
	}
}

func TestSplitGroups(t *testing.T) {
	d := &models.Data{Task: models.Runtime, Features: []string{"x"}}
	for i := 0; i < 200; i++ {
		d.X = append(d.X, []float64{float64(i)})
		d.Y = append(d.Y, float64(i))
		d.Groups = append(d.Groups, fmt.Sprint(i/10)) // 20 groups of 10
	}
	tr, va, err := models.SplitGroups(d, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if va.Rows() != 20 || tr.Rows() != 180 {
		t.Errorf("split %d/%d, want 180/20", tr.Rows(), va.Rows())
	}
	for _, g := range va.Groups {
		for _, h := range tr.Groups {
			if g == h {
				t.Fatalf("group %s on both sides", g)
			}
		}
	}
	for i, x := range va.X {
		if x[0] != va.Y[i] {
			t.Fatal("rows and targets came apart")
		}
	}
	one := d.Subset([]int{0, 1})
	if _, _, err := models.SplitGroups(one, 0.5, 1); err == nil {
		t.Error("split of a single group accepted")
	}
}

func TestParams(t *testing.T) {
	p, err := models.ParseParams("rounds=10, learning_rate = 0.05,growth=depthwise,verbose=true")
	if err != nil {
		t.Fatal(err)
	}
	var rounds int
	var lr float64
	var growth string
	var verbose bool
	known := map[string]any{"rounds": &rounds, "learning_rate": &lr, "growth": &growth, "verbose": &verbose}
	if err := models.ApplyParams(p, known); err != nil {
		t.Fatal(err)
	}
	if rounds != 10 || lr != 0.05 || growth != "depthwise" || !verbose {
		t.Errorf("got %d %v %s %v", rounds, lr, growth, verbose)
	}
	for _, bad := range []string{"rounds", "rounds=", "=3", "a=1,a=2"} {
		if _, err := models.ParseParams(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if err := models.ApplyParams(map[string]string{"round": "3"}, known); err == nil || !strings.Contains(err.Error(), "growth, learning_rate, rounds, verbose") {
		t.Errorf("unknown name: %v", err)
	}
	if err := models.ApplyParams(map[string]string{"rounds": "3.5"}, known); err == nil || !strings.Contains(err.Error(), "rounds") {
		t.Errorf("bad int: %v", err)
	}
	for _, v := range []string{"NaN", "inf", "-Inf"} {
		if err := models.ApplyParams(map[string]string{"learning_rate": v}, known); err == nil || !strings.Contains(err.Error(), "learning_rate") {
			t.Errorf("learning_rate=%s: %v", v, err)
		}
	}
	var seed uint64
	seeds := map[string]any{"seed": &seed}
	if err := models.ApplyParams(map[string]string{"seed": "18446744073709551615"}, seeds); err != nil || seed != 1<<64-1 {
		t.Errorf("seed=2^64-1: %d, %v", seed, err)
	}
	for _, v := range []string{"-1", "1.5", "x"} {
		if err := models.ApplyParams(map[string]string{"seed": v}, seeds); err == nil || !strings.Contains(err.Error(), "seed") {
			t.Errorf("seed=%s: %v", v, err)
		}
	}
}

// A bag holds whole groups: about the share asked for, at least one, and the same draw for a seed.
func TestSampleGroups(t *testing.T) {
	d := &models.Data{Task: models.Runtime, Features: []string{"x"}}
	for i := range 100 {
		d.X = append(d.X, []float64{float64(i)})
		d.Y = append(d.Y, 0)
		d.Groups = append(d.Groups, fmt.Sprint("g", i%10))
	}
	for _, c := range []struct {
		frac   float64
		groups int
	}{{0.7, 7}, {0.01, 1}, {1, 10}} {
		bag, err := models.SampleGroups(d, c.frac, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, g := range bag.Groups {
			seen[g]++
		}
		if len(seen) != c.groups || bag.Rows() != 10*c.groups {
			t.Errorf("frac %v: %d groups, %d rows; want %d groups of 10 rows", c.frac, len(seen), bag.Rows(), c.groups)
		}
		for g, n := range seen {
			if n != 10 {
				t.Errorf("frac %v: group %s has %d of its 10 rows", c.frac, g, n)
			}
		}
		again, _ := models.SampleGroups(d, c.frac, 3)
		if !slices.Equal(again.Groups, bag.Groups) {
			t.Errorf("frac %v: two draws with one seed differ", c.frac)
		}
	}
	for _, frac := range []float64{0, -0.5, 1.5} {
		if _, err := models.SampleGroups(d, frac, 1); err == nil {
			t.Errorf("bag fraction %v accepted", frac)
		}
	}
}

func TestScale(t *testing.T) {
	s := models.FitScale([][]float64{{1, 5, 2}, {3, 5, -2}})
	got := s.Apply([]float64{2, 9, 0})
	if want := []float64{0.5, 0, 0.5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Apply = %v, want %v (a constant column maps to 0)", got, want)
	}
	if v := s.Apply([]float64{5, 5, 2})[0]; math.Abs(v-2) > 1e-15 {
		t.Errorf("values beyond the training range extrapolate linearly: %v", v)
	}
}

func TestKindsLookup(t *testing.T) {
	k := testKinds()
	if _, err := k.Lookup("linear-norm", models.Select); err == nil || !strings.Contains(err.Error(), "kinds that can: linear") {
		t.Errorf("task mismatch: %v", err)
	}
	if _, err := k.Lookup("lin", models.Runtime); err == nil || !strings.Contains(err.Error(), "known kinds: linear, linear-norm, wrong-return") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := k.Lookup("linear", models.Runtime); err != nil {
		t.Error(err)
	}
}
