package tuner

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"smart"
	"smart/space"
)

func TestSamplerDrawsEachOnce(t *testing.T) {
	sp := testSpace(t)
	vs := []Variant{{Space: sp}, {OC: smart.Combination(smart.ST), Space: sp}}
	s, err := newSampler(vs)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for {
		c, ok, err := s.next(rng)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		k := string(rune('0'+c.Variant)) + c.Setting.String()
		if seen[k] {
			t.Fatalf("%s drawn twice", k)
		}
		seen[k] = true
	}
	if n, _ := sp.Len(); len(seen) != 2*int(n) {
		t.Errorf("drew %d of %d candidates", len(seen), 2*n)
	}
}

// TestDrawPool checks the pools of two variants, enumerated (a small union) and drawn (a
// larger one), after some settings have run: each candidate's union index names it, none has
// run, none comes twice, an enumerated pool holds every setting that has not run, the
// encoder's rows from the indices are those from the settings, and a pool drawn without
// settings is the same pool.
func TestDrawPool(t *testing.T) {
	sp := testSpace(t)
	p := Problem{Variants: []Variant{{Space: sp}, {OC: smart.Combination(smart.ST), Space: sp}}, Evaluator: freeEval{}}
	run := func() *Run { // the same run, and random source, at each call
		r := newRun(&p, Budget{}, 3)
		all, err := poolOf(r, 2, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Evaluate(context.Background(), []Candidate{all[0], all[len(all)-1], all[len(all)/2]}); err != nil {
			t.Fatal(err)
		}
		return r
	}
	n, _ := sp.Len()
	for _, max := range []int{1 << 20, 40} {
		r := run()
		cs, ids, err := drawPool(r, 2, max, true)
		if err != nil {
			t.Fatal(err)
		}
		// Without settings the same draws: the same indices, and settings only where enumerated.
		bare, bareIDs, err := drawPool(run(), 2, max, false)
		if err != nil || !slices.Equal(bareIDs, ids) {
			t.Fatalf("pool of %d without settings: indices %v, %v; with them %v", max, bareIDs, err, ids)
		}
		for k, c := range bare {
			if c.Variant != cs[k].Variant || (c.Setting != nil) != (max > 2*int(n)) {
				t.Fatalf("pool of %d without settings: %v, with them %v", max, c, cs[k])
			}
		}
		if want := min(max, 2*int(n)-3); len(cs) != want || len(ids) != want {
			t.Fatalf("pool of %d: %d candidates, %d indices; want %d", max, len(cs), len(ids), want)
		}
		seen := map[poolKey]bool{}
		for k, c := range cs {
			at, err := p.Variants[c.Variant].Space.At64(ids[k])
			if err != nil || at.String() != c.Setting.String() {
				t.Fatalf("index %d of variant %d names %v, the pool has %v", ids[k], c.Variant, at, c)
			}
			if key := (poolKey{c.Variant, ids[k]}); r.Seen(c) || seen[key] {
				t.Fatalf("%v has run or comes twice", c)
			} else {
				seen[key] = true
			}
		}
		enc := newEncoder(p.Variants)
		if byIndex, byMap := enc.rows(cs, ids), enc.rows(cs, nil); !slices.EqualFunc(byIndex, byMap, slices.Equal) {
			t.Fatalf("pool of %d: rows from the indices differ from the settings'", max)
		}
	}
}

func TestEncoder(t *testing.T) {
	sp := testSpace(t)
	withConst, err := space.New(context.Background(), append(sp.Params(), space.Param{Name: "e", Values: []int{5}}))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		vs    []Variant
		c     Candidate
		names []string
		row   []float64
	}{
		// a and b are powers of two (log2), c and d are not (raw); e is constant (left out).
		{"one space", []Variant{{Space: withConst}}, Candidate{Setting: smart.Setting{"a": 8, "b": 2, "c": 1, "d": 3, "e": 5}},
			[]string{"log2_a", "log2_b", "c", "d"}, []float64{3, 1, 1, 3}},
		{"two variants", []Variant{{Space: sp}, {Space: withConst}}, Candidate{Variant: 1, Setting: smart.Setting{"a": 1, "b": 4, "c": 0, "d": 2, "e": 5}},
			[]string{"variant_0", "variant_1", "log2_a", "log2_b", "c", "d", "e"}, []float64{0, 1, 0, 2, 0, 2, 5}},
	}
	for _, c := range cases {
		e := newEncoder(c.vs)
		if got := e.features(); !slices.Equal(got, c.names) {
			t.Errorf("%s: columns %v, want %v", c.name, got, c.names)
		}
		if got := e.row(c.c); !slices.Equal(got, c.row) {
			t.Errorf("%s: row %v, want %v", c.name, got, c.row)
		}
	}
}

