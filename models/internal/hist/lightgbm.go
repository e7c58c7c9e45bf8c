package hist

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Ensemble is a sum (or, for a random forest, an average) of trees, as LightGBM saves it. With
// NumClass > 1 the trees of iteration i are Trees[i*NumClass : (i+1)*NumClass], one per class,
// and the raw scores go through a softmax.
type Ensemble struct {
	Trees         []*Tree
	NumClass      int
	Objective     string // LightGBM's objective line, e.g. "regression" or "multiclass num_class:5"
	AverageOutput bool   // random forest: the trees' mean rather than their sum
	FeatureNames  []string
	FeatureInfos  []string // "[min:max]" per feature, or "none"
	Parameters    []string // lines of the "parameters:" section, e.g. "[learning_rate: 0.1]"
}

// RegressionObjective and MulticlassObjective are the objective lines this package writes.
const RegressionObjective = "regression"

// MulticlassObjective returns the objective line of a softmax model with k classes.
func MulticlassObjective(k int) string { return fmt.Sprintf("multiclass num_class:%d", k) }

// FeatureInfos returns LightGBM's feature_infos for the binner's features: the range of each,
// or "none" for a feature with one value (LightGBM's mark for a feature it cannot split on).
func (b *Binner) FeatureInfos() []string {
	out := make([]string, len(b.Min))
	for f := range b.Min {
		if b.Min[f] == b.Max[f] {
			out[f] = "none"
		} else {
			out[f] = "[" + fmtFloat(b.Min[f]) + ":" + fmtFloat(b.Max[f]) + "]"
		}
	}
	return out
}

// fmtFloat writes the shortest text that parses back to the same float64.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Raw returns the ensemble's raw scores for row, one per class: sums (or means) of tree outputs
// before any softmax. It is the reference evaluation that leaves' must match.
func (e *Ensemble) Raw(row []float64) []float64 {
	k := max(1, e.NumClass)
	out := make([]float64, k)
	for i, t := range e.Trees {
		out[i%k] += t.Predict(row)
	}
	if e.AverageOutput && len(e.Trees) > 0 {
		for c := range out {
			out[c] /= float64(len(e.Trees) / k)
		}
	}
	return out
}

// Softmax replaces raw scores by probabilities in place.
func Softmax(v []float64) {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	s := 0.0
	for i, x := range v {
		v[i] = math.Exp(x - m)
		s += v[i]
	}
	for i := range v {
		v[i] /= s
	}
}

// SplitCounts returns how often each feature is split on, LightGBM's feature_importances.
func (e *Ensemble) SplitCounts() []int {
	n := make([]int, len(e.FeatureNames))
	for _, t := range e.Trees {
		for _, f := range t.SplitFeature {
			n[f]++
		}
	}
	return n
}

// SplitGains returns the total gain of the splits on each feature.
func (e *Ensemble) SplitGains() []float64 {
	g := make([]float64, len(e.FeatureNames))
	for _, t := range e.Trees {
		for i, f := range t.SplitFeature {
			g[f] += t.SplitGain[i]
		}
	}
	return g
}

