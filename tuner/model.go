package tuner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"smart/models"
	"smart/models/forest"
	"smart/models/golearn"
	"smart/models/nn"
)

// Model names the regression model a strategy fits in its loop (IterML section 3.3). It learns
// ln of the objective from the encoded settings evaluated so far.
type Model string

// The in-loop models. Forest is IterML's best and the default.
const (
	Forest Model = "forest" // random forest (models/forest), 64 trees
	CART   Model = "cart"   // golearn's CART regression tree (models/golearn)
	KNN    Model = "knn"    // k-nearest neighbours, k = 3, features scaled to [0, 1]
	MLP    Model = "mlp"    // gorgonia MLP of two hidden layers of 32 (models/nn), features scaled
	// Trees is this package's bagged regression trees (32 trees), which fit a few hundred rows in
	// about a millisecond: the Pipeline's surrogate.
	Trees Model = "trees"
)

// ParseModel reads a model name.
func ParseModel(s string) (Model, error) {
	switch m := Model(s); m {
	case Forest, CART, KNN, MLP, Trees:
		return m, nil
	case "":
		return Forest, nil
	}
	return "", fmt.Errorf("unknown in-loop model %q: use forest, cart, knn, mlp or trees", s)
}

// predictor predicts ln of the objective for encoded rows.
type predictor func(rows [][]float64) ([]float64, error)

// fit trains the model on rows X with targets y (ln objective). seed makes it reproducible;
// threads bounds the forest's parallelism (0: all CPUs).
func (m Model) fit(ctx context.Context, names []string, X [][]float64, y []float64, seed uint64, threads int) (predictor, error) {
	if len(X) == 0 {
		return nil, fmt.Errorf("%s: no evaluated setting to learn from", m)
	}
	d := &models.Data{Task: models.Runtime, Features: names, X: X, Y: y}
	switch m {
	case Forest, "":
		p := forest.DefaultParams()
		p.Trees, p.MinDataInLeaf, p.FeatureFrac, p.Seed, p.Threads = 64, 1, 0.6, seed, threads
		f, err := forest.Train(ctx, d, p, nil)
		if err != nil {
			return nil, err
		}
		return f.PredictBatch, nil
	case Trees:
		e := fitEnsemble(X, y, defaultEnsemble, rand.New(rand.NewPCG(seed, 0x7472)))
		return func(rows [][]float64) ([]float64, error) {
			mean, _ := e.predict(rows)
			return mean, nil
		}, nil
	case CART:
		p := golearn.DefaultCART()
		p.Seed = seed
		c, err := golearn.TrainCART(ctx, d, p)
		if err != nil {
			return nil, err
		}
		return c.PredictBatch, nil
	case KNN:
		return knn(X, y, 3), nil
	case MLP:
		scale := models.FitScale(X)
		d.X = scale.ApplyAll(X)
		params := map[string]string{"hidden": "32-32", "epochs": "200", "batch": strconv.Itoa(min(32, len(X))),
			"lr": "0.01", "seed": strconv.FormatUint(seed%math.MaxInt32, 10)}
		n, err := nn.Train(ctx, nn.KindMLP, d, nil, params, nil)
		if err != nil {
			return nil, err
		}
		return func(rows [][]float64) ([]float64, error) { return n.PredictBatch(scale.ApplyAll(rows)) }, nil
	}
	return nil, fmt.Errorf("unknown in-loop model %q", m)
}

// trainingSet turns evaluated outcomes into model rows and their lnTargets.
func trainingSet(enc *encoder, hist []Outcome) ([][]float64, []float64) {
	y := lnTargets(hist)
	if y == nil {
		return nil, nil
	}
	X := make([][]float64, len(hist))
	for i, o := range hist {
		X[i] = enc.row(o.Candidate)
	}
	return X, y
}

// lnTargets are what the in-loop models learn of evaluated outcomes: ln of the objective, and
// for a failed evaluation ln of twice the slowest success, so the model learns to avoid the
// settings that fail (a kernel that does not launch is worse than any that runs). Nil while
// nothing has succeeded.
func lnTargets(hist []Outcome) []float64 {
	worst := math.Inf(-1)
	for _, o := range hist {
		if o.OK() && o.Value > 0 {
			worst = max(worst, math.Log(o.Value))
		}
	}
	if math.IsInf(worst, -1) {
		return nil // nothing succeeded yet: nothing to learn
	}
	y := make([]float64, len(hist))
	for i, o := range hist {
		y[i] = worst + math.Ln2
		if o.OK() && o.Value > 0 {
			y[i] = math.Log(o.Value)
		}
	}
	return y
}

// knn predicts the mean target of the k nearest training rows (Euclidean distance on features
// scaled to [0, 1]), ties going to the earlier row. golearn's KNN regressor ranks neighbours
// through a Go map, so on the many equal distances of a grid of settings its answer changes
// from run to run; a search must not.
func knn(X [][]float64, y []float64, k int) predictor {
	scale := models.FitScale(X)
	train := scale.ApplyAll(X)
	k = min(k, len(train))
	return func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		dist := make([]float64, len(train))
		idx := make([]int, len(train))
		for r, row := range scale.ApplyAll(rows) {
			for i, t := range train {
				d := 0.0
				for j := range t {
					d += (t[j] - row[j]) * (t[j] - row[j])
				}
				dist[i], idx[i] = d, i
			}
			sort.SliceStable(idx, func(a, b int) bool { return dist[idx[a]] < dist[idx[b]] })
			sum := 0.0
			for _, i := range idx[:k] {
				sum += y[i]
			}
			out[r] = sum / float64(k)
		}
		return out, nil
	}
}
