// Package simset builds the simulated data sets that the embedded default models are trained
// on (bench/defaults) and that their decisions are checked against (bench/decision): random
// stencils drawn with StencilMART's Algorithm 1, with varied grids and element types, timed by
// the analytic model (models/roofline) on the NVIDIA GPUs of Trained under every optimization
// combination, at settings drawn uniformly from the ones valid on that GPU.
//
// Drawing settings is the slow part of `smart bench` (generating a 3-D stencil's 30 setting
// spaces takes seconds), and it would be repeated for each of 13 GPUs. The spaces of the GPUs
// differ only in their resource limits, so Build generates each space once for a GPU with the
// largest limits of them all and keeps, for each GPU, the settings that fit it: uniform draws
// from a superset filtered to a subset are uniform draws from the subset. Rows are written with
// the dataset package, source "simulated", one device per GPU, each with the origin of the
// analytic model's constants (the literature's, or a calibration's file and hash).
package simset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models/roofline"
	"smart/space"
)

// Options say what to simulate.
type Options struct {
	Dims     int
	Stencils int    // random stencils
	MaxOrder int    // orders 1..MaxOrder in turn; 0 means smart.DefaultMaxOrder
	Samples  int    // settings per stencil, OC and GPU
	Seed     uint64 // of the stencils, their grids and the draws
	// GPUs are the GPUs to simulate; nil means those of Trained.
	GPUs []smart.GPU
	// Progress, if not nil, is called after each stencil.
	Progress func(done, total int)
	// Calibration gives the analytic model's constants (nil: the literature's), and Origin
	// where they come from (calibrate.ReadOrigin), which the data set's devices record.
	Calibration *roofline.Calibration
	Origin      dataset.Constants
}

// Grids are the extents the stencils are drawn with, besides the default grid
// (smart.DefaultGrid) that half of them keep: what the embedded models were trained on.
var grids = map[int][]int{2: {2048, 4096, 16384}, 3: {128, 256}}

// Float32Share is the share of stencils drawn with float32 elements; the rest are float64.
const Float32Share = 0.3

// Stencils draws n random dims-D stencils of orders 1..maxOrder (dataset.RandomStencils, so
// stencil i is the same on every machine) and gives each a grid and element type drawn from
// the seed: half keep the default grid, the others take a cubic (square) grid of one of the
// other extents; Float32Share of them hold float32.
func Stencils(dims, n, maxOrder int, seed uint64) ([]*smart.Stencil, error) {
	sts, err := dataset.RandomStencils(n, dims, cmp.Or(maxOrder, smart.DefaultMaxOrder), seed)
	if err != nil {
		return nil, err
	}
	for i, st := range sts {
		rng := rand.New(rand.NewPCG(seed, uint64(i)^0x9e3779b97f4a7c15))
		if rng.Float64() < Float32Share {
			st.Dtype = smart.Float32
		}
		if rng.Float64() < 0.5 {
			ext := grids[dims][rng.IntN(len(grids[dims]))]
			st.Grid = [3]int{ext, ext, 1}
			if dims == 3 {
				st.Grid[2] = ext
			}
		}
		if err := st.Validate(smart.Limits{}); err != nil {
			return nil, fmt.Errorf("random stencil %d: %w", i, err)
		}
	}
	return sts, nil
}

// Trained returns the NVIDIA GPUs the embedded default models are trained on, as
// data/models/defaults.json lists them (a test keeps the two alike): the catalogue's NVIDIA GPUs
// when those models were built. The GPUs catalogued since are predicted from their hardware
// description; naming them here and rebuilding the models (go generate ./data) would train on
// their simulations too, and change every default model.
func Trained(cat *catalog.Catalog) ([]smart.GPU, error) {
	names := []string{"P100", "V100", "T4", "RTX-2080-Ti", "A10G", "L4", "A100-40GB", "A100-80GB", "L40S", "H100-SXM", "H200", "RTX-A4000", "RTX-A6000"}
	out := make([]smart.GPU, len(names))
	for i, n := range names {
		g, err := cat.Lookup(n)
		if err != nil {
			return nil, fmt.Errorf("simset: the GPUs the default models are trained on: %w", err)
		}
		out[i] = g
	}
	return out, nil
}

// Union returns a GPU whose per-block limits are the largest of gpus: every setting valid on
// one of them is valid on it, so its setting space holds theirs.
func Union(gpus []smart.GPU) smart.GPU {
	u := smart.GPU{Name: fmt.Sprintf("largest limits of %d GPUs", len(gpus)), Vendor: "NVIDIA", WarpSize: 32}
	for _, g := range gpus {
		u.MaxThreadsPerBlk = max(u.MaxThreadsPerBlk, g.MaxThreadsPerBlk)
		u.MaxRegsPerThread = max(u.MaxRegsPerThread, g.MaxRegsPerThread)
		u.RegsPerBlock = max(u.RegsPerBlock, g.RegsPerBlock)
		u.SharedPerBlockKB = max(u.SharedPerBlockKB, g.SharedPerBlockKB)
		u.ConstantMemoryKB = max(u.ConstantMemoryKB, g.ConstantMemoryKB)
	}
	return u
}

