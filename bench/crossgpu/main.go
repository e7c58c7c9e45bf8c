// Command crossgpu validates the analytic model's cross-GPU scaling on real measurements: Kernel
// Tuner's 2-D convolution measured on six GPUs (the cache files of
// data/kernel-tuner/convolution_milo). For every ordered pair of GPUs (A, B) it
// scales every configuration measured on A to B with the model (roofline.ScaleConv, calibrated on
// A's measurements only) and with the baseline (one constant ratio per pair, the median of B/A
// over a random 10% of the configurations), and prints the mean absolute percentage error
// against B's measurements and how close the configuration each picks as best on B comes to B's
// optimum. A second table asks what a GPU without measurements of its own should run: the
// configuration the model (with the GPU's catalogue entry, uncalibrated) predicts fastest, or the
// fastest measured on another GPU of its vendor (what smart predict's Transfer does for stencils).
//
// Usage:
//
//	go run ./bench/crossgpu [-dir DIR] [-catalog FILE] [-seed N] [-json]
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/calibrate"
	"smart/catalog"
	"smart/internal/atomicfile"
	"smart/internal/bit"
	"smart/internal/stats"
	"smart/models/roofline"
)

// DefaultDir is where the shared data set lives.
const DefaultDir = "data/kernel-tuner/convolution_milo"

// gpuFiles are the cache files of the data set, in table order.
var gpuFiles = []string{"A100", "A4000", "A6000", "MI250X", "W6600", "W7800"}

func main() {
	dir := flag.String("dir", DefaultDir, "folder of the Kernel Tuner cache files (GPU.json.gz)")
	cat := flag.String("catalog", "", "GPU catalogue file merged over the embedded one")
	seed := flag.Uint64("seed", 1, "seed of the baseline's 10% sample")
	asJSON := flag.Bool("json", false, "print the table as JSON")
	dump := flag.String("dump", "", "also write every configuration's measured and modelled time per GPU to this CSV file")
	machineFile := flag.String("machine", "", "stencil calibration whose machine terms the model reads on NVIDIA GPUs: a file of smart calibrate, or embedded (default: the literature's)")
	flag.Parse()
	machine, err := machineTerms(*machineFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossgpu:", err)
		os.Exit(1)
	}
	res, err := run(*dir, *cat, *seed, *dump, machine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossgpu:", err)
		os.Exit(1)
	}
	jsonout.Report("crossgpu:", *asJSON, res, res.print)
}

// measured is one GPU's cache file: valid times by configuration key.
type measured struct {
	file   string
	device string // device_name as the file gives it
	gpu    smart.GPU
	times  map[string]float64
	sets   map[string]roofline.ConvSetting
	failed int
}

// cacheFile is the part of a Kernel Tuner cache file this program reads.
type cacheFile struct {
	DeviceName string                                `json:"device_name"`
	ParamKeys  []string                              `json:"tune_params_keys"`
	Cache      map[string]map[string]json.RawMessage `json:"cache"`
}

func load(path string, cat *catalog.Catalog) (*measured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var c cacheFile
	if err := json.NewDecoder(zr).Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: not a Kernel Tuner cache file: %w", path, err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	name := c.DeviceName
	if strings.TrimSpace(name) == "" {
		// Some caches (MI250X) leave device_name empty; the file is named after the GPU.
		name = strings.TrimSuffix(filepath.Base(path), ".json.gz")
	}
	g, err := cat.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s: device %q: %w", path, name, err)
	}
	m := &measured{file: path, device: c.DeviceName, gpu: g, times: map[string]float64{}, sets: map[string]roofline.ConvSetting{}}
	for key, rec := range c.Cache {
		var t float64
		if err := json.Unmarshal(rec["time"], &t); err != nil {
			m.failed++ // a string: CompilationFailedConfig, RuntimeFailedConfig, ...
			continue
		}
		s := smart.Setting{}
		for _, k := range c.ParamKeys {
			var v int
			if err := json.Unmarshal(rec[k], &v); err != nil {
				return nil, fmt.Errorf("%s: configuration %s: parameter %s is not an integer", path, key, k)
			}
			s[k] = v
		}
		cs, err := roofline.ConvSettingOf(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		m.times[key], m.sets[key] = t, cs
	}
	if len(m.times) == 0 {
		return nil, fmt.Errorf("%s: no valid measurements", path)
	}
	return m, nil
}

