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
	"smart/models"
	"smart/models/roofline"
	"smart/space"
	"smart/tuner"
)

// Pass is how hard the setting search works for one OC on one GPU: Samples valid settings
// drawn at random, then from the Starts best of them a greedy descent over neighbouring
// settings (one parameter one value up or down) for at most Rounds steps, every setting scored
// by the runtime model (tuner.Descent's fields, except that zero means none).
type Pass struct {
	Samples, Starts, Rounds int
}

// Budget is how hard the search works on one GPU. Every OC of the Classes most probable OC
// classes (those at least MinProbability likely, and always the first; then more, most probable
// first, while fewer than Refine of the OCs kept have a valid setting) is screened with a short
// pass; Refine of them, the fastest of each class first, are then searched with the Deep pass,
// starting from what screening found.
type Budget struct {
	Classes        int
	MinProbability float64
	Screen         Pass
	Refine         int
	Deep           Pass
}

// Found is the outcome of a search: the setting with the lowest predicted time.
type Found struct {
	OC      smart.Combination
	Setting smart.Setting
	TimeMs  float64
	// LearnedMs, where a scorer kept the runtime model's times Within the calibrated model's
	// interval, is the runtime model's own time of Setting (TimeMs is the bounded one).
	LearnedMs float64
	Evaluated int             // settings the model scored
	LeftOut   int             // of them, those a Guarded scorer left out
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
// a runtime model's prediction, or the analytic model's estimate; +Inf leaves the setting out
// of the search (Guarded).
//
// A Scorer is the Evaluator of a search (a smart.BatchEvaluator, as http.HandlerFunc is a
// Handler). It is made for one stencil and GPU and does not read the queries' own.
type Scorer func(oc smart.Combination, settings []smart.Setting) ([]float64, error)

// LocalLimit is the local memory a thread may keep, in bytes, before a Guarded search leaves the
// variant out: spilled registers and arrays indexed at run time (a few values of stack are
// common and cheap). Chosen on the H100 campaign, where variants keeping more were rarely
// worth running (docs/results/calibration.md).
const LocalLimit = 64

// Guarded scores with score, except that the settings local predicts to keep over LocalLimit
// bytes of local memory a thread score +Inf: the search leaves them out.
func Guarded(score, local Scorer) Scorer {
	return func(oc smart.Combination, sets []smart.Setting) ([]float64, error) {
		ts, err := score(oc, sets)
		if err != nil {
			return nil, err
		}
		bytes, err := local(oc, sets)
		if err != nil {
			return nil, fmt.Errorf("local-memory model: %w", err)
		}
		for i, b := range bytes {
			if b > LocalLimit {
				ts[i] = math.Inf(1)
			}
		}
		return ts, nil
	}
}

// Within scores with score, each time kept inside band around the analytic model's time of the
// setting (with cal's constants): what settle makes of a runtime model's time where the stencil
// lies outside the model's training range, so that the search minimises the time predict
// reports rather than the model's extrapolation. A setting the analytic model cannot place, or
// one a guard left out, keeps its score.
func Within(score Scorer, st *smart.Stencil, gpu smart.GPU, cal *roofline.Calibration, band models.Interval) Scorer {
	m := roofline.NewModeler(st, gpu, cal)
	return func(oc smart.Combination, sets []smart.Setting) ([]float64, error) {
		ts, err := score(oc, sets)
		if err != nil {
			return nil, err
		}
		for i, s := range sets {
			if math.IsInf(ts[i], 1) {
				continue
			}
			t, err := smart.DecodeTuning(st.Dims, oc, s)
			if err != nil {
				continue
			}
			if est, err := m.Model(t); err == nil {
				iv := band.Around(est.TimeMs)
				ts[i] = min(max(ts[i], iv.LoMs), iv.HiMs)
			}
		}
		return ts, nil
	}
}

// leftOut is the error of a setting a Guarded scorer left out.
const leftOut = "left out: predicted to keep local memory"

// EvaluateBatch implements smart.BatchEvaluator: each run of queries of one OC is scored in
// one call. The measurements carry the OC, the setting and the score as TimeMs, no Source.
func (s Scorer) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]smart.Measurement, len(qs))
	sets := make([]smart.Setting, 0, len(qs))
	for lo, hi := 0, 0; lo < len(qs); lo = hi {
		oc := qs[lo].OC
		sets = sets[:0]
		for hi = lo; hi < len(qs) && qs[hi].OC == oc; hi++ {
			sets = append(sets, qs[hi].Setting)
		}
		ts, err := s(oc, sets)
		if err != nil {
			return nil, err
		}
		if len(ts) != len(sets) {
			return nil, fmt.Errorf("%d scores for %d settings of %s", len(ts), len(sets), oc)
		}
		for i, t := range ts {
			out[lo+i] = smart.Measurement{OC: oc, Setting: sets[i], Status: smart.StatusOK, TimeMs: t}
			if math.IsInf(t, 1) {
				out[lo+i].Status, out[lo+i].Error, out[lo+i].TimeMs = smart.StatusInvalid, leftOut, 0
			}
		}
	}
	return out, nil
}

// Evaluate implements smart.Evaluator: EvaluateBatch of one query.
func (s Scorer) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	ms, err := s.EvaluateBatch(ctx, []smart.Query{q})
	if err != nil {
		return smart.Measurement{}, err
	}
	return ms[0], nil
}

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