// TestGroupParams follows csTuner's Algorithm 1 by hand: the queue in ascending order of CV is
// popped left, right, left, ...; a left pop makes singletons, a right pop pairs or joins.
func TestGroupParams(t *testing.T) {
	cases := []struct {
		names []string
		pairs []pairCV
		want  string
	}{
		{[]string{"a", "b", "c", "d"}, []pairCV{
			{"a", "b", 0.9}, {"b", "a", 0.7}, {"c", "d", 0.05}, {"d", "c", 0.1}, {"a", "c", 0.2}, {"c", "a", 0.3},
			{"b", "d", 0.5}, {"d", "b", 0.4}, {"a", "d", 0.15}, {"d", "a", 0.25}, {"b", "c", 0.35}, {"c", "b", 0.45}},
			// left (c,d): {c} {d}; right (a,b): {a,b}; the rest find both in groups.
			"c|d|a,b"},
		{[]string{"a", "b", "c"}, []pairCV{
			{"a", "b", 0.1}, {"b", "a", 0.2}, {"a", "c", 0.9}, {"c", "a", 0.3}, {"b", "c", 0.8}, {"c", "b", 0.4}},
			// left (a,b): {a} {b}; right (a,c): c joins a's group.
			"a,c|b"},
		{[]string{"x", "y", "k"}, []pairCV{{"x", "y", 0.5}, {"y", "x", 0.5}},
			// k takes one value: no pair holds it, it ends alone.
			"x|y|k"},
	}
	for _, c := range cases {
		var got []string
		for _, g := range groupParams(c.names, c.pairs) {
			got = append(got, strings.Join(g, ","))
		}
		if s := strings.Join(got, "|"); s != c.want {
			t.Errorf("groups %s, want %s", s, c.want)
		}
	}
}

