package tuner

import (
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// pairLinear is a Bayesian linear model of ln time on an intercept and indicators: one per
// value of each parameter (but its first) and one per pair of values of every two small
// parameters (at most maxPairValues values each: flags, tile extents). A tree never predicts
// a setting faster than the fastest run in its leaf; this model adds effects learnt apart, so
// a tile extent fast in one combination of flags and those flags fast with another extent
// make their setting fast before any run of it.
type pairLinear struct {
	width int
	vars  []pairVariant // per variant searched
}

// maxPairValues bounds the values of a parameter whose pairs get indicators: with more, the
// pairs' columns outnumber the runs that could fit them.
const maxPairValues = 4

// maxMainValues bounds the values of a parameter that gets indicators at all (the model then
// leaves it to the trees): a fit costs the cube of the columns, and a search sees few runs
// of each of so many values. Stencil spaces have at most 9; Kernel Tuner's caches here 29.
const maxMainValues = 64

type pairVariant struct {
	names []string
	index []map[int]int // per parameter: value -> position in its values (none past maxMainValues)
	main  [][]int       // per parameter, per position: column, -1 for the first
	pairs []pairCols
	base  int // column of the variant's indicator, -1 for the first variant
}

type pairCols struct {
	a, b int     // parameters
	col  [][]int // per position of a, per position of b: column, -1 where either is the first
}

// newPairLinear lays out the columns of the variants vs. A parameter of the same name and
// value shares its column across variants.
func newPairLinear(vs []Variant) *pairLinear {
	cols := map[string]int{}
	col := func(key string) int {
		c, ok := cols[key]
		if !ok {
			c = 1 + len(cols) // column 0 is the intercept
			cols[key] = c
		}
		return c
	}
	m := &pairLinear{}
	for v, va := range vs {
		pv := pairVariant{base: -1}
		if v > 0 {
			pv.base = col("variant=" + strconv.Itoa(v))
		}
		ps := va.Space.Params()
		for _, p := range ps {
			idx, main := map[int]int{}, []int(nil)
			if len(p.Values) <= maxMainValues {
				main = make([]int, len(p.Values))
				for i, x := range p.Values {
					idx[x], main[i] = i, -1
					if i > 0 {
						main[i] = col(p.Name + "=" + strconv.Itoa(x))
					}
				}
			}
			pv.names = append(pv.names, p.Name)
			pv.index = append(pv.index, idx)
			pv.main = append(pv.main, main)
		}
		for a := range ps {
			for b := a + 1; b < len(ps); b++ {
				na, nb := len(ps[a].Values), len(ps[b].Values)
				if na < 2 || nb < 2 || na > maxPairValues || nb > maxPairValues {
					continue
				}
				pc := pairCols{a: a, b: b, col: make([][]int, na)}
				for i, x := range ps[a].Values {
					pc.col[i] = make([]int, nb)
					for j, y := range ps[b].Values {
						pc.col[i][j] = -1
						if i > 0 && j > 0 {
							pc.col[i][j] = col(ps[a].Name + "=" + strconv.Itoa(x) + "&" + ps[b].Name + "=" + strconv.Itoa(y))
						}
					}
				}
				pv.pairs = append(pv.pairs, pc)
			}
		}
		m.vars = append(m.vars, pv)
	}
	m.width = 1 + len(cols)
	return m
}

// noValue is the position of a value a parameter does not take.
const noValue = math.MaxUint16

// positions returns each parameter's position of c's value among its values (noValue for a
// value it does not take), appended to dst: what the columns of c are read from.
func (m *pairLinear) positions(c Candidate, dst []uint16) []uint16 {
	pv := &m.vars[c.Variant]
	for k, n := range pv.names {
		i, ok := pv.index[k][c.Setting[n]]
		if !ok {
			i = noValue
		}
		dst = append(dst, uint16(i))
	}
	return dst
}

// positionsOf lays the positions of cs out in one block of memory.
func (m *pairLinear) positionsOf(cs []Candidate) [][]uint16 {
	n := 0
	for _, c := range cs {
		n += len(m.vars[c.Variant].names)
	}
	block := make([]uint16, 0, n)
	out := make([][]uint16, len(cs))
	for i, c := range cs {
		k := len(block)
		block = m.positions(c, block)
		out[i] = block[k:len(block):len(block)]
	}
	return out
}

// active returns in buf the columns whose indicator is 1 for a setting of variant v whose
// values lie at pos; buf is reused by the next call.
func (m *pairLinear) active(v int, pos []uint16, buf []int) []int {
	buf = append(buf[:0], 0)
	pv := &m.vars[v]
	if pv.base >= 0 {
		buf = append(buf, pv.base)
	}
	for k, i := range pos {
		if i != noValue && pv.main[k][i] >= 0 {
			buf = append(buf, pv.main[k][i])
		}
	}
	for _, pc := range pv.pairs {
		if i, j := pos[pc.a], pos[pc.b]; i != noValue && j != noValue && i > 0 && j > 0 {
			buf = append(buf, pc.col[i][j])
		}
	}
	return buf
}

// pairFit is the posterior of a pairLinear's weights: their mean, the Cholesky factor of
// their precision, and the noise's deviation, which scales a draw.
type pairFit struct {
	m     *pairLinear
	mean  []float64
	u     mat.TriDense // the factor: the precision is UᵀU
	sigma float64
}

// pairRidge is the weights' prior precision relative to the noise's: a column few runs have
// set stays near no effect, and a draw explores it by about the noise.
const pairRidge = 1.0

// fit returns the posterior of the weights given the targets y (ln time, centred here) of
// settings of the variants vs whose values lie at pos; nil when there are none or the system
// cannot be solved.
func (m *pairLinear) fit(vs []int, pos [][]uint16, y []float64) *pairFit {
	if len(y) == 0 {
		return nil
	}
	level := 0.0
	for _, t := range y {
		level += t
	}
	level /= float64(len(y))
	w := m.width
	a := make([]float64, w*w) // the upper triangle of the precision, row-major
	b := make([]float64, w)
	var act []int
	for r := range y {
		act = m.active(vs[r], pos[r], act)
		for _, i := range act {
			b[i] += y[r] - level
			row := a[i*w : (i+1)*w]
			for _, j := range act {
				if j >= i {
					row[j]++
				}
			}
		}
	}
	for i := 1; i < w; i++ {
		a[i*w+i] += pairRidge
	}
	a[0] += 1e-9 // the intercept is free: no setting is the mean's by its columns' default
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(w, a)) {
		return nil
	}
	mean := mat.NewVecDense(w, nil)
	if err := chol.SolveVecTo(mean, mat.NewVecDense(w, b)); err != nil {
		return nil
	}
	f := &pairFit{m: m, mean: mean.RawVector().Data}
	chol.UTo(&f.u)
	ss := 0.0
	for r := range y {
		e := y[r] - level - m.predict(vs[r], pos[r], f.mean)
		ss += e * e
	}
	f.sigma = math.Sqrt(ss/float64(len(y)) + 1e-6)
	return f
}

