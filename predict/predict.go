package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"smart"
	"smart/catalog"
	"smart/models"
	"smart/models/roofline"
)

// Predictor answers, for a stencil, which OC to use on a GPU, with which setting and how fast
// it runs there and on every other catalogued GPU.
type Predictor struct {
	Models  *Models
	Catalog *catalog.Catalog
	// Asked and Rest are the search budgets of Predict on the GPU asked about and on the
	// others (which start from the settings found on the first); Compare is the budget of
	// Across and Recommend on every GPU alike, so that their times compare fairly.
	Asked, Rest, Compare Budget
	// ScreenAll screens every OC on the GPU asked about, not only those of Asked.Classes, where
	// its runtime model is trained on measurements of that GPU and its classifier is not: the
	// classifier would keep the runtime model from the OCs it disfavours without knowing the GPU.
	ScreenAll bool
	Seed      uint64
}

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
	return &Predictor{Models: ms, Catalog: cat, Seed: 1, ScreenAll: true,
		Asked:   Budget{Classes: 3, MinProbability: 0.02, Screen: Pass{Samples: 16, Starts: 1, Rounds: 2}, Refine: 3, Deep: Pass{Samples: 192, Starts: 6, Rounds: 8}},
		Rest:    Budget{Classes: 2, MinProbability: 0.05, Screen: Pass{Samples: 8, Starts: 1, Rounds: 1}, Refine: 1, Deep: Pass{Samples: 32, Starts: 3, Rounds: 6}},
		Compare: Budget{Classes: 3, MinProbability: 0.02, Screen: Pass{Samples: 16, Starts: 1, Rounds: 2}, Refine: 2, Deep: Pass{Samples: 128, Starts: 4, Rounds: 8}}}, nil
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
	// Best is the candidate with the lowest predicted time on GPU; Candidates are the OCs
	// searched in depth, fastest first, after Screened OCs of the most probable classes were
	// tried briefly.
	Best       *Choice  `json:"best"`
	Candidates []Choice `json:"candidates"`
	Screened   int      `json:"ocs_screened"`
	// Measure is the smart bench command that times every candidate on the GPU: the models'
	// pick is often not the fastest of them on real hardware (README, "Predictions measured on
	// the H100"), and timing a few kernels takes seconds.
	Measure string `json:"measure"`
	// GPUs are every catalogued GPU, fastest first, predicted with the same models (the
	// defaults where the GPU asked about has a model of its own measurements, which Best is from).
	GPUs     []GPUTime   `json:"gpus"`
	Models   []ModelInfo `json:"models"`
	Warnings []string    `json:"warnings,omitempty"`
}

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
	Source      Provenance        `json:"source"`
	Codegen     string            `json:"codegen"`
	// Analytic is the analytic model's time for the same setting: a physical second opinion.
	// The learned time is the lowest of many predictions, so it tends to sit below the truth
	// (the winner's curse); a large gap between the two says to trust neither blindly.
	Analytic *roofline.Estimate `json:"analytic,omitempty"`
}

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
	Trained *TrainingRange   `json:"trained_on,omitempty"`
}

