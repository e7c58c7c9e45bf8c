// Command defaults rebuilds the default models embedded in smart (data/models): for 2-D and 3-D
// stencils an OC-selection classifier and a runtime regressor (gbdt), trained on data it
// simulates with the analytic model for every catalogued NVIDIA GPU (bench/defaults/simset), and
// the manifest (defaults.json) that says what they were trained on.
//
// The analytic model simulates with the embedded calibration (data/calibration/stencil.json;
// -calibration none for the literature's constants). The runtime models also learn from every
// measured row of -measured (each row keeps its source, so smart predict says "trained on
// measured and simulated data" for the GPUs measured). The classifiers learn from the
// simulations alone unless -measured-select: then also from each measured stencil and GPU,
// labelled with the simulations' OC classes by its best measured OC, and the cross-validated
// choices on those instances (each predicted by a fold that never saw the stencil) are printed.
// An item "A+B+..." of -measured is one data set: its data sets (one GPU's random settings and
// the picks measured of earlier models) are merged in -work, so that a stencil is labelled by its
// fastest setting measured anywhere.
//
// Usage:
//
//	go run ./bench/defaults [-work DIR] [-out data/models] [-stencils2 N] [-stencils3 N] [-samples N] [-calibration FILE|embedded|none] [-measured GLOB[+GLOB...],...] [-measured-select [-measured-copies K] [-named-models DIR] [-fold-models DIR [-fold-data DATASET] [-folds K]]] [-classes K]
//
// With the defaults it takes about an hour on 2 cores, most of it drawing settings; the data sets
// are kept in -work, and a run finds the finished ones there and trains again without redrawing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/floats"

	"smart"
	"smart/app"
	"smart/bench/defaults/simset"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/roofline"
	"smart/models/train"
	"smart/predict"
)

// Seeds of the training stencils; bench/decision evaluates on other seeds.
const (
	Seed2D = 21
	Seed3D = 31
)

// Classes is the number of OC classes, as in StencilMART.
const Classes = 5

// Hyper-parameters of the two models: a shallow multiclass ensemble for a few thousand
// instances, and a larger one for a million rows of times, both stopped early on held-out
// stencils. The runtime model's size is what a cold smart predict spends most of its time
// parsing, so it has 250 trees: more at a lower learning rate loaded slower and decided no
// better (docs/performance.md).
var (
	selectParams  = map[string]string{"rounds": "200", "learning_rate": "0.05", "max_leaves": "15", "min_data_in_leaf": "10"}
	runtimeParams = map[string]string{"rounds": "250", "learning_rate": "0.2", "max_leaves": "63", "min_data_in_leaf": "50"}
)

type config struct {
	work, out string
	stencils  map[int]int
	samples   int
	cal       *calibrate.File   // nil: the literature's constants
	origin    dataset.Constants // of cal, which the simulated data sets record
	calName   string
	calFlag   string   // -calibration as given
	measured  []string // measured data sets the runtime models learn from too
	// groups are the -measured items of several data sets ("A+B"), each merged into one data set
	// in work before training, whose path stands in c.measured.
	groups []measuredGroup
	// measuredSelect: the classifiers learn from the measured data sets too.
	measuredSelect bool
	// measuredCopies repeats each measured instance in the classifiers' training (1: once).
	measuredCopies int
	// namedModels, when set, is where each named stencil's classifier trained without it is saved;
	// foldModels, where each fold's of foldData dealt into folds (bench/screen-campaign.sh's).
	namedModels, foldModels, foldData string
	folds                             int
	// classes is the number of OC classes; the simulated data sets are labelled with Classes,
	// and with another number relabelled in memory.
	classes int
}

