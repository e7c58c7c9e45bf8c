package tuner

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ensemble is a bagged ensemble of regression trees kept in Go: the surrogate of the Pipeline's
// search, which refits after every few evaluations on at most a few thousand rows and needs
// each tree's prediction (their spread is the model's uncertainty; one tree is a Thompson
// sample). models/forest grows the same kind of forest for models that are saved, through
// LightGBM's text format and leaves, which costs tens of milliseconds per fit; this one fits
// a few hundred rows in about a millisecond. Splits are exact: a feature's distinct training
// values (settings take few) are its bins.
type ensemble struct {
	trees []tree
}

// tree is a regression tree in pre-order: a node's left child follows it, so a node needs
// only its right child's index, and 16 bytes hold it (four to a cache line; prediction walks
// thousands of rows per pick and is most of the strategies' time).
type tree struct {
	nodes []node
	lo    []float64 // the least leaf value of each node's subtree
}

type node struct {
	threshold float64 // go left when x <= threshold; a leaf's value
	feature   int32   // -1 marks a leaf
	right     int32
}

// ensembleParams are the surrogate's hyper-parameters.
type ensembleParams struct {
	trees       int
	minLeaf     int     // least rows in a leaf
	featureFrac float64 // share of features tried at each split
}

var defaultEnsemble = ensembleParams{trees: 32, minLeaf: 1, featureFrac: 0.7}

// fitEnsemble grows the trees on bootstrap samples of (X, y).
func fitEnsemble(X [][]float64, y []float64, p ensembleParams, rng *rand.Rand) *ensemble {
	n, d := len(X), len(X[0])
	// Bin every feature by its distinct values.
	bins := make([][]float64, d) // sorted distinct values per feature
	codes := make([][]uint8, d)  // bin of each row per feature
	for f := range d {
		vals := make([]float64, n)
		for i := range n {
			vals[i] = X[i][f]
		}
		u := slices.Clone(vals)
		slices.Sort(u)
		u = slices.Compact(u)
		if len(u) > 255 {
			// Too many distinct values: keep 255 quantiles as bin edges.
			q := make([]float64, 255)
			for k := range q {
				q[k] = u[k*len(u)/255]
			}
			u = slices.Compact(q)
		}
		bins[f] = u
		codes[f] = make([]uint8, n)
		for i, v := range vals {
			j, _ := slices.BinarySearch(u, v)
			if j == len(u) || u[j] != v {
				j-- // between quantile edges: the bin below
			}
			codes[f][i] = uint8(max(j, 0))
		}
	}
	g := &grower{bins: bins, codes: codes, y: y, p: p, rng: rng, features: make([]int, d)}
	for f := range g.features {
		g.features[f] = f
	}
	e := &ensemble{trees: make([]tree, p.trees)}
	rows := make([]int32, n)
	for t := range e.trees {
		for i := range rows {
			rows[i] = int32(rng.IntN(n))
		}
		e.trees[t] = g.grow(rows)
	}
	return e
}

type grower struct {
	bins     [][]float64
	codes    [][]uint8
	y        []float64
	p        ensembleParams
	rng      *rand.Rand
	features []int
	sum      [256]float64
	cnt      [256]int
	scratch  tree // grown into, then copied at its final size: no garbage from appends
}

// grow grows a tree on the bootstrap sample rows, which it reorders.
func (g *grower) grow(rows []int32) tree {
	g.scratch.nodes, g.scratch.lo = g.scratch.nodes[:0], g.scratch.lo[:0]
	g.node(&g.scratch, rows)
	return tree{nodes: slices.Clone(g.scratch.nodes), lo: slices.Clone(g.scratch.lo)}
}

