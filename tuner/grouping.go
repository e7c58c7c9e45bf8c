package tuner

import (
	"math"
	"math/bits"
	"slices"
	"sort"

	"smart"
	"smart/space"
)

// pairCV is the coefficient of variation of VS_ab: the best value of parameter b for each value
// of parameter a, every other parameter fixed at the best setting (csTuner section IV-C).
type pairCV struct {
	a, b string
	cv   float64
}

// timeOf answers the objective of a setting for the grouping: the measured value where the
// data holds it, else a model's prediction; ok is false for an invalid setting. It must not
// keep s, which its caller reuses.
type timeOf func(s smart.Setting) (v float64, ok bool)

// pairCVs computes the CV of every ordered pair of parameters that take more than one value.
// Values enter the CV by position so that it is comparable across parameters: log2(v)+1 for
// powers of two (as csTuner takes log2 of numeric parameters), else v-min+1 (flags and
// enumerations count from 1, as in csTuner Table I).
//
// The setting with a at x and b at y is the one with b at y and a at x: each is asked of t once.
func pairCVs(sp *space.Space, best smart.Setting, t timeOf) []pairCV {
	var params []space.Param
	for _, p := range sp.Params() {
		if len(p.Values) > 1 {
			params = append(params, p)
		}
	}
	// times[i][j][x*len(j's values)+y], i < j: the objective with i at its x-th value and j at
	// its y-th, +Inf where t has none.
	times := make([][][]float64, len(params))
	s := best.Clone() // each question's setting in turn: t keeps none of them
	for i, pa := range params {
		times[i] = make([][]float64, len(params))
		for j := i + 1; j < len(params); j++ {
			pb := params[j]
			ts := make([]float64, 0, len(pa.Values)*len(pb.Values))
			for _, va := range pa.Values {
				for _, vb := range pb.Values {
					s[pa.Name], s[pb.Name] = va, vb
					v, ok := t(s)
					if !ok {
						v = math.Inf(1)
					}
					ts = append(ts, v)
				}
			}
			s[pa.Name], s[pb.Name] = best[pa.Name], best[pb.Name]
			times[i][j] = ts
		}
	}
	var out []pairCV
	for i, pa := range params {
		for j, pb := range params {
			if i == j {
				continue
			}
			var vs []float64
			for x := range pa.Values {
				bestV, bestT := 0, math.Inf(1)
				for y, vb := range pb.Values {
					var v float64
					if i < j {
						v = times[i][j][x*len(pb.Values)+y]
					} else {
						v = times[j][i][y*len(pa.Values)+x]
					}
					if v < bestT {
						bestV, bestT = vb, v
					}
				}
				if !math.IsInf(bestT, 1) {
					vs = append(vs, position(pb.Values, bestV))
				}
			}
			out = append(out, pairCV{a: pa.Name, b: pb.Name, cv: cv(vs)})
		}
	}
	return out
}

// position maps a value to a positive number that keeps its scale: log2(v)+1 when every value is
// a power of two, else v-min+1.
func position(values []int, v int) float64 {
	pow2 := true
	for _, x := range values {
		if x <= 0 || bits.OnesCount(uint(x)) != 1 {
			pow2 = false
		}
	}
	if pow2 {
		return math.Log2(float64(v)) + 1
	}
	return float64(v-slices.Min(values)) + 1
}

// groupParams is csTuner's Algorithm 1: the pairs in ascending order of CV form a double-ended
// queue, popped alternately from the left and the right. A pair popped from the right (high
// CV: the best value of one parameter moves with the other) becomes a group, or joins the
// group that holds one of them; a parameter of a pair popped from the left (low CV: they do
// not interact) that is in no group yet becomes a group of its own. Parameters with a single
// value, which no pair holds, are added as groups of their own at the end.
//
// The paper's text says a higher CV means a lower correlation, but its Algorithm 1 groups the
// pairs of highest CV; this follows the algorithm.
func groupParams(names []string, pairs []pairCV) [][]string {
	dq := slices.Clone(pairs)
	sort.SliceStable(dq, func(i, j int) bool { return dq[i].cv < dq[j].cv })
	var groups [][]string
	in := map[string]int{}
	add := func(g []string) {
		for _, n := range g {
			in[n] = len(groups)
		}
		groups = append(groups, g)
	}
	for i, size := 0, len(dq); i < size; i++ {
		var p pairCV
		if i%2 == 1 {
			p, dq = dq[len(dq)-1], dq[:len(dq)-1]
			ga, okA := in[p.a]
			gb, okB := in[p.b]
			switch {
			case !okA && !okB:
				add([]string{p.a, p.b})
			case okA && okB:
			case okA:
				groups[ga] = append(groups[ga], p.b)
				in[p.b] = ga
			default:
				groups[gb] = append(groups[gb], p.a)
				in[p.a] = gb
			}
			continue
		}
		p, dq = dq[0], dq[1:]
		for _, n := range []string{p.a, p.b} {
			if _, ok := in[n]; !ok {
				add([]string{n})
			}
		}
	}
	for _, n := range names {
		if _, ok := in[n]; !ok {
			add([]string{n})
		}
	}
	// Members in the space's order, so a group reads the same whatever the pop order.
	order := map[string]int{}
	for i, n := range names {
		order[n] = i
	}
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool { return order[g[i]] < order[g[j]] })
	}
	return groups
}
