package transfer

import (
	"math"

	"smart"
	"smart/internal/rankcorr"
)

// Score compares a prediction with the target's measurements of the same settings.
type Score struct {
	N        int     `json:"n"`        // settings measured ok on the target, shots left out
	MAPE     float64 `json:"mape_pct"` // mean |predicted - measured| / measured, in percent
	Spearman float64 `json:"spearman"` // rank correlation of predicted and measured
	// Top1 and Top5 are the share of the target's optimum (its fastest measured time) reached
	// by the predicted fastest setting and by the best of the predicted five (0 where none of
	// them ran).
	Top1 float64 `json:"top1"`
	Top5 float64 `json:"top5"`
	// Coverage is the share of the N measured times inside the predicted interval; nil
	// without an interval.
	Coverage *float64 `json:"coverage,omitempty"`
}

// Compare scores p against measured, the target's rows of the same kernels. Spearman, Top1
// and Top5 are each kernel's, averaged over the kernels.
func Compare(p *Prediction, measured []smart.Measurement) Score {
	got := map[string]float64{}
	opt := map[string]float64{}
	for _, m := range measured {
		if okTime(m) {
			k := Key(m)
			if _, dup := got[k]; !dup {
				got[k] = m.TimeMs
				id := rowID(m)
				if o, ok := opt[id]; !ok || m.TimeMs < o {
					opt[id] = m.TimeMs
				}
			}
		}
	}
	type perKernel struct {
		pred, meas   []float64
		ranked       int
		best1, best5 float64
	}
	ks := map[string]*perKernel{}
	var s Score
	in := 0
	for _, v := range p.Variants {
		if v.Failed {
			continue
		}
		m := smart.Measurement{Kernel: v.Kernel, StencilID: v.StencilID, OC: v.OC, Setting: v.Setting}
		id := rowID(m)
		pk := ks[id]
		if pk == nil {
			pk = &perKernel{best1: math.Inf(1), best5: math.Inf(1)}
			ks[id] = pk
		}
		t, ok := got[Key(m)]
		if pk.ranked < 5 {
			if ok {
				pk.best5 = min(pk.best5, t)
				if pk.ranked == 0 {
					pk.best1 = t
				}
			}
			pk.ranked++
		}
		if !ok || v.Shot {
			continue
		}
		pk.pred, pk.meas = append(pk.pred, v.TimeMs), append(pk.meas, t)
		s.MAPE += math.Abs(v.TimeMs-t) / t
		if t >= v.LoMs && t <= v.HiMs {
			in++
		}
		s.N++
	}
	if s.N == 0 {
		return s
	}
	s.MAPE *= 100 / float64(s.N)
	n := 0
	for id, pk := range ks {
		if len(pk.pred) == 0 {
			continue
		}
		s.Spearman += rankcorr.Spearman(pk.pred, pk.meas)
		s.Top1 += share(opt[id], pk.best1)
		s.Top5 += share(opt[id], pk.best5)
		n++
	}
	s.Spearman, s.Top1, s.Top5 = s.Spearman/float64(n), s.Top1/float64(n), s.Top5/float64(n)
	if p.Interval != nil {
		cov := float64(in) / float64(s.N)
		s.Coverage = &cov
	}
	return s
}

func share(opt, got float64) float64 {
	if math.IsInf(got, 1) {
		return 0
	}
	return opt / got
}
