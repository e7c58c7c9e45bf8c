package nn

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"smart"
	"smart/features"
)

// columns are the parts of a row a network reads.
type columns struct {
	tensor, vector []int
	channels, side int
}

// role is what a column of the feature schema describes.
type role int

const (
	roleOther   role = iota // the OC and setting, the GPU, anything else a schema adds
	roleTensor              // an entry of the binary tensor
	roleStencil             // Table II and the other stencil features, which the tensor replaces
)

// roleOf classifies a feature name by the schema of package features.
func roleOf(name string) role {
	switch {
	case isTensorName(name):
		return roleTensor
	case slices.Contains(features.StencilNames(smart.MaxMaxOrder), name):
		return roleStencil
	}
	return roleOther
}

// isTensorName reports whether name is an entry of the binary tensor (features.TensorNames).
func isTensorName(name string) bool { return strings.HasPrefix(name, "tensor_") }

// columnsFor picks the columns kind reads from the feature schema names:
//
//	convnet  the tensor; other columns but the stencil features (the GPU's, when the rows span
//	         GPUs) join after the convolutions
//	fcnet    every column but the tensor
//	mlp      every column but the tensor
//	convmlp  the tensor; the other columns but the stencil features (setting, GPU) through the
//	         feature branch
func columnsFor(kind string, names []string) (columns, error) {
	var c columns
	for i, n := range names {
		switch r := roleOf(n); {
		case r == roleTensor:
			c.tensor = append(c.tensor, i)
		case kind == KindFcNet || kind == KindMLP || r == roleOther:
			c.vector = append(c.vector, i)
		}
	}
	if kind == KindFcNet || kind == KindMLP {
		c.tensor = nil
		if len(c.vector) == 0 {
			return c, errors.New("the feature schema has no columns besides the tensor; train on the stencil features")
		}
		return c, nil
	}
	if len(c.tensor) == 0 {
		return c, errors.New("the rows have no stencil tensor (a foreign kernel's rows have none): train this kind on stencil data sets, or another kind (gbdt, forest, mlp)")
	}
	if kind == KindConvMLP && len(c.vector) == 0 {
		return c, errors.New("the feature schema has no setting or GPU columns for the MLP branch")
	}
	var err error
	if c.channels, c.side, err = tensorGeometry(len(c.tensor)); err != nil {
		return c, err
	}
	dims := 3
	if c.channels == 1 {
		dims = 2
	}
	for i, want := range features.TensorNames(dims, c.side/2) {
		if got := names[c.tensor[i]]; got != want {
			return c, fmt.Errorf("tensor column %d is %q where a %d-D tensor of order %d has %q; give the tensor columns in the order of features.TensorNames", i, got, dims, c.side/2, want)
		}
	}
	return c, nil
}

// tensorGeometry returns the channels and side of a flat tensor of n entries: a (2r+1)^2 tensor
// is one channel, a (2r+1)^3 tensor is 2r+1 channels of its z planes.
func tensorGeometry(n int) (channels, side int, err error) {
	for r := 1; r <= smart.MaxMaxOrder; r++ {
		s := 2*r + 1
		switch n {
		case s * s:
			return 1, s, nil
		case s * s * s:
			return s, s, nil
		}
	}
	return 0, 0, fmt.Errorf("%d tensor columns is not a (2r+1)^2 or (2r+1)^3 tensor for an order r of 1 to %d", n, smart.MaxMaxOrder)
}
