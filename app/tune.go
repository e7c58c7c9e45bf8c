package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/kinds"
	"smart/predict"
	"smart/tuner"
)

// Tune is a tuning: a stencil, or a Kernel Tuner kernel, searched on an evaluator and with a
// strategy chosen by name. Open builds the problem; Search runs it.
type Tune struct {
	// Evaluator is cuda, sim, model:FILE, model:embedded or replay:PATH (ParseEvaluator);
	// replay:CACHE with no Stencil tunes the kernel of a Kernel Tuner cache (or of a data set
	// of imported ones) on its parameters.
	Evaluator string
	Stencil   *smart.Stencil
	// StencilFile is the file Stencil was read from, which its errors name ("": its name).
	StencilFile string
	// GPU is the catalogue name of the GPU tuned for; where it is empty, cuda finds it through
	// NVML, a replayed data set takes the GPU of its rows where they have one, and the other
	// evaluators of a stencil take DefaultSimGPU (and say so in Notes). Of a Kernel Tuner
	// kernel it names the device of a file that names none, or picks a data set's device;
	// given for a file that names its own, it is refused.
	GPU      string
	OCs      []smart.Combination // the OCs of a stencil searched; nil: all (a Kernel Tuner kernel has none)
	Strategy string              // the name of one of tuner.Strategies
	Options  tuner.Options       // the strategy's; Options.Prior is set from Prior
	// Classifier ranks the OCs before the search: an OC selection model's file, or Embedded.
	Classifier string
	// Prior ranks settings before any run (strategies that read tuner.OptionPrior): sim,
	// model:FILE or model:embedded for a stencil, transfer:CACHE[,CACHE...] (the same kernel
	// measured on other GPUs) for a Kernel Tuner kernel.
	Prior  string
	Budget tuner.Budget // its Time counts opening the problem too
	Seed   uint64
	// Record is a data set directory every evaluation of a stencil on cuda or sim is appended
	// to; a search started again with it asks for the same settings first, gets them from it
	// without running them, and goes on where it stopped.
	Record string
	// Trace and Emit, where not empty, are the files Finish writes the trace (TraceCSV) and the
	// best setting's kernel to. Open refuses either where it holds something smart did not write
	// as such, unless Replace.
	Trace, Emit string
	Replace     bool
	Catalog     *catalog.Catalog // nil: CatalogFile merged over the built-in catalogue
	// CatalogFile is a GPU catalogue file merged over the built-in one where Catalog is nil.
	CatalogFile string
	CUDA        CUDAOptions
	Notes       io.Writer // what a user should know on the way (nil: nothing)
	// Progress, when set, gets the evaluations so far and the most there will be.
	Progress func(evaluations, total int)
}

// Tuning is an opened Tune: its problem and what a report of the result says of it.
type Tuning struct {
	Problem tuner.Problem
	Kernel  string    // the stencil's name, or the Kernel Tuner kernel's
	GPU     smart.GPU // only the name, for a Kernel Tuner kernel
	// MeanObjective is true for Kernel Tuner's objective, the mean time (else the median); the
	// time a KTT file reports is its total duration, held alike.
	MeanObjective bool
	Searched      int    // the strategy searches the first Searched variants
	Ranker        string // the model that ranked the OCs, with what stands behind it; "" none
	Prior         string // what ranked settings before any run, set by Search; "" nothing
	Record        string // the data set of Tune.Record
	// Source and Device say where the evaluator's times come from.
	Source  smart.Source
	Device  dataset.Device
	Backend *Backend // nil for a Kernel Tuner kernel

	// params are a Kernel Tuner kernel's parameters where some hold booleans or labels, whose
	// codes a setting holds; nil otherwise.
	params   []dataset.Param
	ktt      bool               // the replayed file is KTT's
	kt       *tuner.KernelTuner // the Kernel Tuner kernel tuned; nil for a stencil
	tune     Tune
	strategy tuner.Strategy
	cat      *catalog.Catalog
	start    time.Time
	prepared bool
	options  tuner.Options
	writer   *dataset.Writer
	recorder *dataset.Recorder
}

