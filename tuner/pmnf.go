package tuner

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"smart"
	"smart/space"
)

// pmnf is a performance model normal form fitted to one metric (csTuner Equation 3): an
// intercept plus one term per parameter group, the product over the group's parameters of
// P^i * log2(P)^j, with the exponents (i, j) shared by all terms and chosen by the least
// residual standard error.
type pmnf struct {
	groups [][]string
	pos    map[string][]int // values of each parameter, for position
	i, j   int
	coef   []float64 // intercept, then one per group
	rse    float64
}

// The exponent ranges of csTuner's evaluation: i in {0, 1, 2}, j in {0, 1}.
var pmnfI, pmnfJ = []int{0, 1, 2}, []int{0, 1}

// fitPMNF fits the metric y of the settings xs for every (i, j) but (0, 0), whose terms are all
// constant, and keeps the fit of least RSE. Parameters enter by position (log2(v)+1 for powers
// of two, else v-min+1), so each P is at least 1 and its logarithm is defined.
func fitPMNF(sp *space.Space, groups [][]string, xs []smart.Setting, y []float64) (*pmnf, error) {
	if len(xs) <= len(groups)+1 {
		return nil, fmt.Errorf("pmnf: %d measurements cannot fit %d coefficients", len(xs), len(groups)+1)
	}
	m := &pmnf{groups: groups, pos: map[string][]int{}, rse: math.Inf(1)}
	for _, p := range sp.Params() {
		m.pos[p.Name] = p.Values
	}
	b := mat.NewVecDense(len(y), y)
	for _, i := range pmnfI {
		for _, j := range pmnfJ {
			if i == 0 && j == 0 {
				continue
			}
			a := mat.NewDense(len(xs), len(groups)+1, nil)
			for r, s := range xs {
				a.SetRow(r, m.terms(s, i, j))
			}
			var svd mat.SVD
			if !svd.Factorize(a, mat.SVDThin) {
				continue
			}
			rank := svd.Rank(1e-10)
			if rank == 0 {
				continue
			}
			var c mat.Dense
			svd.SolveTo(&c, b, rank)
			var res mat.VecDense
			res.MulVec(a, c.ColView(0))
			res.SubVec(&res, b)
			rss := mat.Dot(&res, &res)
			dof := float64(len(xs) - rank)
			if dof <= 0 {
				continue
			}
			if rse := math.Sqrt(rss / dof); rse < m.rse {
				m.rse, m.i, m.j = rse, i, j
				m.coef = mat.Col(nil, 0, &c)
			}
		}
	}
	if m.coef == nil {
		return nil, fmt.Errorf("pmnf: no exponent pair gives a fit")
	}
	return m, nil
}

// terms is the row of the design matrix of setting s: 1, then each group's product.
func (m *pmnf) terms(s smart.Setting, i, j int) []float64 {
	row := make([]float64, len(m.groups)+1)
	row[0] = 1
	for k, g := range m.groups {
		t := 1.0
		for _, n := range g {
			p := position(m.pos[n], s[n])
			t *= math.Pow(p, float64(i)) * math.Pow(math.Log2(p), float64(j))
		}
		row[k+1] = t
	}
	return row
}

// predict is the model's value for s.
func (m *pmnf) predict(s smart.Setting) float64 {
	v := 0.0
	for k, t := range m.terms(s, m.i, m.j) {
		v += m.coef[k] * t
	}
	return v
}

// pcc is the Pearson correlation coefficient of x and y (csTuner Equation 2); 0 when either is
// constant.
func pcc(x, y []float64) float64 {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// combineMetrics is csTuner's Algorithm 2: metric pairs in ascending order of |PCC| form a
// double-ended queue popped from the right (most correlated first); a pair of metrics in no
// collection opens one while there are fewer than n, a pair with one metric in a collection
// brings the other into it. It returns the collections.
func combineMetrics(names []string, values [][]float64, n int) [][]int {
	type pair struct {
		a, b int
		r    float64
	}
	var dq []pair
	for a := range names {
		for b := a + 1; b < len(names); b++ {
			dq = append(dq, pair{a, b, math.Abs(pcc(values[a], values[b]))})
		}
	}
	sort.SliceStable(dq, func(i, j int) bool { return dq[i].r < dq[j].r })
	var cols [][]int
	in := map[int]int{}
	for len(dq) > 0 {
		p := dq[len(dq)-1]
		dq = dq[:len(dq)-1]
		ca, okA := in[p.a]
		cb, okB := in[p.b]
		switch {
		case !okA && !okB:
			if len(cols) < n {
				in[p.a], in[p.b] = len(cols), len(cols)
				cols = append(cols, []int{p.a, p.b})
			}
		case okA && okB:
		case okA:
			cols[ca] = append(cols[ca], p.b)
			in[p.b] = ca
		default:
			cols[cb] = append(cols[cb], p.a)
			in[p.a] = cb
		}
	}
	return cols
}