// pairResult is one row of the table.
type pairResult struct {
	From           string                    `json:"from"`
	To             string                    `json:"to"`
	Configs        int                       `json:"configs"`        // configurations valid on both that the model can place on both GPUs
	Rejected       int                       `json:"rejected"`       // configurations valid on both that the model thinks cannot run on one of them
	ModelMAPE      float64                   `json:"model_mape"`     // percent
	BaselineMAPE   float64                   `json:"baseline_mape"`  // percent
	ModelTransfer  float64                   `json:"model_transfer"` // percent of B's optimum reached by the configuration picked from A
	BaseTransfer   float64                   `json:"base_transfer"`
	ModelPick      string                    `json:"model_pick"`
	BaselineRatio  float64                   `json:"baseline_ratio"`
	Calibration    *roofline.ConvCalibration `json:",omitempty"`
	ModelPickTime  float64                   `json:"model_pick_time"` // ms on B, 0 where the pick failed on B
	TargetOptimum  float64                   `json:"target_optimum"`  // ms
	BaselinePickMs float64                   `json:"baseline_pick_ms"`
}

// targetResult is one row of the second table: how close to a GPU's optimum a pick made without
// its measurements comes, in percent (0 where the pick failed there).
type targetResult struct {
	GPU string `json:"gpu"`
	// AnalyticPick: the configuration the uncalibrated model predicts fastest on the GPU,
	// among those measured on it that the model can place.
	AnalyticPick float64 `json:"analytic_pick"`
	// SameVendor: the fastest configuration of each other GPU of its vendor, run on it.
	SameVendor []float64 `json:"same_vendor"`
	// MeanSameVendor is SameVendor's mean.
	MeanSameVendor float64 `json:"mean_same_vendor"`
}

type result struct {
	Source            string         `json:"source"`
	Seed              uint64         `json:"seed"`
	Pairs             []pairResult   `json:"pairs"`
	Targets           []targetResult `json:"targets"`
	MeanModelMAPE     float64        `json:"mean_model_mape"`
	MeanBaselineMAPE  float64        `json:"mean_baseline_mape"`
	MeanModelTransfer float64        `json:"mean_model_transfer"`
	MeanBaseTransfer  float64        `json:"mean_base_transfer"`
}

// machineTerms reads the stencil calibration of -machine; nil for none.
func machineTerms(name string) (*roofline.Calibration, error) {
	var f *calibrate.File
	var err error
	switch name {
	case "":
		return nil, nil
	case "embedded":
		f, err = calibrate.Default()
	default:
		f, err = calibrate.Read(name)
	}
	if err != nil {
		return nil, err
	}
	return &f.Calibration, nil
}

func run(dir, catFile string, seed uint64, dump string, machine *roofline.Calibration) (*result, error) {
	cat, err := catalog.Load(catFile)
	if err != nil {
		return nil, err
	}
	p := roofline.KernelTunerConv()
	gpus := make([]*measured, len(gpuFiles))
	for i, name := range gpuFiles {
		if gpus[i], err = load(filepath.Join(dir, name+".json.gz"), cat); err != nil {
			return nil, err
		}
	}
	if dump != "" {
		if err := writeDump(dump, p, gpus); err != nil {
			return nil, err
		}
	}
	cals := make([]*roofline.ConvCalibration, len(gpus))
	for i, a := range gpus {
		samples := make([]roofline.ConvSample, 0, len(a.times))
		for _, k := range sortedKeys(a.times) {
			samples = append(samples, roofline.ConvSample{Setting: a.sets[k], TimeMs: a.times[k]})
		}
		if cals[i], err = roofline.FitConv(p, a.gpu, samples, machine); err != nil {
			return nil, err
		}
	}
	res := &result{Source: dir, Seed: seed}
	for i, a := range gpus {
		for j, b := range gpus {
			if i == j {
				continue
			}
			r, err := comparePair(p, a, b, cals[i], seed)
			if err != nil {
				return nil, err
			}
			res.Pairs = append(res.Pairs, r)
		}
	}
	vendor := map[string]string{}
	for _, g := range gpus {
		vendor[g.gpu.Name] = g.gpu.Vendor
	}
	for _, b := range gpus {
		t, err := pickWithout(p, b, res.Pairs, vendor)
		if err != nil {
			return nil, err
		}
		res.Targets = append(res.Targets, t)
	}
	n := float64(len(res.Pairs))
	for _, r := range res.Pairs {
		res.MeanModelMAPE += r.ModelMAPE / n
		res.MeanBaselineMAPE += r.BaselineMAPE / n
		res.MeanModelTransfer += r.ModelTransfer / n
		res.MeanBaseTransfer += r.BaseTransfer / n
	}
	return res, nil
}