// AnalyticScorer scores settings of st on gpu with the analytic model, with cal's constants
// (the literature's where cal is nil): what answers where no learned model reads the stencil.
func AnalyticScorer(st *smart.Stencil, gpu smart.GPU, cal *roofline.Calibration) Scorer {
	m := roofline.NewModeler(st, gpu, cal)
	return func(oc smart.Combination, sets []smart.Setting) ([]float64, error) {
		out := make([]float64, len(sets))
		for i, s := range sets {
			t, err := smart.DecodeTuning(st.Dims, oc, s)
			if err != nil {
				return nil, fmt.Errorf("setting %s of %s: %w", s, oc, err)
			}
			est, err := m.Model(t)
			if err != nil {
				return nil, fmt.Errorf("setting %s of %s: %w", s, oc, err)
			}
			out[i] = est.TimeMs
		}
		return out, nil
	}
}

// scorer is what a search of st on gpu scores settings with, and its name for errors: the
// runtime model rt, Guarded by the local-memory model where there is one, or the analytic model
// where rt is nil (no learned model reads st). Where st lies outside rt's training range, the
// times are kept Within the calibrated model's interval, and raw is the scorer without that
// bound (nil otherwise).
func (p *Predictor) scorer(rt *Model, st *smart.Stencil, gpu smart.GPU) (score, raw Scorer, name string, err error) {
	if rt == nil {
		return AnalyticScorer(st, gpu, p.constants()), nil, "the analytic model", nil
	}
	name = "runtime model " + rt.Name
	score, err = ModelScorer(rt, st, gpu)
	if err != nil {
		return nil, nil, name, err
	}
	guard, err := p.Models.Local(st.Dims)
	if err != nil {
		return nil, nil, name, err
	}
	if guard != nil {
		local, err := ModelScorer(guard, st, gpu)
		if err != nil {
			return nil, nil, name, fmt.Errorf("local-memory model %s: %w", guard.Name, err)
		}
		score = Guarded(score, local)
	}
	if len(rangeOutside(rt, st)) > 0 && p.Calibration != nil {
		return Within(score, st, gpu, p.constants(), p.Calibration.Interval), score, name, nil
	}
	return score, nil, name, nil
}

// Search finds a setting of oc for st on gpu with a low score: valid settings drawn at random
// (after seeds, where valid on gpu), then a greedy descent over neighbouring settings from the
// best of them (tuner.Descent, with the scorer as its Evaluator, on the space's lazy view). It
// returns nil when oc has no valid setting, or none the scorer kept (Guarded).
func Search(ctx context.Context, scorer Scorer, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, budget Pass, seeds []smart.Setting, rng *rand.Rand) (*Found, error) {
	sp, err := space.LazyForStencil(st, oc, gpu)
	if err != nil {
		return nil, err
	}
	start := make([]tuner.Candidate, len(seeds))
	for i, s := range seeds {
		start[i] = tuner.Candidate{Setting: s}
	}
	p := tuner.Problem{Variants: []tuner.Variant{{OC: oc, Lazy: sp}}, Evaluator: scorer, Stencil: st, GPU: gpu.Name}
	res, err := tuner.Search(ctx, p, tuner.Budget{}, budget.descent(start, rng), 0)
	if err != nil {
		return nil, err
	}
	if res.Evaluations == 0 {
		return nil, nil // no valid setting: the OC cannot run this stencil on gpu
	}
	h := res.History
	var order []int
	left := 0
	for i := range h {
		if h[i].OK() {
			order = append(order, i)
		} else if h[i].Measurement.Error == leftOut {
			left++
		}
	}
	if len(order) == 0 {
		return nil, nil // every setting scored was left out
	}
	sort.SliceStable(order, func(i, j int) bool { return h[order[i]].Value < h[order[j]].Value })
	best := h[order[0]]
	f := &Found{OC: oc, Setting: best.Setting, TimeMs: best.Measurement.TimeMs, Evaluated: res.Evaluations, LeftOut: left}
	for _, i := range order[:min(8, len(order))] {
		f.Top, f.TopMs = append(f.Top, h[i].Setting), append(f.TopMs, h[i].Measurement.TimeMs)
	}
	if math.IsNaN(f.TimeMs) || math.IsInf(f.TimeMs, 0) || f.TimeMs <= 0 {
		return nil, fmt.Errorf("the best score of %s is %v ms (%s)", oc, f.TimeMs, f.Setting)
	}
	return f, nil
}

// descent is the pass as a tuner.Descent from start, drawing from rng. A count of zero here
// means none, where Descent's zero means its default.
func (p Pass) descent(start []tuner.Candidate, rng *rand.Rand) *tuner.Descent {
	none := func(n int) int {
		if n <= 0 {
			return -1
		}
		return n
	}
	d := &tuner.Descent{Samples: none(p.Samples), Starts: p.Starts, Rounds: none(p.Rounds), Start: start, Rand: rng}
	if p.Starts <= 0 {
		d.Rounds = -1 // no start to descend from
	}
	return d
}

// codegenLine is the smart codegen command that writes the CUDA source of a choice for gpu,
// whose limits codegen checks the setting against: with the catalogue file that describes gpu
// where one was given ("" for none).
func codegenLine(file, gpu, catalogFile string, oc smart.Combination, s smart.Setting) string {
	line := fmt.Sprintf("smart codegen %s --gpu %s --oc %s --setting %s", shellQuote(file), shellQuote(gpu), oc, s)
	if catalogFile != "" {
		line += " --catalog " + shellQuote(catalogFile)
	}
	return line
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
