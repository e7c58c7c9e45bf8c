package dataset

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

var (
	ocA = smart.Combination(0)                   // BASE
	ocB = smart.Combination(smart.ST)            // ST
	ocC = smart.Combination(smart.BM)            // BM
	ocD = smart.Combination(smart.CM)            // CM
	ocE = smart.Combination(smart.TB | smart.CM) // CM_TB: never runs
)

// handMade writes a data set of five stencils on one GPU whose best time per OC is
//
//	stencil  BASE  ST   BM  CM
//	s1       1     2    5   10
//	s2       2     4    4   8
//	s3       3     6    3   6
//	s4       4     8    2   1.5
//	s5       5     10   1   0.5
//
// Each OC also has a slower setting (3x) and a failed one, and CM_TB only fails, so the labels
// must come from the fastest ok setting of each OC. Stencil s6 timed out under every OC (no
// label); s7 was measured under BASE alone, faster than any, which labels and stats leave out: an
// OC not measured yet may beat it.
func handMade(t *testing.T) string {
	t.Helper()
	times := map[smart.Combination][]float64{
		ocA: {1, 2, 3, 4, 5},
		ocB: {2, 4, 6, 8, 10},
		ocC: {5, 4, 3, 2, 1},
		ocD: {10, 8, 6, 1.5, 0.5},
	}
	dir := t.TempDir()
	w, err := Create(dir, Meta{Sources: []smart.Source{smart.Measured}, Devices: []Device{{GPU: "V100", Name: "Tesla V100-SXM2-32GB"}}, Params: StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 5 {
		id := "s" + string(rune('1'+i))
		row := func(oc smart.Combination, bx int, status smart.Status, ms float64) {
			m := smart.Measurement{StencilID: id, GPU: "V100", OC: oc, Setting: smart.Setting{"bx": bx, "by": 1, "shared": 0, "const": 0},
				Status: status, TimeMs: ms, Source: smart.Measured}
			if err := w.Append(m); err != nil {
				t.Fatal(err)
			}
		}
		for _, oc := range []smart.Combination{ocA, ocB, ocC, ocD} {
			row(oc, 32, smart.StatusOK, 3*times[oc][i])
			row(oc, 64, smart.StatusOK, times[oc][i])
			row(oc, 128, smart.StatusLaunchError, 0)
		}
		row(ocE, 32, smart.StatusCompileError, 0)
	}
	// A stencil where nothing ran.
	for _, oc := range []smart.Combination{ocA, ocB, ocC, ocD, ocE} {
		if err := w.Append(smart.Measurement{StencilID: "s6", GPU: "V100", OC: oc, Setting: smart.Setting{"bx": 32}, Status: smart.StatusTimeout, Source: smart.Measured}); err != nil {
			t.Fatal(err)
		}
	}
	// A stencil measured under one OC of five.
	if err := w.Append(smart.Measurement{StencilID: "s7", GPU: "V100", Setting: smart.Setting{"bx": 32}, Status: smart.StatusOK, TimeMs: 0.1, Source: smart.Measured}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLabelsHandMade(t *testing.T) {
	dir := handMade(t)
	l, err := LabelWith(context.Background(), dir, LabelOptions{Classes: 2})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: BASE and ST are exactly proportional (PCC 1); BM and CM correlate with PCC
	// 0.9829527642269171 (Python: statistics.correlation([5,4,3,2,1], [10,8,6,1.5,0.5])); BASE
	// and BM with -1. Average linkage merges BASE+ST first, then BM+CM (their links to BASE+ST
	// are -1 and -0.98). Best OCs: s1 s2 BASE, s3 BASE (tie with BM at 3 goes to the lower
	// OC), s4 s5 CM; so BASE wins 3 and labels {BASE, ST}, CM wins 2 and labels {BM, CM}.
	const pccCD = 0.9829527642269171
	if want := []smart.Combination{ocA, ocB, ocC, ocD}; !reflect.DeepEqual(l.OCs, want) {
		t.Fatalf("OCs %v, want %v", l.OCs, want)
	}
	for _, c := range []struct {
		i, j int
		want float64
	}{{0, 1, 1}, {2, 3, pccCD}, {0, 2, -1}, {0, 3, -pccCD}, {1, 3, -pccCD}, {3, 3, 1}} {
		if got := l.PCC[c.i][c.j]; got == nil || math.Abs(*got-c.want) > 1e-12 {
			t.Errorf("PCC[%v][%v] = %v, want %v", l.OCs[c.i], l.OCs[c.j], got, c.want)
		}
	}
	wantMerges := []MergeStep{
		{A: []smart.Combination{ocA}, B: []smart.Combination{ocB}, Similarity: 1},
		{A: []smart.Combination{ocC}, B: []smart.Combination{ocD}, Similarity: pccCD},
	}
	if len(l.Merges) != 2 {
		t.Fatalf("merges %+v", l.Merges)
	}
	for i, m := range l.Merges {
		if !reflect.DeepEqual(m.A, wantMerges[i].A) || !reflect.DeepEqual(m.B, wantMerges[i].B) || math.Abs(m.Similarity-wantMerges[i].Similarity) > 1e-12 {
			t.Errorf("merge %d: %+v, want %+v", i, m, wantMerges[i])
		}
	}
	wantClasses := []Class{
		{Label: ocA, Members: []smart.Combination{ocA, ocB}, Wins: 3},
		{Label: ocD, Members: []smart.Combination{ocC, ocD}, Wins: 2},
	}
	if !reflect.DeepEqual(l.Classes, wantClasses) {
		t.Fatalf("classes %+v\nwant %+v", l.Classes, wantClasses)
	}
	wantBest := []smart.Combination{ocA, ocA, ocA, ocD, ocD}
	wantMs := []float64{1, 2, 3, 1.5, 0.5}
	for i, in := range l.Instances {
		if in.Best != wantBest[i] || in.BestMs != wantMs[i] || in.GPU != "V100" {
			t.Errorf("instance %d: %+v, want best %v at %v ms", i, in, wantBest[i], wantMs[i])
		}
	}
	if l.Unlabelled != 1 || l.Incomplete != 1 || len(l.Instances) != 5 {
		t.Errorf("%d instances, %d unlabelled, %d incomplete; want 5, 1 (s6) and 1 (s7)", len(l.Instances), l.Unlabelled, l.Incomplete)
	}
	if c, ok := l.ClassOf(ocC); !ok || c != ocD {
		t.Errorf("ClassOf(BM) = %v, %v", c, ok)
	}
	if _, ok := l.ClassOf(ocE); ok {
		t.Error("CM_TB, which never ran, has a class")
	}
	back, err := ReadLabels(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, l) {
		t.Fatalf("labels.json round trip:\n%+v\n%+v", back, l)
	}

	// With as many classes as OCs nothing merges; with one, everything does.
	if l, _ := ComputeLabels(context.Background(), dir, LabelOptions{Classes: 5}); len(l.Classes) != 4 || len(l.Merges) != 0 {
		t.Errorf("5 classes: %+v", l.Classes)
	}
	if l, _ := ComputeLabels(context.Background(), dir, LabelOptions{Classes: 1}); len(l.Classes) != 1 || l.Classes[0].Label != ocA || l.Classes[0].Wins != 5 {
		t.Errorf("1 class: %+v", l.Classes)
	}
}

func TestStatsHandMade(t *testing.T) {
	s, err := ComputeStats(context.Background(), handMade(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 5*13+5+1 {
		t.Errorf("%d rows", s.Rows)
	}
	const m = smart.Measured
	wantCounts := []CountRow{
		{GPU: "V100", Source: m, OC: "BASE", Rows: 17, ByStatus: map[smart.Status]int{"ok": 11, "launch_error": 5, "timeout": 1}},
		{GPU: "V100", Source: m, OC: "ST", Rows: 16, ByStatus: map[smart.Status]int{"ok": 10, "launch_error": 5, "timeout": 1}},
		{GPU: "V100", Source: m, OC: "BM", Rows: 16, ByStatus: map[smart.Status]int{"ok": 10, "launch_error": 5, "timeout": 1}},
		{GPU: "V100", Source: m, OC: "CM", Rows: 16, ByStatus: map[smart.Status]int{"ok": 10, "launch_error": 5, "timeout": 1}},
		{GPU: "V100", Source: m, OC: "CM_TB", Rows: 6, ByStatus: map[smart.Status]int{"compile_error": 5, "timeout": 1}},
	}
	if !reflect.DeepEqual(s.Counts, wantCounts) {
		t.Errorf("counts %+v\nwant %+v", s.Counts, wantCounts)
	}
	// s7, measured under BASE alone, is in neither table: both count the same five stencils.
	wantBest := []BestOCRow{{GPU: "V100", Source: m, OC: ocA, Stencils: 3}, {GPU: "V100", Source: m, OC: ocD, Stencils: 2}}
	if !reflect.DeepEqual(s.BestOC, wantBest) {
		t.Errorf("best OCs %+v, want %+v", s.BestOC, wantBest)
	}
	if want := []Incomplete{{GPU: "V100", Source: m, Stencils: 1, OCs: 5}}; !reflect.DeepEqual(s.Incomplete, want) {
		t.Errorf("incomplete %+v, want %+v", s.Incomplete, want)
	}
	// Worst over best per stencil: 10/1, 8/2, 6/3, 8/1.5, 10/0.5.
	ratios := []float64{10, 4, 2, 8 / 1.5, 20}
	want := GapRow{GPU: "V100", Stencils: 5, Min: 2, Median: 8 / 1.5, Mean: (10 + 4 + 2 + 8/1.5 + 20) / 5, Max: 20}
	if len(s.Gap) != 1 || s.Gap[0].Stencils != 5 || s.Gap[0].Min != want.Min || s.Gap[0].Max != want.Max ||
		math.Abs(s.Gap[0].Median-want.Median) > 1e-12 || math.Abs(s.Gap[0].Mean-want.Mean) > 1e-12 {
		t.Errorf("gap %+v, want %+v (ratios %v)", s.Gap, want, ratios)
	}
}

// TestLabelsRelative correlates the hand-made times divided by each stencil's best
// (1, 2, 3, 1.5, 0.5). Python: statistics.correlation of the divided series gives BASE~ST 1,
// BM~CM 0.9380063043457602, BASE~BM -0.15941963462409667, BASE~CM -0.4694183338323992: the
// same merges as with raw times, for different reasons.
func TestLabelsRelative(t *testing.T) {
	l, err := ComputeLabels(context.Background(), handMade(t), LabelOptions{Classes: 2, Relative: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j int
		want float64
	}{{0, 1, 1}, {2, 3, 0.9380063043457602}, {0, 2, -0.15941963462409667}, {0, 3, -0.4694183338323992}} {
		if got := l.PCC[c.i][c.j]; got == nil || math.Abs(*got-c.want) > 1e-12 {
			t.Errorf("PCC[%v][%v] = %v, want %v", l.OCs[c.i], l.OCs[c.j], got, c.want)
		}
	}
	if !l.Relative || len(l.Classes) != 2 || l.Classes[0].Label != ocA || l.Classes[1].Label != ocD {
		t.Fatalf("classes %+v", l.Classes)
	}
}

// TestLabelsGiven labels the hand-made stencils with classes from elsewhere: BASE is best on
// s1-s3 and CM on s4-s5, so their classes (labelled ST and BM there) win 3 and 2.
func TestLabelsGiven(t *testing.T) {
	dir := handMade(t)
	given := []Class{{Label: ocB, Members: []smart.Combination{ocA, ocB}, Wins: 99}, {Label: ocC, Members: []smart.Combination{ocC, ocD, ocE}}}
	l, err := ComputeLabels(context.Background(), dir, LabelOptions{Classes: 1, Given: given})
	if err != nil {
		t.Fatal(err)
	}
	want := []Class{{Label: ocB, Members: []smart.Combination{ocA, ocB}, Wins: 3}, {Label: ocC, Members: []smart.Combination{ocC, ocD, ocE}, Wins: 2}}
	if !reflect.DeepEqual(l.Classes, want) || len(l.Merges) != 0 || l.Requested != 2 {
		t.Errorf("classes %+v, merges %v; want the given ones, their wins counted here", l.Classes, l.Merges)
	}
	var got []string
	for _, in := range l.Instances {
		got = append(got, in.StencilID+":"+in.Best.String()+"->"+in.Class.String())
	}
	if w := []string{"s1:BASE->ST", "s2:BASE->ST", "s3:BASE->ST", "s4:CM->BM", "s5:CM->BM"}; !reflect.DeepEqual(got, w) {
		t.Errorf("instances %v, want %v", got, w)
	}
	if given[0].Wins != 99 {
		t.Error("the given classes were changed")
	}
	_, err = ComputeLabels(context.Background(), dir, LabelOptions{Given: given[:1]})
	if err == nil || !strings.Contains(err.Error(), "OC BM ran") || !strings.Contains(err.Error(), dir) {
		t.Errorf("classes without BM and CM: %v; want the data set and the OC named", err)
	}
}

// TestStatsLargeRatios: a worst OC of 1e300 ms over a best of 1 ms is a ratio of 3 significant
// digits in the tables, not of 300 digits; ratios below 10,000 keep their decimals.
func TestStatsLargeRatios(t *testing.T) {
	s := &Stats{Rows: 2,
		Gap:     []GapRow{{GPU: "V100", Stencils: 2, Min: 1.5, Median: 9999.994, Mean: 5e299, Max: 1e300}},
		Kernels: []KernelBest{{GPU: "V100", Kernel: "k", Rows: 2, OK: 2, BestMs: 1, Spread: 1e300, Setting: "bx=32"}}}
	var b strings.Builder
	if err := s.WriteTables(&b, "big"); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "V100 ") {
			rows = append(rows, strings.Join(strings.Fields(line), " "))
		}
	}
	if want := []string{"V100 2 1.50x 9999.99x 5e+299x 1e+300x", "V100 k 2 2 1 1e+300x bx=32"}; !slices.Equal(rows, want) {
		t.Errorf("the tables\n%s\nwant rows %q", b.String(), want)
	}
}

// TestLabelsRefuseTooFewToMerge: merging OCs by the correlation of their times needs three
// instances; over two every correlation is +1 or -1. Given classes need no correlation.
func TestLabelsRefuseTooFewToMerge(t *testing.T) {
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:3], 2, 1)
	dir := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
	_, err := ComputeLabels(context.Background(), dir, LabelOptions{Classes: 2})
	if err == nil || !strings.Contains(err.Error(), "merging 3 OCs into 2 classes needs their times' correlation over at least 3 instances") ||
		!strings.Contains(err.Error(), "has 2 instances") {
		t.Errorf("two stencils merged: %v; want a refusal", err)
	}
	if l, err := ComputeLabels(context.Background(), dir, LabelOptions{Classes: 3}); err != nil || len(l.Classes) != 3 {
		t.Errorf("no merge asked: %v", err)
	}
	given := []Class{{Label: testOCs[0], Members: testOCs[:2]}, {Label: testOCs[2], Members: testOCs[2:3]}}
	if l, err := ComputeLabels(context.Background(), dir, LabelOptions{Given: given}); err != nil || len(l.Instances) != 2 {
		t.Errorf("given classes: %v", err)
	}
}