func main() {
	var c config
	c.stencils = map[int]int{}
	flag.StringVar(&c.work, "work", filepath.Join(os.TempDir(), "smart-defaults"), "directory for the simulated data sets (kept between runs)")
	flag.StringVar(&c.out, "out", "data/models", "directory to write the models and defaults.json to")
	s2 := flag.Int("stencils2", 240, "random 2-D stencils")
	s3 := flag.Int("stencils3", 160, "random 3-D stencils")
	flag.IntVar(&c.samples, "samples", 20, "settings per stencil, OC and GPU")
	calFile := flag.String("calibration", "embedded", "the analytic model's constants: a smart calibrate file, embedded or none (the literature's)")
	measured := flag.String("measured", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*,data/measured/h100-sxm/campaign,data/measured/h200/random/*,data/measured/h200/resample/*",
		"measured data sets (globs, comma-separated; globs joined by + are merged into one data set) the runtime models learn from as well; empty: none")
	flag.BoolVar(&c.measuredSelect, "measured-select", false, "the classifiers learn from -measured too, labelled with the simulations' classes")
	flag.IntVar(&c.classes, "classes", Classes, "OC classes of the classifiers")
	flag.StringVar(&c.foldModels, "fold-models", "", "with -measured-select, save in this directory the classifier trained without each fold of -fold-data (select-Dd-fold-F.smartmodel.gz, for bench/screen-campaign.sh)")
	flag.StringVar(&c.foldData, "fold-data", "data/measured/h100-sxm/campaign", "the data set whose stencils -fold-models deals into folds")
	flag.IntVar(&c.folds, "folds", 12, "folds of -fold-models")
	flag.StringVar(&c.namedModels, "named-models", "", "with -measured-select, save in this directory each named stencil's classifier trained without it (select-Dd-no-NAME.smartmodel.gz, for bench/screen-all.sh)")
	flag.IntVar(&c.measuredCopies, "measured-copies", 1, "with -measured-select, how many times each measured instance counts in the classifiers' training")
	flag.Parse()
	c.stencils[2], c.stencils[3] = *s2, *s3
	if err := c.load(*calFile, *measured); err != nil {
		fmt.Fprintln(os.Stderr, "defaults:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "defaults:", err)
		os.Exit(1)
	}
}

// load reads the calibration and expands the measured data sets' globs.
func (c *config) load(calFile, measured string) error {
	var err error
	c.calFlag = calFile
	switch calFile {
	case "none":
	case "embedded":
		if c.cal, c.origin, err = calibrate.DefaultOrigin(); err != nil {
			return err
		}
		c.calName = c.origin.File
	default:
		if c.cal, c.origin, err = calibrate.ReadOrigin(calFile); err != nil {
			return err
		}
		c.calName = c.origin.File
	}
	for _, item := range strings.Split(measured, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		dirs, err := dataset.Glob(strings.Split(item, "+"))
		if err != nil {
			return fmt.Errorf("-measured: %w", err)
		}
		if !strings.Contains(item, "+") {
			c.measured = append(c.measured, dirs...)
			continue
		}
		g := measuredGroup{spec: item, dirs: dirs, dir: filepath.Join(c.work, fmt.Sprintf("merged-%08x", crc32.ChecksumIEEE([]byte(item))))}
		c.groups = append(c.groups, g)
		c.measured = append(c.measured, g.dir)
	}
	return nil
}

// A measuredGroup is data sets of one GPU merged into one before training: the named stencils'
// random settings and the picks of earlier models, so that each instance is labelled by the best
// time measured of it in any of them (a data set labelled alone undersells an OC whose good
// settings the random draws missed).
type measuredGroup struct {
	spec string   // the -measured item, globs joined by "+"
	dirs []string // the data sets it names
	dir  string   // the merged data set, in the work directory
}

// mergeGroups merges each group afresh into its directory in the work directory (the data sets
// may have grown since the last run). Data sets of different plans and sources are expected
// there: the picks were measured apart from the random settings.
func (c *config) mergeGroups(ctx context.Context) error {
	for _, g := range c.groups {
		if err := os.RemoveAll(g.dir); err != nil {
			return err
		}
		sum, err := dataset.Merge(ctx, g.dir, g.dirs, true)
		if err != nil {
			return fmt.Errorf("merging %s: %w", g.spec, err)
		}
		fmt.Fprintf(os.Stderr, "merged %d data sets of %s: %d rows (%d duplicates left out)\n", len(g.dirs), g.spec, sum.Rows, sum.Duplicates)
	}
	return nil
}

// name is how a measured data set is named to a user: a merged group by its -measured item.
func (c *config) name(dir string) string {
	for _, g := range c.groups {
		if g.dir == dir {
			return g.spec
		}
	}
	return dir
}

// constants are the calibration's constants, nil for the literature's.
func (c *config) constants() *roofline.Calibration {
	if c.cal == nil {
		return nil
	}
	return &c.cal.Calibration
}

func run(ctx context.Context, c config) error {
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	gpus, err := simset.Trained(cat)
	if err != nil {
		return err
	}
	if err := c.mergeGroups(ctx); err != nil {
		return err
	}
	var names []string
	for _, d := range c.measured {
		names = append(names, c.name(d))
	}
	command := fmt.Sprintf("%s -stencils2 %d -stencils3 %d -samples %d -calibration %s -measured '%s'", runCommand(), c.stencils[2], c.stencils[3], c.samples,
		c.calFlag, strings.Join(names, ","))
	if c.measuredSelect {
		command += " -measured-select"
	}
	if c.measuredCopies > 1 {
		command += fmt.Sprintf(" -measured-copies %d", c.measuredCopies)
	}
	if c.classes != Classes {
		command += fmt.Sprintf(" -classes %d", c.classes)
	}
	man := &predict.Manifest{Format: predict.ManifestFormat, Command: command}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	for _, dims := range []int{2, 3} {
		seed := uint64(Seed2D)
		if dims == 3 {
			seed = Seed3D
		}
		dir := filepath.Join(c.work, fmt.Sprintf("sim-%dd-n%d-s%d-seed%d-%s", dims, c.stencils[dims], c.samples, seed, c.constantsID()))
		sts, err := simulate(ctx, dir, simset.Options{Dims: dims, Stencils: c.stencils[dims], Samples: c.samples, Seed: seed, GPUs: gpus,
			Calibration: c.constants(), Origin: c.origin})
		if err != nil {
			return err
		}
		rng := trainingRange(sts, seed, c.samples, gpus)
		model := "the analytic model"
		if c.cal != nil {
			model = "the analytic model calibrated on measurements (" + c.calName + ")"
		}
		about := fmt.Sprintf("simulated by %s: %d random %d-D stencils (seed %d), %d NVIDIA GPUs, %d settings per OC (bench/defaults)", model, len(sts), dims, seed, len(gpus), c.samples)
		for _, task := range []models.Task{models.Select, models.Runtime} {
			e, err := trainOne(ctx, c, task, dims, dir, about)
			if err != nil {
				return fmt.Errorf("%d-D %s model: %w", dims, task, err)
			}
			e.Training = rng
			man.Models = append(man.Models, e)
		}
	}
	b, err := predict.MarshalManifest(man)
	if err != nil {
		return err
	}
	path := filepath.Join(c.out, predict.ManifestFile)
	if err := atomicfile.Write(path, b); err != nil {
		return err
	}
	return os.Chmod(path, 0o644)
}

// runCommand is how to run this program from the working directory, whose paths the flags
// name: go generate runs it in data/.
func runCommand() string {
	wd, err := os.Getwd()
	if err != nil {
		return "go run ./bench/defaults"
	}
	for root := wd; ; root = filepath.Dir(root) {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, wd)
			if err != nil || rel == "." {
				break
			}
			up := strings.Repeat("../", strings.Count(filepath.ToSlash(rel), "/")+1)
			return "(in " + filepath.ToSlash(rel) + "/) go run " + up + "bench/defaults"
		}
		if filepath.Dir(root) == root {
			break
		}
	}
	return "go run ./bench/defaults"
}

// simulate builds the data set in dir unless a finished one is there (a "complete" file marks
// it), and returns its stencils.
func simulate(ctx context.Context, dir string, opt simset.Options) ([]*smart.Stencil, error) {
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		why, err := simset.Stale(ctx, dir, opt, 997)
		if err != nil {
			return nil, err
		}
		if why == "" {
			fmt.Fprintf(os.Stderr, "using the simulated data set %s\n", dir)
			return simset.Stencils(opt.Dims, opt.Stencils, opt.MaxOrder, opt.Seed)
		}
		fmt.Fprintf(os.Stderr, "simulating %s again: the analytic model has changed since (%s)\n", dir, why)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	start := time.Now()
	opt.Progress = func(done, total int) {
		el := time.Since(start)
		fmt.Fprintf(os.Stderr, "%d-D: %d/%d stencils simulated in %s, about %s left\n", opt.Dims, done, total,
			el.Round(time.Second), (el / time.Duration(done) * time.Duration(total-done)).Round(time.Second))
	}
	sts, err := simset.Build(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	if _, err := dataset.LabelWith(ctx, dir, dataset.LabelOptions{Classes: Classes, Relative: true}); err != nil {
		return nil, err
	}
	return sts, os.WriteFile(done, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// trainOne trains and saves one model and returns its manifest entry (without the range).
func trainOne(ctx context.Context, c config, task models.Task, dims int, dir, about string) (predict.Entry, error) {
	kinds := models.Kinds{}
	gbdt.Register(kinds)
	describe := func(path string) string { // a model header's name of a data set
		if path == dir {
			return about // a temporary directory means nothing to a user
		}
		return c.name(path)
	}
	dirs := []string{dir}
	t := app.Train{Task: task, Kind: "gbdt", Kinds: kinds, Params: selectParams, Dims: dims}
	if task == models.Runtime || c.measuredSelect {
		dirs = append(dirs, c.measured...)
	}
	var measuredLabels map[string]*dataset.Labels // with -measured-select, the measured data sets'
	if task == models.Select {
		sim, err := dataset.ReadLabels(dir)
		if err != nil {
			return predict.Entry{}, err
		}
		if len(sim.Classes) != c.classes {
			if sim, err = dataset.ComputeLabels(ctx, dir, dataset.LabelOptions{Classes: c.classes, Relative: true}); err != nil {
				return predict.Entry{}, err
			}
		}
		t.Labels = map[string]*dataset.Labels{dir: sim}
		if c.measuredSelect {
			measuredLabels = map[string]*dataset.Labels{}
			for _, m := range c.measured {
				// Partial: two named stencils' H100 runs stopped before their last OC
				// (j2d13pt, j3d25pt) and three of the H200 campaign's were only begun; each is
				// labelled by the best of the OCs it has, as the embedded models were trained,
				// and counted.
				if measuredLabels[m], err = dataset.ComputeLabels(ctx, m, dataset.LabelOptions{Given: sim.Classes, Partial: true}); err != nil {
					return predict.Entry{}, err
				}
				if n := measuredLabels[m].Incomplete; n > 0 {
					fmt.Fprintf(os.Stderr, "%s: %d stencil(s) measured under only some OCs, labelled by the best of those\n", c.name(m), n)
				}
				t.Labels[m] = measuredLabels[m]
			}
			if err := distinctInstances(measuredLabels, c.name); err != nil {
				return predict.Entry{}, err
			}
		}
	}
	t.Data = dirs
	if task == models.Runtime {
		t.Params = runtimeParams
	} else {
		t.CV, t.Seed = 5, 1
	}
	start := time.Now()
	t.Round = func(r models.Round) {
		if r.Round%25 == 0 {
			fmt.Fprintf(os.Stderr, "%d-D %s: round %d of %d, %s %.4g (validation %.4g) after %s\n", dims, task, r.Round, r.Rounds, r.Metric, r.Train, r.Valid, time.Since(start).Round(time.Second))
		}
	}
	set, err := t.Load(ctx)
	if err != nil {
		return predict.Entry{}, err
	}
	if measuredLabels != nil && c.measuredCopies > 1 {
		set = repeatMeasured(set, measuredStencils(measuredLabels, c.name), c.measuredCopies)
	}
	trained, err := t.Fit(ctx, set)
	if err != nil {
		return predict.Entry{}, err
	}
	if r := trained.CV; r != nil {
		fmt.Fprintf(os.Stderr, "%d-D select: 5-fold accuracy %.1f%%, oracle share %.1f%% (with the fit: %s)\n", dims, r.Overall.Accuracy*100, r.Overall.OracleShare*100, time.Since(start).Round(time.Second))
		if measuredLabels != nil {
			measured := measuredStencils(measuredLabels, c.name)
			heldOutFirst(os.Stderr, set, trained.Predictions, measured, "")
			if err := leaveNamedOut(ctx, os.Stderr, kinds, set, measured); err != nil {
				return predict.Entry{}, err
			}
			if c.namedModels != "" {
				if err := saveHeldOut(ctx, t, set, measured, namedHeldOut(set, measured), c.namedModels, dims, describe); err != nil {
					return predict.Entry{}, err
				}
			}
			if c.foldModels != "" {
				folds, err := foldsHeldOut(c.foldData, c.folds)
				if err != nil {
					return predict.Entry{}, err
				}
				if err := saveHeldOut(ctx, t, set, measured, folds, c.foldModels, dims, describe); err != nil {
					return predict.Entry{}, err
				}
			}
		}
	}
	f, h := trained.Fitted, trained.Header
	if measuredLabels != nil {
		for class, oc := range representatives(set, measuredStencils(measuredLabels, c.name), nil) {
			if oc != h.Classes[class].OC {
				fmt.Fprintf(os.Stderr, "%d-D select: class %s stands for its members by %s, chosen on the measured stencils' times\n", dims, h.Classes[class].OC, oc)
				h.Classes[class].OC = oc
			}
		}
	}
	for i := range h.Data {
		h.Data[i].Path = describe(h.Data[i].Path)
	}
	name := fmt.Sprintf("%s-%dd.smartmodel", task, dims)
	if err := saveCompressed(filepath.Join(c.work, name), filepath.Join(c.out, name+".gz"), h, f); err != nil {
		return predict.Entry{}, err
	}
	fmt.Fprintf(os.Stderr, "%d-D %s: %d rows, hyper %s, trained in %s -> %s\n", dims, task, set.Data.Rows(), h.Hyper, time.Since(start).Round(time.Second), name)
	src := smart.Simulated
	if len(set.Refs) > 1 {
		src = "simulated and measured"
	}
	return predict.Entry{File: name, Task: string(task), Dims: dims, Source: src, Rows: set.Data.Rows()}, nil
}

// constantsID names the constants in the work directory, so that data simulated with other
// constants is not taken for this run's.
func (c *config) constantsID() string {
	if c.cal == nil {
		return "literature"
	}
	b, _ := json.Marshal(c.cal.Calibration)
	return fmt.Sprintf("cal%08x", crc32.ChecksumIEEE(b))
}

// trainingRange summarises the stencils of a data set.
func trainingRange(sts []*smart.Stencil, seed uint64, samples int, gpus []smart.GPU) models.Range {
	names := make([]string, len(gpus))
	for i, g := range gpus {
		names[i] = g.Name
	}
	r := models.RangeOf(sts, names)
	r.Seed, r.Samples = seed, samples
	return r
}

// saveCompressed saves the model to path and a gzip-compressed copy to gz, which the binary
// embeds.
func saveCompressed(path, gz string, h *models.Header, f models.Fitted) error {
	if err := models.Save(path, h, f); err != nil {
		return err
	}
	if err := models.Save(gz, h, f); err != nil {
		return err
	}
	return os.Chmod(gz, 0o644)
}

// distinctInstances refuses a stencil measured on one GPU in two measured data sets: each would
// be labelled by its own rows and counted twice, under either kind. Data sets of one stencil
// (the picks of a stencil and its random settings) belong in one +-joined item.
func distinctInstances(labels map[string]*dataset.Labels, name func(dir string) string) error {
	in := map[[2]string]string{}
	for _, dir := range slices.Sorted(maps.Keys(labels)) {
		for _, i := range labels[dir].Instances {
			k := [2]string{i.StencilID, i.GPU}
			if other, ok := in[k]; ok {
				return fmt.Errorf("stencil %s on %s is in the measured data sets %s and %s; join them with + in one -measured item, so that it is labelled once by all its rows", i.StencilID, i.GPU, name(other), name(dir))
			}
			in[k] = dir
		}
	}
	return nil
}

// measuredStencils are the stencils the measured data sets' labels name, each with its kind:
// "campaign" for a data set of the campaign's random stencils, "named" for the others.
func measuredStencils(labels map[string]*dataset.Labels, name func(dir string) string) map[string]string {
	out := map[string]string{}
	for dir, l := range labels {
		kind := "named"
		if strings.Contains(name(dir), "campaign") {
			kind = "campaign"
		}
		for _, in := range l.Instances {
			out[in.StencilID] = kind
		}
	}
	return out
}

// repeatMeasured is set with each row of a measured stencil copies times; the copies keep their
// stencil's group, so cross-validation never splits them.
func repeatMeasured(set *train.Set, measured map[string]string, copies int) *train.Set {
	var idx, extra []int
	for i, s := range set.Samples {
		idx = append(idx, i)
		if _, ok := measured[s.Group]; ok {
			extra = append(extra, i)
		}
	}
	for range copies - 1 {
		idx = append(idx, extra...)
	}
	return set.Subset(idx)
}

// near is how close to an instance's best OC another OC counts as a hit (the goals' 1.10x).
const near = 1.10

// representatives are the OCs that stand for set's classes. A class's label from the
// simulations gives way to a member that the measured instances whose best OC is in the class
// (those of leftOut, nil: none, aside) find within near of their best clearly more often where
// the label is not than the other way round (a sign test at two standard deviations on the
// goals' own criterion), and no farther from the best in geometric mean: what wins on the
// analytic model's times often loses on a GPU (in 2-D the class of BASE holds CM, which real
// stencils run faster), but a few instances must not overturn a label by chance, nor a member
// that is near the best often and far from it elsewhere. Of several such members, the one within
// near of the best on most instances, then the nearest in geometric mean. A member must have run
// on every instance of its class; a label that did not gives way to any member that did.
func representatives(set *train.Set, measured map[string]string, leftOut func(i int) bool) []smart.Combination {
	inClass := make([][]map[smart.Combination]float64, len(set.Classes)) // the instances' times by OC
	seen := map[[2]string]bool{}
	for i, s := range set.Samples {
		k := [2]string{s.Group, s.GPU}
		if _, ok := measured[s.Group]; !ok || seen[k] || (leftOut != nil && leftOut(i)) || len(s.Times) == 0 {
			continue
		}
		seen[k] = true
		for c, cl := range set.Classes {
			if slices.Contains(cl.Members, bestOf(s.Times)) {
				inClass[c] = append(inClass[c], s.Times)
			}
		}
	}
	reps := make([]smart.Combination, len(set.Classes))
	for c, cl := range set.Classes {
		reps[c] = cl.OC
		ranOnAll := func(oc smart.Combination) bool {
			for _, times := range inClass[c] {
				if _, ok := times[oc]; !ok {
					return false
				}
			}
			return true
		}
		labelRan := ranOnAll(cl.OC)
		bestHits, bestShare := -1, math.Inf(-1)
		for _, m := range cl.Members {
			if m == cl.OC || !ranOnAll(m) || len(inClass[c]) == 0 {
				continue
			}
			hits, logShare, labelLogShare, wins, losses := 0, 0.0, 0.0, 0, 0
			for _, times := range inClass[c] {
				best, t := times[bestOf(times)], times[m]
				logShare += math.Log(best / t)
				if t <= near*best {
					hits++
				}
				if labelRan {
					l := times[cl.OC]
					labelLogShare += math.Log(best / l)
					switch mh, lh := t <= near*best, l <= near*best; {
					case mh && !lh:
						wins++
					case lh && !mh:
						losses++
					}
				}
			}
			if labelRan && (wins <= losses || float64(wins-losses) < 2*math.Sqrt(float64(wins+losses)) || logShare < labelLogShare) {
				continue
			}
			if hits > bestHits || (hits == bestHits && logShare > bestShare) {
				reps[c], bestHits, bestShare = m, hits, logShare
			}
		}
	}
	return reps
}

// bestOf is the OC of the least time (the first in bit order on a tie).
func bestOf(times map[smart.Combination]float64) smart.Combination {
	oc, best := smart.Combination(0), math.Inf(1)
	for o, t := range times {
		if t < best || (t == best && o < oc) {
			oc, best = o, t
		}
	}
	return oc
}

// heldOutFirst prints how the classifier's first class does on the measured instances in
// cross-validation (each predicted by a fold that never saw its stencil): the OC that stands for
// that class, chosen without the fold's instances (representatives), placed by that OC's fastest
// measured setting, as bench/measured places the embedded classifier's; and, for comparison, the
// simulations' label of the class.
// Rows in no fold (Fold -1) are left out; how names the folds in the output.
func heldOutFirst(w io.Writer, set *train.Set, p *train.Predictions, measured map[string]string, how string) {
	reps := map[int][]smart.Combination{} // by fold
	for _, f := range p.Fold {
		if _, ok := reps[f]; !ok && f >= 0 {
			reps[f] = representatives(set, measured, func(i int) bool { return p.Fold[i] == f })
		}
	}
	first(w, set, p, measured, func(i, class int) smart.Combination { return reps[p.Fold[i]][class] }, how, true)
	first(w, set, p, measured, func(_, class int) smart.Combination { return set.Classes[class].OC }, how+", the simulations' labels", false)
}

// A heldOut is stencils a classifier is trained without, and how its file and header name them.
type heldOut struct {
	tag, what string          // "no-j3d7pt", "j3d7pt"; "fold-3", "fold 3 of 12"
	groups    map[string]bool // the stencils
}

// namedHeldOut is each named stencil of set alone: what a user of smart predict would have had
// before measuring it.
func namedHeldOut(set *train.Set, measured map[string]string) []heldOut {
	var out []heldOut
	seen := map[string]bool{}
	for _, s := range set.Samples {
		if measured[s.Group] != "named" || seen[s.Group] {
			continue
		}
		seen[s.Group] = true
		name := stencilName(set, s.Group)
		out = append(out, heldOut{tag: "no-" + name, what: name, groups: map[string]bool{s.Group: true}})
	}
	slices.SortFunc(out, func(a, b heldOut) int { return strings.Compare(a.tag, b.tag) })
	return out
}

// foldsHeldOut deals the stencils with an ok time measured in full in data into k folds as
// bench/screen-campaign.sh deals them (sorted by ID, the n-th into fold n mod k).
func foldsHeldOut(data string, k int) ([]heldOut, error) {
	ids := map[string]bool{}
	if _, _, err := dataset.Scan(data, func(m smart.Measurement) error {
		if m.OK() && m.Cut == smart.CutNone && m.TimeMs > 0 {
			ids[m.StencilID] = true
		}
		return nil
	}); err != nil {
		return nil, err
	}
	sorted := slices.Sorted(maps.Keys(ids))
	k = min(k, len(sorted))
	out := make([]heldOut, k)
	for f := range out {
		out[f] = heldOut{tag: fmt.Sprintf("fold-%d", f+1), what: fmt.Sprintf("fold %d of %d of %s", f+1, k, data), groups: map[string]bool{}}
	}
	for n, id := range sorted {
		out[n%k].groups[id] = true
	}
	return out, nil
}

// saveHeldOut trains, for each of out, the classifier on every other instance, its classes' OCs
// chosen without them, and saves it in dir as select-Dd-TAG.smartmodel.gz. describe names the
// data sets in its header.
func saveHeldOut(ctx context.Context, t app.Train, set *train.Set, measured map[string]string, out []heldOut, dir string, dims int, describe func(path string) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t.CV, t.Round = 0, nil
	for _, o := range out {
		var keep []int
		for i, s := range set.Samples {
			if !o.groups[s.Group] {
				keep = append(keep, i)
			}
		}
		sub := set.Subset(keep)
		trained, err := t.Fit(ctx, sub)
		if err != nil {
			return fmt.Errorf("the classifier without %s: %w", o.what, err)
		}
		h := trained.Header
		for class, oc := range representatives(sub, measured, nil) {
			h.Classes[class].OC = oc
		}
		// The subset shares the set's data references; a selection set's rows come in blocks,
		// one a data set, in their order, so the rows left out are taken from their block.
		h.Data = slices.Clone(h.Data)
		first := 0
		for k := range h.Data {
			end, left := first+h.Data[k].Rows, 0
			for i := first; i < end && i < len(set.Samples); i++ {
				if o.groups[set.Samples[i].Group] {
					left++
				}
			}
			h.Data[k].Path, h.Data[k].Rows = describe(h.Data[k].Path), h.Data[k].Rows-left
			if left > 0 {
				h.Data[k].Path += " (without " + o.what + ")"
			}
			first = end
		}
		path := filepath.Join(dir, fmt.Sprintf("select-%dd-%s.smartmodel.gz", dims, o.tag))
		if err := models.Save(path, h, trained.Fitted); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%d-D select without %s -> %s\n", dims, o.what, path)
	}
	return nil
}

// stencilName is the name of set's stencil id where it can stand in a file name as it is, else
// the id.
func stencilName(set *train.Set, id string) string {
	if st := set.Stencils[id]; st != nil && safeName.MatchString(st.Name) {
		return st.Name
	}
	return id
}

// safeName is a stencil name that can stand in a file name as it is.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// leaveNamedOut prints heldOutFirst's tallies with each named stencil predicted by a classifier
// trained on every other instance, simulated and measured: the goals' leave-one-stencil-out,
// where the 5-fold cross-validation also leaves out a fifth of the other stencils.
func leaveNamedOut(ctx context.Context, w io.Writer, kinds models.Kinds, set *train.Set, measured map[string]string) error {
	var folds [][]int
	for _, o := range namedHeldOut(set, measured) {
		var rows []int
		for i, s := range set.Samples {
			if o.groups[s.Group] {
				rows = append(rows, i)
			}
		}
		folds = append(folds, rows)
	}
	if len(folds) == 0 {
		return nil
	}
	p, err := train.CrossValidateFolds(ctx, kinds, "gbdt", set, folds, selectParams, nil)
	if err != nil {
		return fmt.Errorf("leaving each named stencil out: %w", err)
	}
	heldOutFirst(w, set, p, measured, ", each named stencil left out alone")
	return nil
}

// first prints heldOutFirst's tallies with the OC of sample i's predicted class given by oc, and
// with misses each named instance whose first OC is not within 1.10x of its best.
func first(w io.Writer, set *train.Set, p *train.Predictions, measured map[string]string, oc func(i, class int) smart.Combination, how string, misses bool) {
	type tally struct {
		n, within int
		logShare  float64
	}
	by := map[string]*tally{"all": {}}
	seen := map[[2]string]bool{} // an instance repeated (repeatMeasured) counts once
	for i, s := range set.Samples {
		k := [2]string{s.Group, s.GPU}
		kind, ok := measured[s.Group]
		if !ok || seen[k] || p.Fold[i] < 0 {
			continue
		}
		seen[k] = true
		best := s.Times[bestOf(s.Times)]
		class := floats.MaxIdx(p.Proba[i])
		t, ok := s.Times[oc(i, class)]
		if !ok {
			continue
		}
		if misses && kind == "named" && t > near*best {
			fmt.Fprintf(w, "  named miss%s: %s on %s: class %s, its OC %s at %.2fx the best measured (%s)\n", how, stencilName(set, s.Group), s.GPU, set.Classes[class].OC, oc(i, class), t/best, bestOf(s.Times))
		}
		onGPU := kind + " on " + s.GPU // the goals name one GPU's stencils
		for _, k := range []string{kind, onGPU} {
			if by[k] == nil {
				by[k] = &tally{}
			}
		}
		for _, c := range []*tally{by["all"], by[kind], by[onGPU]} {
			c.n++
			if t <= near*best {
				c.within++
			}
			c.logShare += math.Log(best / t)
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(by)) {
		if c := by[kind]; c.n > 0 {
			fmt.Fprintf(w, "  measured instances (%s%s), cross-validated: first OC within 1.10x of the best measured OC on %d of %d, geometric mean share %.2f\n", kind, how, c.within, c.n, math.Exp(c.logShare/float64(c.n)))
		}
	}
}
