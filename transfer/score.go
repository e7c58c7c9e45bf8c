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

// Compare scores p against measured, the target's rows of the kernel.
func Compare(p *Prediction, measured []smart.Measurement) Score {
	got := map[string]float64{}
	opt := math.Inf(1)
	for _, m := range measured {
		if okTime(m) {
			k := variantKey(m)
			if _, dup := got[k]; !dup {
				got[k] = m.TimeMs
				opt = min(opt, m.TimeMs)
			}
		}
	}
	var s Score
	var pred, meas []float64
	in, ranked := 0, 0
	best1, best5 := math.Inf(1), math.Inf(1)
	for _, v := range p.Variants {
		if v.Failed {
			continue
		}
		t, ok := got[variantKey(smart.Measurement{OC: v.OC, Setting: v.Setting})]
		if ranked < 5 {
			if ok {
				best5 = min(best5, t)
				if ranked == 0 {
					best1 = t
				}
			}
			ranked++
		}
		if !ok || v.Shot {
			continue
		}
		pred = append(pred, v.TimeMs)
		meas = append(meas, t)
		s.MAPE += math.Abs(v.TimeMs-t) / t
		if t >= v.LoMs && t <= v.HiMs {
			in++
		}
	}
	s.N = len(pred)
	if s.N == 0 {
		return s
	}
	s.MAPE *= 100 / float64(s.N)
	s.Spearman = rankcorr.Spearman(pred, meas)
	s.Top1, s.Top5 = share(opt, best1), share(opt, best5)
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
