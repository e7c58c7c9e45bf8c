package gbdt

import (
	"math"

	"smart/models"
	"smart/models/internal/hist"
)

// objective gives the gradients and hessians of a loss and how to start and score.
type objective interface {
	classes() int
	// base is the initial score of each class: the mean target, or the log of class priors.
	base(y []float64) []float64
	// gradients fills grad[c][i] and hess[c][i] from the scores (row-major, classes() per row).
	gradients(scores, y []float64, grad, hess [][]float64)
	loss(scores, y []float64) float64
	metric() string
	lightGBM() string
}

func newObjective(d *models.Data) objective {
	if d.Task == models.Select {
		return softmax{k: d.Classes}
	}
	return l2{}
}

// l2 is squared error: gradient s - y, hessian 1.
type l2 struct{}

func (l2) classes() int { return 1 }

func (l2) base(y []float64) []float64 {
	s := 0.0
	for _, v := range y {
		s += v
	}
	return []float64{s / float64(len(y))}
}

func (l2) gradients(scores, y []float64, grad, hess [][]float64) {
	g, h := grad[0], hess[0]
	for i, v := range y {
		g[i] = scores[i] - v
		h[i] = 1
	}
}

func (l2) loss(scores, y []float64) float64 {
	s := 0.0
	for i, v := range y {
		d := scores[i] - v
		s += d * d
	}
	return s / float64(len(y))
}

func (l2) metric() string   { return "l2" }
func (l2) lightGBM() string { return hist.RegressionObjective }

// softmax is multiclass cross-entropy on softmax probabilities p: gradient p_c - [y = c] and
// hessian 2 p_c (1 - p_c), twice the diagonal of the true hessian, as XGBoost takes it: the
// diagonal ignores the classes' coupling, and doubling it halves the Newton step, which keeps
// the one-tree-per-class updates from overshooting together.
type softmax struct{ k int }

func (s softmax) classes() int { return s.k }

func (s softmax) base(y []float64) []float64 {
	counts := make([]float64, s.k)
	for _, v := range y {
		counts[int(v)]++
	}
	b := make([]float64, s.k)
	mean := 0.0
	for c, n := range counts {
		// A floor keeps an absent class from starting at minus infinity.
		b[c] = math.Log(max(n, 0.5) / float64(len(y)))
		mean += b[c]
	}
	for c := range b {
		b[c] -= mean / float64(s.k)
	}
	return b
}

func (s softmax) gradients(scores, y []float64, grad, hess [][]float64) {
	p := make([]float64, s.k)
	for i, v := range y {
		copy(p, scores[i*s.k:(i+1)*s.k])
		hist.Softmax(p)
		for c := range p {
			t := 0.0
			if int(v) == c {
				t = 1
			}
			grad[c][i] = p[c] - t
			hess[c][i] = max(2*p[c]*(1-p[c]), 1e-16)
		}
	}
}

func (s softmax) loss(scores, y []float64) float64 {
	p := make([]float64, s.k)
	sum := 0.0
	for i, v := range y {
		copy(p, scores[i*s.k:(i+1)*s.k])
		hist.Softmax(p)
		sum -= math.Log(max(p[int(v)], 1e-15))
	}
	return sum / float64(len(y))
}

func (s softmax) metric() string   { return "multi_logloss" }
func (s softmax) lightGBM() string { return hist.MulticlassObjective(s.k) }
