package hist

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func randomMatrix(rows, cols int, distinct int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([][]float64, rows)
	for i := range X {
		X[i] = make([]float64, cols)
		for j := range X[i] {
			if distinct > 0 {
				X[i][j] = float64(rng.IntN(distinct)) * 0.5
			} else {
				X[i][j] = rng.NormFloat64()
			}
		}
	}
	return X
}

func TestBinnerProperties(t *testing.T) {
	heavy := randomMatrix(3000, 2, 0, 3)
	for i := range heavy[:2000] {
		heavy[i][0] = 1 // two thirds of the rows share one value
	}
	tests := []struct {
		name    string
		X       [][]float64
		maxBins int
		exact   bool // one bin per distinct value
	}{
		{"few distinct", randomMatrix(500, 3, 10, 1), 255, true},
		{"exactly max", randomMatrix(5000, 1, 16, 2), 16, true},
		{"continuous", randomMatrix(5000, 3, 0, 2), 255, false},
		{"continuous small", randomMatrix(5000, 2, 0, 4), 8, false},
		{"heavy value", heavy, 32, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := FitBinner(tc.X, tc.maxBins, 0, 2, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			for f, up := range b.Upper {
				if len(up) > tc.maxBins {
					t.Errorf("feature %d: %d bins > %d", f, len(up), tc.maxBins)
				}
				if !math.IsInf(up[len(up)-1], 1) || !sort.Float64sAreSorted(up) {
					t.Errorf("feature %d: upper bounds %v not increasing to +Inf", f, up)
				}
				distinct := map[float64]bool{}
				used := map[uint8]float64{}
				for _, r := range tc.X {
					x := r[f]
					distinct[x] = true
					bin := b.Bin(f, x)
					if x > up[bin] || bin > 0 && x <= up[bin-1] {
						t.Fatalf("feature %d: %v in bin %d with bounds (%v, %v]", f, x, bin, up[max(0, int(bin)-1)], up[bin])
					}
					if v, ok := used[bin]; ok && v != x && tc.exact {
						t.Fatalf("feature %d: %v and %v share bin %d though values are few", f, v, x, bin)
					}
					used[bin] = x
				}
				if tc.exact && len(up) != len(distinct) {
					t.Errorf("feature %d: %d bins for %d distinct values", f, len(up), len(distinct))
				}
				if !tc.exact && len(up) < tc.maxBins/2 {
					t.Errorf("feature %d: only %d of %d bins used", f, len(up), tc.maxBins)
				}
			}
		})
	}
	if _, err := FitBinner(tests[0].X, 300, 0, 1, nil); err == nil {
		t.Error("300 bins accepted")
	}
}

// regressionGrads are the L2 gradients of predicting 0 for a target that depends on features 0
// and 2: what the first boosting round sees.
func regressionGrads(X [][]float64) (grad, hess []float64) {
	grad, hess = make([]float64, len(X)), make([]float64, len(X))
	for i, r := range X {
		y := 3*math.Sin(r[0]) + r[2]*r[2]
		grad[i], hess[i] = -y, 1+0.5*math.Abs(r[1]) // uneven hessians exercise the weighted sums
	}
	return grad, hess
}

