package hist

import "sync"

// forest is a regression ensemble laid out for prediction: the nodes of every tree in one
// array. It decides as leaves does for the splits ParseLightGBM accepts (numerical, no missing
// value routed apart): a NaN feature counts as 0, then x <= threshold goes left. It sums the
// trees in order from 0, as leaves does, so its numbers are leaves' bit for bit; leaves' node
// walk was most of a smart predict.
type forest struct {
	nodes  []forestNode
	roots  []int32 // each tree's root: a node, or ^leaf for a tree of one leaf
	leaves []float64
}

type forestNode struct {
	threshold float64
	feature   int32
	child     [2]int32 // left and right: a node, or ^leaf
}

func newForest(e *Ensemble) *forest {
	f := &forest{}
	for _, t := range e.Trees {
		node, leaf := int32(len(f.nodes)), int32(len(f.leaves))
		child := func(c int) int32 {
			if c < 0 {
				return ^(leaf + int32(^c))
			}
			return node + int32(c)
		}
		if len(t.SplitFeature) == 0 {
			f.roots = append(f.roots, ^leaf)
		} else {
			f.roots = append(f.roots, node)
		}
		for i := range t.SplitFeature {
			f.nodes = append(f.nodes, forestNode{threshold: t.Threshold[i], feature: int32(t.SplitFeature[i]),
				child: [2]int32{child(t.Left[i]), child(t.Right[i])}})
		}
		f.leaves = append(f.leaves, t.LeafValue...)
	}
	return f
}

// blockRows is how many rows walk each tree together (predictBlock).
const blockRows = 8

// predictBlock predicts up to blockRows rows into out, walking each tree for all of them at
// once: the walks are independent, so the CPU overlaps them instead of waiting on each
// mispredicted branch in turn (docs/performance.md). Each row's sum still adds the trees in
// order from 0.
func (f *forest) predictBlock(rows [][]float64, out []float64) {
	var sum [blockRows]float64
	var at [blockRows]int32
	n := len(rows)
	for _, root := range f.roots {
		for j := range n {
			at[j] = root
		}
		for walking := true; walking; {
			walking = false
			for j := range n {
				if c := at[j]; c >= 0 {
					at[j] = f.child(c, rows[j])
					walking = true
				}
			}
		}
		for j := range n {
			sum[j] += f.leaves[^at[j]]
		}
	}
	copy(out, sum[:n])
}

// child is where row goes from node c.
func (f *forest) child(c int32, row []float64) int32 {
	nd := &f.nodes[c]
	x := row[nd.feature]
	if x != x { // NaN
		x = 0
	}
	right := 1 // chosen without a branch, which the walks of predictBlock could not overlap
	if x <= nd.threshold {
		right = 0
	}
	return nd.child[right]
}

// predictRows predicts each of rows, which hold every feature the trees read, into out, on up
// to threads goroutines for large batches: a search scores a few hundred rows at a time, a
// cross-validation many thousands.
func (f *forest) predictRows(rows [][]float64, out []float64, threads int) {
	const perWorker = 64 // fewer rows than this are not worth a goroutine
	blocks := func(lo, hi int) {
		for ; lo < hi; lo += blockRows {
			end := min(lo+blockRows, hi)
			f.predictBlock(rows[lo:end], out[lo:end])
		}
	}
	workers := min(threads, len(rows)/perWorker)
	if workers <= 1 {
		blocks(0, len(rows))
		return
	}
	var wg sync.WaitGroup
	chunk := (len(rows) + workers - 1) / workers
	for lo := 0; lo < len(rows); lo += chunk {
		wg.Go(func() { blocks(lo, min(lo+chunk, len(rows))) })
	}
	wg.Wait()
}