// TestPairCVs: the best b follows a (CV of positions 1, 2, 3), the best c never moves (CV 0).
func TestPairCVs(t *testing.T) {
	sp, err := space.New(context.Background(), []space.Param{
		{Name: "a", Values: []int{1, 2, 4}}, {Name: "b", Values: []int{1, 2, 4}}, {Name: "c", Values: []int{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	timeOf := func(s smart.Setting) (float64, bool) {
		d := math.Log2(float64(s["a"])) - math.Log2(float64(s["b"]))
		return 1 + d*d + float64(s["c"]), true
	}
	got := map[string]float64{}
	for _, p := range pairCVs(sp, smart.Setting{"a": 2, "b": 2, "c": 0}, timeOf) {
		got[p.a+p.b] = p.cv
	}
	want := map[string]float64{"ab": math.Sqrt(2.0/3) / 2, "ba": math.Sqrt(2.0/3) / 2, "ac": 0, "ca": 0, "bc": 0, "cb": 0}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("CV of %s = %v, want %v", k, got[k], w)
		}
	}
}

// TestPairCVsReference compares pairCVs with the definition asked of the model for every
// ordered pair, on an asymmetric objective with invalid settings, and checks that it asks for
// each setting once.
func TestPairCVsReference(t *testing.T) {
	params := []space.Param{{Name: "a", Values: []int{1, 2, 4, 8}}, {Name: "b", Values: []int{0, 1}},
		{Name: "c", Values: []int{3, 5, 7}}, {Name: "d", Values: []int{16}}}
	sp, err := space.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	best := smart.Setting{"a": 2, "b": 1, "c": 5, "d": 16}
	calls := 0
	timeOf := func(s smart.Setting) (float64, bool) {
		calls++
		if s["a"] == 8 && s["c"] == 7 {
			return 0, false // invalid
		}
		return float64(s["a"]*s["a"]%7+3*s["b"]*s["c"]%5) + 0.1*float64(s["c"]), true
	}
	got := map[string]float64{}
	for _, p := range pairCVs(sp, best, timeOf) {
		got[p.a+p.b] = p.cv
	}
	if calls != 4*2+4*3+2*3 {
		t.Errorf("%d questions to the model, want one per setting: %d", calls, 4*2+4*3+2*3)
	}
	multi := params[:3] // d takes one value and joins no pair
	for _, pa := range multi {
		for _, pb := range multi {
			if pa.Name == pb.Name {
				continue
			}
			var vs []float64
			for _, va := range pa.Values {
				bestV, bestT := 0, math.Inf(1)
				for _, vb := range pb.Values {
					s := best.Clone()
					s[pa.Name], s[pb.Name] = va, vb
					if v, ok := timeOf(s); ok && v < bestT {
						bestV, bestT = vb, v
					}
				}
				if !math.IsInf(bestT, 1) {
					vs = append(vs, position(pb.Values, bestV))
				}
			}
			if w, g := cv(vs), got[pa.Name+pb.Name]; math.Abs(w-g) > 1e-12 {
				t.Errorf("CV of %s%s = %v, want %v", pa.Name, pb.Name, g, w)
			}
		}
	}
	if len(got) != 6 {
		t.Errorf("%d pairs, want 6", len(got))
	}
}

func TestCV(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{1, 2, 3}, math.Sqrt(2.0/3) / 2}, {[]float64{5, 5}, 0}, {[]float64{7}, 0}, {[]float64{-1, 1}, 0}} {
		if got := cv(c.xs); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("cv(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestPMNFRecoversModel fits data made by a PMNF with i=1, j=0 and groups {a,b}, {c}.
func TestPMNFRecoversModel(t *testing.T) {
	sp, err := space.New(context.Background(), []space.Param{
		{Name: "a", Values: []int{1, 2, 4, 8}}, {Name: "b", Values: []int{1, 2, 4}}, {Name: "c", Values: []int{1, 2, 4, 8, 16}}})
	if err != nil {
		t.Fatal(err)
	}
	groups := [][]string{{"a", "b"}, {"c"}}
	pos := func(v int) float64 { return math.Log2(float64(v)) + 1 }
	var xs []smart.Setting
	var y []float64
	for s := range sp.All() {
		xs = append(xs, s)
		y = append(y, 3+2*pos(s["a"])*pos(s["b"])+5*pos(s["c"]))
	}
	m, err := fitPMNF(sp, groups, xs, y)
	if err != nil {
		t.Fatal(err)
	}
	if m.i != 1 || m.j != 0 || m.rse > 1e-9 {
		t.Errorf("chose i=%d j=%d with RSE %v; want i=1 j=0 and an exact fit", m.i, m.j, m.rse)
	}
	for k, w := range []float64{3, 2, 5} {
		if math.Abs(m.coef[k]-w) > 1e-9 {
			t.Errorf("coefficient %d = %v, want %v", k, m.coef[k], w)
		}
	}
	if got := m.predict(smart.Setting{"a": 8, "b": 4, "c": 2}); math.Abs(got-(3+2*4*3+5*2)) > 1e-9 {
		t.Errorf("prediction %v", got)
	}
}

func TestPCCAndMetricCombination(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	if got := pcc(x, []float64{2, 4, 6, 8, 10, 12}); math.Abs(got-1) > 1e-12 {
		t.Errorf("pcc of a line = %v", got)
	}
	if got := pcc(x, []float64{6, 5, 4, 3, 2, 1}); math.Abs(got+1) > 1e-12 {
		t.Errorf("pcc of a falling line = %v", got)
	}
	// m0 and m1 are one metric twice; m2 and m3 nearly mirror each other; across they are
	// uncorrelated. With room for two collections the pairs form them, the stronger first.
	vals := [][]float64{
		{1, 2, 3, 4, 5, 6},
		{2, 4, 6, 8, 10, 12},
		{1, -1, 1, -1, 1, -1},
		{-1, 1, -1, 1, -1, 0.9},
	}
	cols := combineMetrics([]string{"m0", "m1", "m2", "m3"}, vals, 2)
	if len(cols) != 2 || !slices.Equal(cols[0], []int{0, 1}) || !slices.Equal(cols[1], []int{2, 3}) {
		t.Errorf("collections %v, want [[0 1] [2 3]]", cols)
	}
	// With room for one, the second pair cannot open a collection, and the weak cross pairs,
	// popped later, bring m2 and m3 into the first (Algorithm 2, lines 16-20).
	if cols := combineMetrics([]string{"m0", "m1", "m2", "m3"}, vals, 1); len(cols) != 1 || len(cols[0]) != 4 {
		t.Errorf("one collection allowed, got %v", cols)
	}
}

// TestGenomeReindexes follows csTuner's Fig. 7: the group values {(0,1),(4,2),(3,4)} are
// re-indexed in ascending order to {0,2,1}, a gene of range [0,2] held in 2 bits.
func TestGenomeReindexes(t *testing.T) {
	sampled := []smart.Setting{{"p0": 0, "p1": 1}, {"p0": 4, "p1": 2}, {"p0": 3, "p1": 4}, {"p0": 4, "p1": 2}}
	g := newGenome(0, [][]string{{"p0", "p1"}}, sampled)
	var idx []int
	for _, s := range sampled[:3] {
		genes, ok := g.genes(s)
		if !ok {
			t.Fatalf("%s not in the genome", s)
		}
		idx = append(idx, genes[0])
	}
	if !slices.Equal(idx, []int{0, 2, 1}) || g.bits[0] != 2 {
		t.Errorf("indexes %v with %d bits; want [0 2 1] with 2", idx, g.bits[0])
	}
	if s := g.setting([]int{2}); s["p0"] != 4 || s["p1"] != 2 {
		t.Errorf("gene 2 decodes to %s", s)
	}
	if _, ok := g.genes(smart.Setting{"p0": 1, "p1": 1}); ok {
		t.Error("a tuple outside the sampled space was encoded")
	}
}

// TestBreedStaysInRange: children of any parents, with every bit mutating, decode to tuples of
// the genome, and inactive genes are inherited unchanged.
func TestBreedStaysInRange(t *testing.T) {
	g := &genome{groups: [][]string{{"a"}, {"b"}}, tuples: [][][]int{{{1}, {2}, {3}, {4}, {5}}, {{7}, {8}, {9}}}, bits: []int{3, 2}}
	sp := &subpop{rng: rand.New(rand.NewPCG(1, 1))}
	for i := range 8 {
		sp.pop = append(sp.pop, individual{genes: []int{i % 5, 1}, fitness: float64(i)})
	}
	for range 50 {
		for _, kid := range sp.breed(g, Genetic{Crossover: 1, Mutation: 1}, []bool{true, false}) {
			if kid[0] < 0 || kid[0] >= 5 || kid[1] != 1 {
				t.Fatalf("child %v out of range or inactive gene changed", kid)
			}
		}
	}
}

func TestEnsembleFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var X [][]float64
	var y []float64
	for i := range 60 {
		x := float64(i % 6)
		X = append(X, []float64{x, float64(rng.IntN(3))}) // the second feature is noise
		y = append(y, map[bool]float64{true: 10, false: 0}[x > 2])
	}
	e := fitEnsemble(X, y, defaultEnsemble, rng)
	mean, std := e.predict([][]float64{{0, 1}, {5, 1}})
	if math.Abs(mean[0]) > 0.5 || math.Abs(mean[1]-10) > 0.5 {
		t.Errorf("predictions %v, want about 0 and 10", mean)
	}
	if std[0] > 1 || std[1] > 1 {
		t.Errorf("spread %v on a noiseless step", std)
	}
	s := &surrogate{e: e}
	picks := s.thompsonRows(newScreen([][]float64{{5, 0}, {0, 0}, {1, 2}, {4, 1}}), 2, rng, &thompsonBufs{})
	if len(picks) != 2 || picks[0] == picks[1] || slices.Contains(picks, 0) || slices.Contains(picks, 3) {
		t.Errorf("Thompson picks %v; want the two rows of the low step, 1 and 2", picks)
	}
}

// TestTreeFastest checks the batch walk of a tree against one walk per row: among any subset
// of rows, fastest returns exactly the rows whose prediction is the least.
// Targets on a coarse grid make leaves with equal values, so ties span several leaves.
func TestTreeFastest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		n, d := 5+rng.IntN(200), 1+rng.IntN(6)
		X, y := make([][]float64, n), make([]float64, n)
		for i := range X {
			X[i] = make([]float64, d)
			for j := range X[i] {
				X[i][j] = float64(rng.IntN(8))
			}
			y[i] = float64(rng.IntN(4)) // few distinct values: many tied leaves
		}
		e := fitEnsemble(X, y, ensembleParams{trees: 3, minLeaf: 1 + rng.IntN(3), featureFrac: 0.7}, rng)
		rows := make([][]float64, 300)
		for i := range rows {
			rows[i] = make([]float64, d)
			for j := range rows[i] {
				rows[i][j] = float64(rng.IntN(9)) - 0.5*float64(rng.IntN(2)) // values off the training grid too
			}
		}
		var idx []int
		for i := range rows {
			if rng.IntN(3) > 0 {
				idx = append(idx, i)
			}
		}
		for k := range e.trees {
			tr := &e.trees[k]
			best, want := math.Inf(1), []int(nil)
			for _, i := range idx {
				switch v := walk(tr, rows[i]); {
				case v < best:
					best, want = v, []int{i}
				case v == best:
					want = append(want, i)
				}
			}
			slices.Sort(want)
			got := tr.fastest(columns(rows, d), slices.Clone(idx), nil)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d tree %d: fastest %v, one walk per row %v", trial, k, got, want)
			}
		}
	}
}

