package nn

import (
	"context"
	"math/rand/v2"
	"testing"

	"smart/models"
)

// benchNet returns a net of kind's default layers with random weights over a row of the given
// numbers of tensor and vector columns.
func benchNet(b *testing.B, kind string, tensor, vector int) (*Net, [][]float64) {
	h, err := Defaults(kind)
	if err != nil {
		b.Fatal(err)
	}
	a := Arch{Filters: h.Filters, Pool: h.Pool, Inputs: vector, Branch: h.Branch, Hidden: h.Hidden, Outputs: 1}
	if kind == KindConvNet || kind == KindFcNet {
		a.Outputs, a.Classify = 5, true
	}
	if tensor > 0 {
		if a.Channels, a.Side, err = tensorGeometry(tensor); err != nil {
			b.Fatal(err)
		}
	}
	var tc, vc []int
	for i := range tensor + vector {
		if i < tensor {
			tc = append(tc, i)
		} else {
			vc = append(vc, i)
		}
	}
	n, err := newNet(a, tensor+vector, tc, vc, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([][]float64, 1000)
	for i := range rows {
		rows[i] = make([]float64, tensor+vector)
		for j := range rows[i] {
			rows[i][j] = float64(rng.IntN(2))
		}
	}
	return n, rows
}

// The row widths of the 3-D feature schema: a 9x9x9 tensor, the stencil features of order 4,
// the setting encoding and the GPU features.
var benchKinds = []struct {
	kind           string
	tensor, vector int
}{
	{KindConvNet, 729, 0},
	{KindFcNet, 0, 40},
	{KindMLP, 0, 40 + 23 + 10},
	{KindConvMLP, 729, 23 + 10},
}

func BenchmarkPredictRow(b *testing.B) {
	for _, k := range benchKinds {
		b.Run(k.kind, func(b *testing.B) {
			n, rows := benchNet(b, k.kind, k.tensor, k.vector)
			b.ResetTimer()
			for i := range b.N {
				if err := n.forward(rows[i%len(rows):i%len(rows)+1], func(int, []float64) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPredictBatch1000(b *testing.B) {
	for _, k := range benchKinds {
		b.Run(k.kind, func(b *testing.B) {
			n, rows := benchNet(b, k.kind, k.tensor, k.vector)
			b.ResetTimer()
			for range b.N {
				if err := n.forward(rows, func(int, []float64) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTrainEpoch is one epoch over 2560 rows (10 batches of 256, 51 of 50) with each
// kind's default layers and batch size.
func BenchmarkTrainEpoch(b *testing.B) {
	for _, k := range benchKinds {
		b.Run(k.kind, func(b *testing.B) {
			n, rows := benchNet(b, k.kind, k.tensor, k.vector)
			h, _ := Defaults(k.kind)
			h.Epochs = 1
			d := &models.Data{Task: models.Runtime, X: make([][]float64, 2560), Y: make([]float64, 2560)}
			if n.Arch.Classify {
				d.Task = models.Select
			}
			for i := range d.X {
				d.X[i] = rows[i%len(rows)]
				d.Y[i] = float64(i % n.Arch.Outputs)
			}
			b.ResetTimer()
			for range b.N {
				if err := n.fit(context.Background(), d, nil, h, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
