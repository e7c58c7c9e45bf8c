// Command fewshot scores package transfer where the answer is known: each GPU of Kernel
// Tuner's convolution and dedispersion caches left out and predicted from the other five (its
// own vendor's where there are any; each AMD GPU also from the three NVIDIA ones alone), and the
// H200 predicted from the H100 on the stencils both measured, for k = 0, 4, 8, 16 and 32 shots
// chosen by transfer.ChooseShots and measured (read from the target's own file). The target is
// left out of every choice: the share, the shots and the correction see only the sources and
// the shots.
//
// Usage:
//
//	go run ./bench/fewshot [-kt DIR] [-kernels NAME,...] [-from GLOBS] [-to GLOBS] [-k 0,4,8,16,32] [-json]
//
// -kt is the folder holding the kernels' folders (default: SMART_KT_DATA, data/kernel-tuner,
// ../shared/datasets/kernel-tuner, the first that has each); -kernels names them (default
// convolution_milo,dedispersion_milo). Each GPU is a cache in its kernel's folder (*.json or
// *.json.gz; a cache that names no device is named by its file, as benchmark_hub's MI250X
// ones; T4 files, space.json and GPUs the catalogue lacks are left out, the last with a note).
package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/ktdata"
	"smart/transfer"
)

// Row is one target at one budget.
type Row struct {
	Case       string  `json:"case"` // kernel or "stencils"
	Target     string  `json:"target"`
	Vendor     string  `json:"vendor"`
	K          int     `json:"k"`
	Kernels    int     `json:"kernels"` // stencils averaged over (1 for a Kernel Tuner kernel)
	Share      float64 `json:"share"`
	Correction string  `json:"correction"`
	transfer.Score
	Seconds float64 `json:"predict_seconds"` // Predict's wall time, one kernel
	// Baseline is the MAPE of one constant ratio (see baseline), for comparison.
	Baseline float64 `json:"baseline_mape_pct"`
	// Floors bound what corrections fitted on shots can reach (k = 0 rows only; see floors).
	*Floors `json:",omitempty"`
	// Width is the interval's high bound over its low one, nil without an interval; over
	// stencils, the median of theirs.
	Width *float64 `json:"interval_width,omitempty"`
	// Level is the interval's coverage as stated, which shots too few for the level asked
	// lower (transfer's interval); over stencils, their mean.
	Level *float64 `json:"interval_level,omitempty"`
}

