package nn

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// graph is the network built for one batch size. Its weight nodes are bound to tensors backed by
// the Net's weight slices, so every graph of a Net computes with the same weights.
type graph struct {
	batch  int
	x, v   *G.Node       // tensor and feature inputs; nil where the architecture has none
	xT, vT *tensor.Dense // their values, refilled for every batch
	y      *G.Node       // training target: one-hot classes (batch, K) or values (batch, 1)
	yT     *tensor.Dense
	out    *G.Node // class probabilities, or the regression output
	cost   *G.Node // training graphs only
	params G.Nodes
	vm     G.VM
}

// build constructs the graph of architecture a with weights ps for batch rows at a time. A
// training graph adds the loss and its gradients; an inference graph ends in the softmax or the
// regression output.
func build(a *Arch, ps []Param, batch int, train bool) (gr *graph, err error) {
	defer recoverInto(&err, "building the network graph")
	g := G.NewGraph()
	gr = &graph{batch: batch}
	for _, p := range ps {
		t := tensor.New(tensor.WithShape(p.Shape...), tensor.WithBacking(p.Data))
		gr.params = append(gr.params, G.NewTensor(g, tensor.Float64, len(p.Shape),
			G.WithShape(p.Shape...), G.WithName(p.Name), G.WithValue(t)))
	}
	next := gr.params
	take := func() (w, b *G.Node) {
		w, b, next = next[0], next[1], next[2:]
		return w, b
	}
	input := func(name string, shape ...int) (*G.Node, *tensor.Dense) {
		t := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
		return G.NewTensor(g, tensor.Float64, len(shape), G.WithShape(shape...), G.WithName(name)), t
	}

	var joined []*G.Node
	if a.Channels > 0 {
		gr.x, gr.xT = input("x", batch, a.Channels, a.Side, a.Side)
		h := gr.x
		for range a.Filters {
			w, b := take()
			h = G.Must(G.Conv2d(h, w, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}))
			h = G.Must(G.Rectify(G.Must(G.BroadcastAdd(h, b, nil, []byte{0, 2, 3}))))
		}
		if a.Pool {
			h = G.Must(G.MaxPool2D(h, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}))
		}
		s := h.Shape()
		joined = append(joined, G.Must(G.Reshape(h, tensor.Shape{batch, s[1] * s[2] * s[3]})))
	}
	if a.Inputs > 0 {
		gr.v, gr.vT = input("v", batch, a.Inputs)
		h := gr.v
		for range a.Branch {
			h = G.Must(G.Rectify(dense(h, take)))
		}
		joined = append(joined, h)
	}
	h := joined[0]
	if len(joined) == 2 {
		h = G.Must(G.Concat(1, joined[0], joined[1]))
	}
	for range a.Hidden {
		h = G.Must(G.Rectify(dense(h, take)))
	}
	logits := dense(h, take)
	if len(next) != 0 {
		return nil, fmt.Errorf("%d weight tensors left over after building the graph", len(next))
	}

	switch {
	case !train && a.Classify:
		gr.out = G.Must(G.SoftMax(logits))
	case !train:
		gr.out = logits
	case a.Classify:
		// Mean cross-entropy: -sum(onehot * log softmax) / batch, with the stable log-softmax.
		gr.y, gr.yT = input("y", batch, a.Outputs)
		nll := G.Must(G.Neg(G.Must(G.Sum(G.Must(G.HadamardProd(G.Must(G.LogSoftMax(logits)), gr.y))))))
		gr.cost = G.Must(G.Mul(nll, G.NewConstant(1/float64(batch))))
	default:
		gr.y, gr.yT = input("y", batch, 1)
		gr.cost = G.Must(G.Mean(G.Must(G.Square(G.Must(G.Sub(logits, gr.y))))))
	}
	if train {
		if _, err := G.Grad(gr.cost, gr.params...); err != nil {
			return nil, fmt.Errorf("differentiating the loss: %w", err)
		}
		gr.vm = G.NewTapeMachine(g, G.BindDualValues(gr.params...))
	} else {
		gr.vm = G.NewTapeMachine(g)
	}
	return gr, nil
}

// dense is a fully connected layer h*w + b with the next weights.
func dense(h *G.Node, take func() (w, b *G.Node)) *G.Node {
	w, b := take()
	return G.Must(G.BroadcastAdd(G.Must(G.Mul(h, w)), b, nil, []byte{0}))
}

// run executes the graph once on the values in xT, vT (and yT) and leaves the results in the
// nodes until the next run.
func (gr *graph) run() (err error) {
	defer recoverInto(&err, "running the network")
	gr.vm.Reset()
	for _, in := range []struct {
		n *G.Node
		t *tensor.Dense
	}{{gr.x, gr.xT}, {gr.v, gr.vT}, {gr.y, gr.yT}} {
		if in.n != nil {
			if err := G.Let(in.n, in.t); err != nil {
				return err
			}
		}
	}
	return gr.vm.RunAll()
}

// output returns the values of the output node, valid until the next run.
func (gr *graph) output() []float64 { return gr.out.Value().Data().([]float64) }

// recoverInto turns a panic (gorgonia panics on shape and type mismatches) into an error.
func recoverInto(err *error, doing string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: gorgonia failed: %v", doing, p)
	}
}
