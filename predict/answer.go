package predict

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"smart"
	"smart/models"
	"smart/models/roofline"
	"smart/space"
	"smart/transfer"
)

// answer is how one GPU is predicted: the same whether it is the GPU asked about, a row of the
// table of every GPU, or one that smart recommend ranks.
type answer struct {
	classes  []ClassProb
	choices  []Choice // fastest first
	screened int
	model    *Model // the runtime model that answered
	note     string // why no model of measurements answered where one might have
	reason   string // why there are no choices
}

// session predicts one stencil on several GPUs. The search of a measured GPU's own model on
// its GPU is done once and shared: that GPU's answer, and every GPU transferred from it.
type session struct {
	p       *Predictor
	in      Input
	sel, rt *Model // nil where beyond is set
	// beyond says why no learned model reads the stencil; the analytic model alone answers then.
	beyond *NoModelError
	// tableModels are the models whose GPUs the table lists (tableGPUs): sel and rt, or where
	// they do not read the stencil, the models of its dimensions.
	tableModels []*Model
	mu          sync.Mutex
	pools       map[string]*pool
	answers     map[string]*answered
}

type pool struct {
	once  sync.Once
	res   searched
	there [][]float64 // the analytic model's time on the pool's GPU of each found's Top settings; NaN: none
	err   error
	// What a transfer from the pool's GPU reads (transferSource), made once for every target.
	found     map[string]Found
	rows      []smart.Measurement
	thereByID map[string]float64
}

type answered struct {
	once sync.Once
	a    answer
	err  error
}

// entry returns m's value for key, adding a zero one first where there is none, under mu.
func entry[T any](mu *sync.Mutex, m map[string]*T, key string) *T {
	mu.Lock()
	defer mu.Unlock()
	e := m[key]
	if e == nil {
		e = new(T)
		m[key] = e
	}
	return e
}

func (p *Predictor) newSession(in Input) (*session, error) {
	sel, rt, err := p.Models.For(in.Stencil)
	var beyond *NoModelError
	if err != nil && !errors.As(err, &beyond) {
		return nil, err
	}
	s := &session{p: p, in: in, sel: sel, rt: rt, beyond: beyond, pools: map[string]*pool{}, answers: map[string]*answered{}}
	if beyond != nil {
		// The table lists the GPUs it lists for the stencils the models read: those of the
		// models of these dimensions, where there are some.
		for _, task := range []models.Task{models.Select, models.Runtime} {
			if m, err := p.Models.model(task, in.Stencil.Dims); err == nil && m != nil {
				s.tableModels = append(s.tableModels, m)
			}
		}
	} else {
		s.tableModels = []*Model{sel, rt}
	}
	return s, nil
}

// beyondWarning says that no learned model read the stencil and what answered instead.
// blindWarning says which GPUs the session's answers gave a time for by a model of the user's
// that cannot tell GPUs apart and never learned them (Model.blindTo): their times are those of
// the GPUs it learned, and compare nothing. It returns "" where there are none.
func (s *session) blindWarning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gpus, learned []string
	var model string
	for _, name := range slices.Sorted(maps.Keys(s.answers)) {
		m := s.answers[name].a.model
		if m == nil {
			continue
		}
		if l := m.blindTo(name); l != nil {
			gpus, learned, model = append(gpus, name), l, m.Name
		}
	}
	if len(gpus) == 0 {
		return ""
	}
	return fmt.Sprintf("model %s cannot tell GPUs apart (it learned %s only): its times for %s are those, not theirs, and compare no GPUs; train it on data of several GPUs, or leave --model out",
		model, strings.Join(learned, ", "), strings.Join(gpus, ", "))
}

func (s *session) beyondWarning() string {
	if s.beyond == nil {
		return ""
	}
	return fmt.Sprintf("%s; the analytic model alone screened every OC and searched the fastest (no classifier, no runtime model: its picks and times are less sure than a learned model's)", s.beyond.Reason)
}

