package models

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// GroupFolds assigns rows to k folds so that all rows of a group land in the same fold; rows
// without groups (nil) are their own group. Groups are shuffled with seed and dealt to folds
// largest first, each to the fold with the fewest rows, so folds hold similar row counts. It
// returns the row indices of each fold.
func GroupFolds(groups []string, rows, k int, seed uint64) ([][]int, error) {
	order, members := groupsOf(groups, rows, seed)
	if k < 2 {
		return nil, fmt.Errorf("cross-validation needs at least 2 folds, not %d", k)
	}
	if len(order) < k {
		return nil, fmt.Errorf("%d folds need at least %d groups (stencils); the data has %d", k, k, len(order))
	}
	sort.SliceStable(order, func(i, j int) bool { return len(members[order[i]]) > len(members[order[j]]) })
	folds := make([][]int, k)
	for _, g := range order {
		small := 0
		for f := range folds {
			if len(folds[f]) < len(folds[small]) {
				small = f
			}
		}
		folds[small] = append(folds[small], members[g]...)
	}
	for _, f := range folds {
		sort.Ints(f)
	}
	return folds, nil
}

// groupsOf returns the distinct groups in a seeded random order and the rows of each.
func groupsOf(groups []string, rows int, seed uint64) ([]string, map[string][]int) {
	members := map[string][]int{}
	var order []string
	for i := 0; i < rows; i++ {
		g := fmt.Sprintf("\x00row%d", i)
		if groups != nil {
			g = groups[i]
		}
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], i)
	}
	sort.Strings(order) // map-independent, so the seed alone decides the shuffle
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order, members
}

// SplitGroups holds out about frac of d's groups (at least one, at most all but one) as a
// validation set, for early stopping. It returns the training and validation rows.
func SplitGroups(d *Data, frac float64, seed uint64) (train, valid *Data, err error) {
	if frac <= 0 || frac >= 1 {
		return nil, nil, fmt.Errorf("validation fraction %v is not in (0, 1)", frac)
	}
	order, members := groupsOf(d.Groups, d.Rows(), seed)
	if len(order) < 2 {
		return nil, nil, fmt.Errorf("cannot hold out a validation set from %d group(s)", len(order))
	}
	nv := min(max(1, int(frac*float64(len(order))+0.5)), len(order)-1)
	var ti, vi []int
	for i, g := range order {
		if i < nv {
			vi = append(vi, members[g]...)
		} else {
			ti = append(ti, members[g]...)
		}
	}
	sort.Ints(ti)
	sort.Ints(vi)
	return d.Subset(ti), d.Subset(vi), nil
}

// SampleGroups draws about frac of d's groups (at least one) without replacement, in a seeded
// order, and returns their rows: a bag of whole stencils, so that a model trained on it has never
// seen the others.
func SampleGroups(d *Data, frac float64, seed uint64) (*Data, error) {
	if frac <= 0 || frac > 1 {
		return nil, fmt.Errorf("bag fraction %v is not in (0, 1]", frac)
	}
	order, members := groupsOf(d.Groups, d.Rows(), seed)
	n := min(max(1, int(frac*float64(len(order))+0.5)), len(order))
	var idx []int
	for _, g := range order[:n] {
		idx = append(idx, members[g]...)
	}
	sort.Ints(idx)
	return d.Subset(idx), nil
}
