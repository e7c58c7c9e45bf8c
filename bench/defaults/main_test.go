package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/app"
	"smart/dataset"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/train"
)

// heldOutSet: two classes, BASE with ST, and TB; four measured instances, m1 twice, and one
// simulated. Each is its own fold but m1's copies.
func heldOutSet() (*train.Set, *train.Predictions, map[string]string) {
	base, st, tb := smart.Combination(0), smart.Combination(smart.ST), smart.Combination(smart.TB)
	set := &train.Set{
		Classes: []models.Class{{OC: base, Members: []smart.Combination{base, st}}, {OC: tb, Members: []smart.Combination{tb}}},
		Samples: []train.Sample{
			{Group: "m1", GPU: "A", Times: map[smart.Combination]float64{base: 1, st: 2, tb: 4}},    // class BASE predicted
			{Group: "m2", GPU: "B", Times: map[smart.Combination]float64{base: 2, st: 1, tb: 1.05}}, // TB predicted: 1/1.05, within 1.10x
			{Group: "m3", GPU: "A", Times: map[smart.Combination]float64{base: 4, st: 1}},           // class BASE predicted
			{Group: "m4", Times: map[smart.Combination]float64{st: 1}},                              // TB never ran: left out
			{Group: "m1", GPU: "A", Times: map[smart.Combination]float64{base: 1, st: 2, tb: 4}},    // a repeat of m1: counted once
			{Group: "sim", Times: map[smart.Combination]float64{base: 9, st: 1}},                    // simulated: left out
		},
	}
	p := &train.Predictions{Fold: []int{0, 1, 2, 3, 0, 4}, Proba: [][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.6, 0.4}, {0.1, 0.9}, {0.9, 0.1}, {0.9, 0.1}}}
	return set, p, map[string]string{"m1": "named", "m2": "named", "m3": "campaign", "m4": "campaign"}
}

// TestHeldOutFirst: the first class's OC is placed by its own best time on each measured
// instance, counted by kind and by kind on each GPU; simulated instances and those where the
// OC never ran are left out. The OC is the class's representative chosen without the instance's
// fold (m1's BASE class stands for ST by m2, m3 and m4, where ST is best: a miss at 0.5; m3's
// for ST by m2 and m4 against m1: a hit), then the simulations' label (BASE).
func TestHeldOutFirst(t *testing.T) {
	set, p, measured := heldOutSet()
	var out strings.Builder
	heldOutFirst(&out, set, p, measured, "")
	for _, want := range []string{"named miss: m1 on A: class BASE, its OC ST at 2.00x the best measured (BASE)",
		"(all), cross-validated: first OC within 1.10x of the best measured OC on 2 of 3, geometric mean share 0.78",
		"(named), cross-validated: first OC within 1.10x of the best measured OC on 1 of 2, geometric mean share 0.69",
		"(campaign), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 1.00",
		"(named on A), cross-validated: first OC within 1.10x of the best measured OC on 0 of 1, geometric mean share 0.50",
		"(named on B), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 0.95",
		"(all, the simulations' labels), cross-validated: first OC within 1.10x of the best measured OC on 2 of 3, geometric mean share 0.62",
		"(named, the simulations' labels), cross-validated: first OC within 1.10x of the best measured OC on 2 of 2, geometric mean share 0.98",
		"(campaign, the simulations' labels), cross-validated: first OC within 1.10x of the best measured OC on 0 of 1, geometric mean share 0.25",
		"(named on A, the simulations' labels), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 1.00",
		"(named on B, the simulations' labels), cross-validated: first OC within 1.10x of the best measured OC on 1 of 1, geometric mean share 0.95"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed %q; want %q (the cube roots of 0.5/1.05 and 1/1.05/4; the square roots of 0.5/1.05 and 1/1.05; 1/4)", out.String(), want)
		}
	}
}

// TestRepresentatives: a class stands for the member near the best on most measured instances
// whose best it holds; without any, or on a tie, the simulations' label.
func TestRepresentatives(t *testing.T) {
	set, _, measured := heldOutSet()
	st, tb := smart.Combination(smart.ST), smart.Combination(smart.TB)
	if got := representatives(set, measured, nil); !slices.Equal(got, []smart.Combination{st, tb}) {
		t.Errorf("representatives %v; want [ST TB] (ST near the best on m2, m3, m4; BASE on m1; no instance's best is TB)", got)
	}
	onlyM1 := func(i int) bool { return set.Samples[i].Group != "m1" }
	if got := representatives(set, measured, onlyM1); !slices.Equal(got, []smart.Combination{0, tb}) {
		t.Errorf("representatives of m1 alone %v; want [BASE TB]", got)
	}
	tie := func(i int) bool { return set.Samples[i].Group != "m1" && set.Samples[i].Group != "m3" }
	if got := representatives(set, measured, tie); !slices.Equal(got, []smart.Combination{0, tb}) {
		t.Errorf("representatives on a tie %v; want the label BASE", got)
	}
}