func grow(t *testing.T, X [][]float64, p Params, threads int) (*Tree, []Segment, []int32, []float64, []float64) {
	t.Helper()
	b, err := FitBinner(X, 255, 0, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGrower(b.Transform(X, threads), p, threads)
	if err != nil {
		t.Fatal(err)
	}
	grad, hess := regressionGrads(X)
	rows := make([]int32, len(X))
	for i := range rows {
		rows[i] = int32(i)
	}
	tree, segs, err := g.Grow(context.Background(), grad, hess, rows, nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return tree, segs, rows, grad, hess
}

// TestStumpIsBestSplit compares a one-split tree with an exhaustive search over the raw values:
// with fewer distinct values than bins the histogram search must find the same split and gain.
func TestStumpIsBestSplit(t *testing.T) {
	X := randomMatrix(400, 3, 40, 5)
	const lambda = 2.0
	tree, _, _, grad, hess := grow(t, X, Params{MaxLeaves: 2, Lambda: lambda, MinDataInLeaf: 1}, 1)
	G, H := 0.0, 0.0
	for i := range grad {
		G, H = G+grad[i], H+hess[i]
	}
	bestGain, bestF, bestThr := 0.0, -1, 0.0
	for f := 0; f < 3; f++ {
		vals := map[float64]bool{}
		for _, r := range X {
			vals[r[f]] = true
		}
		var sorted []float64
		for v := range vals {
			sorted = append(sorted, v)
		}
		sort.Float64s(sorted)
		for _, v := range sorted[:len(sorted)-1] {
			gl, hl := 0.0, 0.0
			for i, r := range X {
				if r[f] <= v {
					gl, hl = gl+grad[i], hl+hess[i]
				}
			}
			gain := gl*gl/(hl+lambda) + (G-gl)*(G-gl)/(H-hl+lambda) - G*G/(H+lambda)
			if gain > bestGain {
				bestGain, bestF, bestThr = gain, f, v
			}
		}
	}
	if tree.NumLeaves() != 2 || tree.SplitFeature[0] != bestF {
		t.Fatalf("stump splits feature %v, exhaustive search %d", tree.SplitFeature, bestF)
	}
	if math.Abs(tree.SplitGain[0]-bestGain) > 1e-9*bestGain {
		t.Errorf("gain %v, exhaustive %v", tree.SplitGain[0], bestGain)
	}
	// The threshold lies between the best value and the next one, so it routes the same rows.
	for _, r := range X {
		if (r[bestF] <= bestThr) != (r[bestF] <= tree.Threshold[0]) {
			t.Fatalf("threshold %v routes %v differently from %v", tree.Threshold[0], r[bestF], bestThr)
		}
	}
}

// TestTreeInvariants checks a full tree against its own routing: each leaf's value is
// -G/(H+lambda) of the rows that Leaf sends there, the segments hold exactly those rows, and the
// limits hold. Both growth orders and parallel histograms are covered.
func TestTreeInvariants(t *testing.T) {
	X := randomMatrix(20000, 5, 0, 6)
	tests := []struct {
		name    string
		p       Params
		threads int
	}{
		{"leafwise", Params{MaxLeaves: 31, Lambda: 1, MinDataInLeaf: 20, MinChildWeight: 1e-3}, 1},
		{"leafwise parallel", Params{MaxLeaves: 31, Lambda: 1, MinDataInLeaf: 20}, 4},
		{"depthwise", Params{MaxLeaves: 256, MaxDepth: 4, DepthWise: true, Lambda: 0.5, MinDataInLeaf: 5}, 2},
		{"depth-limited leafwise", Params{MaxLeaves: 64, MaxDepth: 3, MinDataInLeaf: 1}, 1},
		{"big leaves", Params{MaxLeaves: 64, MinDataInLeaf: 3000}, 2},
		{"by node sampling", Params{MaxLeaves: 16, MinDataInLeaf: 10, FeatureFractionByNode: 0.4}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tree, segs, rows, grad, hess := grow(t, X, tc.p, tc.threads)
			if tree.NumLeaves() > tc.p.MaxLeaves {
				t.Errorf("%d leaves > %d", tree.NumLeaves(), tc.p.MaxLeaves)
			}
			if tree.NumLeaves() < 4 {
				t.Errorf("only %d leaves", tree.NumLeaves())
			}
			for l, d := range tree.LeafDepth {
				if tc.p.MaxDepth > 0 && d > tc.p.MaxDepth {
					t.Errorf("leaf %d at depth %d > %d", l, d, tc.p.MaxDepth)
				}
			}
			if tc.p.DepthWise && tree.NumLeaves() != 1<<tc.p.MaxDepth {
				t.Errorf("depth-wise tree of depth %d has %d leaves, want a full %d", tc.p.MaxDepth, tree.NumLeaves(), 1<<tc.p.MaxDepth)
			}
			G := make([]float64, tree.NumLeaves())
			H := make([]float64, tree.NumLeaves())
			N := make([]int, tree.NumLeaves())
			for i, r := range X {
				l := tree.Leaf(r)
				G[l], H[l], N[l] = G[l]+grad[i], H[l]+hess[i], N[l]+1
			}
			for l := range G {
				want := -G[l] / (H[l] + tc.p.Lambda)
				if math.Abs(tree.LeafValue[l]-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("leaf %d value %v, from its rows %v", l, tree.LeafValue[l], want)
				}
				if N[l] != tree.LeafCount[l] || N[l] < tc.p.MinDataInLeaf {
					t.Errorf("leaf %d: %d rows routed, count %d, minimum %d", l, N[l], tree.LeafCount[l], tc.p.MinDataInLeaf)
				}
			}
			seen := 0
			for _, s := range segs {
				for _, r := range rows[s.Start:s.End] {
					if l := tree.Leaf(X[r]); l != s.Leaf {
						t.Fatalf("row %d in segment of leaf %d is routed to %d", r, s.Leaf, l)
					}
					seen++
				}
			}
			if seen != len(X) {
				t.Errorf("segments hold %d rows of %d", seen, len(X))
			}
		})
	}
}

func TestParamsCheck(t *testing.T) {
	bad := []Params{
		{MaxLeaves: 1, MinDataInLeaf: 1},
		{MaxLeaves: 4, MinDataInLeaf: 0},
		{MaxLeaves: 4, MinDataInLeaf: 1, Lambda: -1},
		{MaxLeaves: 4, MinDataInLeaf: 1, MaxDepth: -2},
		{MaxLeaves: 4, MinDataInLeaf: 1, FeatureFractionByNode: 1.5},
	}
	for _, p := range bad {
		if p.Check() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func trainedEnsemble(t *testing.T, classes int) *Ensemble {
	t.Helper()
	X := randomMatrix(3000, 4, 0, 8)
	e := &Ensemble{NumClass: classes, Objective: RegressionObjective, FeatureNames: []string{"a", "b", "c", "d"}}
	if classes > 1 {
		e.Objective = MulticlassObjective(classes)
	}
	b, _ := FitBinner(X, 255, 0, 1, nil)
	e.FeatureInfos = b.FeatureInfos()
	for i := 0; i < 3*classes; i++ {
		tree, _, _, _, _ := grow(t, X, Params{MaxLeaves: 8 + i, Lambda: 1, MinDataInLeaf: 10}, 1)
		tree.Scale(0.1 * float64(i+1))
		tree.AddBias(float64(i % classes))
		e.Trees = append(e.Trees, tree)
	}
	return e
}

// TestLightGBMRoundTrip writes ensembles in LightGBM's format and checks that both this
// package's reader and leaves evaluate them as the trees in memory do.
func TestLightGBMRoundTrip(t *testing.T) {
	rows := randomMatrix(500, 4, 0, 9)
	for _, classes := range []int{1, 3} {
		e := trainedEnsemble(t, classes)
		text, err := e.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseLightGBM(text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPredictor(text)
		if err != nil {
			t.Fatal(err)
		}
		p.threads = 7 // parts of 71 and 72 rows, each predicted apart
		batch, err := p.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			want := e.Raw(r)
			if classes > 1 {
				Softmax(want)
			}
			got := back.Raw(r)
			if classes > 1 {
				Softmax(got)
			}
			single, err := p.Row(r)
			if err != nil {
				t.Fatal(err)
			}
			for c := range want {
				for _, v := range []float64{got[c], single[c], batch[i*classes+c]} {
					if math.Abs(v-want[c]) > 1e-9 {
						t.Fatalf("%d classes, row %d class %d: %v, in memory %v", classes, i, c, v, want[c])
					}
				}
			}
		}
	}
}

func readMatrix(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row []float64
		for _, s := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out
}

// TestForeignLightGBM loads a model that LightGBM itself trained and checks every row's leaf in
// every tree against the leaves LightGBM reported, and leaves' probability against the sigmoid of
// this package's raw score.
func TestForeignLightGBM(t *testing.T) {
	text, err := os.ReadFile("testdata/lg_breast_cancer.txt")
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseLightGBM(text)
	if err != nil {
		t.Fatal(err)
	}
	data := readMatrix(t, "testdata/lg_breast_cancer_data.txt")
	leavesTruth := readMatrix(t, "testdata/lg_breast_cancer_data_pred_leaves.txt")
	p, err := NewPredictor(text)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range data {
		for k, tree := range e.Trees {
			if got := tree.Leaf(row); got != int(leavesTruth[i][k]) {
				t.Fatalf("row %d tree %d: leaf %d, LightGBM %v", i, k, got, leavesTruth[i][k])
			}
		}
		out, err := p.Row(row)
		if err != nil {
			t.Fatal(err)
		}
		want := 1 / (1 + math.Exp(-e.Raw(row)[0]))
		if math.Abs(out[0]-want) > 1e-9 {
			t.Errorf("row %d: leaves %v, own %v", i, out[0], want)
		}
	}
	if len(e.Trees) != 39 || e.NumClass != 1 || len(e.FeatureNames) != 30 {
		t.Errorf("read %d trees, %d classes, %d features", len(e.Trees), e.NumClass, len(e.FeatureNames))
	}
}

// tiny is a hand-written LightGBM model: x0 <= 0.5 gives 1; otherwise x1 <= 0.25 gives 2, else 3.
const tiny = `tree
version=v3
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=1
objective=regression
feature_names=a b
feature_infos=[0:1] [0:1]
tree_sizes=300

Tree=0
num_leaves=3
num_cat=0
split_feature=0 1
split_gain=1 1
threshold=0.5 0.25
decision_type=2 2
left_child=-1 -2
right_child=1 -3
leaf_value=1 2 3
leaf_weight=1 1 1
leaf_count=1 1 1
internal_value=0 0
internal_weight=0 0
internal_count=3 2
is_linear=0
shrinkage=1


end of trees
`

func TestHandWrittenModel(t *testing.T) {
	p, err := NewPredictor([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ x0, x1, want float64 }{
		{0.2, 0.9, 1}, {0.5, 0, 1}, {0.7, 0.1, 2}, {0.7, 0.25, 2}, {0.7, 0.9, 3}, {1e9, 1e9, 3},
	} {
		out, err := p.Row([]float64{tc.x0, tc.x1})
		if err != nil || out[0] != tc.want {
			t.Errorf("(%v, %v): %v, %v; want %v", tc.x0, tc.x1, out, err, tc.want)
		}
	}
	if _, err := p.Row([]float64{1}); err == nil {
		t.Error("a row of 1 feature was accepted by a 2-feature model")
	}
}

// TestCorruptModels feeds broken models to both readers: each must fail with an error, never a
// panic, and say what is wrong.
func TestCorruptModels(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"empty", tiny, "", "does not start"},
		{"foreign", tiny, "hello=world\n\n", "does not start"},
		{"version", "version=v3", "version=v9", "version"},
		{"truncated", tiny, tiny[:len(tiny)/2], "want"},
		{"no trees", "tree_sizes=", "tree_sizes_gone=", "tree_sizes"},
		{"short leaf values", "leaf_value=1 2 3", "leaf_value=1 2", "leaf_value"},
		{"child out of range", "left_child=-1 -2", "left_child=5 -2", "outside"},
		{"leaf out of range", "left_child=-1 -2", "left_child=-1 -9", "outside"},
		{"cycle", "left_child=-1 -2", "left_child=-1 1", "twice"},
		{"leaf twice", "right_child=1 -3", "right_child=1 -2", "twice"},
		{"feature out of range", "split_feature=0 1", "split_feature=0 7", "feature 7"},
		{"categorical", "num_cat=0", "num_cat=1", "categorical"},
		{"missing values", "decision_type=2 2", "decision_type=2 10", "missing"},
		{"bad number", "threshold=0.5", "threshold=x", "not a number"},
		{"names", "feature_names=a b", "feature_names=a", "feature_names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(tiny, tc.old, tc.new, 1)
			if text == tiny {
				t.Fatal("corruption did not apply")
			}
			_, err1 := ParseLightGBM([]byte(text))
			_, err2 := NewPredictor([]byte(text))
			if err1 == nil || err2 == nil {
				t.Fatalf("accepted: %v / %v", err1, err2)
			}
			if !strings.Contains(err1.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err1, tc.want)
			}
		})
	}
}

