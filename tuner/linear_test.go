package tuner

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/space"
)

// pairSpace has two flags, a tile extent of three values and a block size of six: the pairs
// are those of the flags and the tile (six values or more get none).
func pairSpace(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.New(context.Background(), []space.Param{
		{Name: "flag_a", Values: []int{0, 1}},
		{Name: "flag_b", Values: []int{0, 1}},
		{Name: "tile", Values: []int{1, 2, 3}},
		{Name: "block", Values: []int{32, 64, 96, 128, 160, 192}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// pairTruth is ln time on pairSpace: additive in each parameter, plus a bonus for the flags
// together and for flag_a with tile 3. Its fastest settings are flag_a=1, flag_b=1, tile=3.
func pairTruth(s smart.Setting) float64 {
	y := 2.0
	y -= 0.3 * float64(s["flag_a"])
	y -= 0.2 * float64(s["flag_b"])
	y += map[int]float64{1: 0.4, 2: 0, 3: -0.1}[s["tile"]]
	y += 0.1 * math.Abs(float64(s["block"]-96)) / 32
	if s["flag_a"] == 1 && s["flag_b"] == 1 {
		y -= 0.25
	}
	if s["flag_a"] == 1 && s["tile"] == 3 {
		y -= 0.15
	}
	return y
}

func allOf(sp *space.Space) []Candidate {
	var out []Candidate
	all([]Variant{{Space: sp}}, func(c Candidate) bool {
		out = append(out, c)
		return true
	})
	return out
}

func TestPairLinearColumns(t *testing.T) {
	m := newPairLinear([]Variant{{Space: pairSpace(t)}})
	// The intercept; one column per value but the first: 1 + 1 + 2 + 5; per pair of the
	// three small parameters the product of their values but the first: 1x1 + 1x2 + 1x2.
	if want := 1 + 9 + 5; m.width != want {
		t.Fatalf("width %d, want %d", m.width, want)
	}
	for _, tc := range []struct {
		set  smart.Setting
		want int // active columns
	}{
		{smart.Setting{"flag_a": 0, "flag_b": 0, "tile": 1, "block": 32}, 1}, // the intercept
		{smart.Setting{"flag_a": 1, "flag_b": 0, "tile": 1, "block": 32}, 2},
		{smart.Setting{"flag_a": 1, "flag_b": 1, "tile": 1, "block": 64}, 5}, // + a, b, block, a&b
		{smart.Setting{"flag_a": 1, "flag_b": 1, "tile": 3, "block": 64}, 8}, // + tile, a&t, b&t
		{smart.Setting{"flag_a": 1, "flag_b": 1, "tile": 3, "block": 48}, 7}, // 48 is no value
	} {
		pos := m.positions(Candidate{Setting: tc.set}, nil)
		act := m.active(0, pos, nil)
		if len(act) != tc.want {
			t.Errorf("%v: active columns %v, want %d", tc.set, act, tc.want)
		}
		sorted := slices.Clone(act)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != len(act) {
			t.Errorf("%v: a column twice in %v", tc.set, act)
		}
		w := make([]float64, m.width)
		for i := range w {
			w[i] = float64(i + 1)
		}
		sum := 0.0
		for _, i := range act {
			sum += w[i]
		}
		if p := m.predict(0, pos, w); p != sum {
			t.Errorf("%v: predict %v, want the active weights' sum %v", tc.set, p, sum)
		}
	}
}

// TestPairLinearManyValues checks that a parameter of more than maxMainValues values gets no
// columns, so that a fit's cost stays bounded, and that its settings are still ranked.
func TestPairLinearManyValues(t *testing.T) {
	sp, err := space.New(context.Background(), []space.Param{
		{Name: "flag", Values: []int{0, 1}},
		{Name: "n", Values: space.Range(1, 100000, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := newPairLinear([]Variant{{Space: sp}})
	if m.width != 2 {
		t.Fatalf("width %d, want the intercept and flag=1", m.width)
	}
	c := Candidate{Setting: smart.Setting{"flag": 1, "n": 70000}}
	pos := m.positions(c, nil)
	if act := m.active(0, pos, nil); !slices.Equal(act, []int{0, 1}) {
		t.Errorf("active %v, want [0 1]", act)
	}
}

// TestPairFitExtrapolates is why the pair model exists: with none of the fastest combination
// of flags and tile run, it still predicts that combination fastest, from effects learnt on
// other settings, where a tree ensemble cannot predict below the fastest run in a leaf.
func TestPairFitExtrapolates(t *testing.T) {
	sp := pairSpace(t)
	m := newPairLinear([]Variant{{Space: sp}})
	cs := allOf(sp)
	held := func(s smart.Setting) bool { return s["flag_a"] == 1 && s["flag_b"] == 1 && s["tile"] == 3 }
	var vs []int
	var pos [][]uint16
	var y []float64
	var X [][]float64
	enc := newEncoder([]Variant{{Space: sp}})
	for _, c := range cs {
		if !held(c.Setting) {
			vs, pos = append(vs, 0), append(pos, m.positions(c, nil))
			y, X = append(y, pairTruth(c.Setting)), append(X, enc.row(c))
		}
	}
	f := m.fit(vs, pos, y)
	if f == nil {
		t.Fatal("no fit")
	}
	all := m.positionsOf(cs)
	best := f.fastest(cs, all, f.mean, nil)
	if !held(cs[best].Setting) {
		t.Errorf("pair model's fastest %v, want one of the held-out combination", cs[best].Setting)
	}
	// The truth lies within the model: the noise it estimates is small, and its prediction of
	// the held-out optimum is within a tenth (in ln time) of the truth, below every run.
	opt := Candidate{Setting: smart.Setting{"flag_a": 1, "flag_b": 1, "tile": 3, "block": 96}}
	p := m.predict(0, m.positions(opt, nil), f.mean) + stat.Mean(y, nil)
	if math.Abs(p-pairTruth(opt.Setting)) > 0.1 || p >= slices.Min(y) {
		t.Errorf("predicted %.3f for the optimum (truth %.3f, fastest run %.3f)", p, pairTruth(opt.Setting), slices.Min(y))
	}
	if f.sigma > 0.1 {
		t.Errorf("noise %.3f on a noiseless additive truth", f.sigma)
	}
	e := fitEnsemble(X, y, defaultEnsemble, rand.New(rand.NewPCG(1, 2)))
	tp, _ := e.predict([][]float64{enc.row(opt)})
	if tp[0] < slices.Min(y)-1e-9 {
		t.Errorf("trees predicted %.3f, below the fastest run %.3f: the contrast this test rests on is gone", tp[0], slices.Min(y))
	}
}

// TestPairFitPosterior checks the fit against the normal equations solved densely, and the
// draws against the posterior N(mean, sigma² A⁻¹) they come from.
func TestPairFitPosterior(t *testing.T) {
	sp := pairSpace(t)
	m := newPairLinear([]Variant{{Space: sp}})
	rng := rand.New(rand.NewPCG(5, 6))
	cs := allOf(sp)
	rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	cs = cs[:30]
	var vs []int
	var pos [][]uint16
	var y []float64
	X := mat.NewDense(len(cs), m.width, nil)
	for r, c := range cs {
		p := m.positions(c, nil)
		vs, pos = append(vs, 0), append(pos, p)
		y = append(y, pairTruth(c.Setting)+0.05*rng.NormFloat64())
		for _, i := range m.active(0, p, nil) {
			X.Set(r, i, 1)
		}
	}
	f := m.fit(vs, pos, y)
	// Reference: A = XᵀX + ridge I (but the intercept's), mean = A⁻¹Xᵀ(y - ȳ).
	var A mat.Dense
	A.Mul(X.T(), X)
	for i := 1; i < m.width; i++ {
		A.Set(i, i, A.At(i, i)+pairRidge)
	}
	A.Set(0, 0, A.At(0, 0)+1e-9)
	yc, ybar := make([]float64, len(y)), stat.Mean(y, nil)
	for i := range y {
		yc[i] = y[i] - ybar
	}
	var rhs, want mat.VecDense
	rhs.MulVec(X.T(), mat.NewVecDense(len(yc), yc))
	if err := want.SolveVec(&A, &rhs); err != nil {
		t.Fatal(err)
	}
	for i := range m.width {
		if math.Abs(f.mean[i]-want.AtVec(i)) > 1e-9 {
			t.Fatalf("weight %d: %v, want %v", i, f.mean[i], want.AtVec(i))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(&A); err != nil {
		t.Fatal(err)
	}
	const n = 4000
	sum, sq := make([]float64, m.width), make([]float64, m.width)
	for range n {
		w := f.draw(rng)
		for i, x := range w {
			d := x - f.mean[i]
			sum[i] += d
			sq[i] += d * d
		}
	}
	for i := range m.width {
		v := f.sigma * f.sigma * inv.At(i, i)
		if math.Abs(sum[i]/n) > 4*math.Sqrt(v/n) {
			t.Errorf("weight %d: draws centred %.4f away from the mean (sd %.4f)", i, sum[i]/n, math.Sqrt(v))
		}
		if got := sq[i] / n; math.Abs(got/v-1) > 0.15 {
			t.Errorf("weight %d: draws' variance %.5f, posterior's %.5f", i, got, v)
		}
	}
}

// truthEval answers pairTruth.
type truthEval struct{}

func (truthEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	return smart.Measurement{Setting: q.Setting, Status: smart.StatusOK, TimeMs: math.Exp(pairTruth(q.Setting)), Source: smart.Simulated}, nil
}

// TestPipelinePairPicks checks that a Pipeline that stalls takes picks from the pair model
// (its runs differ from those of trees alone) and still never runs a setting twice or an
// invalid one.
func TestPipelinePairPicks(t *testing.T) {
	sp := pairSpace(t)
	p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: truthEval{}}
	var runs [][]string
	for _, stall := range []int{-1, 1} {
		res, err := Search(context.Background(), p, Budget{Evaluations: 60}, &Pipeline{LinearStall: stall}, 3)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var run []string
		for _, o := range res.History {
			k := o.Setting.String()
			if seen[k] {
				t.Fatalf("LinearStall %d: %s run twice", stall, k)
			}
			seen[k] = true
			run = append(run, k)
			if err := sp.Check(o.Setting); err != nil {
				t.Fatalf("LinearStall %d: invalid setting run: %v", stall, err)
			}
		}
		runs = append(runs, run)
	}
	if slices.Equal(runs[0], runs[1]) {
		t.Error("the same runs with and without the pair model: it picked nothing")
	}
}