// analyticClasses are every OC, each a class of its own, for a search with the analytic model
// alone: with no classifier, none is more probable than another.
func analyticClasses() []ClassProb {
	var out []ClassProb
	for _, oc := range smart.Combinations() {
		out = append(out, ClassProb{OC: oc, Members: []smart.Combination{oc}})
	}
	return out
}

// analyticProvenance is what stands behind a choice of the analytic model alone.
func (p *Predictor) analyticProvenance() Provenance {
	if p.Calibration == nil {
		return Provenance{Basis: BasisAnalytic, Model: "analytic model", Text: "the analytic model alone, with the literature's constants: no learned model reads this stencil"}
	}
	var stencils int
	var gpus []string
	for _, src := range p.Calibration.FittedOn {
		stencils += src.Stencils
		if !slices.Contains(gpus, src.GPU) {
			gpus = append(gpus, src.GPU)
		}
	}
	return Provenance{Basis: BasisAnalytic, Model: "calibrated analytic model",
		Text: fmt.Sprintf("the analytic model alone, its constants fitted to %d stencils measured on the %s: no learned model reads this stencil", stencils, strings.Join(gpus, ", "))}
}

// answer predicts st on g, once per session: with g's own runtime model where one is embedded;
// else (Transfer) from the search of the nearest measured GPU, each setting found there scaled
// to g; else with the defaults.
func (s *session) answer(ctx context.Context, g smart.GPU) (answer, error) {
	e := entry(&s.mu, s.answers, g.Name)
	e.once.Do(func() { e.a, e.err = s.compute(ctx, g) })
	return e.a, e.err
}

func (s *session) compute(ctx context.Context, g smart.GPU) (answer, error) {
	p, st := s.p, s.in.Stencil
	var a answer
	if g.Vendor != "NVIDIA" {
		a.reason = fmt.Sprintf("%s GPU: smart's kernels are CUDA", g.Vendor)
		return a, nil
	}
	if err := g.CheckMemory(st); err != nil {
		a.reason = err.Error()
		return a, nil
	}
	if s.beyond != nil {
		b := p.Budget
		classes := analyticClasses()
		b.Classes, b.MinProbability = len(classes), 0
		res, err := p.searchGPU(ctx, nil, s.in, g, classes, b)
		if err != nil {
			return a, err
		}
		a.choices, a.screened = res.choices, res.screened
		if len(a.choices) == 0 {
			a.reason = fmt.Sprintf("none of the %d OCs has a valid setting", res.screened)
			if err := space.BlockRoom(st, g); err != nil {
				a.reason = err.Error()
			}
		}
		return a, nil
	}
	var err error
	if a.classes, err = classify(s.sel, st, g); err != nil {
		return a, err
	}
	own, note, err := p.Models.Own(st, g.Name)
	if err != nil {
		return a, err
	}
	from := g
	if own == nil && note == "" && p.Transfer {
		if own, from, note, err = p.nearestMeasured(st, g); err != nil {
			return a, err
		}
	}
	a.note = note
	if own == nil {
		a.model = s.rt
		res, err := p.searchGPU(ctx, s.rt, s.in, g, a.classes, p.Budget)
		if err != nil {
			return a, err
		}
		a.choices, a.screened = res.choices, res.screened
		if len(a.choices) == 0 {
			a.reason = fmt.Sprintf("none of the %d OCs of classes %v has a valid setting", res.screened, classOCs(a.classes, res.classes))
			if err := space.BlockRoom(st, g); err != nil {
				a.reason = err.Error()
			}
		}
		return a, nil
	}
	a.model = own
	pl, err := s.pool(ctx, own, from)
	if err != nil {
		return a, err
	}
	a.screened = pl.res.screened
	if from.Name == g.Name {
		a.choices = pl.res.choices
	} else {
		a.choices = p.transfer(s.in, g, from, own, pl, a.classes)
	}
	if len(a.choices) == 0 {
		a.reason = fmt.Sprintf("none of the settings the %s's model found for %d OCs has a place on both GPUs in the analytic model, so none scales", from.Name, pl.res.screened)
		if from.Name == g.Name {
			a.reason = fmt.Sprintf("none of the %d OCs screened has a valid setting", pl.res.screened)
		}
		if err := space.BlockRoom(st, g); err != nil {
			a.reason = err.Error()
		}
	}
	return a, nil
}

