package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/data"
	"smart/dataset"
	"smart/models"
	"smart/models/roofline"
)

// Predictor answers, for a stencil, which OC to use on a GPU, with which setting and how fast
// it runs there and on every other catalogued GPU.
type Predictor struct {
	Models  *Models
	Catalog *catalog.Catalog
	// CatalogFile is the user's catalogue file merged into Catalog ("" for none), which the
	// printed smart codegen commands pass on: codegen checks a setting against the GPU's limits.
	CatalogFile string
	// Budget is the search budget on every GPU alike, so that their times compare and a GPU's
	// time is the same whichever GPU was asked about.
	Budget Budget
	// Transfer predicts an NVIDIA GPU without an embedded model of its own measurements from
	// the search of the nearest GPU of its vendor that has one (the same architecture first,
	// then the closest memory bandwidth), each setting found there scaled to this GPU by the
	// analytic model's ratio for it (Scaled). The ranking is then learned from real kernels
	// rather than from the analytic model, whose picks, measured on the H100, ran far slower
	// than the best measured (docs/performance.md, "Measured on an H100").
	Transfer bool
	// AllGPUs puts every catalogued GPU in the table of every GPU and in a recommendation that
	// names none. Without it they hold the GPUs the models were trained on (simulated or
	// measured), those with a price and the GPU asked about: the catalogue's others are
	// described by their hardware alone, further from what the models learned.
	AllGPUs bool
	Seed    uint64
	// Calibration gives the analytic model's constants for each choice's second opinion and
	// bounds a runtime model asked about a stencil outside its training range (nil: the
	// literature's constants, no bound).
	Calibration *calibrate.File
	// Bands give each runtime model's prediction interval, by its errors on measured stencils
	// it had not seen (nil, or a model without one: no interval).
	Bands *calibrate.Bands
	// AnalyticWeight w ranks the candidates by t^(1-w) a^w, t the runtime model's time and a the
	// calibrated analytic model's, rather than by t alone (0). The search picks the settings the
	// runtime model is most optimistic about, and where the analytic model holds one several
	// times slower than the others, measured it often was (docs/results/calibration.md,
	// "Ranking the candidates"). Times are the runtime model's either way.
	AnalyticWeight float64
	// Measured holds the fastest variants measured of the stencils smart has run (nil: none),
	// which a prediction for one of those very stencils is set against (Prediction.Measured).
	Measured *dataset.FastestFile
}

// DefaultClasses is how many of the most probable OC classes the default budgets search, and
// DefaultMinProbability the least probability of each after the first: a class the classifier
// all but rules out would let a runtime model that has seen few stencils pick its OCs.
const (
	DefaultClasses        = 3
	DefaultMinProbability = 0.02
)

// DefaultAnalyticWeight is the default predictor's AnalyticWeight: a candidate the analytic model
// holds 2 times slower than the runtime model does goes down by 1.23x, one it holds 8 times
// slower by 1.87x. It ranks the candidates measured on the H100 and the H200 best
// (docs/results/calibration.md).
const DefaultAnalyticWeight = 0.3

// DefaultPredictor returns a predictor with the embedded models and catalogue and the default
// budgets (a cold smart predict of a 3-D stencil answers in a few hundred milliseconds).
func DefaultPredictor() (*Predictor, error) {
	ms, err := Defaults()
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	cal, err := calibrate.Default()
	if err != nil {
		return nil, err
	}
	bands, err := calibrate.DefaultBands()
	if err != nil {
		return nil, err
	}
	measured, err := dataset.ParseFastest(data.Fastest(), "embedded data/measured/fastest.json")
	if err != nil {
		return nil, err
	}
	return &Predictor{Models: ms, Catalog: cat, Seed: 1, Transfer: true, Calibration: cal, Bands: bands, AnalyticWeight: DefaultAnalyticWeight, Measured: measured,
		Budget: DefaultBudget()}, nil
}

// DefaultBudget is the default predictor's search budget, which smart recommend searches with.
func DefaultBudget() Budget {
	return Budget{Classes: DefaultClasses, MinProbability: DefaultMinProbability, Screen: Pass{Samples: 16, Starts: 1, Rounds: 2}, Refine: 3, Deep: Pass{Samples: 192, Starts: 6, Rounds: 8}}
}

// Input is one stencil to predict, with the file it came from (for the codegen command line).
type Input struct {
	Stencil *smart.Stencil
	File    string
}

