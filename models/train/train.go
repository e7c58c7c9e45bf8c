// Package train turns data sets into model matrices, trains any registered model kind on them,
// cross-validates grouped by stencil and scores the predictions: accuracy, confusion matrix and
// speedups for OC selection; MAPE and its distribution, and the quality of the configuration a
// model would pick, for runtime prediction. It also answers queries with a trained runtime model
// as a smart.Evaluator.
package train

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"smart"
	"smart/models"
)

// Fit trains the kind called name on the whole set and returns the fitted model and the header
// to save it with (without cross-validation metrics).
func Fit(ctx context.Context, kinds models.Kinds, name string, set *Set, params map[string]string, report func(models.Round)) (models.Fitted, *models.Header, error) {
	kind, err := kinds.Lookup(name, set.Data.Task)
	if err != nil {
		return nil, nil, err
	}
	data := set.Data
	var norm *models.Scale
	if kind.Normalize {
		norm = models.FitScale(data.X)
		data = scaled(data, norm)
	}
	f, err := kind.Train(ctx, data, nil, params, report)
	if err != nil {
		return nil, nil, err
	}
	h := &models.Header{Kind: name, Task: data.Task, Target: cmp.Or(set.Target, models.TargetLnMs), Features: data.Features, Params: params,
		Inputs: &set.Inputs, Norm: norm, Data: set.Refs, Created: time.Now().UTC().Truncate(time.Second)}
	if data.Task == models.Select {
		h.Target, h.Classes = models.TargetClass, set.Classes
	}
	if len(set.Stencils) > 0 {
		r := models.RangeOf(slices.Collect(maps.Values(set.Stencils)), slices.Sorted(maps.Keys(set.GPUs)))
		h.Range = &r
	}
	h.Instances = models.NewInstances(set.InstanceKeys())
	return f, h, nil
}

// lnMs turns a prediction of row's target into ln ms.
func (s *Set) lnMs(row []float64, v float64) float64 {
	if s.Target == models.TargetLnOverAnalytic {
		return v + models.AnalyticAnchor(row)
	}
	return v
}

func scaled(d *models.Data, s *models.Scale) *models.Data {
	c := *d
	c.X = s.ApplyAll(d.X)
	return &c
}

// Predictions are out-of-fold predictions, one per row of the set.
type Predictions struct {
	Fold  []int
	LnMs  []float64   // runtime
	Proba [][]float64 // select
	// Fixed is, for each row, the single OC that is best over the training rows of its fold
	// (select): the baseline a model must beat.
	Fixed []smart.Combination
}

// CrossValidate trains the kind on k-1 folds and predicts the k-th, for each of k folds grouped
// by stencil (or, for a foreign kernel, by configuration). progress, if not nil, is called after
// each fold.
func CrossValidate(ctx context.Context, kinds models.Kinds, name string, set *Set, k int, seed uint64, params map[string]string, progress func(done int)) (*Predictions, error) {
	folds, err := models.GroupFolds(set.Data.Groups, set.Data.Rows(), k, seed)
	if err != nil {
		return nil, err
	}
	return CrossValidateFolds(ctx, kinds, name, set, folds, params, progress)
}

// CrossValidateFolds is CrossValidate with the folds given: for each fold, the kind is trained on
// every row not in it and predicts its rows. Folds need not cover the set (one fold per stencil
// of interest, the rest always trained on): a row in no fold has Fold -1 and no prediction.
func CrossValidateFolds(ctx context.Context, kinds models.Kinds, name string, set *Set, folds [][]int, params map[string]string, progress func(done int)) (*Predictions, error) {
	kind, err := kinds.Lookup(name, set.Data.Task)
	if err != nil {
		return nil, err
	}
	n := set.Data.Rows()
	p := &Predictions{Fold: make([]int, n)}
	for i := range p.Fold {
		p.Fold[i] = -1
	}
	for f, test := range folds {
		for _, r := range test {
			if r < 0 || r >= n || p.Fold[r] >= 0 {
				return nil, fmt.Errorf("fold %d of %d: row %d is outside the %d rows or in an earlier fold", f+1, len(folds), r, n)
			}
			p.Fold[r] = f
		}
	}
	if set.Data.Task == models.Select {
		p.Proba, p.Fixed = make([][]float64, n), make([]smart.Combination, n)
	} else {
		p.LnMs = make([]float64, n)
	}
	k := len(folds)
	for f, test := range folds {
		var trainIdx []int
		for r, g := range p.Fold {
			if g != f {
				trainIdx = append(trainIdx, r)
			}
		}
		tr, te := set.Data.Subset(trainIdx), set.Data.Subset(test)
		if kind.Normalize {
			s := models.FitScale(tr.X)
			tr, te = scaled(tr, s), scaled(te, s)
		}
		fitted, err := kind.Train(ctx, tr, nil, params, nil)
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		if set.Data.Task == models.Select {
			c, ok := fitted.(models.Classifier)
			if !ok {
				return nil, fmt.Errorf("kind %s trained a %T, not a Classifier", name, fitted)
			}
			proba, err := inChunks(ctx, te.X, c.PredictProbaBatch)
			if err != nil {
				return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
			}
			fixed := BestFixed(set.Subset(trainIdx).Samples)
			for i, r := range test {
				p.Proba[r], p.Fixed[r] = proba[i], fixed
			}
		} else {
			reg, ok := fitted.(models.Regressor)
			if !ok {
				return nil, fmt.Errorf("kind %s trained a %T, not a Regressor", name, fitted)
			}
			pred, err := inChunks(ctx, te.X, reg.PredictBatch)
			if err != nil {
				return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
			}
			for i, r := range test {
				p.LnMs[r] = set.lnMs(set.Data.X[r], pred[i])
			}
		}
		if progress != nil {
			progress(f + 1)
		}
	}
	return p, nil
}