// walk is the tree's prediction for row, one branch per level: the reference for predict's
// arithmetic step and predictBlock's rows in step.
func walk(t *tree, row []float64) float64 {
	i := int32(0)
	for t.nodes[i].feature >= 0 {
		if row[t.nodes[i].feature] <= t.nodes[i].threshold {
			i++
		} else {
			i = t.nodes[i].right
		}
	}
	return t.nodes[i].threshold
}

// TestEnsemblePredict checks the ensemble's mean and spread, which it computes walking several
// rows down a tree at once or, for many rows, partitioning them down each tree, against walk
// for each row and tree: blocks cut short at the end, values off the training grid, NaN and
// infinities in the rows, one-leaf trees without features.
func TestEnsemblePredict(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 200 {
		n, d := 5+rng.IntN(100), rng.IntN(5) // d = 0: rows without features, trees of one leaf
		X, y := make([][]float64, n), make([]float64, n)
		for i := range X {
			X[i] = make([]float64, d)
			for j := range X[i] {
				X[i][j] = float64(rng.IntN(8))
			}
			y[i] = rng.Float64()
		}
		e := fitEnsemble(X, y, ensembleParams{trees: 1 + rng.IntN(8), minLeaf: 1 + rng.IntN(3), featureFrac: 0.7}, rng)
		nr := rng.IntN(30)
		if trial%3 == 0 {
			nr = batchRows + rng.IntN(100) // a batch partitioned down each tree
		}
		rows := make([][]float64, nr)
		for i := range rows {
			rows[i] = make([]float64, d)
			for j := range rows[i] {
				rows[i][j] = []float64{float64(rng.IntN(9)) - 0.5, float64(rng.IntN(8)), math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(5)*rng.IntN(2)]
			}
		}
		mean, std := e.predict(rows)
		for i, row := range rows {
			s, ss := 0.0, 0.0
			for k := range e.trees {
				v := walk(&e.trees[k], row)
				if got := e.trees[k].predict(row); got != v {
					t.Fatalf("trial %d tree %d row %v: predict %g, walk %g", trial, k, row, got, v)
				}
				s, ss = s+v, ss+v*v
			}
			m := s / float64(len(e.trees))
			if sd := math.Sqrt(max(0, ss/float64(len(e.trees))-m*m)); mean[i] != m || std[i] != sd {
				t.Fatalf("trial %d row %d of %d: predict (%g, %g), walks (%g, %g)", trial, i, len(rows), mean[i], std[i], m, sd)
			}
		}
	}
}

