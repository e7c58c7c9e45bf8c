package nn_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"smart/features"
	"smart/models"
	"smart/models/nn"
)

// Register the networks, train an MLP on rows scaled to [0, 1] whose target is the log of a
// time, and predict one row.
func Example() {
	kinds := models.Kinds{}
	nn.Register(kinds)

	// Three columns with their real schema names (two setting entries and a GPU feature) and
	// ln ms = 1 + x0 - 2 x1 + x2^2.
	names := append(features.SettingNames(2)[6:8], features.GPUNames()[0])
	d := &models.Data{Task: models.Runtime, Features: names}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		x := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		d.X = append(d.X, x)
		d.Y = append(d.Y, 1+x[0]-2*x[1]+x[2]*x[2])
	}
	var first, last models.Round
	fit, err := kinds[nn.KindMLP].Train(context.Background(), d, nil,
		map[string]string{"layers": "3", "width": "32", "lr": "5e-3", "batch": "32", "epochs": "30"},
		func(r models.Round) {
			if r.Round == 1 {
				first = r
			}
			last = r
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d epochs; training %s fell from above 0.01 to below 0.001: %v\n",
		last.Round, last.Metric, first.Train > 0.01 && last.Train < 0.001)
	lnMs, _ := fit.(models.Regressor).Predict([]float64{0.5, 0.5, 0.5})
	fmt.Printf("predicted %.1f ms, true %.1f ms\n", math.Exp(lnMs), math.Exp(1+0.5-1+0.25))
	// Output:
	// 30 epochs; training l2 fell from above 0.01 to below 0.001: true
	// predicted 2.1 ms, true 2.1 ms
}

// The defaults follow StencilMART: seven hidden layers, batches of 256 and a learning rate of
// 5e-4 for the MLP; parameters change them.
func ExampleParseHyper() {
	h, _ := nn.ParseHyper(nn.KindMLP, nil)
	fmt.Println(h.Hidden, h.Batch, h.LearnRate)
	h, _ = nn.ParseHyper(nn.KindMLP, map[string]string{"layers": "4", "width": "64"})
	fmt.Println(h.Hidden)
	h, _ = nn.ParseHyper(nn.KindConvNet, map[string]string{"filters": "8-16", "epochs": "20"})
	fmt.Println(h.Filters, h.Hidden, h.Batch, h.LearnRate, h.Epochs)
	// Output:
	// [256 256 256 256 256 256 256] 256 0.0005
	// [64 64 64 64]
	// [8 16] [128] 50 0.0001 20
}