// Predict predicts stencil in on the GPU named gpu (any catalogue name or alias) and on every
// catalogued NVIDIA GPU.
func (p *Predictor) Predict(ctx context.Context, in Input, gpu string) (*Prediction, error) {
	st := in.Stencil
	g, err := p.Catalog.Lookup(gpu)
	if err != nil {
		return nil, err
	}
	if err := g.RunsCUDA(); err != nil {
		return nil, err
	}
	sel, rt, err := p.Models.For(st)
	if err != nil {
		return nil, err
	}
	// The GPU asked about is searched with the model trained on its own measurements where one
	// is embedded; the table of every GPU keeps the defaults, so that its times compare.
	asked := rt
	own, note, err := p.Models.Own(st, g.Name)
	if err != nil {
		return nil, err
	}
	if own != nil {
		asked = own
	}
	pr := &Prediction{File: in.File, GPU: g.Name, Stencil: stencilInfo(st)}
	used := []*Model{sel, asked}
	if asked != rt {
		used = append(used, rt)
	}
	pr.Models, pr.Warnings = modelInfo(st, used...)
	if note != "" {
		pr.Warnings = append(pr.Warnings, note)
	}
	if pr.Classes, err = classify(sel, st, g); err != nil {
		return nil, err
	}
	pr.ClassSource = sel.Provenance(g.Name)
	if reason := fitsMemory(st, g); reason != "" {
		return nil, fmt.Errorf("stencil %s on %s: %s", st.Name, g.Name, reason)
	}
	budget := p.Asked
	if p.ScreenAll && asked.Provenance(g.Name).Basis == BasisMeasured && pr.ClassSource.Basis != BasisMeasured {
		budget.Classes, budget.MinProbability = len(pr.Classes), 0
	}
	top, err := p.searchGPU(ctx, asked, in, g, pr.Classes, budget, nil)
	if err != nil {
		return nil, err
	}
	pr.Candidates, pr.Screened = top.choices, top.screened
	if len(top.choices) == 0 {
		return nil, fmt.Errorf("stencil %s: none of the %d OCs of classes %v has a valid setting on %s", st.Name, top.screened, classOCs(pr.Classes, budget.Classes), g.Name)
	}
	pr.Best = top.best()
	pr.Measure = measureLine(cmp.Or(in.File, st.Name), pr.Candidates, FileName(st.Name)+"-candidates")
	var others []smart.GPU
	for _, o := range p.Catalog.GPUs() {
		if o.Name != g.Name || asked != rt {
			others = append(others, o)
		}
	}
	if pr.GPUs, err = p.across(ctx, sel, rt, in, others, p.Rest, top.found); err != nil {
		return nil, err
	}
	if asked == rt { // the GPU asked about keeps its deeper search
		pr.GPUs = append(pr.GPUs, GPUTime{GPU: g.Name, Arch: g.Arch, Price: g.Price, Best: pr.Best})
	}
	sort.SliceStable(pr.GPUs, func(i, j int) bool { return lessTime(pr.GPUs[i].Best, pr.GPUs[j].Best) })
	return pr, nil
}

// AskedInTable is the GPU asked about's row of GPUs: Best, or where the GPU has a model of its
// own measurements, the defaults' answer, on the same basis as the other rows.
func (pr *Prediction) AskedInTable() *Choice {
	for _, g := range pr.GPUs {
		if g.GPU == pr.GPU && g.Best != nil {
			return g.Best
		}
	}
	return pr.Best
}

// Across predicts the stencil's best OC, setting and time on each of gpus with the same search
// budget (Compare) for all, so that their times compare fairly: what smart recommend ranks.
func (p *Predictor) Across(ctx context.Context, in Input, gpus []smart.GPU) ([]GPUTime, error) {
	sel, rt, err := p.Models.For(in.Stencil)
	if err != nil {
		return nil, err
	}
	return p.across(ctx, sel, rt, in, gpus, p.Compare, nil)
}