// chunk is the rows one prediction call of CrossValidate and Holdout gets: a model slow per row
// (knn scans every training row) then heeds ctx within seconds, and a parallel one still has
// rows to share out.
const chunk = 256

// inChunks predicts rows chunk by chunk, checking ctx between chunks.
func inChunks[T any](ctx context.Context, rows [][]float64, predict func([][]float64) ([]T, error)) ([]T, error) {
	out := make([]T, 0, len(rows))
	for i := 0; i < len(rows); i += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := predict(rows[i:min(i+chunk, len(rows))])
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}

// BestFixed returns the OC that, used for every instance, reaches the largest mean share of the
// best time (best / its time; 0 where it did not run).
func BestFixed(samples []Sample) smart.Combination {
	share := map[smart.Combination]float64{}
	for _, s := range samples {
		best := math.Inf(1)
		for _, t := range s.Times {
			best = min(best, t)
		}
		for oc, t := range s.Times {
			share[oc] += best / t
		}
	}
	var fixed smart.Combination
	top := -1.0
	for _, oc := range smart.Combinations() {
		if v, ok := share[oc]; ok && v > top {
			fixed, top = oc, v
		}
	}
	return fixed
}

// Predict predicts every row of set with a loaded model, as if it were one fold: the
// predictions Score reads. Fixed OCs are chosen on the set itself (an optimistic baseline).
func Predict(m *models.Model, set *Set) (*Predictions, error) {
	if m.Header.Task != set.Data.Task {
		return nil, fmt.Errorf("model predicts %s; the data was loaded for %s", m.Header.Task, set.Data.Task)
	}
	if !slices.Equal(m.Header.Features, set.Data.Features) {
		return nil, fmt.Errorf("the data's columns differ from the model's schema (%d vs %d columns); load the data with the model's inputs", len(set.Data.Features), len(m.Header.Features))
	}
	n := set.Data.Rows()
	p := &Predictions{Fold: make([]int, n)}
	var err error
	if set.Data.Task == models.Select {
		if p.Proba, err = m.Classifier.PredictProbaBatch(set.Data.X); err != nil {
			return nil, err
		}
		fixed := BestFixed(set.Samples)
		p.Fixed = make([]smart.Combination, n)
		for i := range p.Fixed {
			p.Fixed[i] = fixed
		}
		return p, nil
	}
	ms, err := m.Regressor.PredictBatch(set.Data.X)
	if err != nil {
		return nil, err
	}
	p.LnMs = make([]float64, n)
	for i, v := range ms {
		p.LnMs[i] = math.Log(v)
	}
	return p, nil
}

// Holdout trains the kind on the rows of every GPU but gpu and predicts the rows of gpu from its
// catalogue features (leave-one-GPU-out). It returns the held-out rows and their predictions.
func Holdout(ctx context.Context, kinds models.Kinds, name string, set *Set, gpu string, params map[string]string, report func(models.Round)) (*Set, *Predictions, error) {
	if set.Data.Task != models.Runtime {
		return nil, nil, fmt.Errorf("leave-one-GPU-out predicts times; it needs the runtime task")
	}
	var trainIdx, testIdx []int
	for i, s := range set.Samples {
		if s.GPU == gpu {
			testIdx = append(testIdx, i)
		} else {
			trainIdx = append(trainIdx, i)
		}
	}
	switch {
	case len(testIdx) == 0:
		return nil, nil, fmt.Errorf("GPU %q has no rows; the data holds %v", gpu, set.GPUNames())
	case len(trainIdx) == 0:
		return nil, nil, fmt.Errorf("GPU %s is the only GPU of the data; leave-one-GPU-out needs others to train on", gpu)
	}
	train, test := set.Subset(trainIdx), set.Subset(testIdx)
	f, _, err := Fit(ctx, kinds, name, train, params, report)
	if err != nil {
		return nil, nil, err
	}
	kind := kinds[name]
	x := test.Data.X
	if kind.Normalize {
		x = models.FitScale(train.Data.X).ApplyAll(x)
	}
	reg, ok := f.(models.Regressor)
	if !ok {
		return nil, nil, fmt.Errorf("kind %s trained a %T, not a Regressor", name, f)
	}
	pred, err := inChunks(ctx, x, reg.PredictBatch)
	if err != nil {
		return nil, nil, err
	}
	for i := range pred {
		pred[i] = set.lnMs(test.Data.X[i], pred[i])
	}
	return test, &Predictions{Fold: make([]int, len(pred)), LnMs: pred}, nil
}