// fitter answers, for one stencil, whether a setting of the union space is a setting of a GPU's
// space: the two differ only in the checks that read the GPU, the block's threads, registers and
// shared memory (smart.Usage.Fits) and the coefficients' room in constant memory. A test holds
// the filtered union spaces equal to the GPUs' own spaces. Usage reads only the stencil's dimensions, element type
// and order, so it is asked of a stand-in with the centre and one farthest point: the order of
// the stencil itself is a pass over all its points (up to 729) in each of many checks.
type fitter struct {
	st         *smart.Stencil
	shape      *smart.Stencil
	constBytes int
}

func newFitter(st *smart.Stencil) fitter {
	far := smart.Offset{}
	for _, p := range st.Points {
		if p.Off.Chebyshev() > far.Chebyshev() {
			far = p.Off
		}
	}
	shape := *st
	shape.Points = []smart.Point{{}, {Off: far}}
	return fitter{st: st, shape: &shape, constBytes: st.NNZ() * st.Dtype.Size()}
}

func (f fitter) fits(oc smart.Combination, set smart.Setting, g smart.GPU) bool {
	t, err := smart.DecodeTuning(f.st.Dims, oc, set)
	if err != nil || t.Usage(f.shape).Fits(g) != nil {
		return false
	}
	if g.WarpSize > 0 && t.Threads() < g.WarpSize {
		return false
	}
	return !t.Const || g.ConstantMemoryKB <= 0 || f.constBytes <= g.ConstantMemoryKB*1024
}

// enumerateBelow is the space size under which Draw lists the whole space instead of sampling.
const enumerateBelow = 2_000

// Draw returns, for each GPU, up to n distinct settings drawn uniformly from the settings of
// union (the space built for Union(gpus)) that fit it, using rng. A GPU with no fitting setting
// gets none.
func Draw(st *smart.Stencil, oc smart.Combination, union *space.Space, gpus []smart.GPU, n int, rng *rand.Rand) ([][]smart.Setting, error) {
	out := make([][]smart.Setting, len(gpus))
	f := newFitter(st)
	count, small := union.Len()
	if count == 0 {
		return out, nil
	}
	var pool []smart.Setting
	if small && count <= enumerateBelow {
		for s := range union.All() {
			pool = append(pool, s)
		}
		for i, g := range gpus {
			out[i] = pick(f, oc, pool, g, n, rng)
		}
		return out, nil
	}
	// A uniform sample of the union filtered to a GPU is a uniform sample of the GPU's space;
	// draw more when too few fit.
	for k := 8 * n; ; k *= 4 {
		k = min(k, int(min(count, 1<<22)))
		var err error
		if pool, err = union.Sample(rng, k); err != nil {
			return nil, err
		}
		short := false
		for i, g := range gpus {
			out[i] = pick(f, oc, pool, g, n, rng)
			short = short || len(out[i]) < n
		}
		if !short || uint64(k) >= count || k >= 1<<22 {
			return out, nil
		}
	}
}

// pick returns n settings chosen uniformly from those of pool that fit g (all if fewer).
func pick(f fitter, oc smart.Combination, pool []smart.Setting, g smart.GPU, n int, rng *rand.Rand) []smart.Setting {
	var fit []smart.Setting
	for _, s := range pool {
		if f.fits(oc, s, g) {
			fit = append(fit, s)
		}
	}
	rng.Shuffle(len(fit), func(i, j int) { fit[i], fit[j] = fit[j], fit[i] })
	return fit[:min(n, len(fit))]
}