// Prediction is what smart predict prints for one stencil.
type Prediction struct {
	File    string      `json:"file"`
	Stencil StencilInfo `json:"stencil"`
	GPU     string      `json:"gpu"` // the GPU asked about, by catalogue name
	// Classes are the OC classes with their probabilities on GPU, most probable first.
	Classes     []ClassProb `json:"classes"`
	ClassSource Provenance  `json:"class_source"`
	// Best is the first of the Candidates, the OCs searched in depth (the fastest of each class,
	// then the fastest left), fastest first by their time tempered with the analytic model's
	// (AnalyticWeight), after Screened OCs of the most probable classes were tried briefly.
	Best       *Choice  `json:"best"`
	Candidates []Choice `json:"candidates"`
	// AnalyticWeight is the Predictor's: the weight of the analytic model's time in the order
	// of the Candidates.
	AnalyticWeight float64 `json:"analytic_weight,omitempty"`
	Screened       int     `json:"ocs_screened"`
	// defaultSearch says the search had smart recommend's budget, ranking and transfer, so that
	// the table's times are recommend's too.
	defaultSearch bool
	// Measure is the smart bench command that times every candidate on the GPU: the models'
	// pick is often not the fastest of them on real hardware (docs/performance.md, "Predictions measured on
	// the H100"), and timing a few kernels takes seconds.
	Measure string `json:"measure"`
	// GPUs are the GPUs of the table (Predictor.AllGPUs), fastest first, predicted with the same models: the
	// defaults, also where Best is from a model of measurements (of the GPU or, Transfer,
	// another), so that the table is the same whichever GPUs have one.
	GPUs []GPUTime `json:"gpus"`
	// Measured are the fastest variants of this very stencil (the same ID: shape, grid, type)
	// that smart measured in full on each GPU (Predictor.Measured), fastest first: where the GPU
	// asked about is among them, the best measured kernel to set the prediction against.
	Measured []dataset.Fastest `json:"measured,omitempty"`
	Models   []ModelInfo       `json:"models"`
	Warnings []string          `json:"warnings,omitempty"`
}

// Scaled is a time predicted for another GPU, by a model of its measurements, and scaled to the
// GPU asked about.
type Scaled struct {
	GPU    string  `json:"gpu"`     // the GPU whose measurements trained the model
	TimeMs float64 `json:"time_ms"` // the model's time there
	Ratio  float64 `json:"ratio"`   // the analytic model's time of the setting here over there
	// Calibrated says the ratio's constants were the calibration's (between GPUs of one
	// architecture), not the literature's.
	Calibrated bool `json:"calibrated_ratio"`
}

// BandCalibratedTransfer is the basis of the band of times moved by the calibrated ratio: their
// errors differ from those moved by the literature's, whose band is BasisTransfer's.
const BandCalibratedTransfer = "transfer-calibrated"

// StencilInfo identifies the stencil predicted.
type StencilInfo struct {
	Name   string      `json:"name"`
	ID     string      `json:"id"`
	Dims   int         `json:"dims"`
	Order  int         `json:"order"`
	Points int         `json:"points"`
	Dtype  smart.Dtype `json:"dtype"`
	Grid   []int       `json:"grid"`
	Steps  int         `json:"steps"`
}

// ClassProb is one OC class with its probability of holding the best OC.
type ClassProb struct {
	OC          smart.Combination   `json:"oc"` // the label searched for the class
	Members     []smart.Combination `json:"members"`
	Probability float64             `json:"probability"`
}

// Choice is an OC with the best setting found for it and its predicted time per step.
type Choice struct {
	OC          smart.Combination `json:"oc"`
	Probability float64           `json:"probability"` // of the class it belongs to
	Setting     smart.Setting     `json:"setting"`
	TimeMs      float64           `json:"time_ms"`
	Evaluated   int               `json:"settings_scored"`
	// LeftOut are the settings scored that the search left out as predicted to keep over
	// LocalLimit bytes of local memory a thread (Models.Local).
	LeftOut int        `json:"settings_left_out,omitempty"`
	Source  Provenance `json:"source"`
	Codegen string     `json:"codegen"`
	// Interval is where the measured time lies with its probability, by the errors of the model
	// that answered on measured stencils it had not seen; nil where that model has none.
	Interval *smart.Interval `json:"interval,omitempty"`
	// Analytic is the analytic model's time for the same setting (with Predictor.Calibration's
	// constants): a physical second opinion. The learned time is the lowest of many
	// predictions, so it tends to sit below the truth (the winner's curse); a large gap between
	// the two says to trust neither blindly.
	Analytic *roofline.Estimate `json:"analytic,omitempty"`
	// Bounded, when set, says that TimeMs is not the runtime model's: a bound replaced it.
	Bounded *Bounded `json:"bounded,omitempty"`
	// Scaled, when set, says that TimeMs is another GPU's time, from a model of its
	// measurements, scaled to this one (Predictor.Transfer).
	Scaled *Scaled `json:"scaled,omitempty"`
}