// TestRepresentativesSignTest: where the label ran on every instance, a member replaces it only
// when within 1.10x of the best on clearly more instances where the label is not than the other
// way round, and no farther from the best in geometric mean: 9 to 0 does (9 >= 2 x 3); 6 to 2
// does not (4 < 2 x 2.83); 9 to 0 with three instances where ST runs 30x the best does not (its
// geometric mean share is below BASE's); faster on all 9 but within 1.10x of the best where
// BASE is not on none (both near the best) does not.
func TestRepresentativesSignTest(t *testing.T) {
	base, st, cm := smart.Combination(0), smart.Combination(smart.ST), smart.Combination(smart.CM)
	win := map[smart.Combination]float64{base: 1.2, st: 1, cm: 5}   // ST near the best, BASE not
	loss := map[smart.Combination]float64{base: 1, st: 1.5, cm: 5}  // BASE near the best, ST not
	far := map[smart.Combination]float64{base: 1.2, st: 30, cm: 1}  // neither near; ST far off
	both := map[smart.Combination]float64{base: 1.05, st: 1, cm: 5} // both near the best
	repeat := func(n int, times map[smart.Combination]float64) []map[smart.Combination]float64 {
		return slices.Repeat([]map[smart.Combination]float64{times}, n)
	}
	for _, c := range []struct {
		name      string
		instances []map[smart.Combination]float64
		want      smart.Combination
	}{
		{"9 to 0", repeat(9, win), st},
		{"6 to 2", append(repeat(6, win), repeat(2, loss)...), base},
		{"9 to 0, 3 far", append(repeat(9, win), repeat(3, far)...), base},
		{"both near", repeat(9, both), base},
	} {
		set := &train.Set{Classes: []models.Class{{OC: base, Members: []smart.Combination{base, st, cm}}}}
		measured := map[string]string{}
		for i, times := range c.instances {
			name := fmt.Sprintf("s%d", i)
			set.Samples = append(set.Samples, train.Sample{Group: name, GPU: "A", Times: times})
			measured[name] = "campaign"
		}
		if got := representatives(set, measured, nil); got[0] != c.want {
			t.Errorf("%s: representative %s, want %s", c.name, got[0], c.want)
		}
	}
}

// TestMeasuredGroup: an item "A+B" of -measured is one data set, merged in the work directory
// and named by the item; each instance's best time in it is the faster of the two data sets'
// (j2d13pt's random settings and the picks measured of it), and a second run merges afresh.
func TestMeasuredGroup(t *testing.T) {
	const (
		random = "../../data/measured/h100-sxm/random/j2d13pt"
		picks  = "../../data/measured/h100-sxm/picks-c69/j2d13pt"
		other  = "../../data/measured/h100-sxm/classic"
	)
	item := random + "+" + picks + "/rows.csv"
	c := config{work: t.TempDir()}
	if err := c.load("none", item+","+other); err != nil {
		t.Fatal(err)
	}
	if len(c.measured) != 2 || c.measured[1] != other || c.name(c.measured[0]) != item || c.name(other) != other {
		t.Fatalf("measured %v named %q; want the merged set named %q, then %s", c.measured, c.name(c.measured[0]), item, other)
	}
	best := func(dir string) map[string]float64 {
		l, err := dataset.ComputeLabels(context.Background(), dir, dataset.LabelOptions{Classes: 64, Partial: true}) // a class an OC: one stencil correlates nothing
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, in := range l.Instances {
			out[in.StencilID+" "+in.GPU] = in.BestMs
		}
		return out
	}
	for run := range 2 {
		if err := c.mergeGroups(context.Background()); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		a, b, merged := best(random), best(picks), best(c.measured[0])
		if len(merged) != 1 || len(a) != 1 {
			t.Fatalf("run %d: merged instances %v; want j2d13pt's on the H100 alone, as in %s, %v", run, merged, random, a)
		}
		for k, ms := range merged {
			want := a[k]
			if p, ok := b[k]; ok && p < want {
				want = p
			}
			if ms != want {
				t.Errorf("run %d: %s best %g ms in the merged set; want %g (random %g, picks %g)", run, k, ms, want, a[k], b[k])
			}
			if ms >= a[k] {
				t.Errorf("run %d: %s best %g ms in the merged set, no faster than its random settings' %g: the picks' CM_TB setting is faster", run, k, ms, a[k])
			}
		}
	}
}

// TestRunCommand: the manifest's command runs the program from the working directory (this
// package's: two levels below the module root).
func TestRunCommand(t *testing.T) {
	if got, want := runCommand(), "(in bench/defaults/) go run ../../bench/defaults"; got != want {
		t.Errorf("runCommand() = %q, want %q", got, want)
	}
}

