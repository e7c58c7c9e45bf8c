package main

import (
	"math"
	"testing"
)

// TestScore checks the counting against instances worked out by hand.
func TestScore(t *testing.T) {
	gpus := []string{"a", "b", "c"}
	price := map[string]float64{"a": 1, "b": 3} // c is not rented
	measured := map[string]map[string]float64{
		"s1": {"a": 10, "b": 4, "c": 1},   // fastest c; cost a 10, b 12: a
		"s2": {"a": 2, "b": 1.96, "c": 5}, // fastest b (a within 5%); cost a 2, b 5.88: a
		"s3": {"a": 1, "b": 3},            // not measured on c: left out
		"s4": {"a": 4, "b": 1, "c": 2},    // fastest b; cost a 4, b 3: b
	}
	predicted := map[string]map[string]float64{
		"s1": {"a": 9, "b": 5, "c": 2}, // picks c (right), cost a (right)
		"s2": {"a": 1, "b": 2, "c": 5}, // picks a (wrong, within 5%: 2/1.96), cost a (right)
		"s3": {"a": 1, "b": 1},
		"s4": {"a": 1, "b": 2, "c": 3}, // picks a (wrong, 4x), cost a (wrong: 4/3)
	}
	a := score("x", gpus, measured, predicted, price)
	if a.Instances != 3 || a.Priced != 2 {
		t.Fatalf("instances %d, priced %d", a.Instances, a.Priced)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	if !near(a.Fastest, 1.0/3) || !near(a.Near, 2.0/3) || !near(a.Regret, (1+2/1.96+4)/3) {
		t.Errorf("fastest %v near %v regret %v", a.Fastest, a.Near, a.Regret)
	}
	if !near(a.CostEff, 2.0/3) || !near(a.NearCost, 2.0/3) || !near(a.CostRegret, (1+1+4.0/3)/3) {
		t.Errorf("cost %v near %v regret %v", a.CostEff, a.NearCost, a.CostRegret)
	}
	if a.TrueWins["c"] != 1 || a.TrueWins["b"] != 2 {
		t.Errorf("wins %v", a.TrueWins)
	}
	if one := score("x", gpus, measured, predicted, map[string]float64{"a": 1}); !math.IsNaN(one.CostEff) {
		t.Errorf("one priced GPU: cost accuracy %v, want NaN (nothing to choose)", one.CostEff)
	}
}