// TestSurrogateCap checks that a capped surrogate sees every run time above the cap quantile
// as the quantile itself: the slow half of the runs is predicted no slower than the median.
func TestSurrogateCap(t *testing.T) {
	p, _ := testProblem(t)
	r := newRun(&p, Budget{Evaluations: 60}, 1)
	if err := randomFrom(context.Background(), r, 1, 60); err != nil && !errors.Is(err, ErrStop) {
		t.Fatal(err)
	}
	enc := newEncoder(p.Variants)
	X, y := trainingSet(enc, r.History())
	med := quantile(y, 0.5)
	capped := fitSurrogate(r.History(), enc, defaultEnsemble, 0.5, rand.New(rand.NewPCG(1, 2)))
	free := fitSurrogate(r.History(), enc, defaultEnsemble, 1, rand.New(rand.NewPCG(1, 2)))
	cm, _ := capped.e.predict(X)
	fm, _ := free.e.predict(X)
	above := false
	for i := range X {
		if cm[i] > med+1e-12 {
			t.Fatalf("row %d predicted %v above the capped median %v", i, cm[i], med)
		}
		above = above || fm[i] > med+1e-9
	}
	if !above {
		t.Error("the uncapped surrogate predicts nothing above the median either: the test checks nothing")
	}
}