// TestDistinctInstances: a stencil measured on one GPU in two data sets is refused, naming both
// and the fix; the same stencil on two GPUs is two instances.
func TestDistinctInstances(t *testing.T) {
	labels := func(stencil, gpu string) *dataset.Labels {
		return &dataset.Labels{Instances: []dataset.Instance{{StencilID: stencil, GPU: gpu}}}
	}
	name := func(dir string) string { return "item " + dir }
	if err := distinctInstances(map[string]*dataset.Labels{"a": labels("s1", "H100"), "b": labels("s1", "H200")}, name); err != nil {
		t.Errorf("one stencil on two GPUs: %v", err)
	}
	err := distinctInstances(map[string]*dataset.Labels{"a": labels("s1", "H100"), "b": labels("s1", "H100")}, name)
	if err == nil || !strings.Contains(err.Error(), "item a and item b") || !strings.Contains(err.Error(), "join them with +") {
		t.Errorf("one stencil on one GPU in two data sets: %v; want an error naming both and the fix", err)
	}
}

// TestSaveHeldOut: each named stencil's classifier is trained on the other instances alone
// (its header's measured rows one fewer than the whole set's) and saved under the stencil's name.
func TestSaveHeldOut(t *testing.T) {
	m := "../../data/measured/h100-sxm"
	data := []string{m + "/random/j3d19pt", m + "/random/j3d25pt", m + "/random/j3d125pt"}
	// One stencil a data set correlates nothing: two classes of the OCs that ran, halved.
	each, err := dataset.ComputeLabels(context.Background(), data[0], dataset.LabelOptions{Classes: 64, Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	half := len(each.OCs) / 2
	given := []dataset.Class{{Label: each.OCs[0], Members: each.OCs[:half]}, {Label: each.OCs[half], Members: each.OCs[half:]}}
	labels := map[string]*dataset.Labels{}
	for _, d := range data {
		if labels[d], err = dataset.ComputeLabels(context.Background(), d, dataset.LabelOptions{Given: given, Partial: true}); err != nil {
			t.Fatal(err)
		}
	}
	kinds := models.Kinds{}
	gbdt.Register(kinds)
	tr := app.Train{Task: models.Select, Kind: "gbdt", Kinds: kinds, Data: data, Labels: labels, Dims: 3,
		Params: map[string]string{"rounds": "5", "min_data_in_leaf": "1"}}
	set, err := tr.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	measured := measuredStencils(labels, func(d string) string { return d })
	dir := t.TempDir()
	if err := saveHeldOut(context.Background(), tr, set, measured, namedHeldOut(set, measured), dir, 3, func(p string) string { return "described " + p }); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"j3d19pt", "j3d25pt", "j3d125pt"} {
		m, err := models.Load(filepath.Join(dir, "select-3d-no-"+name+".smartmodel.gz"), kinds)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows, without := 0, 0
		for _, d := range m.Header.Data {
			rows += d.Rows
			if !strings.HasPrefix(d.Path, "described ") {
				t.Errorf("data set %q not described", d.Path)
			}
			if strings.HasSuffix(d.Path, "(without "+name+")") {
				without++
			}
		}
		if len(m.Header.Data) != 3 || rows != set.Data.Rows()-1 || without != 1 || set.Refs[0].Rows+set.Refs[1].Rows+set.Refs[2].Rows != set.Data.Rows() {
			t.Errorf("the classifier without %s learned from %+v; want %d rows, all but its own, the data set of its own named", name, m.Header.Data, set.Data.Rows()-1)
		}
	}
}

// TestFoldsHeldOut: the campaign's stencils are dealt as bench/screen-campaign.sh deals them:
// each in one fold, the n-th of the sorted IDs in fold n mod k, the folds' sizes within one.
func TestFoldsHeldOut(t *testing.T) {
	const data = "../../data/measured/h100-sxm/campaign"
	folds, err := foldsHeldOut(data, 5)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	sizes := []int{}
	for f, o := range folds {
		if o.tag != fmt.Sprintf("fold-%d", f+1) {
			t.Errorf("fold %d tagged %q", f, o.tag)
		}
		for g := range o.groups {
			all = append(all, g)
		}
		sizes = append(sizes, len(o.groups))
	}
	slices.Sort(all)
	if len(folds) != 5 || len(all) < 100 || len(slices.Compact(slices.Clone(all))) != len(all) || slices.Max(sizes)-slices.Min(sizes) > 1 {
		t.Fatalf("%d folds of sizes %v over %d stencils; want 5, within one, each stencil once", len(folds), sizes, len(all))
	}
	for n, id := range all {
		if !folds[n%5].groups[id] {
			t.Errorf("stencil %s, the %d-th, is not in fold %d", id, n, n%5+1)
		}
	}
}
