package dataset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/generator"
	"smart/space"
)

// Plan says which variants a benchmark measures: for every stencil and OC, Samples settings drawn
// uniformly at random from the valid ones (StencilMART section V-A), or the explicit Settings,
// or the items of a campaign manifest (package campaign), named by its hash. The draws are
// seeded from (Seed, stencil ID, OC), so a resumed run and every shard draw the same settings,
// whatever else is in the plan.
type Plan struct {
	Seed     uint64              `json:"seed"`
	Samples  int                 `json:"samples,omitempty"` // settings per stencil and OC
	OCs      []smart.Combination `json:"ocs,omitempty"`
	Settings []Variant           `json:"settings,omitempty"` // explicit variants, tried on every stencil
	Stencils []string            `json:"stencils"`           // IDs of the plan's stencils, sorted
	// Manifest is the SHA-256 of the campaign manifest whose items the data set measures; its
	// Items come from the manifest, not from Items.
	Manifest string `json:"manifest,omitempty"`
}

// Variant is an OC and a setting of it.
type Variant struct {
	OC      smart.Combination `json:"oc"`
	Setting smart.Setting     `json:"setting"`
}

// NewPlan plans samples random settings of each OC for every stencil.
func NewPlan(stencils []*smart.Stencil, ocs []smart.Combination, samples int, seed uint64) (*Plan, error) {
	p := &Plan{Seed: seed, Samples: samples, OCs: slices.Clone(ocs), Stencils: stencilIDs(stencils)}
	return p, p.check()
}

// NewExplicitPlan plans the given variants for every stencil.
func NewExplicitPlan(stencils []*smart.Stencil, variants []Variant) (*Plan, error) {
	p := &Plan{Settings: slices.Clone(variants), Stencils: stencilIDs(stencils)}
	return p, p.check()
}