// Build simulates the stencils of opt into a new data set in dir and returns the stencils.
func Build(ctx context.Context, dir string, opt Options) ([]*smart.Stencil, error) {
	if opt.Samples < 1 || opt.Stencils < 1 {
		return nil, errors.New("simset: give at least one stencil and one sample")
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpus := opt.GPUs
	if gpus == nil {
		if gpus, err = Trained(cat); err != nil {
			return nil, err
		}
	}
	sts, err := Stencils(opt.Dims, opt.Stencils, opt.MaxOrder, opt.Seed)
	if err != nil {
		return nil, err
	}
	origin, name := cmp.Or(opt.Origin, dataset.Constants{Origin: dataset.ConstantsLiterature}), dataset.AnalyticModel
	if (opt.Calibration != nil) != (origin.Origin == dataset.ConstantsCalibration) {
		return nil, fmt.Errorf("simset: the constants' origin (%s) is not that of the calibration given (or not given); the data set would misname its constants", origin)
	}
	if opt.Calibration != nil {
		name = fmt.Sprintf("analytic model (roofline, calibrated: %s)", origin.File)
	}
	meta := dataset.Meta{Sources: []smart.Source{smart.Simulated}, Params: dataset.StencilParams(), AllowMixed: len(gpus) > 1}
	for _, g := range gpus {
		meta.Devices = append(meta.Devices, dataset.Device{GPU: g.Name, Name: name, Constants: origin})
	}
	w, err := dataset.Create(dir, meta)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	union := Union(gpus)
	eval := roofline.Evaluator{Catalog: cat, Calibration: opt.Calibration}
	for done, st := range sts {
		if err := w.AddStencil(st); err != nil {
			return nil, err
		}
		items := make([][]dataset.Item, len(gpus))
		for _, oc := range smart.Combinations() {
			sp, err := space.ForStencilContext(ctx, st, oc, union)
			if err != nil {
				return nil, err
			}
			drawn, err := Draw(st, oc, sp, gpus, opt.Samples, rng(opt.Seed, st, oc))
			if err != nil {
				return nil, fmt.Errorf("stencil %s under %s: %w", st.Name, oc, err)
			}
			for i, sets := range drawn {
				if len(sets) == 0 {
					// As smart bench records it: the OC cannot run this stencil on the GPU.
					items[i] = append(items[i], dataset.Item{Stencil: st, OC: oc, Setting: smart.Setting{},
						Invalid: fmt.Sprintf("%s has no valid setting for this stencil on %s", oc, gpus[i].Name)})
				}
				for _, s := range sets {
					items[i] = append(items[i], dataset.Item{Stencil: st, OC: oc, Setting: s})
				}
			}
		}
		for i, g := range gpus {
			r := &dataset.Runner{Evaluator: eval, GPU: g.Name}
			if _, err := r.Run(ctx, w, items[i]); err != nil {
				return nil, fmt.Errorf("simulating %s on %s: %w", st.Name, g.Name, err)
			}
		}
		if opt.Progress != nil {
			opt.Progress(done+1, len(sts))
		}
	}
	return sts, w.Close()
}

// errStale ends Stale's scan at the first row that differs.
var errStale = errors.New("stale")

// Stale reports how the data set in dir, built by Build with opt, differs from what the analytic
// model gives now: one timed row in every is simulated again and compared (status and time, to
// 1e-9), and the first that differs is described; "" where all agree. A work directory keys its
// data sets by their constants, not by the model's code, which a change of its terms (a floor,
// a barrier count) leaves stale. A data set that records other constants than opt's (or none,
// built before data sets recorded them) is stale too: the models trained on it would name the wrong ones.
func Stale(ctx context.Context, dir string, opt Options, every int) (string, error) {
	meta, err := dataset.ReadMeta(dir)
	if err != nil {
		return "", err
	}
	want := cmp.Or(opt.Origin, dataset.Constants{Origin: dataset.ConstantsLiterature})
	for _, d := range meta.Devices {
		if !d.Constants.Same(want) {
			return fmt.Sprintf("it records %s on %s, the options %s", d.Constants, d.GPU, want), nil
		}
	}
	cat, err := catalog.Default()
	if err != nil {
		return "", err
	}
	sts, err := Stencils(opt.Dims, opt.Stencils, opt.MaxOrder, opt.Seed)
	if err != nil {
		return "", err
	}
	byID := map[string]*smart.Stencil{}
	for _, st := range sts {
		byID[st.ID()] = st
	}
	eval := roofline.Evaluator{Catalog: cat, Calibration: opt.Calibration}
	why, row, i := "", 0, 0
	_, _, err = dataset.Scan(dir, func(m smart.Measurement) error {
		row++
		if !m.OK() {
			return nil // an OC without a setting on the GPU: nothing the model timed
		}
		i++
		if (i-1)%max(every, 1) != 0 {
			return nil
		}
		st := byID[m.StencilID]
		if st == nil {
			why = fmt.Sprintf("row %d is of stencil %s, which opt does not draw", row, m.StencilID)
			return errStale
		}
		now, err := eval.Evaluate(ctx, smart.Query{Stencil: st, OC: m.OC, Setting: m.Setting, GPU: m.GPU})
		if err != nil {
			return err
		}
		if now.Status != m.Status || math.Abs(now.TimeMs-m.TimeMs) > 1e-9*math.Abs(m.TimeMs) {
			why = fmt.Sprintf("row %d (%s under %s on %s): %s %.6g ms in the data set, %s %.6g ms now", row, st.Name, m.OC, m.GPU, m.Status, m.TimeMs, now.Status, now.TimeMs)
			return errStale
		}
		return nil
	})
	if errors.Is(err, errStale) {
		return why, nil
	}
	return "", err
}

// rng is the generator of one stencil's and OC's draws.
func rng(seed uint64, st *smart.Stencil, oc smart.Combination) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(st.ID() + "|" + oc.String()))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
