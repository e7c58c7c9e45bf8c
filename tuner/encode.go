package tuner

import (
	"math"
	"math/bits"
	"strconv"

	"smart/space"
)

// encoder turns candidates into rows for the in-loop models. Each parameter of the union of the
// variants is a column: log2 of the value where every value the parameter takes is a positive
// power of two (block sizes, tiles, unroll factors: as features.Setting encodes stencil
// settings), the value itself otherwise (flags, enumerations, Kernel Tuner's 48 or 3). A
// parameter a variant lacks is 0. With several variants a one-hot column per variant comes
// first. Parameters with a single value everywhere carry nothing and are left out.
type encoder struct {
	variants int
	cols     []column
	// index[v][k] is the column of the k-th parameter of variant v, or -1 when left out.
	index  [][]int
	names  [][]string
	spaces []*space.Space // of the variants, to encode a setting from its index in them
	// prior, when set, adds a last column: what a prior says of the candidate.
	prior func(Candidate) float64
}

type column struct {
	name string
	log2 bool
}

func newEncoder(vs []Variant) *encoder {
	e := &encoder{variants: len(vs)}
	type info struct {
		values  map[int]bool
		present int
	}
	seen := map[string]*info{}
	var order []string
	for _, v := range vs {
		for _, p := range v.Space.Params() {
			in := seen[p.Name]
			if in == nil {
				in = &info{values: map[int]bool{}}
				seen[p.Name] = in
				order = append(order, p.Name)
			}
			in.present++
			for _, x := range p.Values {
				in.values[x] = true
			}
		}
	}
	col := map[string]int{}
	for _, name := range order {
		in := seen[name]
		if len(in.values) == 1 && in.present == len(vs) {
			continue
		}
		pow2 := true
		for x := range in.values {
			if x <= 0 || bits.OnesCount(uint(x)) != 1 {
				pow2 = false
			}
		}
		col[name] = len(e.cols)
		e.cols = append(e.cols, column{name: name, log2: pow2})
	}
	for _, v := range vs {
		names := v.Space.Names()
		idx := make([]int, len(names))
		for k, n := range names {
			idx[k] = -1
			if c, ok := col[n]; ok {
				idx[k] = c
			}
		}
		e.index = append(e.index, idx)
		e.names = append(e.names, names)
		e.spaces = append(e.spaces, v.Space)
	}
	return e
}

// width is the number of columns of a row.
func (e *encoder) width() int {
	w := len(e.cols)
	if e.variants > 1 {
		w += e.variants
	}
	if e.prior != nil {
		w++
	}
	return w
}

// features names the columns.
func (e *encoder) features() []string {
	var out []string
	if e.variants > 1 {
		for v := range e.variants {
			out = append(out, "variant_"+strconv.Itoa(v))
		}
	}
	for _, c := range e.cols {
		if c.log2 {
			out = append(out, "log2_"+c.name)
		} else {
			out = append(out, c.name)
		}
	}
	if e.prior != nil {
		out = append(out, "ln_prior")
	}
	return out
}

// row encodes a candidate.
func (e *encoder) row(c Candidate) []float64 {
	row := make([]float64, e.width())
	e.put(row, c)
	return row
}

// put encodes a candidate into row, which is zero and of the encoder's width.
func (e *encoder) put(row []float64, c Candidate) {
	var buf [16]int
	vals := buf[:0]
	for _, n := range e.names[c.Variant] {
		vals = append(vals, c.Setting[n])
	}
	e.putValues(row, c, vals)
}

// putValues is put with the candidate's values in its space's parameter order.
func (e *encoder) putValues(row []float64, c Candidate, vals []int) {
	off := 0
	if e.variants > 1 {
		row[c.Variant] = 1
		off = e.variants
	}
	for k, j := range e.index[c.Variant] {
		if j < 0 {
			continue
		}
		x := float64(vals[k])
		if e.cols[j].log2 {
			x = math.Log2(x)
		}
		row[off+j] = x
	}
	if e.prior != nil {
		row[len(row)-1] = e.prior(c)
	}
}

// rows encodes candidates into one block of memory: the trees then walk the rows of a window
// of a pool in the order they lie in memory. With ids, the candidates' indices in their
// variants' spaces (drawPool's), their values come from their indices, not from their maps.
func (e *encoder) rows(cs []Candidate, ids []uint64) [][]float64 {
	w := e.width()
	block := make([]float64, len(cs)*w)
	out := make([][]float64, len(cs))
	var vals []int
	for i, c := range cs {
		out[i] = block[i*w : (i+1)*w : (i+1)*w]
		if ids == nil {
			e.put(out[i], c)
			continue
		}
		var err error
		if vals, err = e.spaces[c.Variant].Values64(ids[i], vals); err != nil {
			e.put(out[i], c) // an index outside the space, not drawPool's: the map is right
			continue
		}
		e.putValues(out[i], c, vals)
	}
	return out
}