// Bounded says which bound answered instead of the runtime model, and why.
type Bounded struct {
	By        string  `json:"by"` // BoundFloor, BoundFMAFloor or BoundCalibrated
	LearnedMs float64 `json:"learned_ms"`
	Why       string  `json:"why"`
}

// The bounds that can replace a runtime model's time.
const (
	// BoundFloor: no step is faster than reading and writing its grid once per launch at the
	// GPU's copy bandwidth.
	BoundFloor = roofline.CopyFloor
	// BoundFMAFloor: no step is faster than its FMAs (one per point access of every grid point)
	// at the GPU's peak rate of the element type.
	BoundFMAFloor = roofline.FMAFloor
	// BoundCalibrated: a runtime model asked outside its training range is kept within the
	// calibrated analytic model's interval.
	BoundCalibrated = "calibrated model"
)

// GPUTime is the prediction for one catalogued GPU: its best OC and setting and the time per
// step, or why there is none.
type GPUTime struct {
	GPU    string       `json:"gpu"`
	Arch   string       `json:"arch"`
	Price  *smart.Price `json:"price,omitempty"`
	Best   *Choice      `json:"best,omitempty"`
	Reason string       `json:"not_predicted,omitempty"` // why Best is nil
}

// ModelInfo says what a model is and what it was trained on.
type ModelInfo struct {
	Name    string           `json:"name"`
	Kind    string           `json:"kind"`
	Task    models.Task      `json:"task"`
	Data    []models.DataRef `json:"data"`
	CV      *models.Metrics  `json:"cv,omitempty"`
	Trained *models.Range    `json:"trained_on,omitempty"`
}

// Predict predicts stencil in on the GPU named gpu (any catalogue name or alias) and on every
// catalogued GPU, each the way it would be predicted if asked about (answer), so that a GPU's
// time is the same number in the choice, the table and a recommendation.
func (p *Predictor) Predict(ctx context.Context, in Input, gpu string) (*Prediction, error) {
	st := in.Stencil
	g, err := p.Catalog.Lookup(gpu)
	if err != nil {
		return nil, err
	}
	if err := g.RunsCUDA(); err != nil {
		return nil, err
	}
	s, err := p.newSession(in)
	if err != nil {
		return nil, err
	}
	if err := g.CheckMemory(st); err != nil {
		return nil, fmt.Errorf("stencil %s on %s: %w", st.Name, g.Name, err)
	}
	a, err := s.answer(ctx, g)
	if err != nil {
		return nil, err
	}
	pr := &Prediction{File: in.File, GPU: g.Name, Stencil: stencilInfo(st), Classes: a.classes}
	if s.beyond != nil {
		pr.ClassSource = Provenance{Basis: BasisAnalytic, Model: "none", Text: "no classifier reads this stencil"}
		pr.Models, pr.Warnings = []ModelInfo{}, []string{s.beyondWarning()}
	} else {
		pr.ClassSource = s.sel.Provenance(g.Name)
		used := []*Model{s.sel, a.model}
		if a.model != s.rt {
			used = append(used, s.rt)
		}
		guard, err := p.Models.Local(st.Dims)
		if err != nil {
			return nil, err
		}
		if guard != nil {
			used = append(used, guard)
		}
		pr.Models, pr.Warnings = modelInfo(st, used...)
	}
	if a.note != "" {
		pr.Warnings = append(pr.Warnings, a.note)
	}
	if len(a.choices) == 0 {
		return nil, fmt.Errorf("stencil %s on %s: %s", st.Name, g.Name, a.reason)
	}
	pr.Candidates, pr.Screened = a.choices, a.screened
	pr.Best = &pr.Candidates[0]
	pr.AnalyticWeight = p.AnalyticWeight
	pr.defaultSearch = p.Budget == DefaultBudget() && p.AnalyticWeight == DefaultAnalyticWeight && p.Transfer
	if pr.GPUs, err = s.across(ctx, s.tableGPUs(g.Name)); err != nil {
		return nil, err
	}
	sort.SliceStable(pr.GPUs, func(i, j int) bool { return lessTime(pr.GPUs[i].Best, pr.GPUs[j].Best) })
	if w := s.blindWarning(); w != "" { // the GPU asked and the table's
		pr.Warnings = append(pr.Warnings, w)
	}
	pr.Measured = p.measuredOf(st)
	// The fastest kernel measured here, where there is one, is timed beside the candidates.
	timed := pr.Candidates
	if m := pr.measuredOn(g.Name); m != nil && !slices.ContainsFunc(timed, func(c Choice) bool { return c.OC == m.OC && c.Setting.String() == m.Setting.String() }) {
		timed = append(slices.Clip(timed), Choice{OC: m.OC, Setting: m.Setting})
	}
	pr.Measure = measureLine(cmp.Or(in.File, st.Name), timed, FileName(st.Name)+"-candidates")
	return pr, nil
}

