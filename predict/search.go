package predict

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"smart"
	"smart/space"
)

// Pass is how hard the setting search works for one OC on one GPU: Samples valid settings
// drawn at random, then from the Starts best of them a greedy descent over neighbouring
// settings (one parameter one value up or down) for at most Rounds steps, every setting scored
// by the runtime model.
type Pass struct {
	Samples, Starts, Rounds int
}

// Budget is how hard the search works on one GPU. Every OC of the Classes most probable OC
// classes (those at least MinProbability likely, and always the first) is screened with a
// short pass; the Refine fastest of them are then searched with the Deep pass, starting from
// what screening found.
type Budget struct {
	Classes        int
	MinProbability float64
	Screen         Pass
	Refine         int
	Deep           Pass
}

// Found is the outcome of a search: the setting with the lowest predicted time.
type Found struct {
	OC        smart.Combination
	Setting   smart.Setting
	TimeMs    float64
	Evaluated int             // settings the model scored
	Top       []smart.Setting // the best few, best first
	TopMs     []float64       // their times
}

// rowBuilder builds a runtime model's rows for one stencil and GPU, changing only the columns
// of the OC and setting from row to row: the stencil's and the GPU's are computed once.
type rowBuilder struct {
	m    *Model
	st   *smart.Stencil
	gpu  smart.GPU
	base []float64
}

func newRowBuilder(m *Model, st *smart.Stencil, gpu smart.GPU) (*rowBuilder, error) {
	oc := smart.Combination(0)
	base, err := m.feat.Row(st, oc, smartDefault(st.Dims, oc), gpu)
	if err != nil {
		return nil, err
	}
	return &rowBuilder{m: m, st: st, gpu: gpu, base: base}, nil
}

// smartDefault is a syntactically complete setting of oc, for building a row's fixed columns.
func smartDefault(dims int, oc smart.Combination) smart.Setting {
	s := smart.Setting{}
	for _, n := range smart.ParamNames(dims, oc) {
		s[n] = 1
	}
	return s
}

func (b *rowBuilder) row(oc smart.Combination, s smart.Setting) ([]float64, error) {
	r := slices.Clone(b.base)
	if err := b.m.feat.Refill(r, b.st, oc, s, b.gpu); err != nil {
		return nil, err
	}
	return r, nil
}

// Scorer returns the time per step of each setting of oc, in milliseconds, lower is better:
// a runtime model's prediction, or the analytic model's estimate.
type Scorer func(oc smart.Combination, settings []smart.Setting) ([]float64, error)

// ModelScorer scores settings of st on gpu with the runtime model m. It builds the stencil's
// and the GPU's columns once, and each setting's columns per row.
func ModelScorer(m *Model, st *smart.Stencil, gpu smart.GPU) (Scorer, error) {
	rb, err := newRowBuilder(m, st, gpu)
	if err != nil {
		return nil, err
	}
	return func(oc smart.Combination, sets []smart.Setting) ([]float64, error) {
		rows := make([][]float64, len(sets))
		for i, s := range sets {
			if rows[i], err = rb.row(oc, s); err != nil {
				return nil, fmt.Errorf("setting %s of %s: %w", s, oc, err)
			}
		}
		ts, err := m.Regressor.PredictBatch(rows)
		if err != nil {
			return nil, fmt.Errorf("runtime model %s: %w", m.Name, err)
		}
		return ts, nil
	}, nil
}

// search is Search on gpu with the runtime model as the scorer.
func search(ctx context.Context, rt *Model, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, budget Pass, seeds []smart.Setting, rng *rand.Rand) (*Found, error) {
	score, err := ModelScorer(rt, st, gpu)
	if err != nil {
		return nil, err
	}
	f, err := Search(ctx, score, st, oc, gpu, budget, seeds, rng)
	if err != nil {
		return nil, fmt.Errorf("runtime model %s: %w", rt.Name, err)
	}
	return f, nil
}

