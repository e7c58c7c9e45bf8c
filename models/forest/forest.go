// Package forest trains random-forest regressors (IterML section 3.3): bagging over the same
// histogram trees as models/gbdt, each grown deep on a bootstrap sample of the rows with a random
// share of the features tried at every split, their outputs averaged. Rows a tree did not see
// (out of bag) give an unbiased error estimate without a validation split.
//
// A forest is saved as a LightGBM version-3 text model with average_output (LightGBM's own
// random-forest mode) and predicted through leaves, like gbdt.
package forest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"smart/models"
	"smart/models/internal/hist"
)

// Params are the hyper-parameters, named as given to smart train --param.
type Params struct {
	Trees         int     `json:"trees"`
	MaxLeaves     int     `json:"max_leaves"`       // per tree
	MaxDepth      int     `json:"max_depth"`        // 0: no limit
	MinDataInLeaf int     `json:"min_data_in_leaf"` // least rows in a leaf
	FeatureFrac   float64 `json:"feature_fraction"` // share of features tried at each split
	SampleFrac    float64 `json:"sample_fraction"`  // bootstrap sample size as a share of the rows
	MaxBins       int     `json:"max_bins"`
	Seed          uint64  `json:"seed"`
	Threads       int     `json:"threads"` // trees grown at once; 0: all CPUs
}

// DefaultParams are the defaults of smart train --model forest: 100 deep trees, a third of the
// features per split (the classic choice for regression), full-size bootstrap samples.
func DefaultParams() Params {
	return Params{Trees: 100, MaxLeaves: 4096, MinDataInLeaf: 3, FeatureFrac: 1.0 / 3, SampleFrac: 1, MaxBins: 255, Seed: 1}
}

func (p *Params) set(params map[string]string) error {
	return models.ApplyParams(params, map[string]any{
		"trees": &p.Trees, "max_leaves": &p.MaxLeaves, "max_depth": &p.MaxDepth,
		"min_data_in_leaf": &p.MinDataInLeaf, "feature_fraction": &p.FeatureFrac,
		"sample_fraction": &p.SampleFrac, "max_bins": &p.MaxBins, "seed": &p.Seed, "threads": &p.Threads,
	})
}

func (p Params) treeParams() hist.Params {
	return hist.Params{MaxLeaves: p.MaxLeaves, MaxDepth: p.MaxDepth, MinDataInLeaf: p.MinDataInLeaf,
		FeatureFractionByNode: p.FeatureFrac}
}

func (p Params) check() error {
	switch {
	case p.Trees < 1:
		return fmt.Errorf("trees is %d; use 1 or more", p.Trees)
	case p.SampleFrac <= 0 || p.SampleFrac > 1:
		return fmt.Errorf("sample_fraction is %v; use a value in (0, 1]", p.SampleFrac)
	case p.FeatureFrac <= 0 || p.FeatureFrac > 1:
		return fmt.Errorf("feature_fraction is %v; use a value in (0, 1]", p.FeatureFrac)
	case p.MaxBins < 2 || p.MaxBins > hist.MaxBins:
		return fmt.Errorf("max_bins is %d; use 2 to %d", p.MaxBins, hist.MaxBins)
	case p.Threads < 0:
		return fmt.Errorf("threads is %d; use 0 (all CPUs) or more", p.Threads)
	}
	return p.treeParams().Check()
}

// Model is a trained (or loaded) forest; it implements models.Regressor and models.Fitted.
type Model struct {
	Params Params
	// OOB is the out-of-bag mean squared error of the target (ln ms) over the rows that at least
	// one tree left out; NaN for a loaded model.
	OOB     float64
	History []models.Round
	*hist.Compiled
}

