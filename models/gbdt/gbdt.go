// Package gbdt trains gradient-boosted decision trees in Go and predicts with leaves' numbers
// (package hist's Predictor).
//
// Training is histogram-based and second order, as in XGBoost and LightGBM: features are
// quantile-binned into at most 255 bins; each round computes the gradient and hessian of every
// row (L2 loss on ln time for regression; softmax cross-entropy for classification, one tree per
// class per round) and grows trees leaf-wise (largest gain first, LightGBM's default) or
// depth-wise (XGBoost's default) under max_leaves and max_depth, with minimum child hessian and
// row counts, L2 regularisation, shrinkage, row and feature subsampling per tree and early
// stopping on a validation split. The trained model is written in LightGBM's version-3 text
// format and predicted through github.com/dmitryikh/leaves, so a LightGBM model trained elsewhere
// loads and predicts the same way (FromLightGBM).
package gbdt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"smart/models"
	"smart/models/internal/hist"
)

// Params are the hyper-parameters, named as given to smart train --param.
type Params struct {
	Rounds         int     `json:"rounds"`           // boosting rounds
	LearningRate   float64 `json:"learning_rate"`    // shrinkage of each tree
	MaxLeaves      int     `json:"max_leaves"`       // leaves per tree
	MaxDepth       int     `json:"max_depth"`        // 0: no limit
	Growth         string  `json:"growth"`           // "leafwise" or "depthwise"
	MinChildWeight float64 `json:"min_child_weight"` // least hessian sum in a leaf
	MinDataInLeaf  int     `json:"min_data_in_leaf"` // least rows in a leaf
	Lambda         float64 `json:"lambda"`           // L2 regularisation of leaf values
	MinGain        float64 `json:"min_gain"`         // least gain of a split
	Subsample      float64 `json:"subsample"`        // share of rows drawn for each tree
	ColSample      float64 `json:"colsample"`        // share of features drawn for each tree
	MaxBins        int     `json:"max_bins"`         // histogram bins per feature, at most 256
	EarlyStop      int     `json:"early_stop"`       // stop after this many rounds without validation gain; 0: off
	ValidFraction  float64 `json:"valid_fraction"`   // groups held out for early stopping when no validation set is given
	Seed           uint64  `json:"seed"`
	Threads        int     `json:"threads"` // 0: all CPUs
	// Bags is the number of models trained, each on a share BagFraction of the groups (the
	// stencils) drawn without replacement, and averaged: one model's lowest predictions over
	// a large search are partly its own noise, which the average of models that each missed
	// other stencils smooths.
	Bags        int     `json:"bags"`
	BagFraction float64 `json:"bag_fraction"`
}

// DefaultParams are the defaults of smart train --model gbdt.
func DefaultParams() Params {
	return Params{Rounds: 300, LearningRate: 0.1, MaxLeaves: 31, MaxDepth: 0, Growth: "leafwise",
		MinChildWeight: 1e-3, MinDataInLeaf: 20, Lambda: 1, Subsample: 1, ColSample: 1, MaxBins: 255,
		EarlyStop: 30, ValidFraction: 0.1, Seed: 1, Bags: 1, BagFraction: 0.7}
}

func (p *Params) set(params map[string]string) error {
	return models.ApplyParams(params, map[string]any{
		"rounds": &p.Rounds, "learning_rate": &p.LearningRate, "max_leaves": &p.MaxLeaves,
		"max_depth": &p.MaxDepth, "growth": &p.Growth, "min_child_weight": &p.MinChildWeight,
		"min_data_in_leaf": &p.MinDataInLeaf, "lambda": &p.Lambda, "min_gain": &p.MinGain,
		"subsample": &p.Subsample, "colsample": &p.ColSample, "max_bins": &p.MaxBins,
		"early_stop": &p.EarlyStop, "valid_fraction": &p.ValidFraction, "seed": &p.Seed, "threads": &p.Threads,
		"bags": &p.Bags, "bag_fraction": &p.BagFraction,
	})
}