// draw returns weights drawn from the posterior N(mean, sigma² A⁻¹): with A = UᵀU, U⁻¹z for a
// standard normal z has covariance A⁻¹.
func (f *pairFit) draw(rng *rand.Rand) []float64 {
	w := len(f.mean)
	z := make([]float64, w)
	for i := range z {
		z[i] = rng.NormFloat64() * f.sigma
	}
	x := mat.NewVecDense(w, nil)
	if err := x.SolveVec(&f.u, mat.NewVecDense(w, z)); err != nil {
		return f.mean
	}
	out := x.RawVector().Data
	for i := range out {
		out[i] += f.mean[i]
	}
	return out
}

// fastest returns the index in cs of the candidate the weights w predict fastest, skipping
// the indices in skip; -1 when none is left. pos holds the candidates' positions.
func (f *pairFit) fastest(cs []Candidate, pos [][]uint16, w []float64, skip map[int]bool) int {
	best, bv := -1, math.Inf(1)
	for k, c := range cs {
		if skip[k] {
			continue
		}
		if p := f.m.predict(c.Variant, pos[k], w); p < bv {
			best, bv = k, p
		}
	}
	return best
}

// predict returns what the weights w say of a setting of variant v whose values lie at pos:
// the sum of the weights of its active columns.
func (m *pairLinear) predict(v int, pos []uint16, w []float64) float64 {
	pv := &m.vars[v]
	p := w[0]
	if pv.base >= 0 {
		p += w[pv.base]
	}
	for k, i := range pos {
		if i != noValue {
			if c := pv.main[k][i]; c >= 0 {
				p += w[c]
			}
		}
	}
	for _, pc := range pv.pairs {
		if i, j := pos[pc.a], pos[pc.b]; i != noValue && j != noValue && i > 0 && j > 0 {
			p += w[pc.col[i][j]]
		}
	}
	return p
}