func sortedKeys(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }

func comparePair(p roofline.ConvProblem, a, b *measured, cal *roofline.ConvCalibration, seed uint64) (pairResult, error) {
	r := pairResult{From: a.gpu.Name, To: b.gpu.Name, Calibration: cal}
	var common []string
	for _, k := range sortedKeys(a.times) {
		if _, ok := b.times[k]; ok {
			common = append(common, k)
		}
	}
	// Model predictions for every configuration measured on A that the model places on B.
	pred := map[string]float64{}
	for _, k := range sortedKeys(a.times) {
		t, err := roofline.ScaleConv(p, a.sets[k], a.times[k], a.gpu, b.gpu, cal)
		if err != nil {
			continue
		}
		pred[k] = t
	}
	// Baseline: the median of B/A over a random 10% of the common configurations.
	rng := rand.New(rand.NewPCG(seed, uint64(len(common))))
	sample := slices.Clone(common)
	rng.Shuffle(len(sample), func(x, y int) { sample[x], sample[y] = sample[y], sample[x] })
	sample = sample[:max(1, len(sample)/10)]
	ratios := make([]float64, len(sample))
	for i, k := range sample {
		ratios[i] = b.times[k] / a.times[k]
	}
	r.BaselineRatio = stats.Median(ratios)
	// Both are scored on the configurations valid on both GPUs that the model can place.
	for _, k := range common {
		t, ok := pred[k]
		if !ok {
			r.Rejected++
			continue
		}
		r.Configs++
		r.ModelMAPE += math.Abs(t-b.times[k]) / b.times[k]
		r.BaselineMAPE += math.Abs(r.BaselineRatio*a.times[k]-b.times[k]) / b.times[k]
	}
	if r.Configs == 0 {
		return r, fmt.Errorf("%s -> %s: no configuration to compare", a.gpu.Name, b.gpu.Name)
	}
	r.ModelMAPE *= 100 / float64(r.Configs)
	r.BaselineMAPE *= 100 / float64(r.Configs)
	for _, k := range sortedKeys(b.times) {
		if r.TargetOptimum == 0 || b.times[k] < r.TargetOptimum {
			r.TargetOptimum = b.times[k]
		}
	}
	// Transfer: the configuration each method predicts fastest on B, run on B (0% if it fails there).
	pick := argmin(pred)
	r.ModelPick = a.sets[pick].String()
	r.ModelPickTime = b.times[pick]
	basePick := argmin(a.times) // a constant ratio keeps A's order
	r.BaselinePickMs = b.times[basePick]
	r.ModelTransfer = transfer(r.TargetOptimum, r.ModelPickTime)
	r.BaseTransfer = transfer(r.TargetOptimum, r.BaselinePickMs)
	return r, nil
}

