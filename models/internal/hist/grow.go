package hist

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Params bound the growth of one tree.
type Params struct {
	MaxLeaves int // at least 2
	MaxDepth  int // 0: no limit beyond MaxLeaves
	// DepthWise grows level by level (XGBoost's default); otherwise the leaf with the largest
	// gain is split first (LightGBM's leaf-wise growth).
	DepthWise      bool
	Lambda         float64 // L2 regularisation of leaf values
	MinChildWeight float64 // least hessian sum in a child
	MinDataInLeaf  int     // least rows in a child
	MinGain        float64 // least gain of a split
	// FeatureFractionByNode is the share of the tree's features a node may split on, drawn anew
	// at every node (random forests); 0 or 1 means all.
	FeatureFractionByNode float64
}

// Check reports why the parameters cannot grow a tree, or nil.
func (p Params) Check() error {
	switch {
	case p.MaxLeaves < 2:
		return fmt.Errorf("max_leaves is %d; a tree needs at least 2", p.MaxLeaves)
	case p.MaxDepth < 0:
		return fmt.Errorf("max_depth is %d; use 0 (no limit) or more", p.MaxDepth)
	case p.Lambda < 0:
		return fmt.Errorf("lambda is %v; it cannot be negative", p.Lambda)
	case p.MinChildWeight < 0:
		return fmt.Errorf("min_child_weight is %v; it cannot be negative", p.MinChildWeight)
	case p.MinDataInLeaf < 1:
		return fmt.Errorf("min_data_in_leaf is %d; use 1 or more", p.MinDataInLeaf)
	case p.FeatureFractionByNode < 0 || p.FeatureFractionByNode > 1:
		return fmt.Errorf("feature fraction by node is %v; use a value in (0, 1]", p.FeatureFractionByNode)
	}
	return nil
}

// entry is one histogram bin: sums of gradients and hessians and the row count.
type entry struct {
	G, H float64
	N    int64
}

// Grower grows trees on one binned matrix; it reuses its buffers across trees. It is not safe
// for concurrent use.
type Grower struct {
	m       *Matrix
	p       Params
	threads int
	offsets []int // feature f's bins start at offsets[f] in a histogram
	total   int
	free    [][]entry
	partial [][]entry // per-thread histograms of a parallel build
	buf     []int32
}

// parallelMin is the number of rows below which a histogram is built on one goroutine: the
// merge of per-thread histograms costs more than it saves.
const parallelMin = 4096

// NewGrower returns a grower for m using up to threads goroutines per histogram.
func NewGrower(m *Matrix, p Params, threads int) (*Grower, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	g := &Grower{m: m, p: p, threads: max(1, threads), offsets: make([]int, m.Cols), buf: make([]int32, m.Rows)}
	for f, nb := range m.NumBins {
		g.offsets[f] = g.total
		g.total += nb
	}
	return g, nil
}

// Segment says that rows[Start:End] of a Grow call fell into leaf Leaf.
type Segment struct{ Leaf, Start, End int }

type split struct {
	feature int
	bin     uint8
	gain    float64
	gl, hl  float64
	nl      int64
}

type node struct {
	leaf, parent int
	start, end   int
	depth, seq   int
	g, h         float64
	n            int64
	hist         []entry
	best         split
	ok           bool // best is a valid split
	index        int  // position in Grow's list of leaves
}

// candidates are the leaves that can split, in the order they are split: largest gain first
// (leaf-wise), or shallowest and oldest first (depth-wise).
type candidates struct {
	depthWise bool
	nodes     []*node
}

func (c *candidates) Len() int { return len(c.nodes) }
func (c *candidates) Less(i, j int) bool {
	a, b := c.nodes[i], c.nodes[j]
	if c.depthWise {
		return a.depth < b.depth || a.depth == b.depth && a.seq < b.seq
	}
	return a.best.gain > b.best.gain || a.best.gain == b.best.gain && a.seq < b.seq
}
func (c *candidates) Swap(i, j int) { c.nodes[i], c.nodes[j] = c.nodes[j], c.nodes[i] }
func (c *candidates) Push(x any)    { c.nodes = append(c.nodes, x.(*node)) }
func (c *candidates) Pop() any {
	n := c.nodes[len(c.nodes)-1]
	c.nodes = c.nodes[:len(c.nodes)-1]
	return n
}

