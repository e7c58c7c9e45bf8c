package main

import (
	"math"
	"slices"
	"sort"
	"strconv"

	"smart"
	"smart/transfer"
)

// Floors are the MAPE (%) of the zero-shot prediction after the best correction of a given
// form, each fitted on every setting measured on the target: in-sample, so no correction of
// that form fitted on k shots can do better. Level is one constant factor; Params is a factor
// per value of each parameter (and per OC), fitted by least squares on the log error, then the
// best constant factor on top; Pairs a factor per pair of values of every two parameters.
// Top5Params and Top5Pairs are the share of the target's optimum that the best of the five
// settings fastest after those two corrections reaches: how far re-ranking by a correction of
// that form goes when it knows every time of the target (shots see fewer).
type Floors struct {
	Level      float64 `json:"floor_level_mape_pct"`
	Params     float64 `json:"floor_params_mape_pct"`
	Pairs      float64 `json:"floor_pairs_mape_pct"`
	Top5Params float64 `json:"floor_params_top5"`
	Top5Pairs  float64 `json:"floor_pairs_top5"`
}

// floors computes the Floors of p against the target's measured rows.
func floors(p *transfer.Prediction, measured []smart.Measurement) Floors {
	pred := map[string]transfer.Variant{}
	for _, v := range p.Variants {
		if v.TimeMs > 0 && !v.Failed {
			pred[v.Key()] = v
		}
	}
	var est, truth []float64
	var settings []smart.Setting
	var ocs []smart.Combination
	for _, m := range measured {
		v, ok := pred[transfer.Key(m)]
		if !ok || m.Status != smart.StatusOK || m.TimeMs <= 0 {
			continue
		}
		est, truth = append(est, v.TimeMs), append(truth, m.TimeMs)
		settings, ocs = append(settings, m.Setting), append(ocs, m.OC)
	}
	if len(est) == 0 {
		nan := math.NaN()
		return Floors{Level: nan, Params: nan, Pairs: nan, Top5Params: nan, Top5Pairs: nan}
	}
	logErr := make([]float64, len(est))
	for i := range est {
		logErr[i] = math.Log(truth[i] / est[i])
	}
	corrected := func(groups [][]int) (mape, top5 float64) {
		fit := additiveFit(logErr, groups)
		c := make([]float64, len(est))
		for i := range est {
			c[i] = est[i] * math.Exp(fit[i])
		}
		return bestLevelMAPE(c, truth), top5Share(c, truth)
	}
	single := groupsOf(settings, ocs)
	f := Floors{Level: bestLevelMAPE(est, truth)}
	f.Params, f.Top5Params = corrected(single)
	f.Pairs, f.Top5Pairs = corrected(pairsOf(single))
	return f
}

// top5Share is the least of truth over the five least of est, as a share of the least of truth.
func top5Share(est, truth []float64) float64 {
	idx := make([]int, len(est))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return est[idx[a]] < est[idx[b]] })
	got := math.Inf(1)
	for _, i := range idx[:min(5, len(idx))] {
		got = min(got, truth[i])
	}
	return slices.Min(truth) / got
}

// pairsOf is a group per two of groups, each pair of their values a value of its own.
func pairsOf(groups [][]int) [][]int {
	var out [][]int
	for a := range groups {
		for b := a + 1; b < len(groups); b++ {
			width := slices.Max(groups[b]) + 1
			ids, col := map[int]int{}, make([]int, len(groups[a]))
			for i := range col {
				v := groups[a][i]*width + groups[b][i]
				if _, ok := ids[v]; !ok {
					ids[v] = len(ids)
				}
				col[i] = ids[v]
			}
			out = append(out, col)
		}
	}
	return out
}

// bestLevelMAPE is the MAPE of est times the factor x that minimises it: the sum of
// |x est - t| / t is (est/t) |x - t/est| summed, least at a weighted median of t/est.
func bestLevelMAPE(est, truth []float64) float64 {
	type point struct{ ratio, weight float64 }
	pts := make([]point, len(est))
	total := 0.0
	for i := range est {
		pts[i] = point{truth[i] / est[i], est[i] / truth[i]}
		total += pts[i].weight
	}
	sort.Slice(pts, func(a, b int) bool { return pts[a].ratio < pts[b].ratio })
	x, acc := pts[len(pts)-1].ratio, 0.0
	for _, p := range pts {
		if acc += p.weight; acc >= total/2 {
			x = p.ratio
			break
		}
	}
	sum := 0.0
	for i := range est {
		sum += math.Abs(x*est[i]-truth[i]) / truth[i]
	}
	return 100 * sum / float64(len(est))
}

// groupsOf gives each row, per parameter (and the OC), the index of its value: the columns of
// a one-hot design. A parameter a row lacks is a value of its own.
func groupsOf(settings []smart.Setting, ocs []smart.Combination) [][]int {
	var names []string
	for _, s := range settings {
		for n := range s {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	var groups [][]int
	column := func(value func(i int) string) {
		ids, col := map[string]int{}, make([]int, len(settings))
		for i := range settings {
			v := value(i)
			if _, ok := ids[v]; !ok {
				ids[v] = len(ids)
			}
			col[i] = ids[v]
		}
		if len(ids) > 1 {
			groups = append(groups, col)
		}
	}
	column(func(i int) string { return string(ocs[i]) })
	for _, n := range names {
		column(func(i int) string {
			if v, ok := settings[i][n]; ok {
				return strconv.Itoa(v)
			}
			return "-"
		})
	}
	return groups
}

// additiveFit is the least-squares fit of y by a constant plus one effect per value of each
// group, by backfitting (Gauss-Seidel over the groups), which converges for a one-hot design.
func additiveFit(y []float64, groups [][]int) []float64 {
	n := len(y)
	fit := make([]float64, n)
	effects := make([][]float64, len(groups))
	for g, col := range groups {
		effects[g] = make([]float64, slices.Max(col)+1)
	}
	mean := 0.0
	for _, v := range y {
		mean += v / float64(n)
	}
	for range 50 {
		for g, col := range groups {
			sum := make([]float64, len(effects[g]))
			cnt := make([]float64, len(effects[g]))
			for i := range n {
				partial := fit[i] - effects[g][col[i]] // the fit without this group
				sum[col[i]] += y[i] - mean - partial
				cnt[col[i]]++
			}
			for i := range n {
				fit[i] -= effects[g][col[i]]
			}
			for v := range sum {
				effects[g][v] = sum[v] / cnt[v]
			}
			for i := range n {
				fit[i] += effects[g][col[i]]
			}
		}
	}
	for i := range fit {
		fit[i] += mean
	}
	return fit
}

// addFloors adds f to sum (nil where there are none yet), for a mean over kernels.
func addFloors(sum, f *Floors) *Floors {
	if f == nil {
		return sum
	}
	if sum == nil {
		sum = &Floors{}
	}
	sum.Level += f.Level
	sum.Params += f.Params
	sum.Pairs += f.Pairs
	sum.Top5Params += f.Top5Params
	sum.Top5Pairs += f.Top5Pairs
	return sum
}

// meanFloors divides a sum of n kernels' floors by n.
func meanFloors(sum *Floors, n int) *Floors {
	if sum != nil && n > 0 {
		sum.Level /= float64(n)
		sum.Params /= float64(n)
		sum.Pairs /= float64(n)
		sum.Top5Params /= float64(n)
		sum.Top5Pairs /= float64(n)
	}
	return sum
}