// across searches every GPU in parallel with budget b; seeds are settings found on another GPU,
// tried first.
func (p *Predictor) across(ctx context.Context, sel, rt *Model, in Input, gpus []smart.GPU, b Budget, seeds map[smart.Combination]*Found) ([]GPUTime, error) {
	st := in.Stencil
	out := make([]GPUTime, len(gpus))
	errs := make([]error, len(gpus))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, g := range gpus {
		out[i] = GPUTime{GPU: g.Name, Arch: g.Arch, Price: g.Price}
		if g.Vendor != "NVIDIA" {
			out[i].Reason = fmt.Sprintf("%s GPU: smart's kernels are CUDA", g.Vendor)
			continue
		}
		if out[i].Reason = fitsMemory(st, g); out[i].Reason != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			classes, err := classify(sel, st, g)
			if err != nil {
				errs[i] = err
				return
			}
			res, err := p.searchGPU(ctx, rt, in, g, classes, b, seeds)
			if err != nil {
				errs[i] = err
				return
			}
			if out[i].Best = res.best(); out[i].Best == nil {
				out[i].Reason = fmt.Sprintf("none of the %d OCs of classes %v has a valid setting", res.screened, classOCs(classes, b.Classes))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func stencilInfo(st *smart.Stencil) StencilInfo {
	return StencilInfo{Name: st.Name, ID: st.ID(), Dims: st.Dims, Order: st.Order(), Points: st.NNZ(), Dtype: st.Dtype,
		Grid: slices.Clone(st.Grid[:st.Dims]), Steps: st.Steps}
}

// modelInfo describes the models and warns where st lies outside what they were trained on.
func modelInfo(st *smart.Stencil, ms ...*Model) ([]ModelInfo, []string) {
	var info []ModelInfo
	var warn []string
	for _, m := range ms {
		info = append(info, ModelInfo{Name: m.Name, Kind: m.Header.Kind, Task: m.Header.Task, Data: m.Header.Data, CV: m.Header.CV, Trained: m.Range})
		if m.Range != nil {
			for _, w := range m.Range.Outside(st) {
				if w = "the stencil's " + w + "; the prediction extrapolates"; !slices.Contains(warn, w) {
					warn = append(warn, w)
				}
			}
		}
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
	found    map[smart.Combination]*Found
	screened int
}

func (s searched) best() *Choice {
	if len(s.choices) == 0 {
		return nil
	}
	return &s.choices[0]
}

// searchGPU screens the OCs of the most probable classes on g and searches the fastest of them
// in depth. seeds holds settings found on another GPU, tried first where valid.
func (p *Predictor) searchGPU(ctx context.Context, rt *Model, in Input, g smart.GPU, classes []ClassProb, b Budget, seeds map[smart.Combination]*Found) (searched, error) {
	res := searched{found: map[smart.Combination]*Found{}}
	st := in.Stencil
	prob := map[smart.Combination]float64{}
	var ocs []smart.Combination
	for i, c := range classes[:min(b.Classes, len(classes))] {
		if i > 0 && c.Probability < b.MinProbability {
			break
		}
		for _, oc := range c.Members {
			prob[oc] = c.Probability
			ocs = append(ocs, oc)
		}
	}
	res.screened = len(ocs)
	var screened []*Found
	for _, oc := range ocs {
		pass := b.Screen
		if len(ocs) <= b.Refine {
			pass = b.Deep // nothing to screen out
		}
		f, err := search(ctx, rt, st, oc, g, pass, seedsOf(seeds, oc), p.rng(st, oc, g))
		if err != nil {
			return res, fmt.Errorf("stencil %s under %s on %s: %w", st.Name, oc, g.Name, err)
		}
		if f != nil {
			screened = append(screened, f)
		}
	}
	sort.SliceStable(screened, func(i, j int) bool { return screened[i].TimeMs < screened[j].TimeMs })
	src := rt.Provenance(g.Name)
	for _, f := range screened[:min(b.Refine, len(screened))] {
		if len(ocs) > b.Refine {
			deep, err := search(ctx, rt, st, f.OC, g, b.Deep, append(f.Top, seedsOf(seeds, f.OC)...), p.rng(st, f.OC, g))
			if err != nil {
				return res, fmt.Errorf("stencil %s under %s on %s: %w", st.Name, f.OC, g.Name, err)
			}
			if deep != nil {
				deep.Evaluated += f.Evaluated
				f = deep
			}
		}
		res.found[f.OC] = f
		c := Choice{OC: f.OC, Probability: prob[f.OC], Setting: f.Setting, TimeMs: f.TimeMs,
			Evaluated: f.Evaluated, Source: src, Codegen: codegenLine(cmp.Or(in.File, st.Name), g.Name, f.OC, f.Setting)}
		if t, err := smart.DecodeTuning(st.Dims, f.OC, f.Setting); err == nil {
			if est, err := roofline.Model(st, t, g); err == nil {
				c.Analytic = &est
			}
		}
		res.choices = append(res.choices, c)
	}
	sort.SliceStable(res.choices, func(i, j int) bool { return res.choices[i].TimeMs < res.choices[j].TimeMs })
	return res, nil
}

func seedsOf(seeds map[smart.Combination]*Found, oc smart.Combination) []smart.Setting {
	if f := seeds[oc]; f != nil {
		return f.Top
	}
	return nil
}

// rng is the generator of one search, so a prediction is the same every time.
func (p *Predictor) rng(st *smart.Stencil, oc smart.Combination, g smart.GPU) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%s", st.ID(), oc, g.Name)
	return rand.New(rand.NewPCG(p.Seed, h.Sum64()))
}

// fitsMemory says why the stencil's two grids do not fit the GPU's memory, or "".
func fitsMemory(st *smart.Stencil, g smart.GPU) string {
	need := 2 * float64(st.GridPoints()) * float64(st.Dtype.Size()) / 1e9
	if need > g.MemoryGB {
		return fmt.Sprintf("its two grids need %.1f GB; the %s has %.0f GB", need, g.Name, g.MemoryGB)
	}
	return ""
}