// Grow grows one tree from grad and hess (indexed by row of the matrix) over rows, which it
// reorders so that each leaf's rows are contiguous; it returns the tree with leaf values
// -G/(H+lambda) and the leaves' row segments. features lists the features splits may use (nil:
// all); rng draws per-node feature samples.
func (g *Grower) Grow(ctx context.Context, grad, hess []float64, rows []int32, features []int, rng *rand.Rand) (*Tree, []Segment, error) {
	if features == nil {
		features = make([]int, g.m.Cols)
		for f := range features {
			features[f] = f
		}
	}
	t := &Tree{LeafValue: []float64{0}, LeafWeight: []float64{0}, LeafCount: []int{0}, LeafDepth: []int{0}, Shrinkage: 1}
	root := &node{leaf: 0, parent: -1, start: 0, end: len(rows), hist: g.alloc()}
	g.build(root.hist, rows, grad, hess, features)
	for _, f := range features[:1] {
		for b := 0; b < g.m.NumBins[f]; b++ {
			e := root.hist[g.offsets[f]+b]
			root.g, root.h, root.n = root.g+e.G, root.h+e.H, root.n+e.N
		}
	}
	g.findBest(root, features, rng)
	nodes := []*node{root}
	cands := &candidates{depthWise: g.p.DepthWise}
	if root.ok {
		heap.Push(cands, root)
	}
	seq := 1
	for len(nodes) < g.p.MaxLeaves && cands.Len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		nd := heap.Pop(cands).(*node)
		s := nd.best
		mid := g.partition(rows, nd.start, nd.end, s.feature, s.bin)
		thr := g.m.Upper[s.feature][s.bin]
		internal := len(t.SplitFeature)
		r := t.split(nd.leaf, nd.parent, s.feature, s.bin, thr, s.gain, -nd.g/(nd.h+g.p.Lambda), nd.h, int(nd.n))
		left := &node{leaf: nd.leaf, parent: internal, start: nd.start, end: mid, depth: nd.depth + 1, seq: seq,
			g: s.gl, h: s.hl, n: s.nl}
		right := &node{leaf: r, parent: internal, start: mid, end: nd.end, depth: nd.depth + 1, seq: seq + 1,
			g: nd.g - s.gl, h: nd.h - s.hl, n: nd.n - s.nl}
		seq += 2
		// Build the smaller child's histogram; the larger one's is the parent's minus it.
		small, large := left, right
		if right.n < left.n {
			small, large = right, left
		}
		small.hist = g.alloc()
		g.build(small.hist, rows[small.start:small.end], grad, hess, features)
		large.hist = nd.hist
		for _, f := range features {
			o := g.offsets[f]
			for b := 0; b < g.m.NumBins[f]; b++ {
				e, c := &large.hist[o+b], small.hist[o+b]
				e.G -= c.G
				e.H -= c.H
				e.N -= c.N
			}
		}
		nd.hist = nil
		nodes[nd.index] = left
		left.index = nd.index
		right.index = len(nodes)
		nodes = append(nodes, right)
		for _, c := range []*node{left, right} {
			g.findBest(c, features, rng)
			if c.ok {
				heap.Push(cands, c)
			} else {
				// A leaf that will not split keeps no histogram.
				g.release(c.hist)
				c.hist = nil
			}
		}
	}
	segs := make([]Segment, len(nodes))
	for i, nd := range nodes {
		t.LeafValue[nd.leaf] = -nd.g / (nd.h + g.p.Lambda)
		t.LeafWeight[nd.leaf] = nd.h
		t.LeafCount[nd.leaf] = int(nd.n)
		segs[i] = Segment{Leaf: nd.leaf, Start: nd.start, End: nd.end}
		g.release(nd.hist)
	}
	return t, segs, nil
}

func (g *Grower) alloc() []entry {
	if n := len(g.free); n > 0 {
		h := g.free[n-1]
		g.free = g.free[:n-1]
		return h
	}
	return make([]entry, g.total)
}

func (g *Grower) release(h []entry) {
	if h != nil {
		g.free = append(g.free, h)
	}
}

