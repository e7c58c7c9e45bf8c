package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/train"
	"smart/predict"
	"smart/tuner"
)

// tuneOutput is what smart tune --json prints.
type tuneOutput struct {
	Method      string             `json:"method"`
	Seed        uint64             `json:"seed"`
	Kernel      string             `json:"kernel"` // stencil name or foreign kernel
	GPU         string             `json:"gpu"`
	BestOC      *smart.Combination `json:"best_oc"`      // null when nothing ran successfully
	BestSetting smart.Setting      `json:"best_setting"` // null when nothing ran successfully
	BestTimeMs  *float64           `json:"best_time_ms"` // null when nothing ran successfully
	Objective   string             `json:"objective"`
	Source      smart.Source       `json:"source"`
	Device      string             `json:"device,omitempty"`
	Evaluations int                `json:"evaluations"`
	Failures    int                `json:"failures"`
	Stop        tuner.Stop         `json:"stop"`
	Seconds     float64            `json:"seconds"`
	// OverheadMs is the strategy's own time per evaluation: wall time outside the evaluator.
	OverheadMs float64  `json:"overhead_ms_per_evaluation"`
	OCs        []string `json:"ocs"` // the variants searched, in rank order
	// Classifier names the model that ranked the OCs (--classifier), empty when none did.
	Classifier string `json:"classifier,omitempty"`
	// Prior names what ranked settings before any run (--surrogate), empty when nothing did.
	Prior string `json:"prior,omitempty"`
	// Record is the data set of --record; Recorded counts the evaluations answered from what it
	// held before this run (the rest ran now and were appended).
	Record   string `json:"record,omitempty"`
	Recorded int    `json:"recorded_evaluations,omitempty"`
	Trace    []any  `json:"trace"`
}