// TestThompsonPoolWindow checks the screen of a pool larger than one pick ranks: a window of
// distinct settings not run yet, of the requested size, that moves between picks.
func TestThompsonPoolWindow(t *testing.T) {
	p, _ := testProblem(t)
	r := newRun(&p, Budget{}, 1)
	s := newThompsonPool(r, 1, 1<<10, 16, defaultEnsemble, 1, rand.New(rand.NewPCG(5, 6)))
	if err := s.fill(); err != nil {
		t.Fatal(err)
	}
	// A quarter of the pool runs (compact drops it and rebuilds the columns), then a few more
	// (marked, not dropped).
	n0 := len(s.rest)
	for _, n := range []int{n0/4 + 1, 5} {
		if _, err := r.Evaluate(context.Background(), s.rest[s.dead:s.dead+n]); err != nil {
			t.Fatal(err)
		}
		s.compact()
	}
	if s.dead != 5 || len(s.rest) != n0-n0/4-1 {
		t.Fatalf("pool of %d settings, %d marked as run; want %d and 5", len(s.rest), s.dead, n0-n0/4-1)
	}
	starts := map[string]bool{}
	for it := range 20 {
		var extra []Candidate // children of a generation, which come first and may have run
		if it%2 == 1 {
			for _, o := range r.History()[:3] {
				extra = append(extra, o.Candidate)
			}
		}
		cands, sc := s.sample(extra, false)
		if len(cands) != len(extra)+16 || len(sc.rows) != len(cands) || len(sc.at) != len(cands) {
			t.Fatalf("window of %d settings (%d rows, %d positions), want %d", len(cands), len(sc.rows), len(sc.at), len(extra)+16)
		}
		for i, c := range cands {
			// Rows and columns hold the same encoding of each candidate.
			want := s.enc.row(c)
			for f, col := range sc.cols {
				if x := col[sc.at[i]]; x != want[f] || sc.rows[i][f] != want[f] {
					t.Fatalf("candidate %d feature %d: column %v, row %v, encoding %v", i, f, x, sc.rows[i][f], want[f])
				}
			}
		}
		seen := map[string]bool{}
		for _, c := range cands[len(extra):] {
			k := c.Setting.String()
			if seen[k] || r.Seen(c) {
				t.Fatalf("window holds %s twice or after it ran", k)
			}
			seen[k] = true
		}
		starts[cands[0].Setting.String()] = true
	}
	if len(starts) < 5 {
		t.Errorf("the window started at %d places in 20 picks", len(starts))
	}
}