// build fills h with the histogram of rows over features.
func (g *Grower) build(h []entry, rows []int32, grad, hess []float64, features []int) {
	clear(h)
	nt := min(g.threads, len(rows)/parallelMin)
	if nt <= 1 {
		g.accumulate(h, rows, grad, hess, features)
		return
	}
	for len(g.partial) < nt-1 {
		g.partial = append(g.partial, make([]entry, g.total))
	}
	var wg sync.WaitGroup
	chunk := (len(rows) + nt - 1) / nt
	for t := 1; t < nt; t++ {
		part := g.partial[t-1]
		lo, hi := t*chunk, min(len(rows), (t+1)*chunk)
		wg.Go(func() {
			clear(part)
			g.accumulate(part, rows[lo:hi], grad, hess, features)
		})
	}
	g.accumulate(h, rows[:chunk], grad, hess, features)
	wg.Wait()
	for _, part := range g.partial[:nt-1] {
		for i := range h {
			h[i].G += part[i].G
			h[i].H += part[i].H
			h[i].N += part[i].N
		}
	}
}

func (g *Grower) accumulate(h []entry, rows []int32, grad, hess []float64, features []int) {
	cols, bins, off := g.m.Cols, g.m.Bins, g.offsets
	if len(features) == cols {
		for _, r := range rows {
			gr, hr := grad[r], hess[r]
			rb := bins[int(r)*cols : int(r)*cols+cols]
			off := off[:len(rb)] // lets the compiler drop the bounds check on off[f]
			for f, b := range rb {
				e := &h[off[f]+int(b)]
				e.G += gr
				e.H += hr
				e.N++
			}
		}
		return
	}
	for _, r := range rows {
		gr, hr := grad[r], hess[r]
		rb := bins[int(r)*cols : int(r)*cols+cols]
		for _, f := range features {
			e := &h[off[f]+int(rb[f])]
			e.G += gr
			e.H += hr
			e.N++
		}
	}
}

// findBest finds the best split of nd over features (or a per-node sample of them).
func (g *Grower) findBest(nd *node, features []int, rng *rand.Rand) {
	nd.ok = false
	p := g.p
	if p.MaxDepth > 0 && nd.depth >= p.MaxDepth || nd.n < 2*int64(p.MinDataInLeaf) || nd.h < 2*p.MinChildWeight {
		return
	}
	if fr := p.FeatureFractionByNode; fr > 0 && fr < 1 {
		k := max(1, int(fr*float64(len(features))+0.5))
		sample := make([]int, len(features))
		copy(sample, features)
		rng.Shuffle(len(sample), func(i, j int) { sample[i], sample[j] = sample[j], sample[i] })
		features = sample[:k]
	}
	parent := nd.g * nd.g / (nd.h + p.Lambda)
	best := split{gain: p.MinGain}
	for _, f := range features {
		o := g.offsets[f]
		var gl, hl float64
		var nl int64
		for b := 0; b < g.m.NumBins[f]-1; b++ {
			e := nd.hist[o+b]
			gl, hl, nl = gl+e.G, hl+e.H, nl+e.N
			if nl < int64(p.MinDataInLeaf) || hl < p.MinChildWeight {
				continue
			}
			nr, hr := nd.n-nl, nd.h-hl
			if nr < int64(p.MinDataInLeaf) || hr < p.MinChildWeight {
				break
			}
			if hl+p.Lambda <= 0 || hr+p.Lambda <= 0 {
				continue
			}
			gr := nd.g - gl
			gain := gl*gl/(hl+p.Lambda) + gr*gr/(hr+p.Lambda) - parent
			if gain > best.gain {
				best = split{feature: f, bin: uint8(b), gain: gain, gl: gl, hl: hl, nl: nl}
				nd.ok = true
			}
		}
	}
	nd.best = best
}

// partition reorders rows[start:end] stably so that rows with bin <= b of feature f come first,
// and returns where the others start.
func (g *Grower) partition(rows []int32, start, end, f int, b uint8) int {
	cols, bins := g.m.Cols, g.m.Bins
	w, nr := start, 0
	for _, r := range rows[start:end] {
		if bins[int(r)*cols+f] <= b {
			rows[w] = r
			w++
		} else {
			g.buf[nr] = r
			nr++
		}
	}
	copy(rows[w:end], g.buf[:nr])
	return w
}