func runTune(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tune", "[STENCIL-FILE] --evaluator cuda|sim|model:PATH|replay:PATH [flags]", `
Searches for the fastest setting with as few evaluations as possible and prints it with its
time, the evaluations used and where the time comes from. Methods:
  random      uniform sampling without replacement (the baseline)
  exhaustive  every setting
  iterml      IterML: sample, fit a model (--model), drop the predicted slowest (--cut-ratio)
  cstuner     csTuner: parameter grouping, PMNF sampling, genetic search group by group
  pipeline    OCs ranked by a classifier (--classifier), spaces pruned with IterML on a
              surrogate (--surrogate) or on a first batch of real runs, then a genetic search
              screened by a model of the real runs; with a surrogate its 10 fastest settings
              also run, as a hedge the search does not learn from
  bayes       Bayesian optimisation: Thompson sampling over bagged regression trees fitted
              to every run so far (the fewest evaluations on the Kernel Tuner data sets)
Evaluators: cuda (measure on this machine's GPU), sim (the analytic model; simulated),
model:PATH (a runtime model from smart train, or model:embedded for the embedded one of the
GPU's own measurements, else the simulated default; predicted), replay:PATH (a data set directory,
or a Kernel Tuner cache file: then no stencil file is given and the kernel's own parameters,
values and constraints are tuned). Failed settings count as evaluations and are never retried.
--trace writes the best time after each evaluation as CSV; --emit writes the CUDA source of the
best setting of a stencil; each replaces a file only if smart wrote it (or with --force). --record DIR appends every evaluation of a stencil (cuda or sim) to a
data set as it finishes: a run that stops (Ctrl-C, a lost machine, the budget) and is started
again with the same flags, or a larger --budget (cstuner plans by its budget: it repeats fewer),
asks for the same settings first, gets them from DIR without running them, and goes on where it
stopped; DIR trains models like any data set.

Examples:
  smart tune --evaluator replay:data/kernel-tuner/convolution_milo/A100.json.gz --method pipeline --budget 300
  smart tune j3d7pt --gpu a100 --evaluator sim --oc ST_BM --method cstuner --budget 500 --json
  smart tune --evaluator replay:data/kernel-tuner/convolution_milo/W7800.json.gz --method bayes --budget 100
  smart tune --evaluator replay:data/kernel-tuner/convolution_milo/W6600.json.gz --method bayes \
    --surrogate transfer:data/kernel-tuner/convolution_milo/A4000.json.gz,data/kernel-tuner/convolution_milo/W7800.json.gz
  smart tune data/stencils/j3d7pt.json --evaluator cuda --method pipeline --classifier select-a100.model --budget 200 --emit best.cu   # needs a GPU; takes minutes
  smart tune data/stencils/j3d7pt.json --evaluator cuda --method bayes --oc ST_RT --budget 300 --record runs/j3d7pt-tune   # needs a GPU; takes minutes`)
	gpuName := fs.String("gpu", "", "GPU name or alias from the catalogue (sim: default "+defaultSimGPU+"; cuda: found through NVML)")
	method := fs.String("method", "pipeline", joinList(strategyNames(nil), "or"))
	evalFlag := fs.String("evaluator", "", "cuda, sim, model:PATH or replay:PATH")
	budget := fs.Int("budget", 200, "most evaluations, failed ones included (0: no limit)")
	timeLimit := fs.Duration("time", 0, "most wall time, e.g. 10m, building the spaces included; evaluations still running then are cut off and not counted (0: no limit)")
	seed := fs.Uint64("seed", 1, "seed of every random choice of the search")
	ocList := fs.String("oc", "all", "OCs of a stencil to search, comma-separated, or all (cstuner takes one)")
	clfPath := fs.String("classifier", "", "OC selection model (smart train --task select) that ranks the OCs (pipeline),\nor 'embedded' for smart's own (trained on simulated data)")
	surFlag := fs.String("surrogate", "", "sim, model:PATH or model:embedded (stencils), or transfer:CACHE[,CACHE...] (a Kernel Tuner kernel measured on other GPUs):\nranks settings without real runs; the pipeline prunes on it and hedges on its fastest, bayes runs its fastest first; both learn from it as a feature")
	variants := fs.Int("variants", 2, "ranked OCs the pipeline searches")
	modelName := fs.String("model", "forest", "IterML's in-loop model: forest, cart, knn, mlp or trees")
	pickRatio := fs.Float64("pick-ratio", 0.01, "share of the space IterML samples per iteration")
	cutRatio := fs.Float64("cut-ratio", 0.5, "share of the remaining space IterML drops per iteration")
	initial := fs.Int("initial", 128, "random settings csTuner measures first")
	batch := fs.Int("batch", 0, "settings random and bayes run per round (0: the method's own, 1 and 2);\non the cuda evaluator a round's settings compile in parallel")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	tracePath := fs.String("trace", "", "write the trace (best time after each evaluation) to this CSV file")
	emitPath := fs.String("emit", "", "write the CUDA source of the best stencil setting to this file")
	force := fs.Bool("force", false, "overwrite the --trace and --emit files even if smart did not write them")
	catFile := fs.String("catalog", "", "GPU catalogue file merged over the built-in one")
	reps := fs.Int("reps", 5, "timed runs per variant (cuda)")
	deviceIdx := fs.Int("device", 0, "NVML index of the GPU (cuda)")
	buildDir := fs.String("build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	recordDir := fs.String("record", "", "data set directory every evaluation of a stencil is appended to (cuda and sim; created,\nor resumed: the settings it holds are answered from it, not run again)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	kind, path, _ := strings.Cut(*evalFlag, ":")
	switch {
	case len(files) > 1:
		return usagef("give at most one stencil file")
	case *evalFlag == "":
		return usagef("give the evaluator with --evaluator: cuda, sim, model:PATH or replay:PATH")
	case *budget < 0 || *timeLimit < 0:
		return usagef("--budget and --time must not be negative")
	case (kind == "model" || kind == "replay") && path == "":
		return usagef("--evaluator %s: give the path, e.g. %s:FILE", kind, kind)
	case *recordDir != "" && kind != "cuda" && kind != "sim":
		return usagef("--record keeps the runs of --evaluator cuda or sim; %s runs nothing worth keeping", kind)
	case *recordDir != "" && len(files) == 0:
		return usagef("--record keeps the runs of a stencil; give a stencil file")
	}
	// The method before any file is opened, so that a misspelt one costs nothing.
	m, err := tuneMethod(*method, *modelName, *pickRatio, *cutRatio, *initial, *variants, *batch)
	if err != nil {
		return err
	}
	start := time.Now() // --time counts building the spaces and the evaluator too
	cat, err := catalog.Load(*catFile)
	if err != nil {
		return err
	}
	t := &tuneSetup{e: e, cat: cat}
	if len(files) == 0 {
		if kind != "replay" {
			return usagef("give a stencil file, or tune a Kernel Tuner cache with --evaluator replay:CACHE")
		}
		err = t.kernelTuner(ctx, path, *gpuName)
	} else {
		err = t.stencil(ctx, files[0], *gpuName, kind, path, *ocList, *reps, *deviceIdx, *buildDir)
	}
	if err != nil {
		return err
	}
	if c, ok := t.problem.Evaluator.(io.Closer); ok {
		defer c.Close() // the GPU runner's harness processes
	}
	if *clfPath != "" {
		if err := t.rank(*clfPath); err != nil {
			return err
		}
	}
	if _, ok := m.(*tuner.CSTuner); ok && len(t.problem.Variants) > 1 {
		return usagef("--method cstuner searches the space of one OC; choose it with --oc")
	}
	t.searched = len(t.problem.Variants)
	if p, ok := m.(*tuner.Pipeline); ok && p.Variants < t.searched {
		t.searched = p.Variants
		how := "in the order given; rank them with --classifier embedded or MODEL, or choose them with --oc"
		if t.ranker != "" {
			how = "ranked by " + t.ranker
		}
		fmt.Fprintf(e.stderr, "the pipeline searches %s, the first %d of the %d OCs %s\n",
			strings.Join(t.ocNames()[:t.searched], ","), t.searched, len(t.problem.Variants), how)
	}
	if *surFlag != "" {
		p, isPipe := m.(*tuner.Pipeline)
		b, isBayes := m.(*tuner.Bayes)
		if !isPipe && !isBayes {
			return usagef("--surrogate is used by --method pipeline and bayes, not %s", m.Name())
		}
		sur, err := t.surrogate(ctx, *surFlag)
		if err != nil {
			return err
		}
		if isPipe {
			p.Surrogate = sur
		} else {
			b.Prior = sur
		}
		t.prior = *surFlag
		if *surFlag == "model:embedded" {
			t.prior += ": " + t.embedded
		}
	}
	if *emitPath != "" && t.problem.Stencil == nil {
		return usagef("--emit writes generated stencil kernels; a Kernel Tuner kernel's source is its own")
	}
	for _, out := range []struct {
		flag, path string
		kind       outputKind
	}{{"--trace", *tracePath, startingWith("a trace", traceHeader)}, {"--emit", *emitPath, cudaSource()}} {
		if out.path != "" {
			if err := checkOutput(out.flag, out.path, *force, out.kind); err != nil {
				return err
			}
		}
	}
	if *recordDir != "" {
		w, err := t.record(*recordDir)
		if err != nil {
			return err
		}
		defer w.Close() // closed below; this is for the early returns
		t.recordW = w
	}
	total := *budget
	if total == 0 {
		total = t.size()
	}
	bar := newProgress(e, "tune", total)
	t.problem.Progress = func(n int, _ float64) { bar.Update(n) }
	limit := *timeLimit
	if limit > 0 {
		limit = max(limit-time.Since(start), time.Nanosecond) // spent already: stop before the first round
	}
	res, err := tuner.Search(ctx, t.problem, tuner.Budget{Evaluations: *budget, Time: limit}, m, *seed)
	if res.Evaluations < total {
		bar.Stop(res.Evaluations) // the search ended before the budget
	}
	if t.recordW != nil {
		if cerr := t.recordW.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if err != nil {
			err = fmt.Errorf("%w; the evaluations are kept in %s: run the same command again to go on", err, *recordDir)
		}
	}
	interrupted := errors.Is(err, context.Canceled) && res.Evaluations > 0
	if err != nil && !interrupted {
		return fmt.Errorf("after %d evaluations: %w", res.Evaluations, err)
	}
	// The result first: a file that cannot be written must not take the search with it. An
	// interrupted search still prints and writes the best it found.
	if err := t.print(*asJSON, res); err != nil {
		return err
	}
	if *tracePath != "" {
		if err := atomicfile.Write(*tracePath, traceCSV(t.problem, res)); err != nil {
			return err
		}
	}
	// A search that found nothing failed, whatever it printed: a script must not take the
	// empty result for a tuned kernel.
	if res.Best.Setting == nil {
		if interrupted {
			return fmt.Errorf("interrupted after %d evaluations, none of which ran successfully: %w", res.Evaluations, err)
		}
		return noneRan(res, *timeLimit)
	}
	if *emitPath != "" {
		if err := t.emit(*emitPath, res); err != nil {
			return err
		}
	}
	if interrupted {
		return fmt.Errorf("interrupted after %d evaluations; the best so far is printed above: %w", res.Evaluations, err)
	}
	return nil
}

// noneRan is the error of a search that ended without a successful evaluation: why none
// finished, or what the first failure was.
func noneRan(res tuner.Result, timeLimit time.Duration) error {
	if res.Evaluations == 0 {
		if res.Stop == tuner.StopTime {
			return fmt.Errorf("%s: the --time limit of %s ran out before any evaluation finished; give it more time", res.Method, timeLimit)
		}
		return fmt.Errorf("%s: the search ended (%s) before any evaluation finished", res.Method, res.Stop)
	}
	f := res.Failures[0].Measurement
	why := string(f.Status)
	if f.Error != "" {
		why += ": " + f.Error
	}
	return fmt.Errorf("%s: no setting ran successfully in %d evaluations (stopped: %s); the first failure: %s", res.Method, res.Evaluations, res.Stop, why)
}

// tuneSetup is the problem a command line describes and what it needs to print the result.
type tuneSetup struct {
	e        *env
	cat      *catalog.Catalog
	problem  tuner.Problem
	gpu      smart.GPU
	kernel   string
	meanObj  bool   // Kernel Tuner's objective (the mean time)
	prior    string // --surrogate
	embedded string // the model model:embedded resolved to, with what it was trained on
	ranker   string // the model that ranked the OCs, with what stands behind it
	searched int    // the method searches the first searched variants
	// source and device describe the evaluator's rows, for --record.
	source   smart.Source
	device   dataset.Device
	recordW  *dataset.Writer
	recorder *dataset.Recorder
}

func (t *tuneSetup) kernelTuner(ctx context.Context, path, device string) error {
	k, err := tuner.OpenKernelTuner(ctx, path, device)
	if err != nil {
		return err
	}
	if k.Note != "" {
		fmt.Fprintln(t.e.stderr, k.Note)
	}
	t.problem, t.kernel, t.meanObj = k.Problem(), k.Kernel.Name, true
	t.gpu.Name = k.Device
	fmt.Fprintf(t.e.stderr, "tuning kernel %s as measured on %s (%s), %s settings: replayed from %s\n",
		k.Kernel.Name, k.Device, smart.Imported, k.Space.Count(), path)
	return nil
}

func (t *tuneSetup) stencil(ctx context.Context, file, gpuName, kind, path, ocList string, reps, deviceIdx int, buildDir string) error {
	st, err := loadStencil(t.e, file, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return err
	}
	ocs, err := parseOCs(ocList)
	if err != nil {
		return usagef("--oc: %v", err)
	}
	var ev smart.Evaluator
	switch kind {
	case "cuda":
		g, err := openGPU(t.cat, gpuName, deviceIdx, reps, buildDir)
		if err != nil {
			return err
		}
		g.nv.Close() // the runner, closed after the search, needs no NVML
		ev, t.gpu, t.source, t.device = g.runner, g.gpu, smart.Measured, g.device
	case "sim", "model", "replay":
		if gpuName == "" {
			gpuName = defaultSimGPU
			fmt.Fprintf(t.e.stderr, "tuning for the %s; name another GPU with --gpu (smart gpus lists them)\n", defaultSimGPU)
		}
		if t.gpu, err = t.cat.Lookup(gpuName); err != nil {
			return usagef("--gpu: %w", err)
		}
		switch kind {
		case "sim":
			ev = roofline.Evaluator{Catalog: t.cat}
			t.source, t.device = smart.Simulated, simDevice(t.gpu)
		case "model":
			if ev, err = t.modelEvaluator(path, st); err != nil {
				return err
			}
		default:
			if ev, err = dataset.OpenReplay(path, dataset.ImportOptions{}); err != nil {
				return fmt.Errorf("--evaluator replay:%s: %w", path, err)
			}
		}
	default:
		return usagef("--evaluator %q: use cuda, sim, model:PATH or replay:PATH", kind)
	}
	if err := t.gpu.RunsCUDA(); err != nil {
		return usagef("--gpu: %v", err)
	}
	vs, err := tuner.StencilVariants(ctx, st, ocs, t.gpu)
	if err != nil {
		return err
	}
	t.problem = tuner.Problem{Variants: vs, Evaluator: ev, Stencil: st, GPU: t.gpu.Name}
	t.kernel = st.Name
	return nil
}

// record opens (or resumes) the data set dir and puts a Recorder in front of the evaluator.
func (t *tuneSetup) record(dir string) (*dataset.Writer, error) {
	meta := dataset.Meta{Sources: []smart.Source{t.source}, Devices: []dataset.Device{t.device}, Params: dataset.StencilParams()}
	w, torn, err := dataset.OpenWriter(dir, meta)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	if torn != nil {
		fmt.Fprintf(t.e.stderr, "resuming %s: %s; it was cut off and will be run again\n", dir, torn)
	}
	if t.recorder, err = dataset.NewRecorder(w, t.problem.Evaluator); err != nil {
		w.Close()
		return nil, fmt.Errorf("--record: %w", err)
	}
	if n := w.Len(); n > 0 {
		fmt.Fprintf(t.e.stderr, "%s holds %d runs of %s; the settings among them are not run again\n", dir, n, t.device.Name)
	}
	t.problem.Evaluator = t.recorder
	return w, nil
}

// modelEvaluator answers with the runtime model at path, or for "embedded" with the model of
// the GPU's own measurements where one is embedded and covers the stencil, the simulated default
// otherwise (not another GPU's, which smart predict scales: an evaluator gives this GPU's times).
func (t *tuneSetup) modelEvaluator(path string, st *smart.Stencil) (smart.Evaluator, error) {
	var m *models.Model
	if path == "embedded" {
		ms, err := predict.Defaults()
		if err != nil {
			return nil, err
		}
		own, note, err := ms.Own(st, t.gpu.Name)
		if err != nil {
			return nil, err
		}
		if own == nil {
			if _, own, err = ms.For(st); err != nil {
				return nil, fmt.Errorf("model:embedded: %w", err)
			}
		}
		if note != "" {
			fmt.Fprintf(t.e.stderr, "note: %s\n", note)
		}
		t.embedded = fmt.Sprintf("%s (%s)", own.Name, own.Provenance(t.gpu.Name).Text)
		fmt.Fprintf(t.e.stderr, "model:embedded is %s\n", t.embedded)
		m = own.Model
	} else {
		var err error
		if m, err = models.Load(path, kinds.All()); err != nil {
			return nil, err
		}
	}
	ev, err := train.NewEvaluator(m, t.cat)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := ev.Accepts(st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ev, nil
}

// surrogate reads --surrogate: the analytic model or a runtime model for a stencil, the same
// kernel's Kernel Tuner caches from other GPUs for a Kernel Tuner kernel.
func (t *tuneSetup) surrogate(ctx context.Context, flag string) (smart.Evaluator, error) {
	kind, path, _ := strings.Cut(flag, ":")
	if t.problem.Stencil == nil {
		if kind != "transfer" || path == "" {
			return nil, usagef("--surrogate %q: a Kernel Tuner kernel takes transfer:CACHE[,CACHE...], its caches from other GPUs", flag)
		}
		var others []*tuner.KernelTuner
		for _, f := range strings.Split(path, ",") {
			k, err := tuner.OpenKernelTuner(ctx, f, "")
			if err != nil {
				return nil, fmt.Errorf("--surrogate: %w", err)
			}
			switch {
			case k.Kernel.Name != t.kernel:
				return nil, usagef("--surrogate: %s holds kernel %s, not %s", f, k.Kernel.Name, t.kernel)
			case k.Device == t.gpu.Name:
				return nil, usagef("--surrogate: %s was measured on %s, the GPU being tuned: a prior must come from other GPUs", f, k.Device)
			}
			others = append(others, k)
		}
		tr := tuner.TransferFrom(others)
		fmt.Fprintf(t.e.stderr, "prior: %s's times on %s, predicted from %s\n", t.kernel, t.gpu.Name, tr.What)
		return tr, nil
	}
	switch {
	case kind == "sim":
		return roofline.Evaluator{Catalog: t.cat}, nil
	case kind == "model" && path != "":
		return t.modelEvaluator(path, t.problem.Stencil)
	}
	return nil, usagef("--surrogate %q: a stencil takes sim or model:PATH", flag)
}

// rank orders the stencil's OCs with the classifier at path, or the embedded one.
func (t *tuneSetup) rank(path string) error {
	if t.problem.Stencil == nil {
		return usagef("--classifier ranks the OCs of a stencil; a Kernel Tuner kernel has none")
	}
	clf, err := t.classifier(path)
	if err != nil {
		return err
	}
	var ocs []smart.Combination
	byOC := map[smart.Combination]tuner.Variant{}
	for _, v := range t.problem.Variants {
		ocs = append(ocs, v.OC)
		byOC[v.OC] = v
	}
	ranked, err := tuner.RankOCs(clf, t.problem.Stencil, t.gpu, ocs)
	if err != nil {
		return fmt.Errorf("%s: %w", t.ranker, err)
	}
	t.problem.Variants = t.problem.Variants[:0]
	for _, oc := range ranked {
		t.problem.Variants = append(t.problem.Variants, byOC[oc])
	}
	return nil
}

// classifier loads the OC classifier of --classifier and sets t.ranker to what it is.
func (t *tuneSetup) classifier(path string) (*models.Model, error) {
	if path != "embedded" {
		t.ranker = path
		return models.Load(path, kinds.All())
	}
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	sel, _, err := ms.For(t.problem.Stencil)
	if err != nil {
		return nil, fmt.Errorf("--classifier embedded: %w", err)
	}
	t.ranker = fmt.Sprintf("%s (%s)", sel.Name, sel.Provenance(t.gpu.Name).Text)
	return sel.Model, nil
}

// ocNames are the problem's OCs in its order.
func (t *tuneSetup) ocNames() []string {
	var names []string
	for _, v := range t.problem.Variants {
		names = append(names, v.OC.String())
	}
	return names
}

// size is the number of settings of the problem, for the progress bar of an unlimited search.
func (t *tuneSetup) size() int {
	n := 0
	for _, v := range t.problem.Variants {
		c, ok := v.Space.Len()
		if !ok || c > math.MaxInt32 {
			return math.MaxInt32
		}
		n += int(c)
	}
	return n
}

func tuneMethod(name, model string, pick, cut float64, initial, variants, batch int) (tuner.Method, error) {
	s, known := tuner.LookupStrategy(name)
	switch {
	case batch < 0:
		return nil, usagef("--batch is %d; use 0 (the method's own) or more", batch)
	case batch > 0 && !s.Reads(tuner.OptionBatch):
		return nil, usagef("--batch sets the round of %s; %s sizes its own", strategiesReading(tuner.OptionBatch), name)
	case !known:
		return nil, usagef("--method %q: use %s", name, joinList(strategyNames(nil), "or"))
	}
	o := tuner.Options{Batch: batch, PickRatio: pick, CutRatio: cut, Initial: initial, Variants: variants}
	if s.Reads(tuner.OptionModel) {
		mdl, err := tuner.ParseModel(model)
		if err != nil {
			return nil, usagef("--model: %v", err)
		}
		o.Model = mdl
	}
	switch {
	case s.Reads(tuner.OptionPickRatio) && !(pick > 0 && pick <= 1), s.Reads(tuner.OptionCutRatio) && !(cut >= 0 && cut < 1): // NaN too
		return nil, usagef("--pick-ratio must lie in (0, 1] and --cut-ratio in [0, 1)")
	case s.Reads(tuner.OptionInitial) && initial < 1:
		return nil, usagef("--initial must be at least 1")
	case s.Reads(tuner.OptionVariants) && variants < 1:
		return nil, usagef("--variants must be at least 1")
	}
	return s.New(o), nil
}

// strategyNames lists the names of tuner.Strategies in its order, leaving out those skip
// reports (nil: none).
func strategyNames(skip func(tuner.Strategy) bool) []string {
	var names []string
	for _, s := range tuner.Strategies() {
		if skip == nil || !skip(s) {
			names = append(names, s.Name)
		}
	}
	return names
}

// strategiesReading names the strategies that read option o, as "random and bayes".
func strategiesReading(o tuner.Option) string {
	return joinList(strategyNames(func(s tuner.Strategy) bool { return !s.Reads(o) }), "and")
}

// joinList writes names as "a, b or c", the conjunction ("or", "and") before the last.
func joinList(names []string, conjunction string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conjunction + " " + names[len(names)-1]
}

// traceHeader starts every trace: what tells a trace smart wrote from another file.
const traceHeader = "evaluation,best_ms,time_ms,status,oc,setting\n"

// traceCSV is the trace for plots: one line per evaluation.
func traceCSV(p tuner.Problem, res tuner.Result) []byte {
	var b bytes.Buffer
	b.WriteString(traceHeader)
	for i, o := range res.History {
		best, t := "", ""
		if !math.IsInf(res.Trace[i], 1) {
			best = strconv.FormatFloat(res.Trace[i], 'g', 8, 64)
		}
		if o.OK() {
			t = strconv.FormatFloat(o.Value, 'g', 8, 64)
		}
		oc := ""
		if p.Stencil != nil {
			oc = p.Variants[o.Variant].OC.String()
		}
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s,\"%s\"\n", o.N, best, t, o.Measurement.Status, oc, o.Setting)
	}
	return b.Bytes()
}

// emit writes the CUDA source of the best setting.
func (t *tuneSetup) emit(path string, res tuner.Result) error {
	st := t.problem.Stencil
	switch {
	case res.Best.Setting == nil:
		return errors.New("--emit: no setting ran successfully, so there is no kernel to write")
	}
	oc := t.problem.Variants[res.Best.Variant].OC
	tu, err := smart.DecodeTuning(st.Dims, oc, res.Best.Setting)
	if err != nil {
		return err
	}
	k, err := cuda.Generate(st, tu)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(k.File()))
}

func (t *tuneSetup) print(asJSON bool, res tuner.Result) error {
	o := tuneOutput{Method: res.Method, Seed: res.Seed, Kernel: t.kernel, GPU: t.gpu.Name,
		BestSetting: res.Best.Setting, Objective: "time_ms (median of the runs)", Evaluations: res.Evaluations,
		Failures: len(res.Failures), Stop: res.Stop, Seconds: res.Elapsed.Seconds(), Prior: t.prior, Trace: []any{}}
	if t.meanObj {
		o.Objective = "mean_ms (Kernel Tuner's objective)"
	}
	if res.Evaluations > 0 {
		o.OverheadMs = float64((res.Elapsed - res.EvalTime).Microseconds()) / 1000 / float64(res.Evaluations)
	}
	o.OCs, o.Classifier = t.ocNames()[:t.searched], t.ranker
	if t.recorder != nil {
		o.Record, o.Recorded = t.recordW.Dir(), t.recorder.Recorded()
	}
	for _, v := range res.Trace {
		if math.IsInf(v, 1) {
			o.Trace = append(o.Trace, nil)
		} else {
			o.Trace = append(o.Trace, v)
		}
	}
	if res.Best.Setting != nil {
		v := res.Best.Value
		o.BestTimeMs = &v
		oc := t.problem.Variants[res.Best.Variant].OC
		o.BestOC = &oc
		o.Source, o.Device = res.Best.Measurement.Source, res.Best.Measurement.Device
	}
	if asJSON {
		return writeJSON(t.e, o)
	}
	w := t.e.stdout
	if o.BestTimeMs == nil {
		// runTune then fails, saying why; with no evaluation there is nothing to report here.
		if res.Evaluations > 0 {
			fmt.Fprintf(w, "%s found no setting that runs: all %d evaluations failed\n", res.Method, res.Evaluations)
		}
		return nil
	}
	what := o.Kernel
	if t.problem.Stencil != nil {
		what += " under " + o.BestOC.String()
	}
	fmt.Fprintf(w, "best setting of %s: %s\n", what, o.BestSetting)
	fmt.Fprintf(w, "time: %.4g ms per step, %s", *o.BestTimeMs, o.Source)
	if o.Device != "" {
		fmt.Fprintf(w, " (%s)", o.Device)
	}
	fmt.Fprintf(w, "; objective %s\n", o.Objective)
	fmt.Fprintf(w, "%s, seed %d: %d evaluations (%d failed), stopped: %s, %s (strategy %.3g ms per evaluation)\n",
		res.Method, res.Seed, res.Evaluations, o.Failures, res.Stop, res.Elapsed.Round(time.Millisecond), o.OverheadMs)
	if len(o.OCs) > 1 {
		fmt.Fprintf(w, "OCs searched, in rank order: %s\n", strings.Join(o.OCs, ","))
	}
	if o.Classifier != "" {
		fmt.Fprintf(w, "OCs ranked by %s\n", o.Classifier)
	}
	if o.Prior != "" {
		fmt.Fprintf(w, "settings ranked before any run by %s\n", o.Prior)
	}
	if o.Record != "" {
		fmt.Fprintf(w, "evaluations recorded in %s: %d answered from earlier runs, %d run now\n", o.Record, o.Recorded, res.Evaluations-o.Recorded)
	}
	return nil
}