// MarshalText writes the ensemble in LightGBM's version-3 text model format.
func (e *Ensemble) MarshalText() ([]byte, error) {
	if e.NumClass < 1 || len(e.Trees)%e.NumClass != 0 || len(e.Trees) == 0 {
		return nil, fmt.Errorf("ensemble has %d trees for %d classes; it needs a positive multiple", len(e.Trees), e.NumClass)
	}
	blocks := make([]string, len(e.Trees))
	sizes := make([]string, len(e.Trees))
	for i, t := range e.Trees {
		blocks[i] = "Tree=" + strconv.Itoa(i) + "\n" + t.lightGBM() + "\n"
		sizes[i] = strconv.Itoa(len(blocks[i]))
	}
	var b strings.Builder
	b.WriteString("tree\nversion=v3\n")
	fmt.Fprintf(&b, "num_class=%d\nnum_tree_per_iteration=%d\nlabel_index=0\nmax_feature_idx=%d\n", e.NumClass, e.NumClass, len(e.FeatureNames)-1)
	fmt.Fprintf(&b, "objective=%s\n", e.Objective)
	if e.AverageOutput {
		b.WriteString("average_output\n")
	}
	fmt.Fprintf(&b, "feature_names=%s\n", strings.Join(e.FeatureNames, " "))
	fmt.Fprintf(&b, "feature_infos=%s\n", strings.Join(e.FeatureInfos, " "))
	fmt.Fprintf(&b, "tree_sizes=%s\n\n", strings.Join(sizes, " "))
	for _, s := range blocks {
		b.WriteString(s)
	}
	b.WriteString("end of trees\n\nfeature_importances:\n")
	counts := e.SplitCounts()
	order := make([]int, len(counts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	for _, f := range order {
		if counts[f] > 0 {
			fmt.Fprintf(&b, "%s=%d\n", e.FeatureNames[f], counts[f])
		}
	}
	b.WriteString("\nparameters:\n")
	for _, p := range e.Parameters {
		b.WriteString(p + "\n")
	}
	b.WriteString("end of parameters\n\npandas_categorical:null\n")
	return []byte(b.String()), nil
}

// lightGBM writes one tree's block, without the "Tree=i" line, as LightGBM's Tree::ToString.
func (t *Tree) lightGBM() string {
	var b strings.Builder
	line := func(key string, vals []string) {
		b.WriteString(key + "=" + strings.Join(vals, " ") + "\n")
	}
	ints := func(v []int) []string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return s
	}
	floats := func(v []float64) []string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmtFloat(x)
		}
		return s
	}
	fmt.Fprintf(&b, "num_leaves=%d\nnum_cat=0\n", t.NumLeaves())
	line("split_feature", ints(t.SplitFeature))
	line("split_gain", floats(t.SplitGain))
	line("threshold", floats(t.Threshold))
	// 2: numerical, missing values none, default left (never used without missing values).
	dt := make([]string, len(t.SplitFeature))
	for i := range dt {
		dt[i] = "2"
	}
	line("decision_type", dt)
	line("left_child", ints(t.Left))
	line("right_child", ints(t.Right))
	line("leaf_value", floats(t.LeafValue))
	line("leaf_weight", floats(t.LeafWeight))
	line("leaf_count", ints(t.LeafCount))
	line("internal_value", floats(t.InternalValue))
	line("internal_weight", floats(t.InternalWeight))
	line("internal_count", ints(t.InternalCount))
	b.WriteString("is_linear=0\n")
	fmt.Fprintf(&b, "shrinkage=%s\n", fmtFloat(t.Shrinkage))
	return b.String()
}

// ParseLightGBM reads a LightGBM text model (version v2 or v3) with numerical splits only. It
// is this package's own reader, independent of leaves, used to check leaves and to recover the
// trees of a saved model.
func ParseLightGBM(text []byte) (*Ensemble, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<30) // a tree line can be long
	line := 0
	readBlock := func() (map[string]string, error) {
		kv := map[string]string{}
		for sc.Scan() {
			line++
			s := strings.TrimRight(sc.Text(), "\r")
			if s == "" {
				if len(kv) == 0 {
					continue
				}
				return kv, nil
			}
			k, v, _ := strings.Cut(s, "=")
			kv[k] = v
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		return kv, nil
	}
	head, err := readBlock()
	if err != nil {
		return nil, err
	}
	if _, ok := head["tree"]; !ok {
		return nil, fmt.Errorf("not a LightGBM text model: it does not start with \"tree\"")
	}
	if v := head["version"]; v != "v2" && v != "v3" {
		return nil, fmt.Errorf("LightGBM model version %q: this reader knows v2 and v3", v)
	}
	e := &Ensemble{Objective: head["objective"]}
	_, e.AverageOutput = head["average_output"]
	if e.NumClass, err = strconv.Atoi(head["num_tree_per_iteration"]); err != nil || e.NumClass < 1 {
		return nil, fmt.Errorf("bad num_tree_per_iteration %q", head["num_tree_per_iteration"])
	}
	maxFeature, err := strconv.Atoi(head["max_feature_idx"])
	if err != nil || maxFeature < 0 {
		return nil, fmt.Errorf("bad max_feature_idx %q", head["max_feature_idx"])
	}
	e.FeatureNames = strings.Fields(head["feature_names"])
	if len(e.FeatureNames) != maxFeature+1 {
		return nil, fmt.Errorf("feature_names lists %d names for max_feature_idx %d", len(e.FeatureNames), maxFeature)
	}
	e.FeatureInfos = strings.Fields(head["feature_infos"])
	nTrees := len(strings.Fields(head["tree_sizes"]))
	if nTrees == 0 || nTrees%e.NumClass != 0 {
		return nil, fmt.Errorf("tree_sizes lists %d trees for %d trees per iteration", nTrees, e.NumClass)
	}
	for i := 0; i < nTrees; i++ {
		kv, err := readBlock()
		if err != nil {
			return nil, err
		}
		if kv["Tree"] != strconv.Itoa(i) {
			return nil, fmt.Errorf("line %d: expected Tree=%d, found %q", line, i, kv["Tree"])
		}
		t, err := parseTree(kv, maxFeature)
		if err != nil {
			return nil, fmt.Errorf("tree %d: %w", i, err)
		}
		e.Trees = append(e.Trees, t)
	}
	return e, nil
}

