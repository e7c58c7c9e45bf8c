package train

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"smart/models"
)

// AssessOptions say how Assess scores a model: by cross-validating its kind (Folds > 0), by
// holding GPUs out (Holdout: a GPU of the data, or "all" for each in turn), or else by the
// saved model's own predictions.
type AssessOptions struct {
	Folds   int
	Seed    uint64 // of the folds
	Holdout string
	// Progress, when set, is called with the folds or held-out GPUs done and their total,
	// first with none done.
	Progress func(done, total int)
}

// GPUNotInDataError is a held-out GPU the data has no rows of.
type GPUNotInDataError struct {
	GPU  string
	Have []string // the GPUs of the data
}

func (e *GPUNotInDataError) Error() string {
	return fmt.Sprintf("GPU %s: the data holds %s; name one of them or all", e.GPU, strings.Join(e.Have, ", "))
}

// Assess scores model m on set: the out-of-fold predictions of its kind trained again with
// its hyper-parameters, each held-out GPU predicted by the kind trained on the others, or m's
// own predictions (in-sample where set is what m was trained on: see Header.TrainedOn).
func Assess(ctx context.Context, kinds models.Kinds, m *models.Model, set *Set, opt AssessOptions) ([]Report, error) {
	progress := opt.Progress
	if progress == nil {
		progress = func(int, int) {}
	}
	h := m.Header
	var reports []Report
	switch {
	case opt.Folds > 0:
		progress(0, opt.Folds)
		p, err := CrossValidate(ctx, kinds, h.Kind, set, opt.Folds, opt.Seed, h.Params, func(done int) { progress(done, opt.Folds) })
		if err != nil {
			return nil, fmt.Errorf("cross-validation: %w", err)
		}
		r := Score(set, p)
		r.Folds = opt.Folds
		reports = append(reports, r)
	case opt.Holdout != "":
		gpus := []string{opt.Holdout}
		if opt.Holdout == "all" {
			gpus = set.GPUNames()
		} else if !slices.Contains(set.GPUNames(), opt.Holdout) {
			return nil, &GPUNotInDataError{GPU: opt.Holdout, Have: set.GPUNames()}
		}
		progress(0, len(gpus))
		for i, g := range gpus {
			test, p, err := Holdout(ctx, kinds, h.Kind, set, g, h.Params, nil)
			if err != nil {
				return nil, fmt.Errorf("holding out %s: %w", g, err)
			}
			r := Score(test, p)
			r.Holdout = g
			reports = append(reports, r)
			progress(i+1, len(gpus))
		}
	default:
		p, err := Predict(m, set)
		if err != nil {
			return nil, err
		}
		reports = append(reports, Score(set, p))
	}
	for i := range reports {
		reports[i].Kind = h.Kind
	}
	return reports, nil
}