// StrategyNames lists the names of tuner.Strategies in its order, leaving out those skip
// reports (nil: none).
func StrategyNames(skip func(tuner.Strategy) bool) []string {
	var names []string
	for _, s := range tuner.Strategies() {
		if skip == nil || !skip(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

// Open builds the problem: the stencil's spaces on the GPU (or the cache's), the evaluator,
// the OCs ranked by the classifier; Notes gets the GPU taken where none is named and, for a
// strategy that searches the first OCs of many, which ones. Close it.
func (t Tune) Open(ctx context.Context) (*Tuning, error) {
	tg := &Tuning{tune: t, cat: t.Catalog, start: time.Now(), Record: t.Record}
	if err := t.Check(); err != nil {
		return nil, err
	}
	tg.strategy, _ = tuner.LookupStrategy(t.Strategy) // Check found it
	name, err := ParseEvaluator(t.Evaluator)
	if err != nil {
		return nil, err
	}
	switch {
	case t.Record != "" && t.Stencil == nil:
		return nil, wrong("Record", "", "keeps the runs of a stencil, and no stencil is given")
	case t.Stencil == nil && name.Kind != Replay:
		return nil, wrong("Evaluator", name.String(), "needs a stencil; only replay:CACHE tunes a Kernel Tuner cache's own kernel")
	case t.Stencil == nil && t.OCs != nil:
		return nil, wrong("OCs", "", "only a stencil has OCs to choose; a Kernel Tuner kernel has none")
	case t.GPU == "" && t.Stencil != nil && name.Kind != CUDA && name.Kind != Replay: // a replay takes its data's GPU
		tg.tune.GPU = DefaultSimGPU
		notef(t.Notes, "tuning for the %s, as no GPU is named\n", DefaultSimGPU)
	}
	if tg.cat == nil {
		if tg.cat, err = catalog.Load(t.CatalogFile); err != nil {
			return nil, err
		}
	}
	if t.Stencil == nil {
		err = tg.openKernelTuner(ctx, name.Path)
	} else {
		err = tg.openStencil(ctx, name)
	}
	if err == nil && t.Classifier != "" {
		err = tg.rank(t.Classifier)
	}
	if err != nil {
		return nil, errors.Join(err, tg.Close())
	}
	if err := tg.checkOutputs(); err != nil {
		return nil, errors.Join(err, tg.Close())
	}
	if t.Strategy == "cstuner" && len(tg.Problem.Variants) > 1 {
		return nil, errors.Join(wrong("OCs", "", "cstuner searches the space of one OC; choose it"), tg.Close())
	}
	tg.Searched = len(tg.Problem.Variants)
	if n := t.Options.Variants; tg.strategy.Reads(tuner.OptionVariants) && n > 0 && n < tg.Searched {
		tg.Searched = n
		how := "in the order given; rank them with an OC classifier, or choose the OCs"
		if tg.Ranker != "" {
			how = "ranked by " + tg.Ranker
		}
		notef(t.Notes, "the %s searches %s, the first %d of the %d OCs %s\n", t.Strategy, strings.Join(tg.OCs()[:n], ","), n, len(tg.Problem.Variants), how)
	}
	return tg, nil
}

// checkOutputs refuses, before the search, a kernel to emit for a Kernel Tuner kernel and
// files to write that smart did not write as such.
func (tg *Tuning) checkOutputs() error {
	t := tg.tune
	if t.Emit != "" && tg.Problem.Stencil == nil {
		return wrong("Emit", "", "writes generated stencil kernels; a Kernel Tuner kernel's source is its own")
	}
	return errors.Join(checkReplace("Trace", t.Trace, t.Replace, atomicfile.StartingWith("a trace", TraceHeader)),
		checkReplace("Emit", t.Emit, t.Replace, kernelFile()))
}

// Close ends what the evaluator runs (the GPU runner's harness processes) and the record.
func (tg *Tuning) Close() error {
	var err error
	if tg.writer != nil {
		err = tg.writer.Close()
	}
	if tg.Backend != nil {
		err = errors.Join(err, tg.Backend.Close())
	}
	return err
}

func (tg *Tuning) openKernelTuner(ctx context.Context, path string) error {
	device := tg.tune.GPU
	// A data set's rows name the catalogue GPU of their device, and a file that names no device
	// takes the catalogue's name of the GPU given for it: any name the catalogue resolves (an
	// alias, the name the driver reports) is that GPU.
	gpu, known := tg.cat.Resolve(device)
	if known {
		device = gpu
	}
	k, err := tuner.OpenKernelTuner(ctx, path, device)
	var de *tuner.DeviceError
	if errors.As(err, &de) && de.Device != "" {
		return &SettingError{Field: "GPU", Value: tg.tune.GPU, Err: err, Wrong: true}
	}
	if de != nil { // no device named where the data set holds several: --gpu names one
		return err
	}
	if err != nil {
		return &SettingError{Field: "Evaluator", Value: EvaluatorName{Kind: Replay, Path: path}.String(), Err: err}
	}
	if t := tg.tune; t.GPU != "" && !k.DeviceGiven {
		return wrong("GPU", t.GPU, "does not apply to a Kernel Tuner kernel whose file names its device: %s was measured on %s", path, k.Device)
	}
	tg.kt = k
	if k.Note != "" {
		notef(tg.tune.Notes, "%s\n", k.Note)
	}
	switch {
	case k.DeviceGiven && tg.tune.GPU == "" && k.Format != "dataset":
		notef(tg.tune.Notes, "%s names no device: its base name, %s, stands for it; name the GPU it was measured on with --gpu\n", path, k.Device)
	case k.DeviceGiven && !known && k.Format != "dataset":
		notef(tg.tune.Notes, "%s names no device, and the catalogue lacks %s: its times are taken as that GPU's (smart gpus lists the catalogue)\n", path, k.Device)
	}
	tg.Problem, tg.Kernel, tg.MeanObjective, tg.ktt = k.Problem(), k.Kernel.Name, true, k.Format == "ktt"
	if slices.ContainsFunc(k.Kernel.Params, func(p dataset.Param) bool { return p.Bool || p.Labels != nil }) {
		tg.params = k.Kernel.Params
	}
	tg.GPU.Name, tg.Source = k.Device, smart.Imported
	if len(k.Rows) > 0 && k.Rows[0].Source == smart.Predicted { // a cache of smart transfer's predictions
		tg.Source = smart.Predicted
	}
	notef(tg.tune.Notes, "tuning kernel %s as measured on %s (%s), %s settings: replayed from %s\n",
		k.Kernel.Name, k.Device, tg.Source, k.Space.Count(), path)
	return nil
}

func (tg *Tuning) openStencil(ctx context.Context, name EvaluatorName) error {
	if name.Kind == Replay {
		return tg.openReplay(ctx, name)
	}
	t := tg.tune
	b, err := Open(name, t.Stencil, t.GPU, tg.cat, t.CUDA, t.Notes)
	if err != nil {
		return err
	}
	tg.Backend, tg.GPU, tg.Source, tg.Device = b, b.GPU, b.Source, b.Device
	if err := tg.GPU.RunsCUDA(); err != nil {
		return &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	// As codegen, estimate and predict: no search of a kernel that fails at its first allocation.
	if err := checkMemory(t.Stencil, cmp.Or(t.StencilFile, t.Stencil.Name), tg.GPU); err != nil {
		return err
	}
	ocs := t.OCs
	if ocs == nil {
		ocs = smart.Combinations()
	}
	vs, err := tuner.StencilVariants(ctx, t.Stencil, ocs, tg.GPU)
	if err != nil {
		return err
	}
	tg.Problem = tuner.Problem{Variants: vs, Evaluator: b.Evaluator, Stencil: t.Stencil, GPU: tg.GPU.Name}
	tg.Kernel = t.Stencil.Name
	return nil
}

// rank orders the stencil's OCs with the classifier at path, or the embedded one.
func (tg *Tuning) rank(path string) error {
	if tg.Problem.Stencil == nil {
		return wrong("Classifier", "", "only a stencil has OCs to rank; a Kernel Tuner kernel has none")
	}
	clf, err := tg.classifier(path)
	if err != nil {
		return err
	}
	var ocs []smart.Combination
	byOC := map[smart.Combination]tuner.Variant{}
	for _, v := range tg.Problem.Variants {
		ocs = append(ocs, v.OC)
		byOC[v.OC] = v
	}
	ranked, err := tuner.RankOCs(clf, tg.Problem.Stencil, tg.GPU, ocs)
	if err != nil {
		return fmt.Errorf("%s: %w", tg.Ranker, err)
	}
	tg.Problem.Variants = tg.Problem.Variants[:0]
	for _, oc := range ranked {
		tg.Problem.Variants = append(tg.Problem.Variants, byOC[oc])
	}
	return nil
}

// classifier loads the OC classifier at path, or the embedded one, and sets Ranker.
func (tg *Tuning) classifier(path string) (*models.Model, error) {
	if path != Embedded {
		tg.Ranker = path
		return models.Load(path, kinds.All())
	}
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	sel, _, err := ms.For(tg.Problem.Stencil)
	if err != nil {
		return nil, &SettingError{Field: "Classifier", Value: Embedded, Err: err}
	}
	tg.Ranker = fmt.Sprintf("%s (%s)", sel.Name, sel.Provenance(tg.GPU.Name).Text)
	return sel.Model, nil
}

// OCs are the problem's OCs in its order.
func (tg *Tuning) OCs() []string {
	var names []string
	for _, v := range tg.Problem.Variants {
		names = append(names, v.OC.String())
	}
	return names
}

// Total is the most evaluations the search makes: the budget's, or the settings of the
// problem where it has none.
func (tg *Tuning) Total() int {
	if n := tg.tune.Budget.Evaluations; n > 0 {
		return n
	}
	n := 0
	for _, v := range tg.Problem.Variants {
		c, ok := v.Space.Len()
		if !ok || c > math.MaxInt32 {
			return math.MaxInt32
		}
		n += int(c)
	}
	return n
}

// Recorded counts the evaluations answered from the runs Record held before the search.
func (tg *Tuning) Recorded() int {
	if tg.recorder == nil {
		return 0
	}
	return tg.recorder.Recorded()
}

// SetProgress sets the callback of Tune.Progress.
func (tg *Tuning) SetProgress(f func(evaluations, total int)) { tg.tune.Progress = f }

// Prepare builds the prior and opens the record, as Search does first where Prepare was not
// called: a caller that tells their errors from the search's calls it.
func (tg *Tuning) Prepare(ctx context.Context) error {
	if tg.prepared {
		return nil
	}
	t := tg.tune
	if t.Prior != "" && !tg.strategy.Reads(tuner.OptionPrior) {
		return wrong("Prior", "", "strategy %s takes none; %s do", t.Strategy, JoinList(StrategyNames(func(s tuner.Strategy) bool { return !s.Reads(tuner.OptionPrior) }), "and"))
	}
	tg.options = t.Options
	if t.Prior != "" {
		tg.Prior = t.Prior
		sur, err := tg.prior(ctx, t.Prior)
		if err != nil {
			return err
		}
		tg.options.Prior = sur
	}
	if t.Record != "" {
		if err := tg.record(t.Record); err != nil {
			return err
		}
	}
	tg.prepared = true
	return nil
}

// Recording reports whether the evaluations go to Record.
func (tg *Tuning) Recording() bool { return tg.writer != nil }

// Search runs the strategy within the budget, after Prepare. An interrupted search (ctx
// cancelled) returns what it found with the context's error.
func (tg *Tuning) Search(ctx context.Context) (tuner.Result, error) {
	if err := tg.Prepare(ctx); err != nil {
		return tuner.Result{}, err
	}
	if tg.writer == nil {
		return tg.search(ctx, tg.Problem, tg.options)
	}
	p := tg.Problem
	p.Evaluator = tg.recorder
	res, err := tg.search(ctx, p, tg.options)
	return res, errors.Join(err, tg.writer.Close())
}

func (tg *Tuning) search(ctx context.Context, p tuner.Problem, opts tuner.Options) (tuner.Result, error) {
	total := tg.Total()
	if tg.tune.Progress != nil {
		p.Progress = func(n int, _ float64) { tg.tune.Progress(n, total) }
	}
	b := tg.tune.Budget
	if b.Time > 0 {
		b.Time = max(b.Time-time.Since(tg.start), time.Nanosecond) // spent already: stop before the first round
	}
	return tuner.Search(ctx, p, b, tg.strategy.New(opts), tg.tune.Seed)
}

// record opens (or resumes) the data set dir and puts a Recorder in front of the evaluator.
func (tg *Tuning) record(dir string) error {
	meta := dataset.Meta{Sources: []smart.Source{tg.Source}, Devices: []dataset.Device{tg.Device}, Params: dataset.StencilParams()}
	w, torn, err := dataset.OpenWriter(dir, meta)
	if err != nil {
		return &SettingError{Field: "Record", Err: err}
	}
	if torn != nil {
		notef(tg.tune.Notes, "resuming %s: %s; it was cut off and will be run again\n", dir, torn)
	}
	if tg.Backend != nil && tg.Backend.Runner != nil {
		noteOlderFormat(tg.tune.Notes, dir, w.Meta().Format)
	}
	if tg.recorder, err = dataset.NewRecorder(w, tg.Problem.Evaluator); err != nil {
		w.Close()
		return &SettingError{Field: "Record", Err: err}
	}
	if n := w.Len(); n > 0 {
		notef(tg.tune.Notes, "%s holds %d runs of %s; the settings among them are not run again\n", dir, n, tg.Device.Name)
	}
	tg.writer = w
	return nil
}

// prior builds the evaluator that ranks settings before any run: the analytic model or a
// runtime model for a stencil, the same kernel's Kernel Tuner caches from other GPUs for a
// Kernel Tuner kernel.
func (tg *Tuning) prior(ctx context.Context, text string) (smart.Evaluator, error) {
	name, err := ParseEvaluator(text)
	if tg.Problem.Stencil == nil {
		if err != nil || name.Kind != Transfer {
			return nil, wrong("Prior", fmt.Sprintf("%q", text), "a Kernel Tuner kernel takes transfer:CACHE[,CACHE...], its caches from other GPUs")
		}
		return tg.transfer(ctx, name.Path)
	}
	switch {
	case err == nil && name.Kind == Sim:
		ev, _, err := simEvaluator(name.Path, tg.cat)
		if err != nil {
			return nil, &SettingError{Field: "Prior", Value: text, Err: err}
		}
		return ev, nil
	case err == nil && name.Kind == Model:
		ev, what, err := modelEvaluator(name.Path, tg.Problem.Stencil, tg.GPU, tg.cat, tg.tune.Notes)
		if err != nil {
			return nil, &SettingError{Field: "Prior", Value: text, Err: err}
		}
		if what != "" {
			tg.Prior += ": " + what
		}
		return ev, nil
	}
	return nil, wrong("Prior", fmt.Sprintf("%q", text), "a stencil takes sim or model:PATH")
}

// transfer is the prior of a Kernel Tuner kernel: its caches of other GPUs, comma-separated,
// each PATH or PATH@GPU for a file that does not name its GPU (which smart transfer refuses
// without one too). It ranks the settings by the geometric mean of the caches' times.
func (tg *Tuning) transfer(ctx context.Context, paths string) (smart.Evaluator, error) {
	var others []*tuner.KernelTuner
	var given []string // the paths of others
	for _, spec := range strings.Split(paths, ",") {
		f, device, _ := strings.Cut(spec, "@")
		k, err := tuner.OpenKernelTuner(ctx, f, device)
		if err != nil {
			return nil, &SettingError{Field: "Prior", Err: err}
		}
		if device == "" && k.DeviceGiven { // named after its file
			return nil, unnamedDevice("Prior", f, fmt.Errorf("%s: %w", f, dataset.ErrNoDevice))
		}
		switch {
		case k.Kernel.Name != tg.Kernel:
			return nil, wrong("Prior", "", "%s holds kernel %s, not %s", f, k.Kernel.Name, tg.Kernel)
		case k.Device == tg.GPU.Name:
			return nil, wrong("Prior", "", "%s was measured on %s, the GPU being tuned: a prior must come from other GPUs", f, k.Device)
		case k.SameMeasurements(tg.kt):
			return nil, wrong("Prior", "", "%s holds the same settings and times as the file tuned: it is the same GPU's data (named %s), not another GPU's", f, k.Device)
		}
		for i, o := range others {
			if k.SameMeasurements(o) {
				return nil, wrong("Prior", "", "%s holds the same settings and times as %s: they are one GPU's data; give one of them", f, given[i])
			}
		}
		others, given = append(others, k), append(given, f)
	}
	tr := tuner.TransferFrom(others)
	notef(tg.tune.Notes, "prior: the geometric mean of %s's times in the %s, as a ranking of the settings (not times on %s)\n", tg.Kernel, tr.What, tg.GPU.Name)
	return tr, nil
}

// Check refuses, before anything is opened, a budget, a strategy or strategy options that
// cannot be used, and a record of runs that are not worth keeping.
func (t Tune) Check() error {
	if err := cmp.Or(checkEvaluator(t.Evaluator), t.CUDA.Check()); err != nil {
		return err
	}
	switch {
	case t.Budget.Evaluations < 0:
		return wrong("Budget", fmt.Sprint(t.Budget.Evaluations), "must not be negative (0: no limit)")
	case t.Budget.Time < 0:
		return wrong("Time", t.Budget.Time.String(), "must not be negative (0: no limit)")
	}
	if name, _ := ParseEvaluator(t.Evaluator); t.Record != "" && name.Kind != CUDA && name.Kind != Sim {
		return wrong("Record", "", "keeps the runs of cuda or sim only; %s runs nothing worth keeping", name.Kind)
	}
	if s, known := tuner.LookupStrategy(t.Strategy); known && t.Prior != "" && !s.Reads(tuner.OptionPrior) {
		return wrong("Prior", "", "is used by %s, not %s", StrategiesReading(tuner.OptionPrior), t.Strategy)
	}
	return checkOptions(t.Strategy, t.Options)
}

// checkEvaluator refuses an evaluator that is not named, or not named as one.
func checkEvaluator(text string) error {
	_, err := ParseEvaluator(text)
	var ne *NameError
	switch {
	case text == "":
		return wrong("Evaluator", "", "none named; use %s", JoinList(evaluatorNames[:4], "or"))
	case errors.As(err, &ne) && ne.NoPath:
		kind := strings.TrimSuffix(ne.Name, ":")
		return wrong("Evaluator", kind, "give the path, e.g. %s:FILE", kind)
	case errors.As(err, &ne):
		kind, _, _ := strings.Cut(ne.Name, ":")
		return wrong("Evaluator", fmt.Sprintf("%q", kind), "use %s", JoinList(evaluatorNames[:4], "or"))
	}
	return err
}

// checkOptions refuses the options that strategy name reads and cannot use, and a batch
// given to a strategy that sizes its own.
func checkOptions(name string, o tuner.Options) error {
	s, known := tuner.LookupStrategy(name)
	switch {
	case o.Batch < 0:
		return wrong("Batch", fmt.Sprint(o.Batch), "use 0 (the strategy's own) or more")
	case o.Batch > 0 && known && !s.Reads(tuner.OptionBatch):
		return wrong("Batch", fmt.Sprint(o.Batch), "sets the round of %s; %s sizes its own", StrategiesReading(tuner.OptionBatch), name)
	case !known:
		return wrong("Strategy", fmt.Sprintf("%q", name), "use %s", JoinList(StrategyNames(nil), "or"))
	}
	if s.Reads(tuner.OptionModel) {
		if _, err := tuner.ParseModel(string(o.Model)); err != nil {
			return &SettingError{Field: "Model", Err: err, Wrong: true}
		}
	}
	switch {
	case s.Reads(tuner.OptionPickRatio) && !(o.PickRatio > 0 && o.PickRatio <= 1): // NaN too
		return wrong("PickRatio", fmt.Sprint(o.PickRatio), "must lie in (0, 1]")
	case s.Reads(tuner.OptionCutRatio) && !(o.CutRatio >= 0 && o.CutRatio < 1):
		return wrong("CutRatio", fmt.Sprint(o.CutRatio), "must lie in [0, 1)")
	case s.Reads(tuner.OptionInitial) && o.Initial < 0:
		return wrong("Initial", fmt.Sprint(o.Initial), "must be 0 (the method's own) or more")
	case s.Reads(tuner.OptionVariants) && o.Variants < 1:
		return wrong("Variants", fmt.Sprint(o.Variants), "must be at least 1")
	}
	return nil
}

// StrategiesReading names the strategies that read option o, as "random and bayes".
func StrategiesReading(o tuner.Option) string {
	return JoinList(StrategyNames(func(s tuner.Strategy) bool { return !s.Reads(o) }), "and")
}