func main() {
	ktDir := flag.String("kt", "", "folder holding the Kernel Tuner kernels' folders")
	from := flag.String("from", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*,data/measured/h100-sxm/campaign", "the H100's data sets")
	to := flag.String("to", "data/measured/h200/resample/*,data/measured/h200/random/*,data/measured/h200/campaign", "the H200's data sets of the same settings")
	ks := flag.String("k", "0,4,8,16,32", "shot budgets")
	kernels := flag.String("kernels", "convolution_milo,dedispersion_milo", "the Kernel Tuner kernels' folders under -kt")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	budgets, err := parseInts(*ks)
	if err == nil {
		var rows []Row
		rows, err = run(*ktDir, strings.Split(*kernels, ","), *from, *to, budgets)
		if err == nil {
			if *asJSON {
				jsonout.Print("fewshot:", rows)
			} else {
				print(rows)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fewshot:", err)
		os.Exit(1)
	}
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 0 {
			return nil, fmt.Errorf("-k: %q is no budget", f)
		}
		out = append(out, k)
	}
	return out, nil
}

func run(ktDir string, kernels []string, from, to string, budgets []int) ([]Row, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, kernel := range kernels {
		dir, ok := ktdata.DirOr(ktDir, kernel)
		if !ok {
			fmt.Fprintf(os.Stderr, "fewshot: %s not found (set -kt or SMART_KT_DATA); skipped\n", kernel)
			continue
		}
		files, err := openKT(filepath.Join(dir, kernel), cat)
		if err != nil {
			return nil, err
		}
		for t := range files {
			var srcs []transfer.Source
			for s, f := range files {
				if s != t {
					srcs = append(srcs, transfer.Source{GPU: f.GPU, Rows: f.Rows})
				}
			}
			for _, k := range budgets {
				r, err := score(srcs, files[t].GPU, files[t].Rows, k)
				if err != nil {
					return nil, fmt.Errorf("%s on %s, k=%d: %w", kernel, files[t].GPU.Name, k, err)
				}
				r.Case, r.Target, r.Vendor, r.K, r.Kernels = strings.TrimSuffix(kernel, "_milo"), files[t].GPU.Name, files[t].GPU.Vendor, k, 1
				rows = append(rows, r)
			}
		}
		across, err := acrossVendors(strings.TrimSuffix(kernel, "_milo"), files, budgets)
		if err != nil {
			return nil, err
		}
		rows = append(rows, across...)
	}
	st, err := stencils(from, to, cat, budgets)
	if err != nil {
		return nil, err
	}
	return append(rows, st...), nil
}

// acrossVendors predicts each AMD GPU from the NVIDIA ones alone (no source of its own
// vendor, so they answer).
func acrossVendors(kernel string, files []*transfer.File, budgets []int) ([]Row, error) {
	var nvidia []transfer.Source
	for _, f := range files {
		if f.GPU.Vendor == "NVIDIA" {
			nvidia = append(nvidia, transfer.Source{GPU: f.GPU, Rows: f.Rows})
		}
	}
	var rows []Row
	for _, f := range files {
		if f.GPU.Vendor != "AMD" {
			continue
		}
		for _, k := range budgets {
			r, err := score(nvidia, f.GPU, f.Rows, k)
			if err != nil {
				return nil, fmt.Errorf("%s on %s from NVIDIA, k=%d: %w", kernel, f.GPU.Name, k, err)
			}
			r.Case, r.Target, r.Vendor, r.K, r.Kernels = kernel+" from NVIDIA", f.GPU.Name, f.GPU.Vendor, k, 1
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// openKT opens the caches of one kernel's folder, one per GPU, in the order of their names.
func openKT(dir string, cat *catalog.Catalog) ([]*transfer.File, error) {
	paths, err := ktdata.Caches(dir)
	if err != nil {
		return nil, err
	}
	var out []*transfer.File
	for _, path := range paths {
		f, err := transfer.Open(path, "", cat)
		if errors.Is(err, dataset.ErrNoDevice) {
			// benchmark_hub's MI250X caches name no device: their file does
			f, err = transfer.Open(path, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json"), cat)
		}
		if err != nil {
			return nil, err
		}
		if f.GPU.Name == "" {
			fmt.Fprintf(os.Stderr, "fewshot: %s: the catalogue lacks %q; left out\n", path, f.Device)
			continue
		}
		out = append(out, f)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%s: %d caches of catalogued GPUs; a GPU left out needs another to be predicted from", dir, len(out))
	}
	return out, nil
}

// score predicts the target with k shots chosen and then read from its own rows.
func score(srcs []transfer.Source, tgt smart.GPU, measured []smart.Measurement, k int) (Row, error) {
	return scoreWith(srcs, tgt, measured, k, transfer.Settings{})
}

func scoreWith(srcs []transfer.Source, tgt smart.GPU, measured []smart.Measurement, k int, set transfer.Settings) (Row, error) {
	shots, err := transfer.ChooseShots(srcs, transfer.Target{GPU: tgt}, k, set)
	if err != nil {
		return Row{}, err
	}
	target := transfer.Target{GPU: tgt, Shots: lookup(measured, shots)}
	start := time.Now()
	p, err := transfer.Predict(srcs, target, set)
	if err != nil {
		return Row{}, err
	}
	sec := time.Since(start).Seconds()
	var used []transfer.Source
	for _, src := range srcs {
		if slices.Contains(p.Sources, src.GPU.Name) {
			used = append(used, src)
		}
	}
	r := Row{Share: p.Share, Correction: p.Correction, Score: transfer.Compare(p, measured), Seconds: sec,
		Baseline: baseline(used, tgt, measured, k)}
	if k == 0 {
		f := floors(p, measured)
		r.Floors = &f
	}
	if iv := p.Interval; iv != nil {
		w, l := math.Exp(iv.LogHi-iv.LogLo), iv.Level
		r.Width, r.Level = &w, &l
	}
	return r, nil
}

// baseline is the MAPE of one constant ratio from a source's times to the target's, averaged
// over the sources: with k = 0 the ratio of the two GPUs' bandwidths, else the median ratio of
// k settings drawn at random (a fixed seed) from those both ran.
func baseline(srcs []transfer.Source, tgt smart.GPU, measured []smart.Measurement, k int) float64 {
	truth := map[string]float64{}
	for _, m := range measured {
		if m.Status == smart.StatusOK && m.TimeMs > 0 {
			truth[transfer.Key(m)] = m.TimeMs
		}
	}
	sum := 0.0
	for _, src := range srcs {
		var both []string
		have := map[string]float64{}
		for _, m := range src.Rows {
			if _, ok := truth[transfer.Key(m)]; ok && m.Status == smart.StatusOK && m.TimeMs > 0 {
				both = append(both, transfer.Key(m))
				have[transfer.Key(m)] = m.TimeMs
			}
		}
		slices.Sort(both)
		both = slices.Compact(both)
		ratio := src.GPU.Device().BandwidthGBs / tgt.Device().BandwidthGBs // a kernel runs on one die of the MI250X
		drawn := map[string]bool{}
		if k > 0 {
			rng := rand.New(rand.NewPCG(1, uint64(k)))
			var logs []float64
			for _, i := range rng.Perm(len(both))[:min(k, len(both))] {
				drawn[both[i]] = true
				logs = append(logs, math.Log(truth[both[i]]/have[both[i]]))
			}
			slices.Sort(logs)
			ratio = math.Exp(logs[len(logs)/2])
			if len(logs)%2 == 0 {
				ratio = math.Exp((logs[len(logs)/2-1] + logs[len(logs)/2]) / 2)
			}
		}
		e, n := 0.0, 0
		for _, kk := range both {
			if !drawn[kk] {
				e += math.Abs(have[kk]*ratio-truth[kk]) / truth[kk]
				n++
			}
		}
		sum += 100 * e / float64(n)
	}
	return sum / float64(len(srcs))
}

// lookup is the target's rows of the chosen settings: what measuring them would give.
func lookup(rows []smart.Measurement, want []transfer.Variant) []smart.Measurement {
	idx := map[string]smart.Measurement{}
	for _, m := range rows {
		idx[transfer.Key(m)] = m
	}
	var out []smart.Measurement
	for _, v := range want {
		if m, ok := idx[v.Key()]; ok {
			out = append(out, m)
		}
	}
	return out
}

// stencils scores H100 -> H200 on each stencil both measured, averaging the stencils' scores,
// and on all of them predicted together.
func stencils(from, to string, cat *catalog.Catalog, budgets []int) ([]Row, error) {
	a, err := readGlobs(from)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	b, err := readGlobs(to)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	h100, err := cat.Lookup(a[0].GPU)
	if err != nil {
		return nil, err
	}
	h200, err := cat.Lookup(b[0].GPU)
	if err != nil {
		return nil, err
	}
	byA, byB := split(a), split(b)
	var rows []Row
	for _, k := range budgets {
		sum := Row{Case: "stencils", Target: h200.Name, Vendor: h200.Vendor, K: k}
		var scores []transfer.Score
		var widths, levels []float64
		baselineSum := 0.0
		for _, id := range paired(byA, byB) {
			r, err := score([]transfer.Source{{GPU: h100, Rows: byA[id]}}, h200, byB[id], k)
			if err != nil {
				return nil, fmt.Errorf("stencil %s, k=%d: %w", id, k, err)
			}
			scores = append(scores, r.Score)
			widths, levels = appendWidth(widths, r.Width), appendWidth(levels, r.Level)
			baselineSum += r.Baseline
			sum.Share, sum.Correction, sum.Seconds = r.Share, r.Correction, max(sum.Seconds, r.Seconds)
			sum.Floors = addFloors(sum.Floors, r.Floors)
		}
		sum.Kernels = len(scores)
		sum.Floors = meanFloors(sum.Floors, len(scores))
		sum.Baseline = baselineSum / float64(len(scores))
		sum.Score = meanScore(scores)
		sum.Width, sum.Level = medianWidth(widths), mean(levels)
		rows = append(rows, sum)
	}
	// Pooled: one prediction of every stencil, k shots in all, which share the H200's level.
	var src, truth []smart.Measurement
	n := 0
	for _, id := range paired(byA, byB) {
		src, truth = append(src, byA[id]...), append(truth, byB[id]...)
		n++
	}
	for _, k := range budgets {
		r, err := score([]transfer.Source{{GPU: h100, Rows: src}}, h200, truth, k)
		if err != nil {
			return nil, fmt.Errorf("stencils pooled, k=%d: %w", k, err)
		}
		r.Case, r.Target, r.Vendor, r.K, r.Kernels = "stencils pooled", h200.Name, h200.Vendor, k, n
		rows = append(rows, r)
	}
	an, err := analytic(from, byA, byB, h100, h200, budgets)
	if err != nil {
		return nil, err
	}
	return append(rows, an...), nil
}

// analytic scores H100 -> H200 with each setting scaled by the calibrated analytic model's
// ratio of its time on the two GPUs (transfer.Settings.Ratio), stencil by stencil.
func analytic(from string, byA, byB map[string][]smart.Measurement, h100, h200 smart.GPU, budgets []int) ([]Row, error) {
	cal, err := calibrate.Default()
	if err != nil {
		return nil, err
	}
	dirs, err := dataset.Glob(strings.Split(from, ","))
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, k := range budgets {
		sum := Row{Case: "stencils analytic", Target: h200.Name, Vendor: h200.Vendor, K: k}
		var scores []transfer.Score
		var widths, levels []float64
		for _, id := range paired(byA, byB) {
			st := stencilIn(dirs, id)
			if st == nil {
				continue
			}
			ratio := transfer.AnalyticRatio(map[string]*smart.Stencil{id: st}, &cal.Calibration)
			r, err := scoreWith([]transfer.Source{{GPU: h100, Rows: byA[id]}}, h200, byB[id], k, transfer.Settings{Ratio: ratio})
			if err != nil {
				return nil, fmt.Errorf("stencil %s, k=%d: %w", id, k, err)
			}
			scores = append(scores, r.Score)
			widths, levels = appendWidth(widths, r.Width), appendWidth(levels, r.Level)
			sum.Baseline += r.Baseline
			sum.Correction, sum.Seconds = r.Correction, max(sum.Seconds, r.Seconds)
			sum.Floors = addFloors(sum.Floors, r.Floors)
		}
		sum.Kernels = len(scores)
		sum.Floors = meanFloors(sum.Floors, len(scores))
		sum.Baseline /= float64(len(scores))
		sum.Score = meanScore(scores)
		sum.Width, sum.Level = medianWidth(widths), mean(levels)
		rows = append(rows, sum)
	}
	return rows, nil
}

// minPaired is the fewest rows a stencil needs on the target to be scored: a campaign's stencil
// begun but not finished there leaves too few beside the shots (up to 32) for a rank correlation.
const minPaired = 40

// paired is the stencils, in order, that both GPUs measured, the target at least minPaired rows.
func paired(byA, byB map[string][]smart.Measurement) []string {
	var ids []string
	for _, id := range slices.Sorted(maps.Keys(byB)) {
		if len(byA[id]) > 0 && len(byB[id]) >= minPaired {
			ids = append(ids, id)
		}
	}
	return ids
}

// stencilIn is stencil id as the first of dirs that holds it says it, nil where none does.
func stencilIn(dirs []string, id string) *smart.Stencil {
	for _, d := range dirs {
		if st, err := dataset.ReadStencil(d, id); err == nil {
			return st
		}
	}
	return nil
}

func meanScore(s []transfer.Score) transfer.Score {
	var m transfer.Score
	n := float64(len(s))
	cov, withCov := 0.0, 0
	for _, x := range s {
		m.N += x.N
		m.MAPE += x.MAPE / n
		m.Spearman += x.Spearman / n
		m.Top1 += x.Top1 / n
		m.Top5 += x.Top5 / n
		if x.Coverage != nil {
			cov += *x.Coverage
			withCov++
		}
	}
	if withCov > 0 {
		cov /= float64(withCov)
		m.Coverage = &cov
	}
	return m
}

// appendWidth appends *w to ws where there is an interval (w not nil).
func appendWidth(ws []float64, w *float64) []float64 {
	if w == nil {
		return ws
	}
	return append(ws, *w)
}

// mean is the mean of xs, nil where there are none.
func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := 0.0
	for _, x := range xs {
		m += x / float64(len(xs))
	}
	return &m
}

// medianWidth is the median of ws, nil where there are none.
func medianWidth(ws []float64) *float64 {
	if len(ws) == 0 {
		return nil
	}
	slices.Sort(ws)
	m := ws[len(ws)/2]
	if len(ws)%2 == 0 {
		m = (ws[len(ws)/2-1] + m) / 2
	}
	return &m
}

func split(rows []smart.Measurement) map[string][]smart.Measurement {
	out := map[string][]smart.Measurement{}
	for _, m := range rows {
		if m.Source == smart.Measured {
			out[m.StencilID] = append(out[m.StencilID], m)
		}
	}
	return out
}

func readGlobs(s string) ([]smart.Measurement, error) {
	dirs, err := dataset.Glob(strings.Split(s, ","))
	if err != nil {
		return nil, err
	}
	var all []smart.Measurement
	for _, d := range dirs {
		_, rows, err := dataset.ReadAll(d)
		if err != nil {
			return nil, err
		}
		all = append(all, rows...)
	}
	return all, nil
}

func print(rows []Row) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\ttarget\tk\tshare\tcorrection\tMAPE %\tbaseline %\tSpearman\ttop1\ttop5\tcoverage\tn\tfloor: level %\tparameters %\tpairs %\ttop5: parameters\tpairs\twidth\t")
	for _, r := range rows {
		cov, level, params, pairs, top5params, top5pairs, width := "-", "", "", "", "", "", "-"
		if r.Width != nil {
			width = fmt.Sprintf("x%.2f", *r.Width)
		}
		if r.Coverage != nil {
			cov = fmt.Sprintf("%.2f", *r.Coverage)
		}
		if f := r.Floors; f != nil {
			level, params, pairs = fmt.Sprintf("%.1f", f.Level), fmt.Sprintf("%.1f", f.Params), fmt.Sprintf("%.1f", f.Pairs)
			top5params, top5pairs = fmt.Sprintf("%.3f", f.Top5Params), fmt.Sprintf("%.3f", f.Top5Pairs)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%.2f\t%s\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Case, r.Target, r.K, r.Share,
			r.Correction, r.MAPE, r.Baseline, r.Spearman, r.Top1, r.Top5, cov, r.N, level, params, pairs, top5params, top5pairs, width)
	}
	w.Flush()
}