// node grows the subtree of rows in pre-order.
func (g *grower) node(t *tree, rows []int32) {
	id := len(t.nodes)
	total := 0.0
	for _, r := range rows {
		total += g.y[r]
	}
	t.nodes = append(t.nodes, node{threshold: total / float64(len(rows)), feature: -1})
	t.lo = append(t.lo, t.nodes[id].threshold)
	if len(rows) < 2*g.p.minLeaf {
		return
	}
	bestGain, bestF, bestBin := 1e-12, -1, 0
	nf := min(len(g.features), max(1, int(math.Ceil(g.p.featureFrac*float64(len(g.features))))))
	// rand.Shuffle's Fisher-Yates, the same draws without a call through a closure per swap.
	for i := len(g.features) - 1; i > 0; i-- {
		j := int(g.rng.Uint64N(uint64(i + 1)))
		g.features[i], g.features[j] = g.features[j], g.features[i]
	}
	parent := total * total / float64(len(rows))
	for _, f := range g.features[:nf] {
		nb := len(g.bins[f])
		if nb < 2 {
			continue
		}
		// Locals, so that the stores into the histogram do not make the compiler reload the
		// grower's fields.
		sum, cnt, codes, y, minLeaf := &g.sum, &g.cnt, g.codes[f], g.y, g.p.minLeaf
		clear(sum[:nb])
		clear(cnt[:nb])
		for _, r := range rows {
			b := codes[r]
			sum[b] += y[r]
			cnt[b]++
		}
		ls, lc := 0.0, 0
		for b := 0; b < nb-1; b++ {
			ls += sum[b]
			lc += cnt[b]
			if lc < minLeaf {
				continue
			}
			rc := len(rows) - lc
			if rc < minLeaf {
				break
			}
			if cnt[b] == 0 {
				continue // the same split as the bin before
			}
			rs := total - ls
			// Reduction of the squared error: the between-groups sum of squares.
			gain := ls*ls/float64(lc) + rs*rs/float64(rc) - parent
			if gain > bestGain {
				bestGain, bestF, bestBin = gain, f, b
			}
		}
	}
	if bestF < 0 {
		return
	}
	// Partition rows in place, the left child's rows first: Lomuto's swap of row i and row
	// split where row i goes left, written as selects the compiler makes conditional moves.
	codes, split := g.codes[bestF], 0
	for i, row := range rows {
		var left int32
		if int(codes[row]) <= bestBin {
			left = 1
		}
		other := rows[split]
		rows[i], rows[split] = row+left*(other-row), other+left*(row-other)
		split += int(left)
	}
	u := g.bins[bestF]
	g.node(t, rows[:split]) // at id+1
	right := len(t.nodes)
	g.node(t, rows[split:])
	t.nodes[id] = node{threshold: (u[bestBin] + u[bestBin+1]) / 2, feature: int32(bestF), right: int32(right)}
	t.lo[id] = min(t.lo[id+1], t.lo[right])
}

// predict walks row down to its leaf and returns the leaf's value.
func (t *tree) predict(row []float64) float64 {
	i, inner := int32(0), int32(len(t.nodes)-1) // a lone leaf is the whole walk
	for inner != 0 {
		i, inner = t.step(row, i)
	}
	return t.nodes[i].threshold
}

// step takes row one level down from node i, to its left child i+1 or its right one, by
// arithmetic rather than a branch, which the compiler makes conditional moves (half of a
// walk's branches would be mispredicted). At a leaf it stays, and inner is 0. It reads feature
// 0 at a leaf, so the tree must have more than one node (rows without features only meet
// lone leaves).
func (t *tree) step(row []float64, i int32) (next, inner int32) {
	n := &t.nodes[i]
	var right int32
	if n.feature >= 0 {
		inner = 1
	}
	if !(row[max(n.feature, 0)] <= n.threshold) { // NaN goes right, as in fastest
		right = 1
	}
	return i + inner*(1+right*(n.right-i-1)), inner
}

// fastest appends to out[:0] the positions, among those in idx, of the rows that the tree
// predicts fastest, in any order; cols[f][p] is feature f of the row at position p. It
// walks the tree with the rows as a batch, partitioning idx in place, and skips every subtree
// whose fastest leaf is slower than the best found so far: a few passes over the rows instead
// of one walk from the root for each row. A node reads one column at the rows' positions, a
// few pages the cache keeps, where rows would spread its reads over all features' memory
// (several times as slow: docs/performance.md).
func (t *tree) fastest(cols [][]float64, idx, out []int) []int {
	best := math.Inf(1)
	out = out[:0]
	var visit func(i int32, idx []int)
	visit = func(i int32, idx []int) {
		if len(idx) == 0 || t.lo[i] > best {
			return
		}
		n := &t.nodes[i]
		if n.feature < 0 {
			if n.threshold < best {
				best, out = n.threshold, out[:0]
			}
			out = append(out, idx...)
			return
		}
		split := partition(idx, cols[n.feature], n.threshold)
		l, r := i+1, n.right
		if t.lo[r] < t.lo[l] {
			visit(r, idx[split:])
			visit(l, idx[:split])
			return
		}
		visit(l, idx[:split])
		visit(r, idx[split:])
	}
	visit(0, idx)
	return out
}

// partition moves the positions p in idx with col[p] <= x to its front and returns their
// number; NaN goes right, as in step. It is Lomuto's partition with an unconditional swap (the
// compiler makes the count a conditional move), and changes the order within each side. It is
// not inlined: inside the recursive walks the loop's values spilled to the stack.
//
//go:noinline
func partition(idx []int, col []float64, x float64) int {
	split := 0
	for j, p := range idx {
		idx[j], idx[split] = idx[split], p
		var left int
		if col[p] <= x {
			left = 1
		}
		split += left
	}
	return split
}

