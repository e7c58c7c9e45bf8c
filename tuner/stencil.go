package tuner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"smart"
	"smart/models"
	"smart/models/rows"
	"smart/space"
)

// StencilVariants builds the setting space of each combination for stencil st on gpu
// (space.ForStencil), in the order given. A combination whose space is empty on gpu (nothing
// fits its resources) is left out; none left is an error.
func StencilVariants(ctx context.Context, st *smart.Stencil, ocs []smart.Combination, gpu smart.GPU) ([]Variant, error) {
	var out []Variant
	var empty []string
	for _, oc := range ocs {
		sp, err := space.ForStencilContext(ctx, st, oc, gpu)
		if err != nil {
			return nil, err
		}
		if sp.Count().Sign() == 0 {
			empty = append(empty, oc.String())
			continue
		}
		out = append(out, Variant{OC: oc, Space: sp})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("stencil %s has no valid setting on the %s under %v", st.Name, gpu.Name, empty)
	}
	return out, nil
}

// ErrNotClassifier is RankOCs' error for a model that is not an OC classifier trained on data
// sets (a select model whose header says how its rows are built).
var ErrNotClassifier = errors.New("the OC classifier is not a selection model built from data sets")

// RankOCs orders combinations by the probability a trained OC classifier (a select model
// built from stencil features) gives their class for stencil st on gpu, most likely first. A
// class stands for the OCs merged into it (StencilMART IV-D): its own OC comes first, then the
// other members. Combinations of ocs that no class names keep their order at the end; the
// result holds exactly ocs.
func RankOCs(clf *models.Model, st *smart.Stencil, gpu smart.GPU, ocs []smart.Combination) ([]smart.Combination, error) {
	if clf.Classifier == nil || clf.Header.Inputs == nil {
		return nil, ErrNotClassifier
	}
	f, err := rows.New(*clf.Header.Inputs)
	if err != nil {
		return nil, fmt.Errorf("OC classifier: %w", err)
	}
	row, err := f.Row(st, 0, nil, gpu)
	if err != nil {
		return nil, fmt.Errorf("OC classifier: %w", err)
	}
	proba, err := clf.Classifier.PredictProba(row)
	if err != nil {
		return nil, fmt.Errorf("OC classifier: %w", err)
	}
	classes := clf.Header.Classes
	idx := make([]int, len(proba))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return proba[idx[a]] > proba[idx[b]] })
	var out []smart.Combination
	add := func(oc smart.Combination) {
		if slices.Contains(ocs, oc) && !slices.Contains(out, oc) {
			out = append(out, oc)
		}
	}
	for _, i := range idx {
		if i >= len(classes) {
			continue
		}
		add(classes[i].OC)
		for _, oc := range classes[i].Members {
			add(oc)
		}
	}
	for _, oc := range ocs {
		add(oc)
	}
	return out, nil
}
