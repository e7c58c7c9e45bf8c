package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"smart"
	"smart/features"
)

// featuresHelp is the description of --help, with examples.
const featuresHelp = `
Prints the features learned models read for each stencil: StencilMART's Table II (order, nnz,
sparsity, and per order n = 1..R the points at Chebyshev distance n and their ratio to all
points at that distance) plus extents, axis and diagonal points, FLOPs per point, symmetry,
element size and grid. --tensor adds the binary (2R+1)^d tensor, z, y, x order (x fastest).
R is the maximum order, 4 by default (a 9x9 or 9x9x9 tensor). FILE - reads stdin.

Examples:
  smart features data/stencils/j3d27pt.json
  smart features --json --tensor data/stencils/j2d5pt.json | jq '.features.nnz'`

// featuresOpts are the flags of the command.
type featuresOpts struct {
	asJSON   bool
	tensor   bool
	maxOrder int
}

func (o *featuresOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per file, one per line (JSON Lines)")
	fs.BoolVar(&o.tensor, "tensor", false, "include the binary tensor")
	fs.IntVar(&o.maxOrder, "max-order", smart.DefaultMaxOrder, fmt.Sprintf("R: tensor radius and the largest order a file may have, up to %d", smart.MaxMaxOrder))
}

func runFeatures(ctx context.Context, e *env, args []string) error {
	var o featuresOpts
	flags := newFlags(e, "features", "[--json] [--tensor] [--max-order R] FILE...", featuresHelp)
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("give one or more stencil files")
	}
	if o.maxOrder < 1 || o.maxOrder > smart.MaxMaxOrder {
		return usagef("--max-order is %d; use 1 to %d", o.maxOrder, smart.MaxMaxOrder)
	}
	reports, errs := o.reports(e, files)
	if o.asJSON {
		for _, rep := range reports {
			if err := writeJSON(e, rep); err != nil {
				return err
			}
		}
	} else {
		for i, rep := range reports {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			printFeatures(e, rep)
		}
	}
	return errors.Join(errs...)
}

// reports computes the features of every stencil file; errs are those of the files that fail.
func (o *featuresOpts) reports(e *env, files []string) (reports []featureReport, errs []error) {
	names := features.StencilNames(o.maxOrder)
	for _, path := range files {
		s, err := loadStencil(e, path, smart.Limits{MaxOrder: o.maxOrder})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rep := featureReport{File: path, Name: s.Name, ID: s.ID(), MaxOrder: o.maxOrder,
			Features: namedValues{names: names}}
		if rep.Features.values, err = features.Stencil(s, o.maxOrder); err != nil {
			errs = append(errs, fmt.Errorf("stencil file %s: %w", path, err))
			continue
		}
		if o.tensor {
			rep.TensorShape = features.TensorShape(s.Dims, o.maxOrder)
			if rep.Tensor, err = features.Tensor(s, o.maxOrder); err != nil {
				errs = append(errs, fmt.Errorf("stencil file %s: %w", path, err))
				continue
			}
		}
		reports = append(reports, rep)
	}
	return reports, errs
}

// featureReport is one file's entry of --json.
type featureReport struct {
	File        string      `json:"file"`
	Name        string      `json:"name"`
	ID          string      `json:"id"`
	MaxOrder    int         `json:"max_order"`
	Features    namedValues `json:"features"`
	TensorShape []int       `json:"tensor_shape,omitempty"`
	Tensor      []float64   `json:"tensor,omitempty"`
}

// namedValues marshals as a JSON object whose keys keep the schema's order.
type namedValues struct {
	names  []string
	values []float64
}

func (nv namedValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range nv.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(n)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(nv.values[i], 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func printFeatures(e *env, rep featureReport) {
	fmt.Fprintf(e.stdout, "%s (%s), id %s, maximum order %d:\n", rep.Name, rep.File, rep.ID, rep.MaxOrder)
	width := 0
	for _, n := range rep.Features.names {
		width = max(width, len(n))
	}
	for i, n := range rep.Features.names {
		fmt.Fprintf(e.stdout, "  %-*s %s\n", width, n, strconv.FormatFloat(rep.Features.values[i], 'g', 6, 64))
	}
	if rep.Tensor == nil {
		return
	}
	shape := rep.TensorShape
	side := shape[len(shape)-1]
	dims := make([]string, len(shape))
	for i, v := range shape {
		dims[i] = strconv.Itoa(v)
	}
	axes := "y, x"
	if len(shape) == 3 {
		axes = "z, y, x"
	}
	fmt.Fprintf(e.stdout, "tensor %s (%s; rows from y = -%d):\n", strings.Join(dims, "x"), axes, side/2)
	for i := 0; i < len(rep.Tensor); i += side {
		if len(shape) == 3 && i%(side*side) == 0 {
			fmt.Fprintf(e.stdout, " z = %s\n", signed(i/(side*side)-side/2))
		}
		row := make([]string, side)
		for j, v := range rep.Tensor[i : i+side] {
			row[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		fmt.Fprintf(e.stdout, "  %s\n", strings.Join(row, " "))
	}
}