// Train grows a forest on d, a regression. report, if not nil, is called after each tree with
// the out-of-bag error of the trees so far.
func Train(ctx context.Context, d *models.Data, p Params, report func(models.Round)) (*Model, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("forest: %w", models.ParamError{Err: err})
	}
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("forest: training data: %w", err)
	}
	if d.Task != models.Runtime {
		return nil, fmt.Errorf("forest: only regression (the runtime task) is supported, not %s", d.Task)
	}
	threads := p.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	binner, err := hist.FitBinner(d.X, p.MaxBins, 200_000, threads, rand.New(rand.NewPCG(p.Seed, 0xb1)))
	if err != nil {
		return nil, fmt.Errorf("forest: %w", err)
	}
	m := binner.Transform(d.X, threads)
	n := d.Rows()
	grad, hess := make([]float64, n), make([]float64, n)
	for i, y := range d.Y {
		grad[i], hess[i] = -y, 1 // with lambda 0 a leaf's value -G/H is the mean target of its rows
	}
	type result struct {
		tree  *hist.Tree
		inBag []bool
		pred  []float64 // the tree's output for every row
		err   error
	}
	results := make([]chan result, p.Trees)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }() // on an early return, stop the workers first
	next := make(chan int)
	for w := 0; w < min(threads, p.Trees); w++ {
		wg.Go(func() {
			grower, err := hist.NewGrower(m, p.treeParams(), 1)
			for i := range next {
				if err != nil {
					results[i] <- result{err: err}
					continue
				}
				// Each tree has its own stream, so the forest does not depend on scheduling.
				rng := rand.New(rand.NewPCG(p.Seed, uint64(i)+1))
				rows := make([]int32, max(1, int(p.SampleFrac*float64(n)+0.5)))
				inBag := make([]bool, n)
				for j := range rows {
					r := int32(rng.IntN(n))
					rows[j], inBag[r] = r, true
				}
				tree, _, gerr := grower.Grow(ctx, grad, hess, rows, nil, rng)
				if gerr != nil {
					results[i] <- result{err: gerr}
					continue
				}
				pred := make([]float64, n)
				for r := range pred {
					pred[r] = tree.LeafValue[tree.LeafBinned(m, r)]
				}
				results[i] <- result{tree: tree, inBag: inBag, pred: pred}
			}
		})
	}
	go func() {
		defer close(next)
		for i := 0; i < p.Trees; i++ {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	ens := &hist.Ensemble{NumClass: 1, Objective: hist.RegressionObjective, AverageOutput: true,
		FeatureNames: hist.SafeNames(d.Features), FeatureInfos: binner.FeatureInfos(), Parameters: p.lightGBM()}
	model := &Model{Params: p}
	sum := make([]float64, n)
	oobSum, oobN := make([]float64, n), make([]int, n)
	for i := 0; i < p.Trees; i++ {
		var res result
		select {
		case res = <-results[i]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if res.err != nil {
			return nil, fmt.Errorf("forest: tree %d: %w", i, res.err)
		}
		ens.Trees = append(ens.Trees, res.tree)
		var train, oob float64
		covered := 0
		for r, v := range res.pred {
			sum[r] += v
			e := sum[r]/float64(i+1) - d.Y[r]
			train += e * e
			if !res.inBag[r] {
				oobSum[r] += v
				oobN[r]++
			}
			if oobN[r] > 0 {
				e := oobSum[r]/float64(oobN[r]) - d.Y[r]
				oob += e * e
				covered++
			}
		}
		model.OOB = math.NaN()
		if covered > 0 {
			model.OOB = oob / float64(covered)
		}
		round := models.Round{Round: i + 1, Rounds: p.Trees, Metric: "l2 (valid: out of bag)", Train: train / float64(n), Valid: model.OOB}
		model.History = append(model.History, round)
		if report != nil {
			report(round)
		}
	}
	if model.Compiled, err = hist.Compile(ens); err != nil {
		return nil, fmt.Errorf("forest: %w", err)
	}
	return model, nil
}

func (p Params) lightGBM() []string {
	return []string{
		"[boosting: rf]", "[objective: regression]",
		fmt.Sprintf("[num_iterations: %d]", p.Trees), fmt.Sprintf("[num_leaves: %d]", p.MaxLeaves),
		fmt.Sprintf("[max_depth: %d]", p.MaxDepth), fmt.Sprintf("[min_data_in_leaf: %d]", p.MinDataInLeaf),
		fmt.Sprintf("[feature_fraction_bynode: %g]", p.FeatureFrac),
		fmt.Sprintf("[bagging_fraction: %g] (with replacement)", p.SampleFrac),
		fmt.Sprintf("[max_bin: %d]", p.MaxBins), fmt.Sprintf("[seed: %d]", p.Seed), "[trained_by: smart models/forest]",
	}
}

// Hyper implements models.Fitted.
func (m *Model) Hyper() any {
	return struct {
		Params
		OOB float64 `json:"oob_l2"`
	}{m.Params, m.OOB}
}

// Register adds the forest kind to k.
func Register(k models.Kinds) {
	k["forest"] = models.Kind{Tasks: []models.Task{models.Runtime}, Train: trainKind, Decode: Decode}
}

func trainKind(ctx context.Context, train, _ *models.Data, params map[string]string, report func(models.Round)) (models.Fitted, error) {
	p := DefaultParams()
	if err := p.set(params); err != nil {
		return nil, fmt.Errorf("forest: %w", err)
	}
	return Train(ctx, train, p, report)
}

// Decode reads a forest payload (a LightGBM text model with average_output).
func Decode(h *models.Header, payload []byte) (any, error) {
	c, err := hist.FromText(payload)
	if err != nil {
		return nil, err
	}
	if err := c.CheckHeader(h); err != nil {
		return nil, err
	}
	return &Model{Compiled: c, OOB: math.NaN()}, nil
}
