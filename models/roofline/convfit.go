package roofline

import (
	"errors"
	"fmt"
	"math"

	"smart"
)

// ConvSample is one measured configuration of the convolution on one GPU.
type ConvSample struct {
	Setting ConvSetting
	TimeMs  float64
}

// FitConv fits a ConvCalibration to the measurements of one GPU: the four constants that
// minimise the mean of |measured/modelled - 1|. That loss is the relative error a time scaled
// from this GPU inherits (ScaleConv multiplies it by the model's ratio), so the fit keeps
// scaled times from overshooting. machine, when not nil, is a stencil calibration whose machine
// terms the model reads (ConvCalibration.Machine); the constants are fitted on top of it.
// Measurements the model rejects (it thinks they cannot run)
// are left out. The fit is deterministic: coordinate descent over fixed grids.
func FitConv(p ConvProblem, g smart.GPU, samples []ConvSample, machine *Calibration) (*ConvCalibration, error) {
	type point struct {
		s    ConvSetting
		t, m float64
	}
	var pts []point
	for _, smp := range samples {
		if !(smp.TimeMs > 0) || math.IsInf(smp.TimeMs, 0) {
			continue
		}
		e, err := p.Estimate(smp.Setting, g, &ConvCalibration{Machine: machine})
		if err != nil {
			continue
		}
		pts = append(pts, point{smp.Setting, smp.TimeMs, e.TimeMs})
	}
	if len(pts) < 10 {
		return nil, fmt.Errorf("fitting the convolution model on %s: %d usable measurements; need at least 10", g.Name, len(pts))
	}
	cal := &ConvCalibration{Toolchain: g.Vendor, FittedOn: fmt.Sprintf("%s (%d configurations)", g.Name, len(pts)), Shared: 1, GuardShared: 1, GuardGlobal: 1,
		Machine: machine}
	loss := func(c *ConvCalibration) float64 {
		sum := 0.0
		for _, q := range pts {
			sum += math.Abs(q.t/(q.m*c.factor(p, q.s)) - 1)
		}
		return sum / float64(len(pts))
	}
	grids := []struct {
		field *float64
		grid  []float64
	}{
		{&cal.Shared, geometric(1.0/16, 32, 61)},
		{&cal.GuardShared, geometric(1, 256, 65)},
		{&cal.GuardGlobal, geometric(1, 256, 65)},
		{&cal.GuardTile, append([]float64{0}, geometric(1.0/64, 64, 49)...)},
	}
	best := loss(cal)
	for range 30 {
		improved := false
		for _, g := range grids {
			keep := *g.field
			for _, v := range g.grid {
				*g.field = v
				if l := loss(cal); l < best-1e-12 {
					best, keep, improved = l, v, true
				}
			}
			*g.field = keep
		}
		if !improved {
			break
		}
	}
	return cal, nil
}

// geometric returns n values from lo to hi, equally spaced on a log scale.
func geometric(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

// ErrNotModelled is returned by ScaleConv when the model thinks the configuration cannot run
// on one of the two GPUs.
var ErrNotModelled = errors.New("the model rejects the configuration")

// ScaleConv scales a time measured (or predicted) on GPU from to GPU to by the model's ratio:
// ms x model(to) / model(from). cal, when not nil, was fitted on from's measurements. All of it
// applies to from: it divides out how from treats the kernel's code paths. Of it only the cost of
// the shared-memory path carries over to to, and only when both GPUs are of the vendor whose
// compiler it was fitted under (cal.Toolchain); the slowdowns of the bounds-checked path stay
// with from, and to is otherwise modelled from first principles and its catalogue entry.
func ScaleConv(p ConvProblem, s ConvSetting, ms float64, from, to smart.GPU, cal *ConvCalibration) (float64, error) {
	a, err := p.Estimate(s, from, cal)
	if err != nil {
		return 0, fmt.Errorf("%w on %s: %v", ErrNotModelled, from.Name, err)
	}
	var toCal *ConvCalibration
	switch {
	case cal != nil && cal.Toolchain == to.Vendor:
		toCal = &ConvCalibration{Toolchain: cal.Toolchain, FittedOn: cal.FittedOn, Shared: cal.Shared, Machine: cal.Machine}
	case cal != nil:
		toCal = &ConvCalibration{Machine: cal.Machine}
	}
	b, err := p.Estimate(s, to, toCal)
	if err != nil {
		return 0, fmt.Errorf("%w on %s: %v", ErrNotModelled, to.Name, err)
	}
	return ms * b.TimeMs / a.TimeMs, nil
}