// measuredOf is the fastest variants of st measured on each GPU, fastest first.
func (p *Predictor) measuredOf(st *smart.Stencil) []dataset.Fastest {
	if p.Measured == nil {
		return nil
	}
	ms := p.Measured.OfStencil(st.ID())
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].TimeMs < ms[j].TimeMs })
	return ms
}

// nearestMeasured returns the embedded runtime model of the GPU nearest to g (of its vendor, the
// same architecture first, then the closest memory bandwidth) among those whose measurements
// train one for st's dimensions and whose memory holds st, with that GPU; nil and g where there
// is none, with a note where its model does not cover st.
func (p *Predictor) nearestMeasured(st *smart.Stencil, g smart.GPU) (*Model, smart.GPU, string, error) {
	var near *smart.GPU
	var small []string // measured GPUs of g's vendor whose memory cannot hold st
	for _, name := range p.Models.MeasuredGPUs(st.Dims) {
		o, err := p.Catalog.Lookup(name)
		if err != nil || o.Name == g.Name || o.Vendor != g.Vendor {
			continue
		}
		if o.CheckMemory(st) != nil {
			small = append(small, o.Name)
			continue
		}
		if near == nil || nearer(g, o, *near) {
			near = &o
		}
	}
	if near == nil && len(small) > 0 {
		return nil, g, fmt.Sprintf("the stencil's grids do not fit the memory of %s, the GPUs whose measurements train a runtime model; the simulated default answers", strings.Join(small, ", ")), nil
	}
	if near == nil {
		return nil, g, "", nil
	}
	m, note, err := p.Models.Own(st, near.Name)
	if m == nil {
		return nil, g, note, err
	}
	return m, *near, "", nil
}

// nearer reports whether a is nearer to g than b: the same architecture, then the memory
// bandwidth that stencils mostly depend on.
func nearer(g, a, b smart.GPU) bool {
	if (a.Arch == g.Arch) != (b.Arch == g.Arch) {
		return a.Arch == g.Arch
	}
	return math.Abs(math.Log(a.BandwidthGBs/g.BandwidthGBs)) < math.Abs(math.Log(b.BandwidthGBs/g.BandwidthGBs))
}

// tableGPUs returns, in catalogue order, the GPUs of the table of every GPU and of a
// recommendation that names none: every GPU with AllGPUs; else those the session's models were
// trained on, those with an embedded model of their own measurements, those with a price, and
// extra (names or aliases).
func (s *session) tableGPUs(extra ...string) []smart.GPU {
	all := s.p.Catalog.GPUs()
	if s.p.AllGPUs {
		return all
	}
	keep := map[string]bool{}
	add := func(names ...string) {
		for _, n := range names {
			if g, err := s.p.Catalog.Lookup(n); err == nil {
				keep[g.Name] = true
			}
		}
	}
	for _, m := range s.tableModels {
		for _, d := range m.Header.Data {
			add(d.GPUs...)
		}
	}
	add(s.p.Models.MeasuredGPUs(s.in.Stencil.Dims)...)
	add(extra...)
	var out []smart.GPU
	for _, g := range all {
		if keep[g.Name] || g.Price != nil {
			out = append(out, g)
		}
	}
	return out
}