func (p Params) check() error {
	switch {
	case p.Rounds < 1:
		return fmt.Errorf("rounds is %d; use 1 or more", p.Rounds)
	case p.LearningRate <= 0 || p.LearningRate > 1:
		return fmt.Errorf("learning_rate is %v; use a value in (0, 1]", p.LearningRate)
	case p.Growth != "leafwise" && p.Growth != "depthwise":
		return fmt.Errorf("growth is %q; use leafwise or depthwise", p.Growth)
	case p.Subsample <= 0 || p.Subsample > 1:
		return fmt.Errorf("subsample is %v; use a value in (0, 1]", p.Subsample)
	case p.ColSample <= 0 || p.ColSample > 1:
		return fmt.Errorf("colsample is %v; use a value in (0, 1]", p.ColSample)
	case p.EarlyStop < 0:
		return fmt.Errorf("early_stop is %d; use 0 (off) or more", p.EarlyStop)
	case p.MaxBins < 2 || p.MaxBins > hist.MaxBins:
		return fmt.Errorf("max_bins is %d; use 2 to %d", p.MaxBins, hist.MaxBins)
	case p.Threads < 0:
		return fmt.Errorf("threads is %d; use 0 (all CPUs) or more", p.Threads)
	case p.Bags < 1:
		return fmt.Errorf("bags is %d; use 1 (one model) or more", p.Bags)
	case p.BagFraction <= 0 || p.BagFraction > 1:
		return fmt.Errorf("bag_fraction is %v; use a value in (0, 1]", p.BagFraction)
	}
	return p.treeParams().Check()
}

func (p Params) treeParams() hist.Params {
	return hist.Params{MaxLeaves: p.MaxLeaves, MaxDepth: p.MaxDepth, DepthWise: p.Growth == "depthwise",
		Lambda: p.Lambda, MinChildWeight: p.MinChildWeight, MinDataInLeaf: p.MinDataInLeaf, MinGain: p.MinGain}
}

// Model is a trained (or loaded) ensemble. It implements models.Regressor for regression and
// models.Classifier for classification, and models.Fitted; predictions are leaves' (package hist's
// Predictor), and Eval evaluates the same trees in Go.
type Model struct {
	Params Params
	// Kept is the number of rounds kept: the best validation round under early stopping.
	Kept    int
	History []models.Round

	*hist.Compiled
}

// Train fits a model on train. With early stopping on and valid nil, a share of train's groups
// (ValidFraction) is held out for validation. report, if not nil, is called after every round.
// With Bags above 1 it trains that many models on bags of train's groups (each with its own
// validation split) and saves their mean as one model.
func Train(ctx context.Context, train, valid *models.Data, p Params, report func(models.Round)) (*Model, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("gbdt: %w", models.ParamError{Err: err})
	}
	if err := train.Check(); err != nil {
		return nil, fmt.Errorf("gbdt: training data: %w", err)
	}
	threads := p.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	model := &Model{Params: p}
	var ens *hist.Ensemble
	var err error
	// Each bag draws its own seed from Seed, so that two seeds share no bag.
	seeds := rand.New(rand.NewPCG(p.Seed, 0xba9))
	for b := range p.Bags {
		one, bag := p, train
		one.Bags = 1
		if p.Bags > 1 {
			one.Seed = seeds.Uint64()
			if bag, err = models.SampleGroups(train, p.BagFraction, one.Seed); err != nil {
				return nil, fmt.Errorf("gbdt: bag %d: %w", b+1, err)
			}
		}
		at := func(r models.Round) models.Round {
			r.Round, r.Rounds = b*p.Rounds+r.Round, p.Bags*p.Rounds
			return r
		}
		e, history, err := grow(ctx, bag, valid, one, threads, func(r models.Round) {
			if report != nil {
				report(at(r))
			}
		})
		if err != nil {
			if p.Bags > 1 {
				return nil, fmt.Errorf("gbdt: bag %d: %w", b+1, err)
			}
			return nil, fmt.Errorf("gbdt: %w", err)
		}
		for _, r := range history {
			model.History = append(model.History, at(r))
		}
		if ens == nil {
			ens = e
			ens.Parameters = p.lightGBM(newObjective(train))
		} else {
			ens.Trees = append(ens.Trees, e.Trees...)
		}
	}
	if p.Bags > 1 {
		for _, t := range ens.Trees {
			t.Scale(1 / float64(p.Bags))
		}
		ens.FeatureInfos = featureRanges(train.X).FeatureInfos()
	}
	model.Kept = len(ens.Trees) / ens.NumClass
	if model.Compiled, err = hist.Compile(ens); err != nil {
		return nil, fmt.Errorf("gbdt: %w", err)
	}
	return model, nil
}