// pool is the search of own, the runtime model of from's measurements, on from: the OCs of the
// classes the classifier finds most probable there.
func (s *session) pool(ctx context.Context, own *Model, from smart.GPU) (*pool, error) {
	e := entry(&s.mu, s.pools, from.Name)
	e.once.Do(func() {
		p := s.p
		classes, err := classify(s.sel, s.in.Stencil, from)
		if err != nil {
			e.err = err
			return
		}
		if e.res, e.err = p.searchGPU(ctx, own, s.in, from, classes, p.Budget); e.err != nil {
			return
		}
		st := s.in.Stencil
		e.there = make([][]float64, len(e.res.found))
		for k, f := range e.res.found {
			e.there[k] = make([]float64, len(f.Top))
			for i, set := range f.Top {
				e.there[k][i] = math.NaN()
				if t, err := smart.DecodeTuning(st.Dims, f.OC, set); err == nil {
					if est, err := roofline.Model(st, t, from); err == nil {
						e.there[k][i] = est.TimeMs
					}
				}
			}
		}
		e.found, e.rows, e.thereByID = transferSource(st, from, e)
	})
	return e, e.err
}

// transfer predicts g from the settings found on from by the model of from's measurements
// (package transfer): each setting's time there times the analytic model's ratio of it on g
// over on from, the ratio carrying what the two GPUs' bandwidth, caches and occupancy make of
// that kernel. Per OC the setting fastest on g after scaling (and the floor), of the few
// best found; Budget.Refine of the OCs, the fastest of each class first (spread).
func (p *Predictor) transfer(in Input, g, from smart.GPU, own *Model, pl *pool, classes []ClassProb) []Choice {
	st := in.Stencil
	prob := map[smart.Combination]float64{}
	class := map[smart.Combination]int{}
	for i, c := range classes {
		for _, oc := range c.Members {
			prob[oc], class[oc] = c.Probability, i
		}
	}
	cal, model := ratioConstants(p.constants(), from, g, len(rangeOutside(own, st)) > 0)
	src := Provenance{Basis: BasisTransfer, Model: own.Name,
		Text: fmt.Sprintf("trained on measurements of the %s, not of this GPU; each time scaled by %s ratio of its setting on the two", from.Name, model)}
	found := pl.found
	pred, err := transfer.Predict([]transfer.Source{{GPU: from, Rows: pl.rows}}, transfer.Target{GPU: g},
		transfer.Settings{Ratio: analyticRatio(st, pl.thereByID, cal, from), RatioName: model})
	if err != nil {
		return nil
	}
	type candidate struct {
		found          *Found
		scaled         Scaled
		floored, learn float64
	}
	floors := map[int]float64{} // by fused steps
	best := map[smart.Combination]*candidate{}
	for _, v := range pred.Variants {
		if v.Failed {
			continue // not a setting of g's space (too large a block, say), or none on from
		}
		f := found[v.Key()]
		t, err := smart.DecodeTuning(st.Dims, f.OC, f.Setting)
		if err != nil {
			continue
		}
		floor, ok := floors[t.TT]
		if !ok {
			if floor, err = roofline.Floor(st, t.TT, g, p.constants()); err != nil {
				continue
			}
			floors[t.TT] = floor
		}
		c := candidate{found: &Found{OC: f.OC, Setting: f.Setting, TimeMs: v.TimeMs, Evaluated: f.Evaluated, LeftOut: f.LeftOut},
			scaled: Scaled{GPU: from.Name, TimeMs: f.TimeMs, Ratio: v.TimeMs / f.TimeMs, Calibrated: cal != nil}}
		c.learn, c.floored = c.found.TimeMs, max(c.found.TimeMs, floor)
		if b := best[f.OC]; b == nil || c.floored < b.floored || (c.floored == b.floored && c.learn < b.learn) {
			best[f.OC] = &c
		}
	}
	var cands []candidate
	for _, f := range pl.res.found {
		if c := best[f.OC]; c != nil {
			cands = append(cands, *c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].floored != cands[j].floored {
			return cands[i].floored < cands[j].floored
		}
		return cands[i].learn < cands[j].learn
	})
	fs := make([]*Found, len(cands))
	for i := range cands {
		fs[i] = cands[i].found
	}
	var out []Choice
	for _, k := range spread(fs, class, p.Budget.Refine) {
		c := cands[k]
		if pl.res.raw != nil {
			// The time found on from is the calibrated model's bound there: settle bounds the
			// runtime model's own time, scaled alike, and says what it was.
			if ts, err := pl.res.raw(c.found.OC, []smart.Setting{c.found.Setting}); err == nil {
				c.found.LearnedMs = ts[0] * c.scaled.Ratio
			}
		}
		out = append(out, p.choice(in, g, own, c.found, prob[c.found.OC], src, &c.scaled))
	}
	SortChoices(out, p.AnalyticWeight)
	return out
}