// columns returns the w columns of rows, cols[f][i] = rows[i][f].
func columns(rows [][]float64, w int) [][]float64 {
	cols := make([][]float64, w)
	for f := range cols {
		cols[f] = make([]float64, len(rows))
		for i, row := range rows {
			cols[f][i] = row[f]
		}
	}
	return cols
}

// mean is predict's mean of one row, without its allocations.
func (e *ensemble) mean(row []float64) float64 {
	s := 0.0
	for t := range e.trees {
		s += e.trees[t].predict(row)
	}
	return s / float64(len(e.trees))
}

// predict returns the mean and standard deviation over the trees for each row.
func (e *ensemble) predict(rows [][]float64) (mean, std []float64) {
	mean, std = make([]float64, len(rows)), make([]float64, len(rows))
	if len(rows) >= batchRows {
		e.sumBatch(rows, mean, std)
	} else {
		e.sumWalks(rows, mean, std)
	}
	k := float64(len(e.trees))
	for i, s := range mean {
		m := s / k
		mean[i], std[i] = m, math.Sqrt(max(0, std[i]/k-m*m))
	}
	return mean, std
}

// batchRows is the least rows that predict sends down the trees as a batch: for fewer, the
// copy into columns costs more than the batch saves.
const batchRows = 512

// sumBatch adds, for each row, the trees' leaf values to s and their squares to ss, tree after
// tree. The rows go down each tree together, partitioned at each node by one column of a copy
// of them, as tree.fastest does without its pruning: passes over a column instead of a chain
// of dependent loads per row and tree (faster than sumWalks on large batches, the copy
// included: BenchmarkEnsemblePredict, docs/performance.md). The sums are sumWalks', added in
// the same order.
func (e *ensemble) sumBatch(rows [][]float64, s, ss []float64) {
	cols := columns(rows, len(rows[0]))
	idx := make([]int, len(rows))
	for t := range e.trees {
		for i := range idx {
			idx[i] = i
		}
		e.trees[t].addLeaves(0, cols, idx, s, ss)
	}
}

// addLeaves adds the leaf value of each row at a position in idx of the subtree at node i to
// s, and its square to ss; it reorders idx.
func (t *tree) addLeaves(i int32, cols [][]float64, idx []int, s, ss []float64) {
	if len(idx) == 0 {
		return
	}
	n := &t.nodes[i]
	if n.feature < 0 {
		v := n.threshold
		for _, p := range idx {
			s[p] += v
			ss[p] += v * v
		}
		return
	}
	split := partition(idx, cols[n.feature], n.threshold)
	t.addLeaves(i+1, cols, idx[:split], s, ss)
	t.addLeaves(n.right, cols, idx[split:], s, ss)
}

// sumWalks is sumBatch by walking each row down each tree, four rows in step.
func (e *ensemble) sumWalks(rows [][]float64, s, ss []float64) {
	lo := 0
	for ; lo+walkers <= len(rows); lo += walkers {
		block := (*[walkers][]float64)(rows[lo:])
		var bs, bss [walkers]float64
		for t := range e.trees {
			for b, v := range e.trees[t].predictBlock(block) {
				bs[b] += v
				bss[b] += v * v
			}
		}
		copy(s[lo:], bs[:])
		copy(ss[lo:], bss[:])
	}
	for i, row := range rows[lo:] { // the last few rows, one at a time
		for t := range e.trees {
			v := e.trees[t].predict(row)
			s[lo+i] += v
			ss[lo+i] += v * v
		}
	}
}

// walkers is the number of rows predictBlock walks down a tree together.
const walkers = 4

// predictBlock is predict of four rows at once. A walk is a chain of dependent loads; the
// rows' walks are independent, and taking them a level at a time in step lets the processor
// overlap them (with step's conditional moves, faster than one branching walk per row:
// BenchmarkEnsemblePredict, docs/performance.md). A row that has reached its leaf stays there
// until the deepest one has.
func (t *tree) predictBlock(rows *[walkers][]float64) [walkers]float64 {
	var a0, a1, a2, a3 int32
	for inner := int32(len(t.nodes) - 1); inner != 0; {
		var in0, in1, in2, in3 int32
		a0, in0 = t.step(rows[0], a0)
		a1, in1 = t.step(rows[1], a1)
		a2, in2 = t.step(rows[2], a2)
		a3, in3 = t.step(rows[3], a3)
		inner = in0 | in1 | in2 | in3
	}
	return [walkers]float64{t.nodes[a0].threshold, t.nodes[a1].threshold, t.nodes[a2].threshold, t.nodes[a3].threshold}
}