// pickWithout scores the picks for b made without b's measurements: the uncalibrated model's on
// b's catalogue entry, and each other GPU of b's vendor's fastest configuration (pairs' baseline
// transfers, a constant ratio keeping the source's order).
func pickWithout(p roofline.ConvProblem, b *measured, pairs []pairResult, vendor map[string]string) (targetResult, error) {
	r := targetResult{GPU: b.gpu.Name}
	model := map[string]float64{}
	for _, k := range sortedKeys(b.times) {
		if e, err := p.Estimate(b.sets[k], b.gpu, nil); err == nil {
			model[k] = e.TimeMs
		}
	}
	if len(model) == 0 {
		return r, fmt.Errorf("%s: the model places none of its configurations", b.gpu.Name)
	}
	opt := b.times[argmin(b.times)]
	r.AnalyticPick = transfer(opt, b.times[argmin(model)])
	for _, pr := range pairs {
		if pr.To == b.gpu.Name && vendor[pr.From] == b.gpu.Vendor {
			r.SameVendor = append(r.SameVendor, pr.BaseTransfer)
			r.MeanSameVendor += pr.BaseTransfer
		}
	}
	if len(r.SameVendor) > 0 {
		r.MeanSameVendor /= float64(len(r.SameVendor))
	}
	return r, nil
}

func transfer(opt, got float64) float64 {
	if got <= 0 {
		return 0
	}
	return 100 * opt / got
}

func argmin(m map[string]float64) string {
	best := ""
	for _, k := range sortedKeys(m) {
		if best == "" || m[k] < m[best] {
			best = k
		}
	}
	return best
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "Cross-GPU scaling of Kernel Tuner's convolution: imported measurements from %s; baseline sample seed %d\n\n", r.Source, r.Seed)
	fmt.Fprintln(w, "| A -> B | configs | model MAPE | baseline MAPE | model transfer | baseline transfer |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "| %s -> %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", p.From, p.To, p.Configs,
			p.ModelMAPE, p.BaselineMAPE, p.ModelTransfer, p.BaseTransfer)
	}
	fmt.Fprintf(w, "| **mean** | | **%.1f%%** | **%.1f%%** | **%.1f%%** | **%.1f%%** |\n",
		r.MeanModelMAPE, r.MeanBaselineMAPE, r.MeanModelTransfer, r.MeanBaseTransfer)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Picking for a GPU without its measurements: share of its optimum reached")
	fmt.Fprintln(w, "| GPU | the model alone | fastest of another GPU of its vendor (each) | mean |")
	fmt.Fprintln(w, "|---|---:|---|---:|")
	for _, t := range r.Targets {
		each := make([]string, len(t.SameVendor))
		for i, v := range t.SameVendor {
			each[i] = fmt.Sprintf("%.1f%%", v)
		}
		fmt.Fprintf(w, "| %s | %.1f%% | %s | %.1f%% |\n", t.GPU, t.AnalyticPick, strings.Join(each, ", "), t.MeanSameVendor)
	}
	fmt.Fprintln(w)
	seen := map[string]bool{}
	for _, p := range r.Pairs {
		if c := p.Calibration; c != nil && !seen[c.FittedOn] {
			seen[c.FittedOn] = true
			fmt.Fprintf(w, "calibration fitted on %s: shared=%.3g guard_shared=%.3g guard_global=%.3g guard_tile=%.3g\n",
				c.FittedOn, c.Shared, c.GuardShared, c.GuardGlobal, c.GuardTile)
		}
	}
}

// writeDump writes one CSV row per GPU and configuration measured on it: the setting, the
// measured time and the uncalibrated model's time and breakdown.
func writeDump(path string, p roofline.ConvProblem, gpus []*measured) error {
	var b strings.Builder
	b.WriteString("gpu,bx,by,tx,ty,ro,pad,sh,guarded,measured_ms,model_ms,bound,occupancy,regs,loads_per_output,waves\n")
	for _, m := range gpus {
		for _, k := range sortedKeys(m.times) {
			s := m.sets[k]
			e, err := p.Estimate(s, m.gpu, nil)
			if err != nil {
				e.Bound = "rejected"
			}
			fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%d,%d,%d,%t,%g,%g,%s,%.3f,%d,%.2f,%.2f\n", m.gpu.Name, s.BlockX, s.BlockY, s.TileX, s.TileY,
				bit.Of(s.ReadOnly), bit.Of(s.Padding), bit.Of(s.Shared), p.Guarded(s), m.times[k], e.TimeMs, e.Bound, e.Occupancy, e.RegsPerThr, e.LoadsPerOut, e.Waves)
		}
	}
	return atomicfile.Write(path, []byte(b.String()))
}
