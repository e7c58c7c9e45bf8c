package roofline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/internal/rankcorr"
)

// StencilSample is one measured variant: the stencil, its tuning, the GPU and the median time
// per step.
type StencilSample struct {
	Stencil *smart.Stencil
	Tuning  smart.Tuning
	GPU     smart.GPU
	TimeMs  float64
}

// fitted are the constants FitStencil fits, with the bounds that keep them physical; the
// others (PeakEfficiency, CopyGBs) follow from the data. A stencil's DRAM traffic does not beat
// the device-to-device copy, so copy_efficiency stops at 1 (a looser bound held out worse:
// docs/results/calibration.md). Check accepts up to older (the bound of earlier fits, where it
// differs), so their files still load.
var fitted = []struct {
	name          string // in the calibration file
	field         func(c *Calibration) *float64
	lo, hi, older float64
}{
	{"copy_efficiency", func(c *Calibration) *float64 { return &c.CopyEfficiency }, 0.3, 1, 1.2},
	{"dram_latency_cycles", func(c *Calibration) *float64 { return &c.DRAMLatency }, 200, 4000, 0},
	{"on_chip_latency_cycles", func(c *Calibration) *float64 { return &c.OnChipLatency }, 10, 400, 0},
	{"l1_latency_cycles", func(c *Calibration) *float64 { return &c.L1Latency }, 10, 400, 0},
	{"on_chip_scale", func(c *Calibration) *float64 { return &c.OnChipScale }, 0.25, 8, 0},
	{"l1_scale", func(c *Calibration) *float64 { return &c.L1Scale }, 0.25, 16, 0},
	{"compute_scale", func(c *Calibration) *float64 { return &c.ComputeScale }, 0.25, 8, 0},
	{"barrier_stream_cycles", func(c *Calibration) *float64 { return &c.BarrierStream }, 5, 2000, 0},
	{"barrier_tiled_cycles", func(c *Calibration) *float64 { return &c.BarrierTiled }, 5, 2000, 0},
	{"launch_us", func(c *Calibration) *float64 { return &c.LaunchUs }, 1, 20, 0},
	{"spill_cycles", func(c *Calibration) *float64 { return &c.SpillCycles }, 0.01, 200, 0},
	{"local_cycles", func(c *Calibration) *float64 { return &c.LocalCycles }, 0, 200, 0},
	{"overlap", func(c *Calibration) *float64 { return &c.Overlap }, 1, 32, 0},
	{"narrow", func(c *Calibration) *float64 { return &c.Narrow }, 0, 3, 0},
	{"no_reuse", func(c *Calibration) *float64 { return &c.NoReuse }, 0, 1, 0},
	{"wave_power", func(c *Calibration) *float64 { return &c.WavePower }, 0, 1.5, 0},
	{"reg_scale", func(c *Calibration) *float64 { return &c.RegScale }, 0.25, 2, 0},
	{"stream_reuse", func(c *Calibration) *float64 { return &c.StreamReuse }, 0, 1, 0},
	{"l2_cycles", func(c *Calibration) *float64 { return &c.L2Cycles }, 0, 8, 0},
}

// priorWeight pulls each fitted constant toward its start (fitStart), on the bounded coordinate
// the fit moves it on, so that a constant the measurements leave undetermined stays near the
// literature rather than wandering to a bound between refits. Small beside the data's loss (a
// mean absolute log error of about 0.3), so constants the data determine move freely.
const priorWeight = 1e-4

// fitStart is where FitStencil starts on machine m, and what priorWeight pulls toward: the
// literature's constants, and middling values for the terms the literature has none for.
func fitStart(m machine, copyGBs map[string]float64) Calibration {
	c := literature(m)
	c.CopyGBs = copyGBs
	c.SpillCycles, c.LocalCycles, c.Overlap, c.Narrow, c.WavePower, c.NoReuse = 1, 1, 8, 0.5, 0.8, 0.3
	c.StreamReuse, c.L2Cycles = 0.5, 1.5
	return c
}