// FuzzPredictor checks that no byte string makes the readers panic.
func FuzzPredictor(f *testing.F) {
	text, err := os.ReadFile("testdata/lg_breast_cancer.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(text[:3000])
	f.Add([]byte(tiny))
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := NewPredictor(b); err == nil {
			if _, err := p.Row(make([]float64, p.Features())); err != nil {
				t.Errorf("loaded model fails to predict: %v", err)
			}
		}
	})
}

// TestForestMatchesLeaves holds the regression fast path to leaves bit for bit: on an ensemble
// of this package's and on LightGBM's own breast cancer model read as a regression, for rows of
// random values, the models' thresholds exactly and one ulp either side, NaN, infinities and
// -0, one at a time and in batches large enough to be split over goroutines. Classifiers have
// no fast path.
func TestForestMatchesLeaves(t *testing.T) {
	cancer, err := os.ReadFile("testdata/lg_breast_cancer.txt")
	if err != nil {
		t.Fatal(err)
	}
	own, err := trainedEnsemble(t, 1).MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for name, text := range map[string][]byte{
		"own":    own,
		"cancer": bytes.Replace(cancer, []byte("objective=binary sigmoid:1"), []byte("objective=regression"), 1),
	} {
		e, err := ParseLightGBM(text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPredictor(text)
		if err != nil {
			t.Fatal(err)
		}
		if p.forest == nil {
			t.Fatalf("%s: a regression without the fast path", name)
		}
		var thresholds []float64
		for _, tr := range e.Trees {
			thresholds = append(thresholds, tr.Threshold...)
		}
		special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
		rows := make([][]float64, 1000)
		for i := range rows {
			rows[i] = make([]float64, p.features)
			for f := range rows[i] {
				switch thr := thresholds[rng.IntN(len(thresholds))]; rng.IntN(6) {
				case 0:
					rows[i][f] = thr
				case 1:
					rows[i][f] = math.Nextafter(thr, math.Inf(1))
				case 2:
					rows[i][f] = math.Nextafter(thr, math.Inf(-1))
				case 3:
					rows[i][f] = special[rng.IntN(len(special))]
				default:
					rows[i][f] = (rng.Float64() - 0.3) * 2 * math.Abs(thr)
				}
			}
		}
		batch, err := p.Rows(rows)
		if err != nil {
			t.Fatal(err)
		}
		ens, err := p.Leaves()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rows {
			want := make([]float64, 1)
			if err := ens.Predict(r, 0, want); err != nil {
				t.Fatal(err)
			}
			one, err := p.Row(r)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(one[0]) != math.Float64bits(want[0]) || math.Float64bits(batch[i]) != math.Float64bits(want[0]) {
				t.Fatalf("%s row %d %v: %v alone, %v in a batch; leaves %v", name, i, r, one[0], batch[i], want[0])
			}
		}
	}
	classes, err := trainedEnsemble(t, 3).MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := NewPredictor(classes); err != nil || p.forest != nil {
		t.Errorf("a classifier has the regression fast path (%v)", err)
	}
}