// transferSource is what from's search found as a transfer source: each OC's best settings
// with the model's time there (rows), by transfer.Key (found, its time the model's there), and
// the analytic model's time of each there.
func transferSource(st *smart.Stencil, from smart.GPU, pl *pool) (map[string]Found, []smart.Measurement, map[string]float64) {
	found := map[string]Found{}
	there := map[string]float64{}
	var rows []smart.Measurement
	id := st.ID()
	for k, f := range pl.res.found {
		for i, set := range f.Top {
			if math.IsNaN(pl.there[k][i]) {
				continue
			}
			m := smart.Measurement{StencilID: id, GPU: from.Name, OC: f.OC, Setting: set,
				Status: smart.StatusOK, TimeMs: f.TopMs[i], Source: smart.Predicted}
			key := transfer.Key(m)
			found[key] = Found{OC: f.OC, Setting: set, TimeMs: f.TopMs[i], Evaluated: f.Evaluated, LeftOut: f.LeftOut}
			there[key] = pl.there[k][i]
			rows = append(rows, m)
		}
	}
	return found, rows, there
}

// ratioConstants are the analytic model's constants that move times from one GPU to another, and
// their name: the calibration's between GPUs of one architecture, the literature's (nil)
// across architectures. The calibration was fitted on the measured GPU alone: within its
// architecture it moves those times to the other GPU measured (H100 to H200) better than the
// datasheets' constants; across architectures no measurement says so, and it put kernels at
// their FMA floor there (docs/results/calibration.md). Where bounded (the stencil lies outside
// the source model's range), the times found on from are the calibrated model's bound (Within),
// and only that model's ratio keeps them where it puts the target, as settle bounds the target's
// time (the literature's ratio put a V100 ahead of the H100): the calibration's across
// architectures too.
func ratioConstants(cal *roofline.Calibration, from, to smart.GPU, bounded bool) (*roofline.Calibration, string) {
	if cal == nil || from.Arch != to.Arch && !bounded {
		return nil, "the literature-constant analytic model's"
	}
	return cal, "the calibrated analytic model's"
}