// TestThompsonPoolSettles checks a pool drawn without settings (a space larger than the pool,
// no prior): its picks and its pruned space come with their settings, valid and not run.
func TestThompsonPoolSettles(t *testing.T) {
	p, _ := testProblem(t)
	r := newRun(&p, Budget{}, 1)
	if err := randomFrom(context.Background(), r, 1, 12); err != nil {
		t.Fatal(err)
	}
	s := newThompsonPool(r, 1, 40, 16, defaultEnsemble, 1, rand.New(rand.NewPCG(5, 6)))
	if err := s.fill(); err != nil {
		t.Fatal(err)
	}
	if s.rest[0].Setting != nil {
		t.Fatal("the pool was drawn with settings: the test checks nothing")
	}
	check := func(what string, cs []Candidate) {
		for _, c := range cs {
			if err := p.Variants[0].Space.Check(c.Setting); err != nil || r.Seen(c) {
				t.Fatalf("%s: %v (%v, run before: %v)", what, c.Setting, err, r.Seen(c))
			}
		}
	}
	for range 5 {
		picks := s.thompson(nil, 2)
		check("pick", picks)
		if _, err := r.Evaluate(context.Background(), picks); err != nil {
			t.Fatal(err)
		}
	}
	check("pruned space", s.topPredicted(8))
	check("pruned space of the whole screen", s.topPredicted(100))
}

// TestArgsort checks argsort against a stable sort by value: ties in index order, and NaNs
// (which a sort by < alone would scatter) after every number, in index order.
func TestArgsort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		v := make([]float64, rng.IntN(100))
		for i := range v {
			v[i] = []float64{float64(rng.IntN(5)), math.Inf(1), math.Inf(-1), math.NaN()}[rng.IntN(4)*rng.IntN(2)]
		}
		var want, nans []int
		for i, x := range v {
			if math.IsNaN(x) {
				nans = append(nans, i)
			} else {
				want = append(want, i)
			}
		}
		sort.SliceStable(want, func(a, b int) bool { return v[want[a]] < v[want[b]] })
		want = append(want, nans...)
		if got := argsort(v); !slices.Equal(got, want) {
			t.Fatalf("trial %d: argsort(%v) = %v, want %v", trial, v, got, want)
		}
	}
}

// newScreen is the screen of rows alone: its columns are theirs, in order.
func newScreen(rows [][]float64) screenRows {
	at := make([]int, len(rows))
	for i := range at {
		at[i] = i
	}
	w := 0
	if len(rows) > 0 {
		w = len(rows[0])
	}
	return screenRows{rows: rows, cols: columns(rows, w), at: at}
}
