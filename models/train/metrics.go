package train

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"smart"
	"smart/models"
)

// Report scores predictions, over all rows and per GPU.
type Report struct {
	Task     models.Task `json:"task"`
	Kind     string      `json:"kind"`
	Folds    int         `json:"folds"`    // 0: a saved model evaluated on data it may have seen
	Grouping string      `json:"grouping"` // what a fold keeps together
	Holdout  string      `json:"holdout_gpu,omitempty"`
	Rows     int         `json:"rows"`
	// Data says where the rows come from: sources and devices.
	Data    []models.DataRef `json:"data"`
	Overall Scores           `json:"overall"`
	PerGPU  []Scores         `json:"per_gpu"`
	// InSample, where a saved model is scored on data it was trained on (Folds 0, no GPU held
	// out), names that data: the scores are in-sample, not a test.
	InSample string `json:"in_sample,omitempty"`
	// Interval is the 80% interval of ln(measured/predicted) over the rows, each stencil (or
	// configuration) weighing the same (runtime; nil for select): from out-of-fold predictions,
	// the interval a prediction of the model trained on every fold gets.
	Interval *models.Interval `json:"interval,omitempty"`
}

// IntervalLevel is the level of Report.Interval.
const IntervalLevel = 0.8

// Scores are the metrics of one group of rows.
type Scores struct {
	GPU  string `json:"gpu"` // "" for all
	Rows int    `json:"rows"`
	*SelectScores
	*RuntimeScores
}

// SelectScores score OC selection on instances (stencil and GPU).
type SelectScores struct {
	Accuracy float64  `json:"accuracy"` // share of instances whose predicted class is the best one's
	Classes  []string `json:"classes"`
	// Confusion[i][j] counts instances of true class i predicted as class j.
	Confusion [][]int `json:"confusion"`
	// The time of a predicted class is the best time of its OC on the instance (of its fastest
	// member where that OC did not run). Speedups are geometric means over the instances where
	// the predicted OC ran; OracleShare is the mean of best time / time of the predicted OC, 0
	// where it did not run.
	SpeedupOverWorst float64 `json:"speedup_over_worst"`
	SpeedupOverFixed float64 `json:"speedup_over_fixed"`
	FixedOC          string  `json:"fixed_oc"` // the fixed OC of the first fold, for reference
	OracleShare      float64 `json:"oracle_share"`
	FixedShare       float64 `json:"fixed_share"` // the same share for the single best fixed OC
	NotRun           int     `json:"predicted_not_run"`
}

// RuntimeScores score runtime prediction.
type RuntimeScores struct {
	MAPE        float64            `json:"mape"` // percent
	Percentiles map[string]float64 `json:"ape_percentiles"`
	// PickShare is, over problems (a stencil, or the kernel, on a GPU), the mean of the best
	// measured time / the measured time of the variant the model predicts fastest: how close
	// the model's choice comes to the optimum.
	PickShare float64 `json:"pick_share"`
	Problems  int     `json:"problems"`
}

// Score computes the report of predictions p for set.
func Score(set *Set, p *Predictions) Report {
	r := Report{Task: set.Data.Task, Rows: set.Data.Rows(), Data: set.Refs, Grouping: "stencil"}
	if set.Inputs.Kernel != "" {
		r.Grouping = "configuration"
	}
	all := make([]int, set.Data.Rows())
	for i := range all {
		all[i] = i
	}
	r.Overall = score(set, p, "", all)
	if set.Data.Task != models.Select {
		byGroup := map[string][]float64{}
		for i, smp := range set.Samples {
			if (p.Fold == nil || p.Fold[i] >= 0) && smp.TimeMs > 0 {
				byGroup[smp.Group] = append(byGroup[smp.Group], math.Log(smp.TimeMs)-p.LnMs[i])
			}
		}
		groups := make([][]float64, 0, len(byGroup))
		for _, g := range slices.Sorted(maps.Keys(byGroup)) {
			groups = append(groups, byGroup[g])
		}
		if len(groups) > 0 {
			iv := models.NewInterval(groups, IntervalLevel, "")
			r.Interval = &iv
		}
	}
	for _, g := range set.GPUNames() {
		var idx []int
		for i, s := range set.Samples {
			if s.GPU == g {
				idx = append(idx, i)
			}
		}
		r.PerGPU = append(r.PerGPU, score(set, p, g, idx))
	}
	return r
}

func score(set *Set, p *Predictions, gpu string, idx []int) Scores {
	s := Scores{GPU: gpu, Rows: len(idx)}
	if set.Data.Task == models.Select {
		s.SelectScores = selectScores(set, p, idx)
	} else {
		s.RuntimeScores = runtimeScores(set, p, idx)
	}
	return s
}

