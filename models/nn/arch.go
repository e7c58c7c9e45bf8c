package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"smart"
)

// Arch is a network's architecture.
type Arch struct {
	// Channels and Side give the tensor input: Channels images of Side x Side (1 channel for a
	// 2-D stencil, Side channels for a 3-D one). Channels is 0 without a tensor input.
	Channels int `json:"channels"`
	Side     int `json:"side"`
	// Filters are the output channels of each 3x3 convolution over the tensor.
	Filters []int `json:"filters,omitempty"`
	// Pool adds a 3x3 max pooling of stride 2 and padding 1 after the convolutions: a side of
	// 2r+1 becomes r+1 with the centre's window centred, and no edge row is dropped.
	Pool bool `json:"pool,omitempty"`
	// Inputs is the width of the feature vector; 0 without one.
	Inputs int `json:"inputs"`
	// Branch are the hidden layers applied to the feature vector before it joins the tensor
	// branch; with none the vector joins as it is.
	Branch []int `json:"branch,omitempty"`
	// Hidden are the fully connected hidden layers after the join.
	Hidden []int `json:"hidden"`
	// Outputs is the number of classes of a classifier (softmax), or 1 for a regressor.
	Outputs  int  `json:"outputs"`
	Classify bool `json:"classify"`
}

// maxUnits bounds every layer width and the parameter count, so that a corrupt file or a typo in
// a hyper-parameter gives an error instead of exhausting memory.
const (
	maxUnits  = 1 << 14
	maxParams = 1 << 27
	maxSide   = 2*smart.MaxMaxOrder + 1 // the largest tensor of package features
)

// Check reports why the architecture cannot be built, or nil.
func (a *Arch) Check() error {
	switch {
	case a.Channels < 0 || a.Side < 0 || a.Inputs < 0:
		return errors.New("negative input size")
	case a.Channels == 0 && a.Inputs == 0:
		return errors.New("the network has neither a tensor nor a feature input")
	case a.Channels > 0 && (a.Side < 1 || a.Side > maxSide || a.Channels > maxSide):
		return fmt.Errorf("tensor of %d channels of side %d is out of range (1 to %d each)", a.Channels, a.Side, maxSide)
	case a.Channels == 0 && (len(a.Filters) > 0 || a.Pool):
		return errors.New("convolutions are given but the network has no tensor input")
	case a.Channels > 0 && len(a.Filters) == 0:
		return errors.New("a tensor input needs at least one convolution: give filters")
	case a.Inputs == 0 && len(a.Branch) > 0:
		return errors.New("a feature branch is given but the network has no feature input")
	case a.Outputs < 1 || a.Outputs > maxUnits:
		return fmt.Errorf("%d outputs is out of range", a.Outputs)
	case a.Classify && a.Outputs < 2:
		return fmt.Errorf("a classifier needs at least 2 classes, has %d", a.Outputs)
	case !a.Classify && a.Outputs != 1:
		return fmt.Errorf("a regressor has 1 output, not %d", a.Outputs)
	case a.Inputs > maxUnits:
		return fmt.Errorf("%d input features is more than %d", a.Inputs, maxUnits)
	}
	for _, layers := range [][]int{a.Filters, a.Branch, a.Hidden} {
		if len(layers) > 64 {
			return fmt.Errorf("%d layers is more than 64", len(layers))
		}
		for _, u := range layers {
			if u < 1 || u > maxUnits {
				return fmt.Errorf("layer width %d is out of range (1 to %d)", u, maxUnits)
			}
		}
	}
	n := 0
	for _, s := range a.shapes() {
		n += size(s.Shape)
	}
	if n > maxParams {
		return fmt.Errorf("%d weights is more than %d", n, maxParams)
	}
	return nil
}

// Param is one weight tensor: a name, its shape and its values in row-major order.
type Param struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"-"`
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// pooled is the side of the tensor after the convolutions (which keep it) and the pooling.
func (a *Arch) pooled() int {
	if a.Pool {
		return (a.Side-1)/2 + 1
	}
	return a.Side
}

// shapes lists the weights of the architecture in the order the graph uses them, without values.
func (a *Arch) shapes() []Param {
	var ps []Param
	in := a.Channels
	for i, f := range a.Filters {
		ps = append(ps,
			Param{Name: fmt.Sprintf("conv%d.w", i), Shape: []int{f, in, 3, 3}},
			Param{Name: fmt.Sprintf("conv%d.b", i), Shape: []int{1, f, 1, 1}})
		in = f
	}
	joined := 0
	if a.Channels > 0 {
		joined = in * a.pooled() * a.pooled()
	}
	in = a.Inputs
	for i, u := range a.Branch {
		ps = append(ps,
			Param{Name: fmt.Sprintf("branch%d.w", i), Shape: []int{in, u}},
			Param{Name: fmt.Sprintf("branch%d.b", i), Shape: []int{1, u}})
		in = u
	}
	in += joined
	for i, u := range a.Hidden {
		ps = append(ps,
			Param{Name: fmt.Sprintf("hidden%d.w", i), Shape: []int{in, u}},
			Param{Name: fmt.Sprintf("hidden%d.b", i), Shape: []int{1, u}})
		in = u
	}
	return append(ps,
		Param{Name: "out.w", Shape: []int{in, a.Outputs}},
		Param{Name: "out.b", Shape: []int{1, a.Outputs}})
}

// initParams returns the weights drawn from seed: He-normal weights (standard deviation
// sqrt(2/fan-in), right for ReLU layers) and zero biases.
func (a *Arch) initParams(seed uint64) []Param {
	rng := rand.New(rand.NewPCG(seed, 0x6e6e)) // the second word only separates this stream
	ps := a.shapes()
	for i := range ps {
		p := &ps[i]
		p.Data = make([]float64, size(p.Shape))
		if strings.HasSuffix(p.Name, ".b") {
			continue
		}
		fanIn := size(p.Shape[1:]) // conv: in*3*3
		if len(p.Shape) == 2 {
			fanIn = p.Shape[0]
		}
		std := math.Sqrt(2 / float64(fanIn))
		for j := range p.Data {
			p.Data[j] = rng.NormFloat64() * std
		}
	}
	return ps
}