func stencilInfo(st *smart.Stencil) StencilInfo {
	return StencilInfo{Name: st.Name, ID: st.ID(), Dims: st.Dims, Order: st.Order(), Points: st.NNZ(), Dtype: st.Dtype,
		Grid: slices.Clone(st.Grid[:st.Dims]), Steps: st.Steps}
}

// modelInfo describes the models and warns where st lies outside what they were trained on,
// naming the models each warning is about.
func modelInfo(st *smart.Stencil, ms ...*Model) ([]ModelInfo, []string) {
	info := []ModelInfo{} // [] in JSON where no model answered (BasisAnalytic)
	var outside []string
	about := map[string][]string{}
	for _, m := range ms {
		info = append(info, ModelInfo{Name: m.Name, Kind: m.Header.Kind, Task: m.Header.Task, Data: m.Header.Data, CV: m.Header.CV, Trained: m.Range})
		if m.Range != nil {
			for _, w := range m.Range.Outside(st) {
				if about[w] == nil {
					outside = append(outside, w)
				}
				if !slices.Contains(about[w], m.Name) {
					about[w] = append(about[w], m.Name)
				}
			}
		}
	}
	warn := make([]string, len(outside))
	for i, w := range outside {
		warn[i] = fmt.Sprintf("outside what %s %s trained on: %s; the prediction extrapolates", strings.Join(about[w], " and "), map[bool]string{true: "was", false: "were"}[len(about[w]) == 1], w)
	}
	return info, warn
}

func lessTime(a, b *Choice) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return a.TimeMs < b.TimeMs
}

// classify returns the classes with their probabilities for st on g, most probable first.
func classify(sel *Model, st *smart.Stencil, g smart.GPU) ([]ClassProb, error) {
	row, err := sel.feat.Row(st, 0, nil, g)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", sel.Name, err)
	}
	proba, err := sel.Classifier.PredictProba(row)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", sel.Name, err)
	}
	out := make([]ClassProb, len(proba))
	for i, c := range sel.Header.Classes {
		out[i] = ClassProb{OC: c.OC, Members: c.Members, Probability: proba[i]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Probability > out[j].Probability })
	return out, nil
}

func classOCs(cs []ClassProb, n int) []smart.Combination {
	var out []smart.Combination
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.OC)
	}
	return out
}

// searched is the outcome of searching some OCs on one GPU.
type searched struct {
	choices  []Choice // fastest first
	found    []*Found // every OC screened, those searched in depth by their deep search
	screened int
	classes  int // the most probable classes whose OCs were screened
	// raw scores without the calibrated model's bound where the scorer kept times Within it
	// (scorer), nil otherwise.
	raw Scorer
}

