package transfer

import (
	"cmp"
	"fmt"
	"slices"
)

// ChooseShots says which k settings to measure on the target first, so that the shots teach Predict
// most: the zero-shot ranking's fastest (where the optimum most likely is), then one from each of
// k-1 equal strata of the ranking, each the setting of its stratum whose parameter values (and
// kernel) the shots chosen so far and the target's shots already measured cover least, the nearer
// the stratum's middle on a tie: a typical setting of its part of the ranking, so that the shots'
// level is the target's and not that of the ranking's extremes. The ranking needs no level, so a
// GPU the catalogue lacks can be given. Settings that failed on every source are never chosen;
// fewer than k come back where fewer remain.
func ChooseShots(sources []Source, target Target, k int, s Settings) ([]Variant, error) {
	if k < 0 {
		return nil, fmt.Errorf("a budget of %d shots: give zero or more", k)
	}
	st, err := newState(sources, target, s)
	if err != nil {
		return nil, err
	}
	var ranked []*variant
	covered := map[string]int{}
	for _, key := range st.keys {
		v := st.vars[key]
		switch {
		case v.given:
			for name, val := range spread(v) {
				covered[name+"="+val]++
			}
		case v.n > 0:
			ranked = append(ranked, v)
		}
	}
	slices.SortStableFunc(ranked, func(a, b *variant) int { return cmp.Compare(a.shape, b.shape) })
	k = min(k, len(ranked))
	var out []Variant
	take := func(v *variant) {
		for name, val := range spread(v) {
			covered[name+"="+val]++
		}
		out = append(out, Variant{Kernel: v.row.Kernel, StencilID: v.row.StencilID, OC: v.row.OC,
			Setting: v.row.Setting.Clone(), Sources: v.n})
	}
	if k == 0 {
		return nil, nil
	}
	take(ranked[0])
	rest := ranked[1:]
	for i := range k - 1 {
		stratum := rest[i*len(rest)/(k-1) : (i+1)*len(rest)/(k-1)]
		best, bestNew := -1, -1
		mid := len(stratum) / 2
		for d := range len(stratum) {
			// From the stratum's middle outwards: a typical setting of its part of the ranking.
			j := mid + (d+1)/2*(1-2*(d%2))
			if j < 0 || j >= len(stratum) {
				continue
			}
			v := stratum[j]
			fresh := 0
			for name, val := range spread(v) {
				if covered[name+"="+val] == 0 {
					fresh++
				}
			}
			if fresh > bestNew {
				best, bestNew = j, fresh
			}
		}
		if best >= 0 {
			take(stratum[best])
		}
	}
	return out, nil
}

// spread is what the shots should spread over: the parameters and the kernel.
func spread(v *variant) map[string]string {
	out := params(v)
	out["kernel"] = v.id
	return out
}
