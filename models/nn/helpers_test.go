package nn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"smart"
	"smart/features"
	"smart/models"
)

// orderData returns n binary tensors of dims-D stencils of maximum order 4, each holding the
// centre, a few random points within a random order r and at least one point at distance r, and
// labelled r-1: a ConvNet must find the outermost ring that holds a point. When gpu is set the
// rows also carry the GPU features (constant here), which a ConvNet joins after its
// convolutions.
func orderData(dims, n int, seed uint64) *models.Data {
	const r = 4
	rng := rand.New(rand.NewPCG(seed, 11))
	d := &models.Data{Task: models.Select, Classes: r, Features: features.TensorNames(dims, r)}
	side := 2*r + 1
	size := side * side
	if dims == 3 {
		size *= side
	}
	coord := func(k int) int { return rng.IntN(2*k+1) - k }
	for range n {
		k := 1 + rng.IntN(r)
		row := make([]float64, size)
		set := func(o smart.Offset) { row[features.TensorIndex(dims, r, o)] = 1 }
		set(smart.Offset{})
		for range 1 + rng.IntN(5) {
			o := smart.Offset{coord(k), coord(k), 0}
			if dims == 3 {
				o[2] = coord(k)
			}
			set(o)
		}
		o := smart.Offset{coord(k), coord(k), 0} // then push one coordinate out to distance k
		if dims == 3 {
			o[2] = coord(k)
		}
		axis := rng.IntN(dims)
		o[axis] = k * (1 - 2*rng.IntN(2))
		set(o)
		d.X = append(d.X, row)
		d.Y = append(d.Y, float64(k-1))
	}
	return d
}

// names returns the first n entries of the features package's stencil, setting and GPU names,
// so that the columns have the roles they have in real data.
func mixedNames(stencil, setting, gpu int) []string {
	var out []string
	out = append(out, features.StencilNames(4)[:stencil]...)
	out = append(out, features.SettingNames(3)[:setting]...)
	return append(out, features.GPUNames()[:gpu]...)
}

// smoothData returns rows of uniform features in [0, 1] with the regression target
// ln t = f(x), a smooth function of the first five columns.
func smoothData(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 12))
	d := &models.Data{Task: models.Runtime, Features: mixedNames(3, 3, 2)}
	for range n {
		x := make([]float64, len(d.Features))
		for j := range x {
			x[j] = rng.Float64()
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, smooth(x))
	}
	return d
}

func smooth(x []float64) float64 {
	return 1 + 2*x[0] - x[1] + 0.5*math.Sin(3*x[2]) + x[3]*x[4]
}

// argmaxData returns rows of uniform features whose class is the largest of the first three.
func argmaxData(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 13))
	d := &models.Data{Task: models.Select, Classes: 3, Features: mixedNames(5, 0, 2)}
	for range n {
		x := make([]float64, len(d.Features))
		for j := range x {
			x[j] = rng.Float64()
		}
		best := 0
		for j := 1; j < 3; j++ {
			if x[j] > x[best] {
				best = j
			}
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, float64(best))
	}
	return d
}

// tensorTimeData joins orderData's 2-D tensors with setting and GPU columns: ln t grows with
// the stencil's order (which only the tensor shows) and with two of the other columns.
func tensorTimeData(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 14))
	t := orderData(2, n, seed)
	d := &models.Data{Task: models.Runtime, Features: append(append([]string(nil), t.Features...), mixedNames(0, 4, 2)...)}
	for i, row := range t.X {
		extra := make([]float64, 6)
		for j := range extra {
			extra[j] = rng.Float64()
		}
		d.X = append(d.X, append(append([]float64(nil), row...), extra...))
		d.Y = append(d.Y, 0.4*t.Y[i]+extra[0]-0.5*extra[5])
	}
	return d
}

func accuracy(t *testing.T, n *Net, d *models.Data) float64 {
	t.Helper()
	p, err := n.PredictProbaBatch(d.X)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for i, q := range p {
		best := 0
		for j := range q {
			if q[j] > q[best] {
				best = j
			}
		}
		if best == int(d.Y[i]) {
			ok++
		}
	}
	return float64(ok) / float64(len(p))
}

// mape is the mean absolute percentage error, in percent, of the predicted time exp(pred)
// against the time exp(y).
func mape(t *testing.T, n *Net, d *models.Data) float64 {
	t.Helper()
	p, err := n.PredictBatch(d.X)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i, v := range p {
		sum += math.Abs(math.Exp(v)-math.Exp(d.Y[i])) / math.Exp(d.Y[i])
	}
	return 100 * sum / float64(len(p))
}

func mustTrain(t testing.TB, kind string, train, valid *models.Data, params map[string]string) *Net {
	t.Helper()
	n, err := Train(context.Background(), kind, train, valid, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