// searchGPU screens the OCs of the most probable classes on g and searches the fastest of
// them in depth (spread), with rt.
func (p *Predictor) searchGPU(ctx context.Context, rt *Model, in Input, g smart.GPU, classes []ClassProb, b Budget) (searched, error) {
	var res searched
	st := in.Stencil
	prob := map[smart.Combination]float64{}
	class := map[smart.Combination]int{}
	var ocs []smart.Combination
	take := func(i int) {
		for _, oc := range classes[i].Members {
			prob[oc], class[oc] = classes[i].Probability, i
			ocs = append(ocs, oc)
		}
		res.classes = i + 1
	}
	for i, c := range classes {
		// Past the budget's classes, or below its least probability, only while fewer OCs than
		// the candidates to search in depth are kept: the user is asked to time that many.
		if (i >= b.Classes || i > 0 && c.Probability < b.MinProbability) && len(ocs) >= b.Refine {
			break
		}
		take(i)
	}
	score, raw, name, err := p.scorer(rt, st, g)
	if err != nil {
		return res, fmt.Errorf("stencil %s on %s: %s: %w", st.Name, g.Name, name, err)
	}
	res.raw = raw
	id := st.ID()
	deep := len(ocs) <= b.Refine // nothing to screen out
	var screened []*Found
	for k := 0; k < len(ocs); k++ {
		oc := ocs[k]
		pass := b.Screen
		if deep {
			pass = b.Deep
		}
		f, err := Search(ctx, score, st, oc, g, pass, nil, p.rng(id, oc, g))
		if err != nil {
			return res, fmt.Errorf("stencil %s under %s on %s: %s: %w", st.Name, oc, g.Name, name, err)
		}
		if f != nil {
			screened = append(screened, f)
		}
		// Fewer OCs with a setting on g than are searched in depth (a grid too thin for
		// temporal blocking leaves whole classes without one): the next class's are screened too.
		if k == len(ocs)-1 && len(screened) < b.Refine && res.classes < len(classes) {
			take(res.classes)
		}
	}
	res.screened = len(ocs)
	sort.SliceStable(screened, func(i, j int) bool { return screened[i].TimeMs < screened[j].TimeMs })
	src := p.analyticProvenance()
	if rt != nil {
		src = rt.Provenance(g.Name)
	}
	for _, k := range spread(screened, class, b.Refine) {
		f := screened[k]
		if !deep {
			deep, err := Search(ctx, score, st, f.OC, g, b.Deep, f.Top, p.rng(id, f.OC, g))
			if err != nil {
				return res, fmt.Errorf("stencil %s under %s on %s: %s: %w", st.Name, f.OC, g.Name, name, err)
			}
			if deep != nil {
				deep.Evaluated += f.Evaluated
				deep.LeftOut += f.LeftOut
				f = deep
				screened[k] = f
			}
		}
		if raw != nil {
			ts, err := raw(f.OC, []smart.Setting{f.Setting})
			if err != nil {
				return res, fmt.Errorf("stencil %s under %s on %s: %s: %w", st.Name, f.OC, g.Name, name, err)
			}
			f.LearnedMs = ts[0]
		}
		res.choices = append(res.choices, p.choice(in, g, rt, f, prob[f.OC], src, nil))
	}
	res.found = screened
	SortChoices(res.choices, p.AnalyticWeight)
	return res, nil
}

// spread picks n of the screened OCs (fastest first) to search in depth: the fastest of each
// class in turn, then the fastest left. The candidates hedge against the model's error, and OCs
// of one class are those whose times move together, so one of each is the better hedge.
func spread(screened []*Found, class map[smart.Combination]int, n int) []int {
	var out []int
	taken := map[int]bool{}
	for _, onePerClass := range []bool{true, false} {
		for i, f := range screened {
			if len(out) == n {
				return out
			}
			if !slices.Contains(out, i) && (!onePerClass || !taken[class[f.OC]]) {
				out = append(out, i)
				taken[class[f.OC]] = true
			}
		}
	}
	return out
}

// choice is the Choice of a found setting on g, its time rt's (scaled from another GPU's where
// scaled is not nil), settled.
func (p *Predictor) choice(in Input, g smart.GPU, rt *Model, f *Found, prob float64, src Provenance, scaled *Scaled) Choice {
	st := in.Stencil
	c := Choice{OC: f.OC, Probability: prob, Setting: f.Setting, TimeMs: cmp.Or(f.LearnedMs, f.TimeMs), Scaled: scaled,
		Evaluated: f.Evaluated, LeftOut: f.LeftOut, Source: src, Codegen: codegenLine(cmp.Or(in.File, st.Name), g.Name, p.CatalogFile, f.OC, f.Setting)}
	if t, err := smart.DecodeTuning(st.Dims, f.OC, f.Setting); err == nil {
		if est, err := roofline.ModelWith(st, t, g, p.constants()); err == nil {
			c.Analytic = &est
		}
	}
	p.settle(st, rt, &c)
	return c
}

// constants are the analytic model's constants: the calibration's, else the literature's (nil).
func (p *Predictor) constants() *roofline.Calibration {
	if p.Calibration == nil {
		return nil
	}
	return &p.Calibration.Calibration
}

