package models

import (
	"fmt"
	"math"
	"sort"

	"smart"
)

// Interval turns a modelled time into a range that holds the measured time with probability
// Level: split conformal, its bounds the quantiles of ln(measured/modelled) over held-out rows,
// each held-out stencil weighing the same.
type Interval struct {
	Level    float64 `json:"level"`
	LogLo    float64 `json:"log_lo"`
	LogHi    float64 `json:"log_hi"`
	Stencils int     `json:"stencils"` // held out, whose residuals the bounds rest on
	Rows     int     `json:"rows"`
	From     string  `json:"from"` // whose errors, on what
}

// Check reports why iv is no interval a fit gives: a level outside (0, 1), bounds out of order or
// beyond ±10 (a factor of 22,000).
func (iv Interval) Check() error {
	if !(iv.Level > 0 && iv.Level < 1) || !(iv.LogLo <= iv.LogHi) || math.Abs(iv.LogLo) > 10 || math.Abs(iv.LogHi) > 10 {
		return fmt.Errorf("interval level %g from %g to %g (log of measured/modelled); want a level in (0, 1) and bounds lo <= hi within ±10", iv.Level, iv.LogLo, iv.LogHi)
	}
	return nil
}

// Around returns the interval around a modelled time.
func (iv Interval) Around(ms float64) smart.Interval {
	return smart.Interval{Level: iv.Level, LoMs: ms * math.Exp(iv.LogLo), HiMs: ms * math.Exp(iv.LogHi), From: iv.From}
}

// NewInterval returns the level's interval of ln(measured/predicted) over the held-out rows of
// several stencils (one slice each), each stencil weighing the same whatever its rows.
func NewInterval(groups [][]float64, level float64, from string) Interval {
	type wr struct{ r, w float64 }
	var all []wr
	iv := Interval{Level: level, From: from}
	for _, rs := range groups {
		if len(rs) == 0 {
			continue
		}
		iv.Stencils++
		iv.Rows += len(rs)
		for _, r := range rs {
			all = append(all, wr{r, 1 / float64(len(rs))})
		}
	}
	if len(all) == 0 {
		return iv
	}
	sort.Slice(all, func(i, j int) bool { return all[i].r < all[j].r })
	total := float64(iv.Stencils)
	quantile := func(q float64) float64 {
		cum := 0.0
		for _, x := range all {
			if cum += x.w; cum >= q*total {
				return x.r
			}
		}
		return all[len(all)-1].r
	}
	iv.LogLo, iv.LogHi = quantile((1-level)/2), quantile((1+level)/2)
	return iv
}

// Coverage is the share of residuals ln(measured/predicted) inside iv.
func Coverage(iv Interval, rs []float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	in := 0
	for _, r := range rs {
		if r >= iv.LogLo && r <= iv.LogHi {
			in++
		}
	}
	return float64(in) / float64(len(rs))
}