// FitStencil fits the stencil model's free constants to measured samples: those that minimise
// the mean absolute error of ln(modelled/measured), each stencil weighing the same whatever its
// number of samples (absolute, not squared: the variants that run far slower than any term
// foresees, spills the estimate misses, would otherwise lift every other variant's time), plus
// a weak pull toward the starting constants (priorWeight). copyGBs gives the measured
// device-to-device copy bandwidth of the GPUs that have one (their DRAM rate is a share of it;
// elsewhere of the catalogue's peak, the same share of peak as the fitted GPUs' copies reach).
// Samples the model rejects are left out. The fit is deterministic (Nelder-Mead from fitStart,
// in log space within bounds).
func FitStencil(ctx context.Context, samples []StencilSample, copyGBs map[string]float64) (*Calibration, error) {
	type point struct {
		tm      terms
		logMeas float64
		weight  float64
		stencil string
	}
	var pts []point
	perStencil := map[string]int{}
	var start *Calibration
	for _, s := range samples {
		if !(s.TimeMs > 0) || math.IsInf(s.TimeMs, 0) {
			continue
		}
		_, tm, err := analyse(s.Stencil, s.Tuning, s.GPU, factsOf(s.Stencil, loadsPerPoint))
		if err != nil {
			continue
		}
		if start == nil {
			c := fitStart(tm.m, copyGBs)
			start = &c
		}
		id := s.Stencil.ID()
		pts = append(pts, point{tm: tm, logMeas: math.Log(s.TimeMs), stencil: id})
		perStencil[id]++
	}
	if len(pts) < 20 {
		return nil, fmt.Errorf("fitting the stencil model: %d usable measurements; need at least 20", len(pts))
	}
	for i := range pts {
		pts[i].weight = 1 / float64(perStencil[pts[i].stencil]) / float64(len(perStencil))
	}
	cal := *start
	cal.PeakEfficiency = peakShare(copyGBs, samples) * cal.CopyEfficiency

	set := func(x []float64) Calibration {
		c := cal
		for k, f := range fitted {
			*f.field(&c) = f.lo + (f.hi-f.lo)/(1+math.Exp(-x[k])) // bounded
		}
		return c
	}
	x0 := make([]float64, len(fitted))
	for k, f := range fitted {
		v := math.Min(math.Max(*f.field(&cal), f.lo*1.001), f.hi*0.999)
		x0[k] = math.Log((v - f.lo) / (f.hi - v))
	}
	loss := func(x []float64) float64 {
		c := set(x)
		sum := 0.0
		var est Estimate
		for _, p := range pts {
			c.apply(&est, p.tm)
			sum += p.weight * math.Abs(math.Log(est.TimeMs)-p.logMeas)
		}
		for k := range x {
			d := x[k] - x0[k]
			sum += priorWeight * d * d
		}
		return sum
	}
	var best []float64
	bestLoss := math.Inf(1)
	x := x0
	// Restarts from the best point found (Nelder-Mead's simplex collapses in valleys), each
	// followed by the OCs' factors: the weighted median log error of each OC's kernels, removed.
	for range 4 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err := optimize.Minimize(optimize.Problem{Func: loss}, x, &optimize.Settings{FuncEvaluations: 4000, Converger: &optimize.FunctionConverge{Absolute: 1e-9, Iterations: 200}}, &optimize.NelderMead{})
		if err != nil && res == nil {
			return nil, fmt.Errorf("fitting the stencil model: %w", err)
		}
		if res.F < bestLoss {
			bestLoss, best = res.F, res.X
		}
		x = best
		c := set(x)
		errs := map[string][]weighted{}
		var est Estimate
		for _, p := range pts {
			c.apply(&est, p.tm)
			oc := p.tm.oc.String()
			errs[oc] = append(errs[oc], weighted{math.Log(est.TimeMs) - p.logMeas, p.weight})
		}
		scale := map[string]float64{}
		for oc, e := range errs {
			scale[oc] = c.OCScale[oc]
			if scale[oc] == 0 {
				scale[oc] = 1
			}
			scale[oc] *= math.Exp(-weightedMedian(e))
		}
		cal.OCScale = scale
		bestLoss = loss(x)
	}
	if best == nil || math.IsNaN(bestLoss) {
		return nil, errors.New("fitting the stencil model: no finite loss")
	}
	c := set(best)
	c.PeakEfficiency = peakShare(copyGBs, samples) * c.CopyEfficiency
	return &c, nil
}

type weighted struct{ v, w float64 }

// weightedMedian is the median of the values of e, each counted by its weight.
func weightedMedian(e []weighted) float64 {
	sort.Slice(e, func(i, j int) bool { return e[i].v < e[j].v })
	vs, ws := make([]float64, len(e)), make([]float64, len(e))
	for i, x := range e {
		vs[i], ws[i] = x.v, x.w
	}
	return stat.Quantile(0.5, stat.Empirical, vs, ws)
}

// peakShare is the share of the catalogue's peak bandwidth that the measured copies of the
// samples' GPUs reach (their mean), or the literature's efficiency where none was measured.
func peakShare(copyGBs map[string]float64, samples []StencilSample) float64 {
	seen := map[string]bool{}
	sum, n := 0.0, 0
	for _, s := range samples {
		if gbs, ok := copyGBs[s.GPU.Name]; ok && !seen[s.GPU.Name] && s.GPU.BandwidthGBs > 0 {
			seen[s.GPU.Name] = true
			sum += gbs / s.GPU.BandwidthGBs
			n++
		}
	}
	if n == 0 {
		return dramEfficiency
	}
	return sum / float64(n)
}

// Accuracy is how a model's times compare with measured ones over a set of variants.
type Accuracy struct {
	N           int     `json:"n"`
	MedianRatio float64 `json:"median_ratio"` // modelled over measured
	MAPE        float64 `json:"mape"`         // mean |modelled/measured - 1|
	// LevelMAPE is the MAPE with the modelled times divided by MedianRatio: what is left where
	// the model has the stencil's level right, the error of its ranking and spread alone.
	LevelMAPE float64 `json:"level_mape"`
	Spearman  float64 `json:"spearman"`
	// BestShare is the best measured time over the measured time of the variant the model ranks
	// fastest: 1 when the model's pick is the best measured.
	BestShare float64 `json:"best_share"`
}

// Score compares modelled with measured times (same order, all positive).
func Score(modelled, measured []float64) Accuracy {
	a := Accuracy{N: len(measured)}
	if a.N == 0 {
		return a
	}
	ratios := make([]float64, a.N)
	pick, best := 0, math.Inf(1)
	for i := range measured {
		ratios[i] = modelled[i] / measured[i]
		a.MAPE += math.Abs(ratios[i] - 1)
		if modelled[i] < modelled[pick] {
			pick = i
		}
		best = math.Min(best, measured[i])
	}
	a.MAPE /= float64(a.N)
	sort.Float64s(ratios)
	a.MedianRatio = ratios[a.N/2]
	if a.N%2 == 0 {
		a.MedianRatio = (ratios[a.N/2-1] + ratios[a.N/2]) / 2
	}
	for _, r := range ratios {
		a.LevelMAPE += math.Abs(r/a.MedianRatio-1) / float64(a.N)
	}
	a.Spearman = rankcorr.Spearman(modelled, measured)
	a.BestShare = best / measured[pick]
	return a
}
