package transfer

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/internal/stats"
)

// MinShotsForParams is the number of shots from which a correction beyond the level is tried:
// fewer cannot tell a parameter's effect from noise.
const MinShotsForParams = 8

// ridge is the penalty on the parameters' effects (in ln time, per one-hot column): an effect
// seen in one shot is halved.
const ridge = 1.0

// correction is what the shots teach: an amount added to each setting's ln prediction.
type correction struct {
	kind string
	n    int
	fit  func(v *variant) float64
	loo  []float64 // ln(shot/prediction) of each shot predicted without it
}

func (c correction) at(v *variant) float64 {
	if c.fit == nil {
		return 0
	}
	return c.fit(v)
}

// fitter fits a correction to shots and their residuals ln(shot) - pred.
type fitter func(shots []*variant, r []float64) func(*variant) float64

// correct fits the corrections the shots allow and keeps the one whose left-out predictions
// err least (the simpler on a tie).
func (st *state) correct() correction {
	var shots []*variant
	var r []float64
	for _, k := range st.keys {
		if v := st.vars[k]; v.shotOK && v.n > 0 {
			shots = append(shots, v)
			r = append(r, v.shot-v.pred)
		}
	}
	if len(shots) == 0 {
		return correction{kind: CorrectNone}
	}
	type candidate struct {
		kind string
		f    fitter
	}
	cands := []candidate{{CorrectLevel, fitLevel}}
	if len(shots) >= MinShotsForParams {
		cands = append(cands, candidate{CorrectSpread, fitSpread}, candidate{CorrectParams, newEncoder(st).fitRidge})
	}
	best := correction{}
	bestErr := math.Inf(1)
	for _, c := range cands {
		loo := leaveOneOut(c.f, shots, r)
		e := 0.0
		for _, x := range loo {
			e += x * x
		}
		if e < bestErr*(1-1e-9) {
			best = correction{kind: c.kind, n: len(shots), fit: c.f(shots, r), loo: loo}
			bestErr = e
		}
	}
	return best
}

func leaveOneOut(f fitter, shots []*variant, r []float64) []float64 {
	if len(shots) < 2 {
		return nil
	}
	out := make([]float64, len(shots))
	for i := range shots {
		s := slices.Delete(slices.Clone(shots), i, i+1)
		rr := slices.Delete(slices.Clone(r), i, i+1)
		out[i] = r[i] - f(s, rr)(shots[i])
	}
	return out
}

// fitLevel moves every setting by the median residual: the target's level.
func fitLevel(_ []*variant, r []float64) func(*variant) float64 {
	med := stats.Median(r)
	return func(*variant) float64 { return med }
}

// fitSpread adds to the level a slope on the sources' shape: the target stretches or shrinks
// the differences between settings.
func fitSpread(shots []*variant, r []float64) func(*variant) float64 {
	x := make([]float64, len(shots))
	for i, v := range shots {
		x[i] = v.shape
	}
	a, b := stat.LinearRegression(x, r, nil, false)
	if math.IsNaN(a) || math.IsNaN(b) {
		return fitLevel(shots, r)
	}
	return func(v *variant) float64 { return a + b*v.shape }
}

// maxLevels is the most values a parameter is one-hot encoded with; one with more (a block
// size swept over a range) is one column, its logarithm, so the ridge stays small.
const maxLevels = 8

// encoder turns a setting into columns: one-hot, one per value of each parameter (the OC
// counting as one) but its first; or, for a parameter of many values, the value's logarithm
// about its mean.
type encoder struct {
	cols    map[string]int // "param=value" -> column, from 1 (0 is the intercept)
	numeric map[string]numericCol
	width   int
}

type numericCol struct {
	col         int
	mean, sd    float64
	logarithmic bool
}

func newEncoder(st *state) encoder {
	values := map[string]map[string]bool{}
	for _, k := range st.keys {
		for name, val := range params(st.vars[k]) {
			if values[name] == nil {
				values[name] = map[string]bool{}
			}
			values[name][val] = true
		}
	}
	e := encoder{cols: map[string]int{}, numeric: map[string]numericCol{}, width: 1}
	for _, n := range slices.Sorted(maps.Keys(values)) {
		vals := slices.Sorted(maps.Keys(values[n]))
		if len(vals) > maxLevels {
			if c, ok := numericColumn(vals); ok {
				c.col = e.width
				e.numeric[n] = c
				e.width++
				continue
			}
		}
		for _, v := range vals[1:] {
			e.cols[n+"="+v] = e.width
			e.width++
		}
	}
	return e
}

// numericColumn scales a parameter's values (as text) to mean 0 and deviation 1, on a log
// scale where all are positive; false where one is not a number.
func numericColumn(vals []string) (numericCol, bool) {
	c := numericCol{logarithmic: true}
	xs := make([]float64, len(vals))
	for i, v := range vals {
		x, err := strconv.Atoi(v)
		if err != nil {
			return c, false
		}
		xs[i] = float64(x)
		c.logarithmic = c.logarithmic && x > 0
	}
	if c.logarithmic {
		for i := range xs {
			xs[i] = math.Log(xs[i])
		}
	}
	c.mean, c.sd = stat.MeanStdDev(xs, nil)
	return c, c.sd > 0
}

func (c numericCol) value(v string) float64 {
	x, _ := strconv.Atoi(v)
	f := float64(x)
	if c.logarithmic {
		f = math.Log(f)
	}
	return (f - c.mean) / c.sd
}

// row writes v's columns into dst.
func (e encoder) row(v *variant, dst []float64) {
	clear(dst)
	dst[0] = 1
	for name, val := range params(v) {
		if c, ok := e.cols[name+"="+val]; ok {
			dst[c] = 1
		} else if n, ok := e.numeric[name]; ok {
			dst[n.col] = n.value(val)
		}
	}
}

// fitRidge adds to the level each parameter value's effect, shrunk towards none.
func (e encoder) fitRidge(shots []*variant, r []float64) func(*variant) float64 {
	n, p := len(shots), e.width
	x := mat.NewDense(n, p, nil)
	row := make([]float64, p)
	for i, v := range shots {
		e.row(v, row)
		x.SetRow(i, row)
	}
	var a mat.SymDense
	a.SymOuterK(1, x.T())
	for j := 1; j < p; j++ {
		a.SetSym(j, j, a.At(j, j)+ridge)
	}
	var xr mat.VecDense
	xr.MulVec(x.T(), mat.NewVecDense(n, slices.Clone(r)))
	var chol mat.Cholesky
	if !chol.Factorize(&a) {
		return fitLevel(shots, r)
	}
	var beta mat.VecDense
	if err := chol.SolveVecTo(&beta, &xr); err != nil {
		return fitLevel(shots, r)
	}
	b := beta.RawVector().Data
	return func(v *variant) float64 {
		x := make([]float64, p)
		e.row(v, x)
		return floats.Dot(b, x)
	}
}

// optimizations are the OC's parts, each a parameter on or off: what one optimization does on
// the target is learnt from every OC that has it.
var optimizations = []smart.Optimization{smart.ST, smart.BM, smart.CM, smart.RT, smart.PR, smart.TB}

// params are a setting's parameters as text, each optimization of its OC among them.
func params(v *variant) map[string]string {
	out := map[string]string{}
	for _, o := range optimizations {
		out["oc."+o.String()] = strconv.FormatBool(v.row.OC.Has(o))
	}
	for name, val := range v.row.Setting {
		out[name] = strconv.Itoa(val)
	}
	return out
}
