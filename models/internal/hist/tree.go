package hist

// Tree is a regression tree in LightGBM's layout: internal node i splits on SplitFeature[i] with
// x <= Threshold[i] going left; a child c >= 0 is an internal node and c < 0 is leaf ^c.
type Tree struct {
	SplitFeature []int
	SplitBin     []uint8 // the split's bin, for routing binned rows during training
	Threshold    []float64
	SplitGain    []float64
	Left, Right  []int

	InternalValue  []float64
	InternalWeight []float64 // hessian sum
	InternalCount  []int

	LeafValue  []float64
	LeafWeight []float64
	LeafCount  []int
	LeafDepth  []int

	Shrinkage float64
}

// NumLeaves is the number of leaves.
func (t *Tree) NumLeaves() int { return len(t.LeafValue) }

// Leaf returns the leaf that row falls into.
func (t *Tree) Leaf(row []float64) int { return leaf(t, row, t.Threshold) }

// Predict returns the value of the leaf that row falls into.
func (t *Tree) Predict(row []float64) float64 { return t.LeafValue[t.Leaf(row)] }

// LeafBinned returns the leaf that binned row r of m falls into.
func (t *Tree) LeafBinned(m *Matrix, r int) int {
	if len(t.SplitFeature) == 0 {
		return 0
	}
	return leaf(t, m.Bins[r*m.Cols:(r+1)*m.Cols], t.SplitBin)
}

// leaf walks t from the root to the leaf that row falls into, going left at internal node n
// where row's value of the split feature is at most split[n]: a raw row against the
// thresholds, or a binned one against the split bins.
func leaf[V float64 | uint8](t *Tree, row, split []V) int {
	if len(t.SplitFeature) == 0 {
		return 0
	}
	n := 0
	for {
		var c int
		if row[t.SplitFeature[n]] <= split[n] {
			c = t.Left[n]
		} else {
			c = t.Right[n]
		}
		if c < 0 {
			return ^c
		}
		n = c
	}
}

// Scale multiplies every leaf and internal value by s and records it in Shrinkage, as
// LightGBM's learning rate does.
func (t *Tree) Scale(s float64) {
	for i := range t.LeafValue {
		t.LeafValue[i] *= s
	}
	for i := range t.InternalValue {
		t.InternalValue[i] *= s
	}
	t.Shrinkage *= s
}

// AddBias adds b to every leaf and internal value: how LightGBM folds the initial score into the
// first tree.
func (t *Tree) AddBias(b float64) {
	for i := range t.LeafValue {
		t.LeafValue[i] += b
	}
	for i := range t.InternalValue {
		t.InternalValue[i] += b
	}
}

// split turns leaf l into internal node n = NumLeaves()-1 whose left child keeps leaf index l
// and whose right child is the new leaf NumLeaves(), as LightGBM's Tree::Split numbers them.
// It returns the new leaf's index.
func (t *Tree) split(l int, parent int, f int, bin uint8, thr, gain float64, nodeValue, nodeWeight float64, nodeCount int) int {
	n := len(t.SplitFeature)
	if parent >= 0 {
		if t.Left[parent] == ^l {
			t.Left[parent] = n
		} else {
			t.Right[parent] = n
		}
	}
	r := len(t.LeafValue)
	t.SplitFeature = append(t.SplitFeature, f)
	t.SplitBin = append(t.SplitBin, bin)
	t.Threshold = append(t.Threshold, thr)
	t.SplitGain = append(t.SplitGain, gain)
	t.Left = append(t.Left, ^l)
	t.Right = append(t.Right, ^r)
	t.InternalValue = append(t.InternalValue, nodeValue)
	t.InternalWeight = append(t.InternalWeight, nodeWeight)
	t.InternalCount = append(t.InternalCount, nodeCount)
	t.LeafValue = append(t.LeafValue, 0)
	t.LeafWeight = append(t.LeafWeight, 0)
	t.LeafCount = append(t.LeafCount, 0)
	t.LeafDepth[l]++
	t.LeafDepth = append(t.LeafDepth, t.LeafDepth[l])
	return r
}
