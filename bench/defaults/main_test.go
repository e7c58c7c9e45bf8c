package main

import (
	"strings"
	"testing"

	"smart"
	"smart/models"
	"smart/models/train"
)

// TestHeldOutFirst: the first class's label OC is placed by its own best time on each measured
// instance, counted by kind and by kind on each GPU; simulated instances and those where the
// label OC never ran are left out.
func TestHeldOutFirst(t *testing.T) {
	base, st, tb := smart.Combination(0), smart.Combination(smart.ST), smart.Combination(smart.TB)
	set := &train.Set{
		Classes: []models.Class{{OC: base, Members: []smart.Combination{base, st}}, {OC: tb, Members: []smart.Combination{tb}}},
		Samples: []train.Sample{
			{Group: "m1", GPU: "A", Times: map[smart.Combination]float64{base: 1, st: 2, tb: 4}},    // BASE predicted: 1.00
			{Group: "m2", GPU: "B", Times: map[smart.Combination]float64{base: 2, st: 1, tb: 1.05}}, // TB predicted: 1/1.05, within 1.10x
			{Group: "m3", GPU: "A", Times: map[smart.Combination]float64{base: 4, st: 1}},           // BASE predicted: 1/4
			{Group: "m4", Times: map[smart.Combination]float64{st: 1}},                              // TB never ran: left out
			{Group: "m1", GPU: "A", Times: map[smart.Combination]float64{base: 1, st: 2, tb: 4}},    // a repeat of m1: counted once
			{Group: "sim", Times: map[smart.Combination]float64{base: 9, st: 1}},                    // simulated: left out
		},
	}
	p := &train.Predictions{Proba: [][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.6, 0.4}, {0.1, 0.9}, {0.9, 0.1}, {0.9, 0.1}}}
	var out strings.Builder
	heldOutFirst(&out, set, p, map[string]string{"m1": "named", "m2": "named", "m3": "campaign", "m4": "campaign"})
	for _, want := range []string{"(all), cross-validated: first OC within 1.10x of the best measured OC on 2 of 3, geometric mean share 0.62",
		"(named), cross-validated: first OC within 1.10x of the best measured OC on 2 of 2, geometric mean share 0.98",
		"(campaign), cross-validated: first OC within 1.10x of the best measured OC on 0 of 1, geometric mean share 0.25",
		"(named on A), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 1.00",
		"(named on B), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 0.95"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed %q; want %q (the cube root of 1/1.05/4; the square root of 1/1.05; 1/4)", out.String(), want)
		}
	}
}
