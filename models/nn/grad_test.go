package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradients compares gorgonia's gradients of the training loss with central finite
// differences, for every layer type: convolution, bias broadcast, pooling, the feature branch,
// the join and both losses.
func TestGradients(t *testing.T) {
	for _, classify := range []bool{true, false} {
		a := Arch{Channels: 2, Side: 5, Filters: []int{3, 2}, Pool: true, Inputs: 3, Branch: []int{4},
			Hidden: []int{5}, Outputs: 1, Classify: classify}
		if classify {
			a.Outputs = 3
		}
		width := 2*5*5 + 3
		var tcols, vcols []int
		for i := range width {
			if i < 50 {
				tcols = append(tcols, i)
			} else {
				vcols = append(vcols, i)
			}
		}
		n, err := newNet(a, width, tcols, vcols, 7)
		if err != nil {
			t.Fatal(err)
		}
		const batch = 4
		rng := rand.New(rand.NewPCG(3, 4))
		rows := make([][]float64, batch)
		y := make([]float64, batch)
		for i := range rows {
			rows[i] = make([]float64, width)
			for j := range rows[i] {
				rows[i][j] = rng.Float64()
			}
			y[i] = float64(rng.IntN(a.Outputs))
			if !classify {
				y[i] = rng.NormFloat64()
			}
		}
		gr, err := build(&n.Arch, n.Params, batch, true)
		if err != nil {
			t.Fatal(err)
		}
		idx := []int{0, 1, 2, 3}
		cost := func() float64 {
			if err := n.fill(gr, rows); err != nil {
				t.Fatal(err)
			}
			n.fillTarget(gr, y, idx)
			if err := gr.run(); err != nil {
				t.Fatal(err)
			}
			return gr.cost.Value().Data().(float64)
		}
		cost()
		var grads [][]float64
		for _, nd := range gr.params {
			g, err := nd.Grad()
			if err != nil {
				t.Fatal(err)
			}
			grads = append(grads, append([]float64(nil), g.Data().([]float64)...))
		}
		const eps = 1e-6
		checked, nonzero := 0, 0
		for i, p := range n.Params {
			for j := range p.Data {
				w := p.Data[j]
				p.Data[j] = w + eps
				up := cost()
				p.Data[j] = w - eps
				down := cost()
				p.Data[j] = w
				num := (up - down) / (2 * eps)
				checked++
				if num != 0 {
					nonzero++
				}
				if d := math.Abs(num - grads[i][j]); d > 1e-6+1e-4*math.Abs(num) {
					t.Errorf("classify=%v %s[%d]: gradient %.9g, finite difference %.9g", classify, p.Name, j, grads[i][j], num)
				}
			}
		}
		if nonzero < checked/2 {
			t.Errorf("classify=%v: only %d of %d weights move the loss; the check is not exercising the network", classify, nonzero, checked)
		}
	}
}