// classTime is the time of class c on a sample: its OC's best time, else its fastest member's.
func classTime(c models.Class, times map[smart.Combination]float64) (float64, bool) {
	if t, ok := times[c.OC]; ok {
		return t, true
	}
	best, ok := math.Inf(1), false
	for _, m := range c.Members {
		if t, has := times[m]; has && t < best {
			best, ok = t, true
		}
	}
	return best, ok
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

func selectScores(set *Set, p *Predictions, idx []int) *SelectScores {
	k := len(set.Classes)
	sc := &SelectScores{Confusion: make([][]int, k)}
	for c := range sc.Confusion {
		sc.Confusion[c] = make([]int, k)
		sc.Classes = append(sc.Classes, set.Classes[c].OC.String())
	}
	if len(idx) == 0 {
		return sc
	}
	right, scored := 0, 0
	var logWorst, logFixed, share, fixedShare float64
	for _, i := range idx {
		truth, pred := int(set.Data.Y[i]), argmax(p.Proba[i])
		sc.Confusion[truth][pred]++
		if truth == pred {
			right++
		}
		smp := set.Samples[i]
		best, worst := math.Inf(1), 0.0
		for _, t := range smp.Times {
			best, worst = min(best, t), max(worst, t)
		}
		if ft, ok := smp.Times[p.Fixed[i]]; ok {
			fixedShare += best / ft
		}
		t, ok := classTime(set.Classes[pred], smp.Times)
		if !ok {
			sc.NotRun++
			continue
		}
		scored++
		share += best / t
		logWorst += math.Log(worst / t)
		if ft, ok := smp.Times[p.Fixed[i]]; ok {
			logFixed += math.Log(ft / t)
		} else {
			// The fixed OC did not run here: it would have failed, so count it as the worst.
			logFixed += math.Log(worst / t)
		}
	}
	n := float64(len(idx))
	sc.Accuracy = float64(right) / n
	sc.OracleShare, sc.FixedShare = share/n, fixedShare/n
	sc.FixedOC = p.Fixed[idx[0]].String()
	if scored > 0 {
		sc.SpeedupOverWorst = math.Exp(logWorst / float64(scored))
		sc.SpeedupOverFixed = math.Exp(logFixed / float64(scored))
	}
	return sc
}

func runtimeScores(set *Set, p *Predictions, idx []int) *RuntimeScores {
	rs := &RuntimeScores{Percentiles: map[string]float64{}}
	if len(idx) == 0 {
		return rs
	}
	ape := make([]float64, len(idx))
	sum := 0.0
	type pick struct{ predicted, measured, best float64 }
	picks := map[string]*pick{}
	var order []string
	for j, i := range idx {
		smp := set.Samples[i]
		pred := math.Exp(p.LnMs[i])
		ape[j] = 100 * math.Abs(pred-smp.TimeMs) / smp.TimeMs
		sum += ape[j]
		// A problem is a stencil (or the kernel) on one GPU: the overall row must not pick across
		// GPUs, whose times differ by more than the settings do.
		problem := smp.Group
		if set.Inputs.Kernel != "" {
			problem = set.Inputs.Kernel
		}
		problem += "|" + smp.GPU
		pk, ok := picks[problem]
		if !ok {
			pk = &pick{predicted: math.Inf(1), best: math.Inf(1)}
			picks[problem] = pk
			order = append(order, problem)
		}
		pk.best = min(pk.best, smp.TimeMs)
		if pred < pk.predicted {
			pk.predicted, pk.measured = pred, smp.TimeMs
		}
	}
	rs.MAPE = sum / float64(len(ape))
	sort.Float64s(ape)
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p75", 0.75}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}} {
		rs.Percentiles[q.name] = quantile(ape, q.q)
	}
	rs.Percentiles["max"] = ape[len(ape)-1]
	slices.Sort(order)
	for _, problem := range order {
		pk := picks[problem]
		rs.PickShare += pk.best / pk.measured
	}
	rs.Problems = len(order)
	rs.PickShare /= float64(len(order))
	return rs
}

// quantile is the q-quantile of sorted values, interpolating linearly between ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// Summary is the header's record of a report.
func (r Report) Summary() *models.Metrics {
	m := &models.Metrics{Folds: r.Folds, Grouping: r.Grouping, Rows: r.Rows}
	if s := r.Overall.SelectScores; s != nil {
		m.Accuracy, m.OracleShare = s.Accuracy, s.OracleShare
	}
	if s := r.Overall.RuntimeScores; s != nil {
		m.MAPE, m.MdAPE, m.P90APE = s.MAPE, s.Percentiles["p50"], s.Percentiles["p90"]
	}
	if iv := r.Interval; iv != nil && r.Folds > 0 && iv.Check() == nil {
		c := *iv
		c.From = fmt.Sprintf("errors of its %d-fold cross-validation on %d %ss of its data, each predicted by a fold that never saw it", r.Folds, c.Stencils, r.Grouping)
		m.Interval = &c
	}
	return m
}