// featureRanges holds the smallest and largest value of each column of X, for the
// feature_infos of a model whose bags each binned their own rows.
func featureRanges(X [][]float64) *hist.Binner {
	b := &hist.Binner{Min: slices.Clone(X[0]), Max: slices.Clone(X[0])}
	for _, row := range X[1:] {
		for f, v := range row {
			b.Min[f], b.Max[f] = min(b.Min[f], v), max(b.Max[f], v)
		}
	}
	return b
}

// grow boosts one model on train and returns its trees uncompiled and the loss of every round.
func grow(ctx context.Context, train, valid *models.Data, p Params, threads int, report func(models.Round)) (*hist.Ensemble, []models.Round, error) {
	if p.EarlyStop > 0 && valid == nil {
		var err error
		if train, valid, err = models.SplitGroups(train, p.ValidFraction, p.Seed); err != nil {
			// A group is a stencil (or a foreign kernel's configuration): data of one stencil
			// has nothing to validate on without leaking rows of the training stencil.
			return nil, nil, fmt.Errorf("early stopping: %w; set early_stop=0 to train every round without it", err)
		}
	}
	if valid != nil {
		if err := valid.Check(); err != nil {
			return nil, nil, fmt.Errorf("validation data: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x6bd7))
	binner, err := hist.FitBinner(train.X, p.MaxBins, 200_000, threads, rng)
	if err != nil {
		return nil, nil, err
	}
	m := binner.Transform(train.X, threads)
	grower, err := hist.NewGrower(m, p.treeParams(), threads)
	if err != nil {
		return nil, nil, err
	}
	obj := newObjective(train)
	k, n := obj.classes(), train.Rows()
	base := obj.base(train.Y)
	scores := initScores(n, base)
	var vscores []float64
	if valid != nil {
		vscores = initScores(valid.Rows(), base)
	}
	grad, hess := make([][]float64, k), make([][]float64, k)
	for c := range grad {
		grad[c], hess[c] = make([]float64, n), make([]float64, n)
	}
	ens := &hist.Ensemble{NumClass: k, Objective: obj.lightGBM(), FeatureNames: hist.SafeNames(train.Features),
		FeatureInfos: binner.FeatureInfos()}
	var history []models.Round
	allRows := make([]int32, n)
	for i := range allRows {
		allRows[i] = int32(i)
	}
	inSample := make([]bool, n)
	rows := make([]int32, 0, n)
	best, bestRound := math.Inf(1), 0
	for round := 0; round < p.Rounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		obj.gradients(scores, train.Y, grad, hess)
		rows = sampleRows(rows[:0], allRows, p.Subsample, rng)
		clear(inSample)
		for _, r := range rows {
			inSample[r] = true
		}
		features := sampleFeatures(train.Features, p.ColSample, rng)
		for c := 0; c < k; c++ {
			t, segs, err := grower.Grow(ctx, grad[c], hess[c], rows, features, rng)
			if err != nil {
				return nil, nil, err
			}
			t.Scale(p.LearningRate)
			for _, s := range segs {
				v := t.LeafValue[s.Leaf]
				for _, r := range rows[s.Start:s.End] {
					scores[int(r)*k+c] += v
				}
			}
			if len(rows) < n {
				for r := 0; r < n; r++ {
					if !inSample[r] {
						scores[r*k+c] += t.LeafValue[t.LeafBinned(m, r)]
					}
				}
			}
			if valid != nil {
				for i, x := range valid.X {
					vscores[i*k+c] += t.Predict(x)
				}
			}
			if round == 0 {
				t.AddBias(base[c]) // LightGBM folds the initial score into the first trees
			}
			ens.Trees = append(ens.Trees, t)
		}
		r := models.Round{Round: round + 1, Rounds: p.Rounds, Metric: obj.metric(),
			Train: obj.loss(scores, train.Y), Valid: math.NaN()}
		if valid != nil {
			r.Valid = obj.loss(vscores, valid.Y)
			if r.Valid < best {
				best, bestRound = r.Valid, round+1
			}
		}
		history = append(history, r)
		report(r)
		if valid != nil && p.EarlyStop > 0 && round+1-bestRound >= p.EarlyStop {
			break
		}
	}
	if valid != nil && p.EarlyStop > 0 {
		ens.Trees = ens.Trees[:bestRound*k]
	}
	return ens, history, nil
}

func initScores(n int, base []float64) []float64 {
	k := len(base)
	s := make([]float64, n*k)
	for i := range s {
		s[i] = base[i%k]
	}
	return s
}

// sampleRows draws round(frac*n) rows without replacement, in increasing order for cache
// locality.
func sampleRows(dst, all []int32, frac float64, rng *rand.Rand) []int32 {
	if frac >= 1 {
		return append(dst, all...)
	}
	// Selection sampling (Knuth's algorithm S): exact count, sorted output, one pass.
	need := max(1, int(frac*float64(len(all))+0.5))
	for i, r := range all {
		left := len(all) - i
		if rng.IntN(left) < need {
			dst = append(dst, r)
			need--
		}
	}
	return dst
}

// sampleFeatures draws the features a tree may split on; nil means all.
func sampleFeatures(names []string, frac float64, rng *rand.Rand) []int {
	if frac >= 1 {
		return nil
	}
	k := max(1, int(frac*float64(len(names))+0.5))
	f := rng.Perm(len(names))[:k]
	return f
}

// lightGBM writes the parameters as LightGBM's "parameters:" section does.
func (p Params) lightGBM(obj objective) []string {
	growth := "leaf-wise"
	if p.Growth == "depthwise" {
		growth = "depth-wise (smart)"
	}
	lines := []string{
		"[boosting: gbdt]", "[objective: " + obj.lightGBM() + "]",
		fmt.Sprintf("[num_iterations: %d]", p.Rounds), fmt.Sprintf("[learning_rate: %g]", p.LearningRate),
		fmt.Sprintf("[num_leaves: %d]", p.MaxLeaves), fmt.Sprintf("[max_depth: %d]", p.MaxDepth),
		"[tree_growth: " + growth + "]",
		fmt.Sprintf("[min_data_in_leaf: %d]", p.MinDataInLeaf), fmt.Sprintf("[min_sum_hessian_in_leaf: %g]", p.MinChildWeight),
		fmt.Sprintf("[lambda_l2: %g]", p.Lambda), fmt.Sprintf("[min_gain_to_split: %g]", p.MinGain),
		fmt.Sprintf("[bagging_fraction: %g]", p.Subsample), fmt.Sprintf("[feature_fraction: %g]", p.ColSample),
		fmt.Sprintf("[max_bin: %d]", p.MaxBins), fmt.Sprintf("[early_stopping_round: %d]", p.EarlyStop),
		fmt.Sprintf("[seed: %d]", p.Seed), "[trained_by: smart models/gbdt]",
	}
	if p.Bags > 1 {
		lines = append(lines, fmt.Sprintf("[smart_bags: %d]", p.Bags), fmt.Sprintf("[smart_bag_fraction: %g]", p.BagFraction))
	}
	return lines
}

// FromLightGBM loads a LightGBM text model (v2 or v3, numerical splits, regression or multiclass
// objective), whether written by Train or by LightGBM itself.
func FromLightGBM(text []byte) (*Model, error) {
	c, err := hist.FromText(text)
	if err != nil {
		return nil, err
	}
	return &Model{Compiled: c, Kept: c.NumTrees() / c.NumClass()}, nil
}

// Hyper implements models.Fitted.
func (m *Model) Hyper() any {
	return struct {
		Params
		Kept int `json:"rounds_kept"`
	}{m.Params, m.Kept}
}

// Register adds the gbdt kind to k.
func Register(k models.Kinds) {
	k["gbdt"] = models.Kind{Tasks: []models.Task{models.Select, models.Runtime, models.Local}, Train: trainKind, Decode: Decode}
}

func trainKind(ctx context.Context, train, valid *models.Data, params map[string]string, report func(models.Round)) (models.Fitted, error) {
	p := DefaultParams()
	if err := p.set(params); err != nil {
		return nil, fmt.Errorf("gbdt: %w", err)
	}
	return Train(ctx, train, valid, p, report)
}

// Decode reads a gbdt payload (a LightGBM text model) for the header h.
func Decode(h *models.Header, payload []byte) (any, error) {
	m, err := FromLightGBM(payload)
	if err != nil {
		return nil, err
	}
	if err := m.CheckHeader(h); err != nil {
		return nil, err
	}
	return m, nil
}