// analyticRatio is the analytic model's time of a setting on the target over its time on the
// source: there, the literature's times on from, unless cal gives other constants. False for a
// setting outside the target's space.
func analyticRatio(st *smart.Stencil, there map[string]float64, cal *roofline.Calibration, from smart.GPU) func(transfer.Variant, smart.GPU, smart.GPU) (float64, bool) {
	spaces := map[smart.Combination]*space.Lazy{}
	return func(v transfer.Variant, _, to smart.GPU) (float64, bool) {
		sp, ok := spaces[v.OC]
		if !ok {
			var err error
			if sp, err = space.LazyForStencil(st, v.OC, to); err != nil {
				sp = nil
			}
			spaces[v.OC] = sp
		}
		if sp == nil {
			return 0, false
		}
		if pos, ok := sp.Positions(v.Setting); !ok || !sp.Valid(pos) {
			return 0, false
		}
		t, err := smart.DecodeTuning(st.Dims, v.OC, v.Setting)
		if err != nil {
			return 0, false
		}
		here, err := roofline.ModelWith(st, t, to, cal)
		if err != nil {
			return 0, false
		}
		if cal == nil {
			return here.TimeMs / there[v.Key()], true
		}
		src, err := roofline.ModelWith(st, t, from, cal)
		if err != nil {
			return 0, false
		}
		return here.TimeMs / src.TimeMs, true
	}
}

// across answers every GPU of gpus in parallel.
func (s *session) across(ctx context.Context, gpus []smart.GPU) ([]GPUTime, error) {
	out := make([]GPUTime, len(gpus))
	errs := make([]error, len(gpus))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, g := range gpus {
		out[i] = GPUTime{GPU: g.Name, Arch: g.Arch, Price: g.Price}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			a, err := s.answer(ctx, g)
			if err != nil {
				errs[i] = err
				return
			}
			if len(a.choices) > 0 {
				out[i].Best = &a.choices[0]
			}
			out[i].Reason = a.reason
		}()
	}
	wg.Wait()
	// The GPUs moved from one measured GPU share its search, and its error: each error once, and
	// only the first where the context ended, which every GPU's search then reports.
	var once []error
	for _, err := range errs {
		if err != nil && !slices.ContainsFunc(once, func(o error) bool { return o.Error() == err.Error() }) {
			once = append(once, err)
		}
	}
	if len(once) > 0 && ctx.Err() != nil {
		once = once[:1]
	}
	if err := errors.Join(once...); err != nil {
		return nil, err
	}
	return out, nil
}

// used lists the models the session's answers used: the classifier, then each runtime model in
// the order of first use by GPU name.
func (s *session) used() []*Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.answers))
	for n := range s.answers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*Model
	if s.sel != nil {
		out = append(out, s.sel)
	}
	for _, n := range names {
		if m := s.answers[n].a.model; m != nil && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// SortChoices orders choices fastest first by RankMs with weight w (Predictor.AnalyticWeight);
// where a bound gave several the same time (the copy floor, say), the runtime model's own times
// order them.
func SortChoices(cs []Choice, w float64) {
	sort.SliceStable(cs, func(i, j int) bool {
		if ri, rj := cs[i].RankMs(w), cs[j].RankMs(w); ri != rj {
			return ri < rj
		}
		return learnedMs(cs[i]) < learnedMs(cs[j])
	})
}

// RankMs is the time a choice is ranked by among the candidates: t^(1-w) a^w, t its time and a
// the analytic model's (Predictor.AnalyticWeight); t where it has no analytic time.
func (c Choice) RankMs(w float64) float64 {
	if w <= 0 || c.Analytic == nil || c.Analytic.TimeMs <= 0 || c.TimeMs <= 0 {
		return c.TimeMs
	}
	return math.Exp((1-w)*math.Log(c.TimeMs) + w*math.Log(c.Analytic.TimeMs))
}

// learnedMs is the runtime model's time of a choice, before any bound replaced it.
func learnedMs(c Choice) float64 {
	if c.Bounded != nil {
		return c.Bounded.LearnedMs
	}
	return c.TimeMs
}