// Search finds a setting of oc for st on gpu with a low score: valid settings drawn at random
// (after seeds, where valid on gpu), then a greedy descent over neighbouring settings from the
// best of them. It returns nil when oc has no valid setting.
func Search(ctx context.Context, scorer Scorer, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, budget Pass, seeds []smart.Setting, rng *rand.Rand) (*Found, error) {
	sp, err := space.LazyForStencil(st, oc, gpu)
	if err != nil {
		return nil, err
	}
	type cand struct {
		v []int
		t float64
	}
	seen := map[string]bool{}
	kb := make([]byte, sp.Dims())
	key := func(v []int) string { // value positions are below 256: PowersOfTwo up to 2^20 at most
		for i, x := range v {
			kb[i] = byte(x)
		}
		return string(kb)
	}
	score := func(vs [][]int) ([]cand, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sets := make([]smart.Setting, len(vs))
		for i, v := range vs {
			sets[i] = sp.Setting(v)
		}
		ts, err := scorer(oc, sets)
		if err != nil {
			return nil, err
		}
		out := make([]cand, len(vs))
		for i, v := range vs {
			out[i] = cand{v, ts[i]}
		}
		return out, nil
	}
	var first [][]int
	for _, s := range seeds {
		if v, ok := sp.Positions(s); ok && sp.Valid(v) && !seen[key(v)] {
			seen[key(v)] = true
			first = append(first, v)
		}
	}
	for tries := 0; len(first) < budget.Samples+len(seeds) && tries < 4*budget.Samples; tries++ {
		if tries%4096 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if v, ok := sp.Draw(rng); ok && !seen[key(v)] {
			seen[key(v)] = true
			first = append(first, v)
		}
	}
	if len(first) == 0 {
		return nil, nil // no valid setting: the OC cannot run this stencil on gpu
	}
	all, err := score(first)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t < all[j].t })
	cur := slices.Clone(all[:min(budget.Starts, len(all))])
	for round := 0; round < budget.Rounds; round++ {
		var next [][]int
		from := make([]int, 0)
		for i, c := range cur {
			for _, w := range sp.Neighbours(c.v) {
				if k := key(w); !seen[k] {
					seen[k] = true
					next = append(next, w)
					from = append(from, i)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		scored, err := score(next)
		if err != nil {
			return nil, err
		}
		all = append(all, scored...)
		moved := false
		for j, c := range scored {
			if i := from[j]; c.t < cur[i].t {
				cur[i], moved = c, true
			}
		}
		if !moved {
			break
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t < all[j].t })
	f := &Found{OC: oc, Setting: sp.Setting(all[0].v), TimeMs: all[0].t, Evaluated: len(all)}
	for _, c := range all[:min(8, len(all))] {
		f.Top, f.TopMs = append(f.Top, sp.Setting(c.v)), append(f.TopMs, c.t)
	}
	if math.IsNaN(f.TimeMs) || math.IsInf(f.TimeMs, 0) || f.TimeMs <= 0 {
		return nil, fmt.Errorf("the best score of %s is %v ms (%s)", oc, f.TimeMs, f.Setting)
	}
	return f, nil
}

// codegenLine is the smart codegen command that writes the CUDA source of a choice for gpu,
// whose limits codegen checks the setting against.
func codegenLine(file, gpu string, oc smart.Combination, s smart.Setting) string {
	return fmt.Sprintf("smart codegen %s --gpu %s --oc %s --setting %s", shellQuote(file), shellQuote(gpu), oc, s)
}

// FileName turns a stencil name into a file name: letters, digits, '-', '_' and '.'.
func FileName(name string) string {
	out := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, name)
	if out == "" {
		return "stencil"
	}
	return out
}

// measureLine is the smart bench command that times the choices into the data set out, on the
// GPU it runs on (NVML names it: a --gpu there would only relabel another device).
func measureLine(file string, cs []Choice, out string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "smart bench %s", shellQuote(file))
	for _, c := range cs {
		fmt.Fprintf(&b, " --setting %s:%s", c.OC, c.Setting)
	}
	fmt.Fprintf(&b, " --out %s", shellQuote(out))
	return b.String()
}

// shellQuote quotes a path for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+,:=@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
