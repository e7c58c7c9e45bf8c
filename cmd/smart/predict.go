package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset/gpuinfo"
	"smart/models"
	"smart/models/kinds"
	"smart/predict"
)

// predictHelp is the description of --help, with examples.
const predictHelp = `
Predicts, without a GPU and without measuring, the best optimization combination (OC) of a
stencil on a GPU with the probability of each OC class, the best setting of the most probable
OCs (found by searching their setting spaces with the runtime model) and its time per step,
ready to pass to 'smart codegen', and the predicted time on other GPUs: those the models were
trained on (simulated or measured) and those one can rent, or with --all-gpus every catalogued GPU
(smart gpus; the others are predicted from their hardware description alone).

Every number says what stands behind it: "trained on measurements of this GPU", "predicted
from other GPUs" (a model trained on measurements of others, through the GPU's features), or
"simulated" (a model trained on the analytic model's times). The embedded default models are
trained on simulated data for 13 NVIDIA GPUs, P100 to H200 (data/models/README.md). A GPU
whose measurements train an embedded runtime model (the H100: data/measured/models.json) is
searched with it, while the table of every GPU keeps the defaults for all, so that its times
compare. Another NVIDIA GPU is searched with the model of the nearest GPU measured (the same
architecture first, then the closest memory bandwidth), each predicted time scaled to it by the
analytic model's ratio of that setting's times on the two GPUs ("predicted from other GPUs"):
the simulated defaults' picks, timed on the H100, ran 2-25x slower than the best of random
settings; --transfer=false searches with the default instead. --model uses your own
(smart train), for its task and dimensions, in their place.

FILE may be a stencil file, an embedded sample (j3d7pt, ...) or '-' for stdin; a directory
means every *.json in it. With several stencils it prints one row per stencil; --json prints one
JSON object per stencil, one per line (JSON Lines). --gpu takes any catalogue name or alias
(smart gpus) and defaults to the GPU that NVML finds.

Examples:
  smart predict --gpu a100 data/stencils/j3d7pt.json
  smart predict --gpu "Tesla V100-SXM2-16GB" j2d5pt --json | jq '.best'
  smart predict --gpu h100 stencils/ --model select-a100.model --model rt.model
  smart predict --gpu a100 --transfer=false j3d7pt    # the simulated defaults, not the H100's model`

// predictOpts are the flags of the command.
type predictOpts struct {
	modelFiles  dirList
	gpuName     string
	catalogFile string
	asJSON      bool
	candidates  int
	samples     int
	allGPUs     bool
	transfer    bool
}

func (o *predictOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.gpuName, "gpu", "", "GPU name or alias from the catalogue (default: the GPU NVML finds)")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
	fs.IntVar(&o.candidates, "candidates", 0, fmt.Sprintf("most probable OC classes whose OCs are searched on the GPU. Unset: all %d OCs where the runtime model\nis trained on measurements (of that GPU, or with --transfer of another: the H100's) and the classifier is not, else %d classes", len(smart.Combinations()), predict.DefaultClasses))
	fs.IntVar(&o.samples, "samples", 192, "random settings scored per OC searched in depth, before the descent")
	fs.BoolVar(&o.allGPUs, "all-gpus", false, "put every catalogued GPU in the table, not only those the models were trained on and those with a price")
	fs.BoolVar(&o.transfer, "transfer", true, "search a GPU without measurements of its own with the runtime model of the nearest GPU measured, scaled by the analytic model;\nfalse: with the simulated default")
}

