package roofline

import (
	"context"
	"errors"
	"fmt"

	"smart"
	"smart/catalog"
)

// Evaluator answers queries with the analytic model: measurements whose Source is
// smart.Simulated. A variant that cannot run (a setting the combination does not take, a block
// the GPU cannot hold, an AMD GPU) is a measurement with Status invalid and the reason in Error.
type Evaluator struct {
	Catalog *catalog.Catalog
	// Calibration gives the model's constants (nil: the literature's, as Model).
	Calibration *Calibration
}

// Evaluate models one variant. Errors are for queries the model cannot answer at all: a
// cancelled context, no stencil (foreign kernels have no stencil model), an unknown GPU.
func (e Evaluator) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return smart.Measurement{}, err
	}
	if q.Stencil == nil {
		return smart.Measurement{}, errors.New("the roofline evaluator models smart's stencils; a query without a stencil (a foreign kernel) has no model")
	}
	if e.Catalog == nil {
		return smart.Measurement{}, errors.New("the roofline evaluator has no GPU catalogue")
	}
	g, err := e.Catalog.Lookup(q.GPU)
	if err != nil {
		return smart.Measurement{}, err
	}
	m := smart.Measurement{StencilID: q.Stencil.ID(), GPU: g.Name, OC: q.OC, Setting: q.Setting.Clone(), Source: smart.Simulated}
	t, err := smart.DecodeTuning(q.Stencil.Dims, q.OC, q.Setting)
	if err == nil {
		var est Estimate
		if est, err = ModelWith(q.Stencil, t, g, e.Calibration); err == nil {
			m.Status, m.TimeMs = smart.StatusOK, est.TimeMs
			return m, nil
		}
	}
	m.Status, m.Error = smart.StatusInvalid, fmt.Sprintf("%v", err)
	return m, nil
}