func parseTree(kv map[string]string, maxFeature int) (*Tree, error) {
	nl, err := strconv.Atoi(kv["num_leaves"])
	if err != nil || nl < 1 {
		return nil, fmt.Errorf("bad num_leaves %q", kv["num_leaves"])
	}
	if kv["num_cat"] != "0" {
		return nil, fmt.Errorf("categorical splits (num_cat=%s) are not supported", kv["num_cat"])
	}
	t := &Tree{Shrinkage: 1}
	if s, ok := kv["shrinkage"]; ok {
		if t.Shrinkage, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("bad shrinkage %q", s)
		}
	}
	if t.LeafValue, err = floatsOf(kv, "leaf_value", nl); err != nil {
		return nil, err
	}
	if nl == 1 {
		return t, nil
	}
	n := nl - 1
	if t.SplitFeature, err = intsOf(kv, "split_feature", n); err != nil {
		return nil, err
	}
	if t.Threshold, err = floatsOf(kv, "threshold", n); err != nil {
		return nil, err
	}
	if t.Left, err = intsOf(kv, "left_child", n); err != nil {
		return nil, err
	}
	if t.Right, err = intsOf(kv, "right_child", n); err != nil {
		return nil, err
	}
	dt, err := intsOf(kv, "decision_type", n)
	if err != nil {
		return nil, err
	}
	if _, ok := kv["split_gain"]; ok {
		if t.SplitGain, err = floatsOf(kv, "split_gain", n); err != nil {
			return nil, err
		}
	} else {
		t.SplitGain = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		switch {
		case dt[i]&1 != 0:
			return nil, fmt.Errorf("node %d is a categorical split; not supported", i)
		case (dt[i]>>2)&3 != 0:
			return nil, fmt.Errorf("node %d routes missing values (zero or NaN) apart; smart's features have none, so such models are not supported", i)
		case t.SplitFeature[i] < 0 || t.SplitFeature[i] > maxFeature:
			return nil, fmt.Errorf("node %d splits on feature %d, beyond max_feature_idx %d", i, t.SplitFeature[i], maxFeature)
		}
		for _, c := range []int{t.Left[i], t.Right[i]} {
			if c >= n || c < 0 && ^c >= nl || c == 0 {
				return nil, fmt.Errorf("node %d has child %d outside the tree", i, c)
			}
		}
	}
	// Every node and leaf must be reached exactly once from the root, or evaluation could loop.
	seenNode, seenLeaf := make([]bool, n), make([]bool, nl)
	stack := []int{0}
	seenNode[0] = true
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range []int{t.Left[i], t.Right[i]} {
			if c < 0 {
				if seenLeaf[^c] {
					return nil, fmt.Errorf("leaf %d is reached twice", ^c)
				}
				seenLeaf[^c] = true
			} else {
				if seenNode[c] {
					return nil, fmt.Errorf("node %d is reached twice", c)
				}
				seenNode[c] = true
				stack = append(stack, c)
			}
		}
	}
	for l, ok := range seenLeaf {
		if !ok {
			return nil, fmt.Errorf("leaf %d is not reached from the root", l)
		}
	}
	return t, nil
}

func floatsOf(kv map[string]string, key string, n int) ([]float64, error) {
	f := strings.Fields(kv[key])
	if len(f) != n {
		return nil, fmt.Errorf("%s has %d values, want %d", key, len(f), n)
	}
	out := make([]float64, n)
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s[%d] is %q, not a number", key, i, s)
		}
		out[i] = v
	}
	return out, nil
}

func intsOf(kv map[string]string, key string, n int) ([]int, error) {
	f := strings.Fields(kv[key])
	if len(f) != n {
		return nil, fmt.Errorf("%s has %d values, want %d", key, len(f), n)
	}
	out := make([]int, n)
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s[%d] is %q, not an integer", key, i, s)
		}
		out[i] = v
	}
	return out, nil
}