func stencilIDs(stencils []*smart.Stencil) []string {
	ids := make([]string, len(stencils))
	for i, st := range stencils {
		ids[i] = st.ID()
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func (p *Plan) check() error {
	switch {
	case len(p.Stencils) == 0:
		return errors.New("the plan has no stencils")
	case p.Manifest != "" && (len(p.Settings) > 0 || p.Samples != 0 || len(p.OCs) != 0):
		return errors.New("the plan names a campaign manifest and settings or samples too; the manifest lists the variants")
	case p.Manifest != "":
	case len(p.Settings) > 0 && (p.Samples != 0 || len(p.OCs) != 0):
		return errors.New("the plan has both explicit settings and samples per OC; give one or the other")
	case len(p.Settings) == 0 && p.Samples < 1:
		return fmt.Errorf("the plan draws %d settings per OC; draw at least 1", p.Samples)
	case len(p.Settings) == 0 && len(p.OCs) == 0:
		return errors.New("the plan has no OCs")
	case !slices.IsSorted(p.Stencils):
		return errors.New("the plan's stencil IDs are not sorted")
	}
	seen := map[string]int{}
	for i, v := range p.Settings {
		k := v.OC.String() + " " + v.Setting.String()
		if j, dup := seen[k]; dup {
			return fmt.Errorf("settings[%d] repeats settings[%d] (%s)", i, j, k)
		}
		seen[k] = i
	}
	for i, oc := range p.OCs {
		if err := oc.Check(); err != nil {
			return fmt.Errorf("ocs[%d]: %w", i, err)
		}
		if slices.Contains(p.OCs[:i], oc) {
			return fmt.Errorf("ocs[%d]: %s is listed twice", i, oc)
		}
	}
	return nil
}

// planDiff is the first way in which two plans differ: what, and what it is in each; a resumed
// run and a merge word it each in its own terms.
type planDiff struct{ what, a, b string }

// diff reports the first way in which q differs from p, or nil.
func (p Plan) diff(q Plan) *planDiff {
	switch {
	case p.Manifest != q.Manifest:
		manifest := func(h string) string { return cmp.Or(fmt.Sprintf("%.12s", h), "none") }
		return &planDiff{"campaign manifest", manifest(p.Manifest), manifest(q.Manifest)}
	case p.Seed != q.Seed:
		return &planDiff{"seed", strconv.FormatUint(p.Seed, 10), strconv.FormatUint(q.Seed, 10)}
	case p.Samples != q.Samples:
		return &planDiff{"settings drawn per OC", strconv.Itoa(p.Samples), strconv.Itoa(q.Samples)}
	case !slices.Equal(p.OCs, q.OCs):
		return &planDiff{"OCs", fmt.Sprint(p.OCs), fmt.Sprint(q.OCs)}
	case !reflect.DeepEqual(p.Settings, q.Settings):
		common := 0
		for _, v := range q.Settings {
			if slices.ContainsFunc(p.Settings, func(u Variant) bool { return reflect.DeepEqual(u, v) }) {
				common++
			}
		}
		return &planDiff{"explicit settings", strconv.Itoa(len(p.Settings)), fmt.Sprintf("%d, %d of them the same", len(q.Settings), common)}
	case !slices.Equal(p.Stencils, q.Stencils):
		common := 0
		for _, id := range q.Stencils {
			if slices.Contains(p.Stencils, id) {
				common++
			}
		}
		return &planDiff{"stencils", strconv.Itoa(len(p.Stencils)), fmt.Sprintf("%d, %d of them the same by content", len(q.Stencils), common)}
	}
	return nil
}

// Item is one variant to measure. An item with Invalid set breaks the search space's
// constraints; it is recorded as an invalid row without being evaluated.
type Item struct {
	Stencil *smart.Stencil
	OC      smart.Combination
	Setting smart.Setting
	Invalid string
}

// SpaceFunc returns the search space of a stencil under an OC on a GPU.
type SpaceFunc func(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*space.Space, error)

// ParseShard reads "i/n" (1 <= i <= n). An empty string is the whole plan (nil).
func ParseShard(s string) (*Shard, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %q is not of the form i/n with 1 <= i <= n (e.g. 2/4)", s)
	}
	return &Shard{I: i, N: n}, nil
}

// InShard reports whether the stencil with the given ID belongs to shard (nil: the whole plan).
// Stencils are dealt round-robin in the plan's ID order, so shards differ in size by at most one
// stencil and together hold each exactly once.
func (p *Plan) InShard(id string, shard *Shard) bool {
	if shard == nil {
		return true
	}
	k, found := slices.BinarySearch(p.Stencils, id)
	return found && k%shard.N == shard.I-1
}

// combinations are the OCs the plan measures every stencil under: its OCs, or those of its
// settings; nil for a campaign manifest's plan, whose items list them.
func (p *Plan) combinations() []smart.Combination {
	ocs := slices.Clone(p.OCs)
	for _, v := range p.Settings {
		if !slices.Contains(ocs, v.OC) {
			ocs = append(ocs, v.OC)
		}
	}
	return ocs
}

// Items lists the work of the plan for the stencils of a shard (nil: all), in stencil ID order,
// then OC order, then drawing order. stencils must be exactly the plan's.
//
// A space with fewer valid settings than Samples gives all of them; one with none gives one
// invalid item with an empty setting, so the data set records that the OC cannot run. Explicit
// settings that break the space's constraints become invalid items.
func (p *Plan) Items(ctx context.Context, stencils []*smart.Stencil, gpu smart.GPU, spaces SpaceFunc, shard *Shard) ([]Item, error) {
	byID := make(map[string]*smart.Stencil, len(stencils))
	for _, st := range stencils {
		byID[st.ID()] = st
	}
	if p.Manifest != "" {
		return nil, errors.New("the plan's items are those of its campaign manifest")
	}
	if len(byID) != len(p.Stencils) || slices.ContainsFunc(p.Stencils, func(id string) bool { return byID[id] == nil }) {
		return nil, fmt.Errorf("the plan has %d stencils and %d were given; the stencils must be the plan's (compared by content)", len(p.Stencils), len(byID))
	}
	var items []Item
	for _, id := range p.Stencils {
		st := byID[id]
		if !p.InShard(id, shard) {
			continue
		}
		if len(p.Settings) > 0 {
			for _, v := range p.Settings {
				it := Item{Stencil: st, OC: v.OC, Setting: v.Setting.Clone()}
				sp, err := spaces(ctx, st, v.OC, gpu)
				if err != nil {
					if ctx.Err() != nil { // interrupted: the chain of spaces that stopped says no more
						return nil, fmt.Errorf("drawing the settings: %w", ctx.Err())
					}
					return nil, fmt.Errorf("search space of stencil %s under %s: %w", st.Name, v.OC, err)
				}
				if err := sp.Check(v.Setting); err != nil {
					it.Invalid = err.Error()
				}
				items = append(items, it)
			}
			continue
		}
		for _, oc := range p.OCs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			sp, err := spaces(ctx, st, oc, gpu)
			if err != nil {
				if ctx.Err() != nil { // interrupted: the chain of spaces that stopped says no more
					return nil, fmt.Errorf("drawing the settings: %w", ctx.Err())
				}
				return nil, fmt.Errorf("search space of stencil %s under %s: %w", st.Name, oc, err)
			}
			settings, err := drawSettings(sp, p.rng(id, oc), p.Samples)
			if err != nil {
				return nil, fmt.Errorf("drawing settings of stencil %s under %s: %w", st.Name, oc, err)
			}
			if len(settings) == 0 {
				items = append(items, Item{Stencil: st, OC: oc, Setting: smart.Setting{},
					Invalid: fmt.Sprintf("%s has no valid setting for this stencil on %s", oc, gpu.Name)})
			}
			for _, s := range settings {
				items = append(items, Item{Stencil: st, OC: oc, Setting: s})
			}
		}
	}
	return items, nil
}

// rng is the generator of one stencil's and OC's draws.
func (p *Plan) rng(id string, oc smart.Combination) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id + "|" + oc.String()))
	return rand.New(rand.NewPCG(p.Seed, h.Sum64()))
}

// drawSettings returns n distinct settings drawn uniformly from sp (every n-subset equally
// likely), or all of them when it holds n or fewer, in index order.
func drawSettings(sp *space.Space, rng *rand.Rand, n int) ([]smart.Setting, error) {
	if c, ok := sp.Len(); ok && c <= uint64(n) {
		var all []smart.Setting
		for s := range sp.All() {
			all = append(all, s)
		}
		return all, nil
	}
	return sp.Sample(rng, n)
}

// RandomStencils draws n random stencils of dims dimensions with StencilMART's generator
// (Algorithm 1) as its benchmark set does: orders 1 to maxOrder in turn (stencil i has order
// 1 + i mod maxOrder), stencil i drawn by generator.Spec{Order, Dims, Seed}.Stencil(i), so a set
// is the same on every machine and a larger n extends a smaller one.
func RandomStencils(n, dims, maxOrder int, seed uint64) ([]*smart.Stencil, error) {
	if n < 1 {
		return nil, fmt.Errorf("%d random stencils requested; ask for at least 1", n)
	}
	if maxOrder < 1 || maxOrder > smart.MaxMaxOrder {
		return nil, fmt.Errorf("maximum order %d: use 1 to %d", maxOrder, smart.MaxMaxOrder)
	}
	out := make([]*smart.Stencil, n)
	for i := range out {
		st, err := generator.Spec{Dims: dims, Order: 1 + i%maxOrder, Seed: seed}.Stencil(i)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}
