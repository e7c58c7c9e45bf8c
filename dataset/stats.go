package dataset

import (
	"cmp"
	"context"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	"smart"
	"smart/internal/stats"
)

// Stats summarises a data set: rows by GPU, OC (or kernel) and status; which OC is best for how
// many stencils (StencilMART Fig. 2); and how much faster each stencil's best OC is than its
// worst (Fig. 1).
type Stats struct {
	Meta Meta  `json:"meta"`
	Rows int   `json:"rows"`
	Torn *Torn `json:"torn,omitempty"` // a torn last line, skipped
	// Repeated counts the rows that give a variant (Key, of one source and device) given by an
	// earlier row again, and Conflicting those of them whose status or time differs from the
	// first's: a run never writes a variant twice, so a repeated row was edited or appended in.
	// Merge keeps the first; the best times of Stats, labels and fastest take the fastest.
	Repeated    int         `json:"repeated,omitempty"`
	Conflicting int         `json:"conflicting,omitempty"`
	Counts      []CountRow  `json:"counts"`
	BestOC      []BestOCRow `json:"best_oc"`
	Gap         []GapRow    `json:"gap"`
	// Incomplete counts the stencils measured under only some OCs, which BestOC and Gap leave
	// out (as labels do): their best OC may be one not measured yet.
	Incomplete []Incomplete `json:"incomplete,omitempty"`
	Kernels    []KernelBest `json:"kernels,omitempty"`
}

// CountRow counts the rows of one GPU, source and OC (stencil rows) or kernel (imported rows).
type CountRow struct {
	GPU      string               `json:"gpu"`
	Source   smart.Source         `json:"source"`
	OC       string               `json:"oc,omitempty"`
	Kernel   string               `json:"kernel,omitempty"`
	Rows     int                  `json:"rows"`
	ByStatus map[smart.Status]int `json:"by_status"`
	// Cut counts the ok rows the measuring protocol cut short, by cut (slow, stopped): they
	// count as ok in ByStatus, but their times are rough (smart.Cut).
	Cut map[smart.Cut]int `json:"cut,omitempty"`
}

// BestOCRow is how many stencils an OC is the best for on a GPU (by the times of one source);
// the best OC of a stencil is the one whose fastest ok setting is fastest. Only the stencils
// measured under every OC count (Stats.Incomplete).
type BestOCRow struct {
	GPU      string            `json:"gpu"`
	Source   smart.Source      `json:"source"`
	OC       smart.Combination `json:"oc"`
	Stencils int               `json:"stencils"`
}

// GapRow summarises, over a GPU's stencils (by the times of one source) measured under every OC
// and with at least two OCs that ran, the ratio of the worst OC's best time to the best OC's.
// OCs with no ok setting are left out, as in StencilMART's Fig. 1.
type GapRow struct {
	GPU      string       `json:"gpu"`
	Source   smart.Source `json:"source"`
	Stencils int          `json:"stencils"`
	Min      float64      `json:"min"`
	Median   float64      `json:"median"`
	Mean     float64      `json:"mean"`
	Max      float64      `json:"max"`
}

// KernelBest is the fastest ok configuration of an imported kernel on a device.
type KernelBest struct {
	GPU     string  `json:"gpu"`
	Kernel  string  `json:"kernel"`
	Rows    int     `json:"rows"`
	OK      int     `json:"ok"`
	BestMs  float64 `json:"best_ms"`
	Setting string  `json:"setting"`
	// Spread is the slowest ok configuration's time over the fastest's.
	Spread float64 `json:"spread"`
}

// instance is one stencil on one GPU, timed by one source: what is labelled.
type instance struct {
	stencil, gpu string
	source       smart.Source
}

func instanceOf(m smart.Measurement) instance { return instance{m.StencilID, m.GPUName(), m.Source} }

// bestTimes holds each instance's fastest ok time per OC.
type bestTimes map[instance]map[smart.Combination]float64

func (b bestTimes) add(m smart.Measurement) {
	if !m.OK() || m.StencilID == "" {
		return
	}
	in := instanceOf(m)
	per := b[in]
	if per == nil {
		per = map[smart.Combination]float64{}
		b[in] = per
	}
	if t, ok := per[m.OC]; !ok || m.TimeMs < t {
		per[m.OC] = m.TimeMs
	}
}

// instances lists the instances in GPU, source, then stencil order.
func (b bestTimes) instances() []instance {
	out := slices.Collect(maps.Keys(b))
	slices.SortFunc(out, compareInstances)
	return out
}

func compareInstances(x, y instance) int {
	return cmp.Or(strings.Compare(x.gpu, y.gpu), strings.Compare(string(x.source), string(y.source)), strings.Compare(x.stencil, y.stencil))
}

