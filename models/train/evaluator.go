package train

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"smart"
	"smart/catalog"
	"smart/models"
	"smart/models/rows"
)

// Evaluator answers time queries with a trained runtime model: source "predicted", with the
// device field saying which model and data stand behind the number.
type Evaluator struct {
	model *models.Model
	feat  *rows.Featurizer
	cat   *catalog.Catalog
	about string
}

// NewEvaluator wraps a loaded runtime model; cat resolves the GPUs of queries (nil: the
// embedded catalogue).
func NewEvaluator(m *models.Model, cat *catalog.Catalog) (*Evaluator, error) {
	if m.Regressor == nil || m.Header.Task != models.Runtime || m.Header.Inputs == nil {
		return nil, fmt.Errorf("model %s is not a runtime model built from data sets (task %s)", m.Header.Kind, m.Header.Task)
	}
	f, err := rows.New(*m.Header.Inputs)
	if err != nil {
		return nil, err
	}
	if strings.Join(f.Names(), ",") != strings.Join(m.Header.Features, ",") {
		return nil, fmt.Errorf("model's feature schema does not match its inputs; it was written by another version of smart")
	}
	if cat == nil {
		if cat, err = catalog.Default(); err != nil {
			return nil, err
		}
	}
	var gpus []string // each once: a model's data sets are often one GPU's
	for _, d := range m.Header.Data {
		for _, g := range d.GPUs {
			if !slices.Contains(gpus, g) {
				gpus = append(gpus, g)
			}
		}
	}
	about := fmt.Sprintf("model %s trained on %s", m.Header.Kind, strings.Join(gpus, ","))
	return &Evaluator{model: m, feat: f, cat: cat, about: about}, nil
}

// aboutGPU is what the device field says of a time on gpu: the model and its GPUs, and where
// the model learned gpu from simulated rows alone, or never saw it, that too.
func (e *Evaluator) aboutGPU(gpu string) string {
	seen, measured := false, false
	for _, d := range e.model.Header.Data {
		if !slices.Contains(d.GPUs, gpu) {
			continue
		}
		seen = true
		for src, n := range d.Sources {
			measured = measured || n > 0 && src != string(smart.Simulated)
		}
	}
	switch {
	case !seen:
		return e.about + "; no rows of " + gpu
	case !measured:
		return e.about + "; its rows of " + gpu + " are simulated"
	}
	return e.about
}

// Accepts reports whether the model can predict st's variants (nil: a foreign kernel).
func (e *Evaluator) Accepts(st *smart.Stencil) error { return e.feat.Accepts(st) }

// Evaluate predicts the time per step of the queried variant.
func (e *Evaluator) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return smart.Measurement{}, err
	}
	m := smart.Measurement{GPU: q.GPU, OC: q.OC, Setting: q.Setting, Source: smart.Predicted, Device: e.about, Status: smart.StatusOK}
	if q.Stencil != nil {
		m.StencilID = q.Stencil.ID()
	} else {
		m.Kernel = e.feat.Inputs().Kernel
	}
	// A stencil the model cannot read is the caller's mistake, not a variant that fails.
	if err := e.feat.Accepts(q.Stencil); err != nil {
		return smart.Measurement{}, err
	}
	var gpu smart.GPU
	if e.feat.Inputs().GPU {
		var err error
		if gpu, err = e.cat.Lookup(q.GPU); err != nil {
			return smart.Measurement{}, err
		}
		m.GPU = gpu.Name
	}
	if m.GPU != "" {
		m.Device = e.aboutGPU(m.GPU)
	}
	row, err := e.feat.Row(q.Stencil, q.OC, q.Setting, gpu)
	if err != nil {
		m.Status, m.Error = smart.StatusInvalid, err.Error()
		return m, nil
	}
	if m.TimeMs, err = e.model.Regressor.Predict(row); err != nil {
		return smart.Measurement{}, err
	}
	return m, nil
}