// settle gives c, whose time rt predicted, its interval, and bounds the time: within the
// calibrated model's interval where st lies outside what rt was trained on, and never below the
// floor (the copy's or the FMAs').
func (p *Predictor) settle(st *smart.Stencil, rt *Model, c *Choice) {
	if c.Source.Basis == BasisAnalytic {
		if p.Calibration != nil {
			iv := p.Calibration.Interval.Around(c.TimeMs)
			c.Interval = &iv
		}
	} else {
		basis := c.Source.Basis
		if basis == BasisExtrapolated || basis == BasisMixed {
			basis = BasisSimulated // the defaults' errors were measured where they simulate
		}
		var b *models.Interval
		if p.Bands != nil {
			band := p.Bands.Lookup(c.Source.Model, string(basis))
			if basis == BasisTransfer && c.Scaled != nil && c.Scaled.Calibrated {
				band = p.Bands.Lookup(c.Source.Model, BandCalibratedTransfer)
			}
			if band != nil {
				b = &band.Interval
			}
		}
		// A model of the user's, trained with cross-validation, has its own errors on the GPUs
		// of its data; none on another GPU its times are moved to.
		if cv := rt.cvInterval(); b == nil && cv != nil && basis != BasisTransfer && c.Source.Model == rt.Name {
			b = cv
		}
		if b != nil {
			iv := b.Around(c.TimeMs)
			c.Interval = &iv
		}
	}
	a := c.Analytic
	if a == nil {
		return
	}
	if out := rangeOutside(rt, st); len(out) > 0 && p.Calibration != nil {
		iv := p.Calibration.Interval.Around(a.TimeMs)
		if c.TimeMs < iv.LoMs || c.TimeMs > iv.HiMs {
			c.Bounded = &Bounded{By: BoundCalibrated, LearnedMs: c.TimeMs,
				Why: fmt.Sprintf("the stencil lies outside what the runtime model was trained on (%s), and its %.4g ms outside the calibrated model's %.0f%% interval", strings.Join(out, "; "), c.TimeMs, 100*iv.Level)}
			c.TimeMs = min(max(c.TimeMs, iv.LoMs), iv.HiMs)
			c.Interval = &iv
		}
	}
	if c.TimeMs < a.FloorMs {
		if c.Bounded == nil {
			c.Bounded = &Bounded{LearnedMs: c.TimeMs}
		}
		c.Bounded.By = a.FloorBy
		if a.FloorBy == BoundFMAFloor {
			c.Bounded.Why = fmt.Sprintf("%.4g ms is below the %.4g ms a step's %d FMAs per point take at the GPU's peak %s rate", c.TimeMs, a.FloorMs, st.NNZ(), st.Dtype)
		} else {
			c.Bounded.Why = fmt.Sprintf("%.4g ms is below the %.4g ms a step takes to read and write the grid at the GPU's copy bandwidth", c.TimeMs, a.FloorMs)
		}
		c.TimeMs = a.FloorMs
	}
	if iv := c.Interval; iv != nil {
		*iv = iv.AtLeast(a.FloorMs)
	}
}

// cvInterval is the interval m's cross-validation recorded in its header, or nil.
func (m *Model) cvInterval() *models.Interval {
	if m == nil || m.Header.CV == nil {
		return nil
	}
	return m.Header.CV.Interval
}

// rangeOutside lists the ways st lies outside the stencils rt was trained on (nil where its
// range is unknown).
func rangeOutside(rt *Model, st *smart.Stencil) []string {
	if rt == nil || rt.Range == nil {
		return nil
	}
	return rt.Range.Outside(st)
}

// rng is the generator of one search of the stencil of ID id, so a prediction is the same every
// time. The ID is the caller's to compute once: it hashes every point.
func (p *Predictor) rng(id string, oc smart.Combination, g smart.GPU) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%s", id, oc, g.Name)
	return rand.New(rand.NewPCG(p.Seed, h.Sum64()))
}

// PredictAll predicts each of ins on gpu as Predict does, several at a time (at most GOMAXPROCS),
// and hands the predictions to yield in the order of ins. A prediction's error (naming the
// input's file) does not stop the others: the errors are returned joined once all are done.
// yield's error, or the context's end, stops them.
func (p *Predictor) PredictAll(ctx context.Context, ins []Input, gpu string, yield func(i int, pr *Prediction) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		pr  *Prediction
		err error
	}
	results := make([]chan result, len(ins))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ins)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pr, err := p.Predict(ctx, ins[i], gpu)
				if err != nil {
					err = fmt.Errorf("%s: %w", cmp.Or(ins[i].File, ins[i].Stencil.Name), err)
				}
				results[i] <- result{pr, err}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range ins {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()
	var errs []error
	for i := range ins {
		r := <-results[i]
		switch {
		case r.err != nil && ctx.Err() == nil:
			errs = append(errs, r.err) // the others go on: a directory's bad stencil costs only itself
			continue
		case r.err == nil:
			r.err = yield(i, r.pr)
		}
		if r.err != nil {
			cancel()
			return r.err
		}
	}
	return errors.Join(errs...)
}