// best returns the instance's best OC: the fastest, the lower OC on a tie.
func (b bestTimes) best(in instance) (smart.Combination, float64) {
	var oc smart.Combination
	t := math.Inf(1)
	for c, v := range b[in] {
		if v < t || v == t && c < oc {
			oc, t = c, v
		}
	}
	return oc, t
}

// coverage holds the OCs each instance has rows of, whatever their status (an OC without a
// valid setting has an invalid row): an instance measured under only some of the OCs has no best
// OC to tell, its best among those measured may be beaten by one not measured yet.
type coverage struct {
	ocs  map[instance]map[smart.Combination]bool
	plan []smart.Combination // the OCs of the data set's plan; nil: those its rows cover
}

func newCoverage(meta Meta) *coverage {
	c := &coverage{ocs: map[instance]map[smart.Combination]bool{}}
	if meta.Plan != nil {
		c.plan = meta.Plan.combinations()
	}
	return c
}

func (c *coverage) add(m smart.Measurement) {
	if m.StencilID == "" {
		return
	}
	in := instanceOf(m)
	if c.ocs[in] == nil {
		c.ocs[in] = map[smart.Combination]bool{}
	}
	c.ocs[in][m.OC] = true
}

// Incomplete counts the stencils of a GPU (and source) measured under only some of the OCs
// that every stencil of it is measured under, left out of the best OCs and their labels.
type Incomplete struct {
	GPU    string       `json:"gpu"`
	Source smart.Source `json:"source"`
	// Stencils are those left out; OCs how many OCs the others were measured under (the
	// data set's plan's, or where it has none, every OC its rows of the GPU cover).
	Stencils int `json:"stencils"`
	OCs      int `json:"ocs"`
}

// complete returns the instances measured under every OC, and the others counted by GPU and
// source in GPU order.
func (c *coverage) complete() (map[instance]bool, []Incomplete) {
	type group struct {
		gpu    string
		source smart.Source
	}
	want := map[group][]smart.Combination{}
	for in, ocs := range c.ocs {
		g := group{in.gpu, in.source}
		if c.plan != nil {
			want[g] = c.plan
			continue
		}
		for oc := range ocs {
			if !slices.Contains(want[g], oc) {
				want[g] = append(want[g], oc)
			}
		}
	}
	ok := map[instance]bool{}
	left := map[group]int{}
	for in, ocs := range c.ocs {
		g := group{in.gpu, in.source}
		if slices.ContainsFunc(want[g], func(oc smart.Combination) bool { return !ocs[oc] }) {
			left[g]++
		} else {
			ok[in] = true
		}
	}
	var out []Incomplete
	for g, n := range left {
		out = append(out, Incomplete{GPU: g.gpu, Source: g.source, Stencils: n, OCs: len(want[g])})
	}
	slices.SortFunc(out, func(a, b Incomplete) int {
		return cmp.Or(strings.Compare(a.GPU, b.GPU), strings.Compare(string(a.Source), string(b.Source)))
	})
	return ok, out
}

