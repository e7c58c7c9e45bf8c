package nn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"

	"smart/models"
)

// Hyper are the hyper-parameters of a network: its layers and how it is trained.
type Hyper struct {
	Filters   []int   `json:"filters,omitempty"` // output channels of each 3x3 convolution
	Pool      bool    `json:"pool,omitempty"`    // 3x3 max pooling of stride 2 after the convolutions
	Branch    []int   `json:"branch,omitempty"`  // hidden layers of the feature branch (convmlp)
	Hidden    []int   `json:"hidden"`            // hidden layers after the join
	Epochs    int     `json:"epochs"`
	Batch     int     `json:"batch"`
	LearnRate float64 `json:"learn_rate"`
	Seed      uint64  `json:"seed"`
}

func (h *Hyper) check() error {
	switch {
	case h.Epochs < 1 || h.Epochs > 1_000_000:
		return fmt.Errorf("epochs=%d: give 1 to 1000000", h.Epochs)
	case h.Batch < 1 || h.Batch > 1<<16:
		return fmt.Errorf("batch=%d: give 1 to %d", h.Batch, 1<<16)
	case !(h.LearnRate > 0 && h.LearnRate < 1):
		return fmt.Errorf("lr=%v: give a learning rate between 0 and 1, e.g. 1e-4", h.LearnRate)
	}
	return nil
}

// fit trains the net's weights on train with Adam, in shuffled batches of h.Batch rows (a final
// partial batch is left out of that epoch; the shuffle changes which rows it holds). report, if
// not nil, gets the mean training loss of each epoch and the loss on valid (NaN without it).
// Losses are the cross-entropy (multi_logloss) or the mean squared error of the target (l2).
func (n *Net) fit(ctx context.Context, train, valid *models.Data, h Hyper, report func(models.Round)) (err error) {
	defer recoverInto(&err, "training")
	rows := train.Rows()
	if !n.Arch.Classify {
		n.Mean, n.Std = meanStd(train.Y)
	}
	batch := min(h.Batch, rows)
	gr, err := build(&n.Arch, n.Params, batch, true)
	if err != nil {
		return err
	}
	solver := G.NewAdamSolver(G.WithLearnRate(h.LearnRate)) // β1 0.9, β2 0.999, ε 1e-8
	rng := rand.New(rand.NewPCG(h.Seed, 0x73687566))        // its own stream, apart from the weights'
	order := make([]int, rows)
	for i := range order {
		order[i] = i
	}
	metric, scale := "multi_logloss", 1.0
	if !n.Arch.Classify {
		metric, scale = "l2", n.Std*n.Std // report the loss in units of the target, not standardised
	}
	steps := rows / batch
	picked := make([][]float64, batch)
	for epoch := 1; epoch <= h.Epochs; epoch++ {
		rng.Shuffle(rows, func(i, j int) { order[i], order[j] = order[j], order[i] })
		total := 0.0
		for s := range steps {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("training stopped in epoch %d: %w", epoch, err)
			}
			idx := order[s*batch : (s+1)*batch]
			for i, r := range idx {
				picked[i] = train.X[r]
			}
			if err := n.fill(gr, picked); err != nil {
				return err
			}
			n.fillTarget(gr, train.Y, idx)
			if err := gr.run(); err != nil {
				return err
			}
			total += gr.cost.Value().Data().(float64)
			if err := solver.Step(G.NodesToValueGrads(gr.params)); err != nil {
				return fmt.Errorf("Adam step: %w", err)
			}
		}
		loss := total / float64(steps) * scale
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return fmt.Errorf("training diverged in epoch %d (loss %v); lower the learning rate (lr=...)", epoch, loss)
		}
		n.sync(gr)
		round := models.Round{Round: epoch, Rounds: h.Epochs, Metric: metric, Train: loss, Valid: math.NaN()}
		if valid != nil && valid.Rows() > 0 {
			if round.Valid, err = n.loss(valid); err != nil {
				return fmt.Errorf("validation after epoch %d: %w", epoch, err)
			}
		}
		if report != nil {
			report(round)
		}
	}
	return nil
}

// fillTarget writes the targets of rows idx of y: one-hot classes, or the standardised value.
func (n *Net) fillTarget(gr *graph, y []float64, idx []int) {
	t := gr.yT.Data().([]float64)
	if n.Arch.Classify {
		clear(t)
		k := n.Arch.Outputs
		for i, r := range idx {
			t[i*k+int(y[r])] = 1
		}
		return
	}
	for i, r := range idx {
		t[i] = (y[r] - n.Mean) / n.Std
	}
}

// sync makes sure Params hold the trained weights. gorgonia's Adam updates the weight tensors in
// place, which are backed by Params, so this copies nothing unless a solver replaced a tensor.
func (n *Net) sync(gr *graph) {
	for i, nd := range gr.params {
		d := nd.Value().Data().([]float64)
		if &d[0] != &n.Params[i].Data[0] {
			copy(n.Params[i].Data, d)
		}
	}
}

// loss is the mean cross-entropy or squared error of the net on d.
func (n *Net) loss(d *models.Data) (float64, error) {
	sum := 0.0
	var err error
	if n.Arch.Classify {
		err = n.forward(d.X, func(i int, p []float64) { sum -= math.Log(max(p[int(d.Y[i])], 1e-300)) })
	} else {
		err = n.forward(d.X, func(i int, p []float64) {
			e := p[0]*n.Std + n.Mean - d.Y[i]
			sum += e * e
		})
	}
	return sum / float64(d.Rows()), err
}

// meanStd returns the mean and standard deviation of y; a constant y gets deviation 1.
func meanStd(y []float64) (mean, std float64) {
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		std += (v - mean) * (v - mean)
	}
	std = math.Sqrt(std / float64(len(y)))
	if std == 0 {
		std = 1
	}
	return mean, std
}