func runPredict(ctx context.Context, e *env, args []string) error {
	var o predictOpts
	fs := newFlags(e, "predict", "FILE|DIR... [--gpu NAME] [--model FILE] [--json]", predictHelp)
	o.register(fs)
	fs.Var(&o.modelFiles, "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	p, gpu, err := o.predictor(fs, rest)
	if err != nil {
		return err
	}
	inputs, err := predictInputs(e, rest)
	if err != nil {
		return err
	}
	if err := checkGiven(p, inputs); err != nil {
		return err
	}
	var bar *progress
	if len(inputs) > 1 {
		bar = newProgress(e, "predict", len(inputs))
	}
	var preds []*predict.Prediction
	err = p.PredictAll(ctx, inputs, gpu, func(i int, pr *predict.Prediction) error {
		if bar != nil {
			bar.Update(i + 1)
		}
		if o.asJSON {
			return writeJSON(e, pr)
		}
		preds = append(preds, pr)
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case o.asJSON:
	case len(preds) == 1:
		printPrediction(e.stdout, preds[0], o.allGPUs)
	default:
		printPredictionRows(e.stdout, preds)
	}
	return nil
}

// predictor checks the flags and sets up the predictor and the GPU they name.
func (o *predictOpts) predictor(fs *flag.FlagSet, rest []string) (*predict.Predictor, string, error) {
	switch {
	case len(rest) == 0:
		return nil, "", usagef("give a stencil file, a directory of them or an embedded sample name")
	case o.candidates < 1 && flagsGiven(fs, "candidates"):
		return nil, "", usagef("--candidates is %d; search at least 1 OC class", o.candidates)
	case o.samples < 1 || o.samples > maxSamples:
		return nil, "", usagef("--samples is %d; score 1 to %d settings", o.samples, maxSamples)
	}
	p, err := newPredictor(o.catalogFile, o.modelFiles)
	if err != nil {
		return nil, "", err
	}
	p.Budget.Deep.Samples = o.samples
	if p.ScreenAll = !flagsGiven(fs, "candidates"); !p.ScreenAll {
		p.Budget.Classes = o.candidates
	}
	p.Transfer = o.transfer
	p.AllGPUs = o.allGPUs
	gpu, err := defaultGPU(o.gpuName)
	if err != nil {
		return nil, "", err
	}
	if g, err := p.Catalog.Lookup(gpu); err != nil {
		return nil, "", usagef("--gpu: %w", err)
	} else if err := g.RunsCUDA(); err != nil {
		return nil, "", usagef("--gpu: %v", err)
	}
	return p, gpu, nil
}

// newPredictor loads the default models, the catalogue and the user's models in their place.
func newPredictor(catalogFile string, modelFiles []string) (*predict.Predictor, error) {
	p, err := predict.DefaultPredictor()
	if err != nil {
		return nil, err
	}
	if p.Catalog, err = catalog.Load(catalogFile); err != nil {
		return nil, err
	}
	var all = kinds.All()
	for _, f := range modelFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("loading model: %w", err)
		}
		if err := p.Models.Use(b, f, all); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkGiven refuses a --model that none of the stencils can use: the defaults would answer in
// its place without a word.
func checkGiven(p *predict.Predictor, inputs []predict.Input) error {
	for _, m := range p.Models.Given() {
		dims := m.Header.Inputs.Dims
		if !slices.ContainsFunc(inputs, func(in predict.Input) bool { return in.Stencil.Dims == dims }) {
			return usagef("--model %s was trained on %d-D stencils; none of the stencils given is %d-D", m.Name, dims, dims)
		}
	}
	return nil
}

// maxSamples bounds --samples, far above the default 192: a search of an OC scores this many
// settings a few times over.
const maxSamples = 1 << 20

// defaultGPU returns name, or the GPU NVML finds when name is empty.
func defaultGPU(name string) (string, error) {
	if name != "" {
		return name, nil
	}
	nv, err := gpuinfo.Open()
	if err != nil {
		if errors.Is(err, gpuinfo.ErrNoGPU) {
			return "", usagef("no NVIDIA GPU found on this machine; name the GPU to predict for with --gpu (smart gpus lists them)")
		}
		return "", fmt.Errorf("finding the GPU: %w; name it with --gpu", err)
	}
	defer nv.Close()
	dev, err := nv.Device(0)
	if err != nil {
		return "", fmt.Errorf("finding the GPU: %w; name it with --gpu", err)
	}
	return dev.Info().Name, nil
}

// predictInputs reads the stencils of files, directories (their *.json) and sample names.
func predictInputs(e *env, paths []string) ([]predict.Input, error) {
	files, err := loadStencils(e, paths, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, err
	}
	out := make([]predict.Input, len(files))
	for i, f := range files {
		out[i] = predict.Input{Stencil: f.stencil, File: f.path}
	}
	return out, nil
}

// analyticMs is the analytic model's time of a choice's setting, or "-" without one.
func analyticMs(c predict.Choice) string {
	if c.Analytic == nil {
		return "-"
	}
	return strconv.FormatFloat(c.Analytic.TimeMs, 'g', 4, 64)
}

// intervalText is a choice's interval as "lo-hi", or "-" without one.
func intervalText(c *predict.Choice) string {
	if c == nil || c.Interval == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g-%.3g", c.Interval.LoMs, c.Interval.HiMs)
}

// intervalLevel is the level of the first interval among the choices ("interval" without one).
func intervalLevel(cs ...*predict.Choice) string {
	for _, c := range cs {
		if c != nil && c.Interval != nil {
			return fmt.Sprintf("%.0f%% interval", 100*c.Interval.Level)
		}
	}
	return "interval"
}

func printPrediction(w io.Writer, pr *predict.Prediction, allGPUs bool) {
	s := pr.Stencil
	fmt.Fprintf(w, "%s: %d-D, order %d, %d points, grid %s, %s, %d steps (id %s)\n", s.Name, s.Dims, s.Order, s.Points, gridString(s.Grid), s.Dtype, s.Steps, s.ID)
	fmt.Fprintf(w, "on %s\n\n", pr.GPU)
	fmt.Fprintf(w, "OC classes, most probable first (%s)\n", sourceLine(pr.ClassSource))
	fmt.Fprintf(w, "  %-6s %-16s %s\n", "p", "class", "OCs in the class")
	for _, c := range pr.Classes {
		fmt.Fprintf(w, "  %-6.3f %-16s %s\n", c.Probability, c.OC, ocList(c.Members))
	}
	all := 0
	for _, c := range pr.Classes {
		all += len(c.Members)
	}
	which := fmt.Sprintf("%d OCs of the most probable classes screened on %s", pr.Screened, pr.GPU)
	if pr.Screened == all && pr.ClassSource.Basis != predict.BasisMeasured {
		switch b := pr.Best; {
		case b.Source.Basis == predict.BasisMeasured:
			which = fmt.Sprintf("All %d OCs screened on %s (its runtime model has measurements of it, the classifier has not)", all, pr.GPU)
		case b.Scaled != nil:
			which = fmt.Sprintf("All %d OCs screened on %s (its runtime model has measurements of the %s, the classifier has none)", all, pr.GPU, b.Scaled.GPU)
		}
	}
	fmt.Fprintf(w, "\n%s; the fastest searched in depth (%s)\n", which, sourceLine(pr.Best.Source))
	fmt.Fprintf(w, "  %-16s %6s %10s %15s %9s %7s  %s\n", "OC", "class p", "ms/step", intervalLevel(pr.Best), "analytic", "scored", "best setting found")
	for _, c := range pr.Candidates {
		fmt.Fprintf(w, "  %-16s %6.3f %10.4g %15s %9s %7d  %s\n", c.OC, c.Probability, c.TimeMs, intervalText(&c), analyticMs(c), c.Evaluated, c.Setting)
	}
	b := pr.Best
	fmt.Fprintf(w, "=> use %s: %.4g ms per step, %.4g s for the stencil's %d steps\n", b.OC, b.TimeMs, b.TimeMs*float64(s.Steps)/1e3, s.Steps)
	if iv := b.Interval; iv != nil {
		fmt.Fprintf(w, "   %.0f%% interval %.4g-%.4g ms per step, from the %s\n", 100*iv.Level, iv.LoMs, iv.HiMs, iv.From)
	} else {
		fmt.Fprintln(w, "   no interval: the model that answered has no measured errors on stencils it had not seen")
	}
	if bd := b.Bounded; bd != nil {
		fmt.Fprintf(w, "   answered by the %s, not the runtime model (%.4g ms): %s\n", bd.By, bd.LearnedMs, bd.Why)
	}
	if a := b.Analytic; a != nil {
		fmt.Fprintf(w, "   the calibrated analytic model gives %.4g ms per step for this setting (%s-bound; smart estimate shows why)\n", a.TimeMs, a.Bound)
	}
	if sc := b.Scaled; sc != nil {
		fmt.Fprintf(w, "   %.4g ms per step predicted on the %s, whose measurements trained the model, x %.3g: the analytic model's\n   time of this setting on %s over that on the %s (--transfer=false: the simulated default's choice instead)\n", sc.TimeMs, sc.GPU, sc.Ratio, pr.GPU, sc.GPU)
	}
	if top := pr.Classes[0]; !slices.Contains(top.Members, b.OC) {
		fmt.Fprintf(w, "   (the classifier ranks class %s first; the runtime model finds %s faster)\n", top.OC, b.OC)
	}
	fmt.Fprintf(w, "   %s -o %s.cu\n", b.Codegen, predict.FileName(s.Name))
	fmt.Fprintf(w, "   on the GPU, time the %d candidates before you choose (models misjudge real kernels):\n   %s\n\n", len(pr.Candidates), pr.Measure)
	printPredictionGPUs(w, pr, allGPUs)
}

// printPredictionGPUs is the table of every GPU, and the models and warnings behind it.
func printPredictionGPUs(w io.Writer, pr *predict.Prediction, allGPUs bool) {
	if allGPUs {
		fmt.Fprintf(w, "Every catalogued GPU, fastest first (each under its own best OC)\n")
	} else {
		fmt.Fprintf(w, "The GPUs the models were trained on and those with a price, fastest first (each under its own best OC)\n")
	}
	ref := pr.Best
	names := make([]string, len(pr.GPUs))
	for i, g := range pr.GPUs {
		names[i] = g.GPU
	}
	col := gpuColumn(names)
	fmt.Fprintf(w, "  %-*s %-13s %10s %15s %8s  %-16s %s\n", col, "GPU", "arch", "ms/step", intervalLevel(ref), "speedup", "OC", "source")
	for _, g := range pr.GPUs {
		if g.Best == nil {
			continue
		}
		mark := ""
		if g.GPU == pr.GPU {
			mark = " <- asked"
		}
		src := string(g.Best.Source.Basis)
		if g.Best.Bounded != nil {
			src += ", " + g.Best.Bounded.By
		}
		fmt.Fprintf(w, "  %-*s %-13s %10.4g %15s %7.2fx  %-16s %s%s\n", col, g.GPU, g.Arch, g.Best.TimeMs, intervalText(g.Best), ref.TimeMs/g.Best.TimeMs, g.Best.OC, src, mark)
	}
	for _, g := range pr.GPUs {
		if g.Best == nil {
			fmt.Fprintf(w, "  %-*s not predicted: %s\n", col, g.GPU, g.Reason)
		}
	}
	fmt.Fprintln(w, "  (speedup: the time on the GPU asked about over this GPU's; every GPU is predicted as it would be")
	fmt.Fprintln(w, "  if asked about, so smart recommend and smart predict --gpu GPU give the same times)")
	if !allGPUs {
		fmt.Fprintln(w, "  (--all-gpus adds every other catalogued GPU, predicted from its hardware description alone)")
	}
	fmt.Fprintln(w, "\nModels")
	for _, m := range pr.Models {
		fmt.Fprintf(w, "  %s: %s %s, %s\n", m.Name, m.Kind, m.Task, modelSummary(m))
	}
	for _, warn := range pr.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

func printPredictionRows(w io.Writer, preds []*predict.Prediction) {
	// The fastest GPU is set against the asked GPU's row of the same table, not against Best,
	// which a model of the asked GPU's own measurements may have given.
	fmt.Fprintf(w, "%-24s %-10s %-16s %6s %10s  %-12s %8s  %s\n", "stencil", "GPU", "best OC", "p", "ms/step", "fastest GPU", "speedup", "setting")
	for _, pr := range preds {
		fast := pr.GPUs[0]
		fmt.Fprintf(w, "%-24s %-10s %-16s %6.3f %10.4g  %-12s %7.2fx  %s\n", pr.Stencil.Name, pr.GPU, pr.Best.OC, pr.Best.Probability, pr.Best.TimeMs, fast.GPU, pr.Best.TimeMs/fast.Best.TimeMs, pr.Best.Setting)
	}
	fmt.Fprintln(w, "(speedup: the GPU asked about's time over the fastest GPU's, both from the table of every GPU that smart predict FILE prints)")
	// One note per kind of provenance, naming the models behind it.
	var texts []string
	by := map[string][]string{}
	for _, pr := range preds {
		src := pr.Best.Source
		if !slices.Contains(texts, src.Text) {
			texts = append(texts, src.Text)
		}
		if !slices.Contains(by[src.Text], src.Model) {
			by[src.Text] = append(by[src.Text], src.Model)
		}
	}
	for _, t := range texts {
		fmt.Fprintf(w, "(times on %s: %s; %s)\n", preds[0].GPU, t, strings.Join(by[t], ", "))
	}
}

func sourceLine(p predict.Provenance) string {
	return fmt.Sprintf("%s, %s", p.Model, p.Text)
}

func ocList(ocs []smart.Combination) string {
	names := make([]string, len(ocs))
	for i, oc := range ocs {
		names[i] = oc.String()
	}
	return strings.Join(names, " ")
}

func gridString(g []int) string {
	parts := make([]string, len(g))
	for i, v := range g {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "x")
}

// modelSummary says in a line what a model was trained on and how well it did.
func modelSummary(m predict.ModelInfo) string {
	var parts []string
	// Data sets measured on one GPU are summed per GPU: a model may learn from a dozen of them.
	measured := map[string][2]int{} // GPU -> rows, data sets
	var gpus []string
	for _, d := range m.Data {
		if len(d.GPUs) == 1 && d.Sources["simulated"] == 0 && d.Sources["measured"] == d.Rows {
			if _, ok := measured[d.GPUs[0]]; !ok {
				gpus = append(gpus, d.GPUs[0])
			}
			v := measured[d.GPUs[0]]
			measured[d.GPUs[0]] = [2]int{v[0] + d.Rows, v[1] + 1}
			continue
		}
		parts = append(parts, fmt.Sprintf("%d rows (%s, %d GPUs): %s", d.Rows, models.SourceCounts(d.Sources), len(d.GPUs), d.Path))
	}
	for _, g := range gpus {
		v := measured[g]
		sets := "data sets"
		if v[1] == 1 {
			sets = "data set"
		}
		parts = append(parts, fmt.Sprintf("%d rows measured on the %s (%d %s)", v[0], g, v[1], sets))
	}
	s := "trained on " + strings.Join(parts, "; ")
	if m.CV != nil && m.CV.Accuracy > 0 {
		s += fmt.Sprintf("; %d-fold accuracy %.1f%%", m.CV.Folds, 100*m.CV.Accuracy)
	}
	if m.CV != nil && m.CV.MAPE > 0 {
		s += fmt.Sprintf("; %d-fold MAPE %.1f%%", m.CV.Folds, m.CV.MAPE)
	}
	return s
}

// gpuColumn is the width of a table's GPU column: 12, or the longest name.
func gpuColumn(names []string) int {
	w := 12
	for _, n := range names {
		w = max(w, len(n))
	}
	return w
}
