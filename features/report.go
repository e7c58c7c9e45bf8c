package features

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"smart"
)

// Report is the features of a stencil read from a file, as smart features prints them.
type Report struct {
	File        string      `json:"file"`
	Name        string      `json:"name"`
	ID          string      `json:"id"`
	MaxOrder    int         `json:"max_order"`
	Features    NamedValues `json:"features"`
	TensorShape []int       `json:"tensor_shape,omitempty"`
	Tensor      []float64   `json:"tensor,omitempty"`
}

// NewReport computes the features of stencil s, read from file, at maximum order r, with the
// binary tensor where tensor is set.
func NewReport(file string, s *smart.Stencil, r int, tensor bool) (*Report, error) {
	rep := &Report{File: file, Name: s.Name, ID: s.ID(), MaxOrder: r, Features: NamedValues{Names: StencilNames(r)}}
	var err error
	if rep.Features.Values, err = Stencil(s, r); err != nil {
		return nil, err
	}
	if tensor {
		rep.TensorShape = TensorShape(s.Dims, r)
		if rep.Tensor, err = Tensor(s, r); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// NamedValues marshals as a JSON object whose keys keep the order of Names.
type NamedValues struct {
	Names  []string
	Values []float64
}

func (nv NamedValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range nv.Names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(nv.Values[i], 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// WriteText writes the features a line each, then the tensor, if any, a row a line.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s (%s), id %s, maximum order %d:\n", r.Name, r.File, r.ID, r.MaxOrder)
	width := 0
	for _, n := range r.Features.Names {
		width = max(width, len(n))
	}
	for i, n := range r.Features.Names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, strconv.FormatFloat(r.Features.Values[i], 'g', 6, 64))
	}
	if r.Tensor == nil {
		return nil
	}
	shape := r.TensorShape
	side := shape[len(shape)-1]
	dims := make([]string, len(shape))
	for i, v := range shape {
		dims[i] = strconv.Itoa(v)
	}
	axes := "y, x"
	if len(shape) == 3 {
		axes = "z, y, x"
	}
	fmt.Fprintf(w, "tensor %s (%s; rows from y = -%d):\n", strings.Join(dims, "x"), axes, side/2)
	for i := 0; i < len(r.Tensor); i += side {
		if len(shape) == 3 && i%(side*side) == 0 {
			fmt.Fprintf(w, " z = %s\n", smart.Signed(i/(side*side)-side/2))
		}
		row := make([]string, side)
		for j, v := range r.Tensor[i : i+side] {
			row[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if _, err := fmt.Fprintf(w, "  %s\n", strings.Join(row, " ")); err != nil {
			return err
		}
	}
	return nil
}
