package nn

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// The batch sizes of the inference graphs besides 1: many rows go through the large graph, the
// rest through the small one, and a final partial batch is padded with zero rows whose outputs
// are dropped, so a few rows never pay for a large batch.
const (
	smallBatch   = 16
	predictBatch = 128
)

// Net is a trained (or loaded) network. It reads rows of a feature schema: Tensor and Vector say
// which columns feed its tensor and its feature input. It is safe for concurrent use; predictions
// are serialised because a gorgonia machine holds the state of one run.
type Net struct {
	Arch Arch
	// Width is the number of columns of a row.
	Width int
	// Tensor are the columns that form the tensor, in (channel, y, x) order; Vector the columns
	// of the feature vector.
	Tensor, Vector []int
	// A regressor learns (y - Mean) / Std of its target y and maps its output back.
	Mean, Std float64
	// Params are the weights in the order the graphs use them.
	Params []Param
	// hyper are the hyper-parameters the net was trained with, for the model file.
	hyper Hyper

	mu     sync.Mutex
	graphs map[int]*graph // inference graphs by batch size, built on first use
}

// newNet checks the architecture and the columns and returns a net with weights drawn from seed.
func newNet(a Arch, width int, tensorCols, vectorCols []int, seed uint64) (*Net, error) {
	n := &Net{Arch: a, Width: width, Tensor: tensorCols, Vector: vectorCols, Std: 1}
	if err := n.check(); err != nil {
		return nil, err
	}
	n.Params = a.initParams(seed)
	return n, nil
}

// check reports why the net's architecture, columns or target scaling are inconsistent.
func (n *Net) check() error {
	a := &n.Arch
	if err := a.Check(); err != nil {
		return fmt.Errorf("architecture: %w", err)
	}
	if want := a.Channels * a.Side * a.Side; len(n.Tensor) != want {
		return fmt.Errorf("%d tensor columns for a tensor of %d channels of %dx%d", len(n.Tensor), a.Channels, a.Side, a.Side)
	}
	if len(n.Vector) != a.Inputs {
		return fmt.Errorf("%d feature columns for %d inputs", len(n.Vector), a.Inputs)
	}
	for _, cols := range [][]int{n.Tensor, n.Vector} {
		for _, c := range cols {
			if c < 0 || c >= n.Width {
				return fmt.Errorf("column %d is outside a row of %d features", c, n.Width)
			}
		}
	}
	if math.IsNaN(n.Mean) || math.IsInf(n.Mean, 0) || !(n.Std > 0) || math.IsInf(n.Std, 0) {
		return fmt.Errorf("target scaling mean %v, deviation %v is not usable", n.Mean, n.Std)
	}
	return nil
}

// fill copies the input columns of rows into the graph's input tensors; missing rows (a padded
// final batch) are zeros.
func (n *Net) fill(gr *graph, rows [][]float64) error {
	for i, r := range rows {
		if len(r) != n.Width {
			return fmt.Errorf("row %d has %d features; the network reads %d", i, len(r), n.Width)
		}
	}
	gather := func(t []float64, cols []int) {
		k := len(cols)
		for i := range gr.batch {
			dst := t[i*k : (i+1)*k]
			if i >= len(rows) {
				clear(dst)
				continue
			}
			for j, c := range cols {
				dst[j] = rows[i][c]
			}
		}
	}
	if gr.xT != nil {
		gather(gr.xT.Data().([]float64), n.Tensor)
	}
	if gr.vT != nil {
		gather(gr.vT.Data().([]float64), n.Vector)
	}
	return nil
}

// forward runs rows through the inference graphs and calls emit with each row's outputs (the
// slice is reused).
func (n *Net) forward(rows [][]float64, emit func(i int, out []float64)) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	for start := 0; start < len(rows); {
		gr, err := n.inference(len(rows) - start)
		if err != nil {
			return err
		}
		chunk := rows[start:min(start+gr.batch, len(rows))]
		if err := n.fill(gr, chunk); err != nil {
			return fmt.Errorf("rows from %d: %w", start, err)
		}
		if err := gr.run(); err != nil {
			return err
		}
		out, k := gr.output(), n.Arch.Outputs
		for i := range chunk {
			emit(start+i, out[i*k:(i+1)*k])
		}
		start += len(chunk)
	}
	return nil
}

// inference returns the graph for the next of left rows.
func (n *Net) inference(left int) (*graph, error) {
	batch := predictBatch
	switch {
	case left == 1:
		batch = 1
	case left < predictBatch:
		batch = smallBatch
	}
	if gr := n.graphs[batch]; gr != nil {
		return gr, nil
	}
	gr, err := build(&n.Arch, n.Params, batch, false)
	if err != nil {
		return nil, err
	}
	if n.graphs == nil {
		n.graphs = map[int]*graph{}
	}
	n.graphs[batch] = gr
	return gr, nil
}

var errNotClassifier = errors.New("this network is a regressor; it predicts a time, not class probabilities")
var errNotRegressor = errors.New("this network is a classifier; it predicts class probabilities, not a time")

// PredictProba returns a classifier's probability of each class for one row.
func (n *Net) PredictProba(row []float64) ([]float64, error) {
	p, err := n.PredictProbaBatch([][]float64{row})
	if err != nil {
		return nil, err
	}
	return p[0], nil
}

// PredictProbaBatch returns a classifier's class probabilities for each row.
func (n *Net) PredictProbaBatch(rows [][]float64) ([][]float64, error) {
	if !n.Arch.Classify {
		return nil, errNotClassifier
	}
	out := make([][]float64, len(rows))
	err := n.forward(rows, func(i int, p []float64) { out[i] = append([]float64(nil), p...) })
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Predict returns a regressor's prediction for one row: the natural log of milliseconds per step
// when trained on a models.Data of the runtime task.
func (n *Net) Predict(row []float64) (float64, error) {
	p, err := n.PredictBatch([][]float64{row})
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// PredictBatch returns a regressor's prediction for each row.
func (n *Net) PredictBatch(rows [][]float64) ([]float64, error) {
	if n.Arch.Classify {
		return nil, errNotRegressor
	}
	out := make([]float64, len(rows))
	err := n.forward(rows, func(i int, p []float64) { out[i] = p[0]*n.Std + n.Mean })
	if err != nil {
		return nil, err
	}
	return out, nil
}