// ComputeStats reads the data set in dir and summarises it. Once ctx is done it stops reading,
// with an error that wraps ctx.Err().
func ComputeStats(ctx context.Context, dir string) (*Stats, error) {
	// Empty lists, not null, in JSON for a data set without rows.
	s := &Stats{Counts: []CountRow{}, BestOC: []BestOCRow{}, Gap: []GapRow{}}
	type group struct {
		gpu, oc, kernel string
		source          smart.Source
	}
	counts := map[group]*CountRow{}
	best := bestTimes{}
	planned, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	covered := newCoverage(planned)
	type kernelKey struct{ gpu, kernel string }
	kernels := map[kernelKey]*KernelBest{}
	bestSet := map[kernelKey]smart.Setting{} // printed once meta.json says what codes stand for
	slowest := map[kernelKey]float64{}
	type outcome struct {
		status smart.Status
		ms     float64
	}
	first := map[uint64]outcome{} // by a hash of the variant's key and origin: 16 bytes a row
	meta, torn, err := ScanContext(ctx, dir, func(m smart.Measurement) error {
		s.Rows++
		h := fnv.New64a()
		h.Write([]byte(Key(m) + "|" + string(m.Source) + "|" + m.Device))
		k := h.Sum64()
		if o, seen := first[k]; seen {
			s.Repeated++
			if o.status != m.Status || o.ms != m.TimeMs {
				s.Conflicting++
			}
		} else {
			first[k] = outcome{m.Status, m.TimeMs}
		}
		g := group{gpu: m.GPUName(), kernel: m.Kernel, source: m.Source}
		if m.Kernel == "" {
			g.oc = m.OC.String()
		}
		c := counts[g]
		if c == nil {
			c = &CountRow{GPU: g.gpu, Source: m.Source, OC: g.oc, Kernel: g.kernel, ByStatus: map[smart.Status]int{}}
			counts[g] = c
		}
		c.Rows++
		c.ByStatus[m.Status]++
		if m.OK() && m.Cut != smart.CutNone {
			if c.Cut == nil {
				c.Cut = map[smart.Cut]int{}
			}
			c.Cut[m.Cut]++
		}
		best.add(m)
		covered.add(m)
		if m.Kernel != "" {
			k := kernelKey{g.gpu, m.Kernel}
			kb := kernels[k]
			if kb == nil {
				kb = &KernelBest{GPU: k.gpu, Kernel: k.kernel}
				kernels[k] = kb
			}
			kb.Rows++
			if m.OK() {
				kb.OK++
				if kb.OK == 1 || m.TimeMs < kb.BestMs {
					kb.BestMs, bestSet[k] = m.TimeMs, maps.Clone(m.Setting)
				}
				slowest[k] = max(slowest[k], m.TimeMs)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Meta, s.Torn = meta, torn
	for _, c := range counts {
		s.Counts = append(s.Counts, *c)
	}
	slices.SortFunc(s.Counts, func(a, b CountRow) int {
		return cmp.Or(strings.Compare(a.GPU, b.GPU), strings.Compare(string(a.Source), string(b.Source)), strings.Compare(a.Kernel, b.Kernel),
			compareOCNames(a.OC, b.OC))
	})
	for k, kb := range kernels {
		if kb.OK > 0 {
			kb.Spread = slowest[k] / kb.BestMs
			var params []Param // a foreign kernel's booleans and labels print as Kernel Tuner holds them
			if i := slices.IndexFunc(meta.Kernels, func(mk Kernel) bool { return mk.Name == k.kernel }); i >= 0 {
				params = meta.Kernels[i].Params
			}
			kb.Setting = SettingText(bestSet[k], params)
		}
		s.Kernels = append(s.Kernels, *kb)
	}
	slices.SortFunc(s.Kernels, func(a, b KernelBest) int {
		return cmp.Or(strings.Compare(a.GPU, b.GPU), strings.Compare(a.Kernel, b.Kernel))
	})

	complete, incomplete := covered.complete()
	s.Incomplete = incomplete
	wins := map[BestOCRow]int{}
	type gpuSource struct {
		gpu    string
		source smart.Source
	}
	gaps := map[gpuSource][]float64{}
	for _, in := range best.instances() {
		if !complete[in] {
			continue
		}
		oc, t := best.best(in)
		wins[BestOCRow{GPU: in.gpu, Source: in.source, OC: oc}]++
		if len(best[in]) >= 2 {
			worst := slices.Max(slices.Collect(maps.Values(best[in])))
			g := gpuSource{in.gpu, in.source}
			gaps[g] = append(gaps[g], worst/t)
		}
	}
	for r, n := range wins {
		r.Stencils = n
		s.BestOC = append(s.BestOC, r)
	}
	slices.SortFunc(s.BestOC, func(a, b BestOCRow) int {
		return cmp.Or(strings.Compare(a.GPU, b.GPU), strings.Compare(string(a.Source), string(b.Source)), cmp.Compare(b.Stencils, a.Stencils),
			cmp.Compare(a.OC, b.OC))
	})
	for g, v := range gaps {
		r := summarise(g.gpu, v)
		r.Source = g.source
		s.Gap = append(s.Gap, r)
	}
	slices.SortFunc(s.Gap, func(a, b GapRow) int {
		return cmp.Or(strings.Compare(a.GPU, b.GPU), strings.Compare(string(a.Source), string(b.Source)))
	})
	return s, nil
}

// singleOC counts, by GPU and source, the stencils of BestOC that Gap leaves out: those with a
// single OC that ran, so that the tables' counts add up.
func (s *Stats) singleOC() []GapRow {
	var out []GapRow
	for _, b := range s.BestOC {
		i := slices.IndexFunc(out, func(g GapRow) bool { return g.GPU == b.GPU && g.Source == b.Source })
		if i < 0 {
			i = len(out)
			out = append(out, GapRow{GPU: b.GPU, Source: b.Source})
		}
		out[i].Stencils += b.Stencils
	}
	for i, r := range out {
		if j := slices.IndexFunc(s.Gap, func(g GapRow) bool { return g.GPU == r.GPU && g.Source == r.Source }); j >= 0 {
			out[i].Stencils -= s.Gap[j].Stencils
		}
	}
	return slices.DeleteFunc(out, func(r GapRow) bool { return r.Stencils <= 0 })
}

// compareOCNames orders OC names (as written by Combination.String) by their bits.
func compareOCNames(a, b string) int {
	ca, _ := smart.ParseCombination(a)
	cb, _ := smart.ParseCombination(b)
	return cmp.Compare(ca, cb)
}

func summarise(gpu string, v []float64) GapRow {
	slices.Sort(v) // for the minimum and maximum, and the sum in this order
	n := len(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	return GapRow{GPU: gpu, Stencils: n, Min: v[0], Median: stats.Median(v), Mean: sum / float64(n), Max: v[n-1]}
}
