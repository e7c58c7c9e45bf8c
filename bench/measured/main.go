// Command measured compares a data set measured on a GPU (smart bench --backend cuda) with what
// smart would have said without the GPU: for every stencil, the best measured kernel's memory
// bandwidth against the device's copy bandwidth; for every OC, the analytic model's estimate
// against the measured times (mean absolute percentage error and Spearman's rank correlation
// over the OC's settings); and the embedded default runtime model (trained on simulated data
// and the measured stencils) scored the same way, with the share of the best measured time
// reached by the variant each model ranks fastest; and the embedded OC classifier's first two
// OCs (those `smart tune --method pipeline --classifier embedded` searches) ranked by their best
// measured setting. It also
// reports the spread of the repeated timings.
//
// Usage:
//
//	go run ./bench/measured [-data GLOB,...] [-models DIR] [-copy-gbs GB/s] [-json]
//
// -models uses the models of DIR (*.smartmodel or .gz, as bench/defaults writes them) in place of
// the embedded defaults of their task and dimensions. With several data sets, a summary of the
// classifier's first OC and the default runtime model's pick follows their reports.
//
// The copy bandwidth (bytes read plus written) is the best of those `smart bench` recorded in the
// data set's copy_bandwidth.csv, unless -copy-gbs gives one.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/rankcorr"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/predict"
	"smart/tuner"
)

// Report is everything the command prints.
type Report struct {
	Data     string        `json:"data"`
	Device   string        `json:"device"`
	CopyGBs  float64       `json:"copy_gbs"`
	Rows     int           `json:"rows"`
	OK       int           `json:"ok"`
	Spread   Spread        `json:"timing_spread"`
	Stencils []StencilRow  `json:"stencils"`
	Analytic []AccuracyRow `json:"analytic_per_oc"`
	Models   []AccuracyRow `json:"default_model_per_stencil"`
	Ranking  []AccuracyRow `json:"analytic_per_stencil"`
	Picks    []PickRow     `json:"classifier_per_stencil"`
	Outside  Outside       `json:"outside_space"`
}

// Outside describes the measured kernels the search space now rejects (drawn from it before its
// constraints changed: the spill bound on retiming's fused partial sums), each by its time over
// its stencil's fastest measured kernel.
type Outside struct {
	N           int     `json:"n"`
	MinRatio    float64 `json:"min_over_best"`
	MedianRatio float64 `json:"median_over_best"`
}

// PickRow scores the embedded OC classifier on one stencil against the measured OCs, each OC
// by its fastest measured setting (of the few drawn: a lower bound on what the OC can do).
type PickRow struct {
	Name   string   `json:"name"`
	BestOC string   `json:"best_oc"` // fastest measured OC
	OCs    int      `json:"ocs"`     // OCs with an ok row
	Picks  []string `json:"picks"`   // the classifier's first two
	// Ranks are the picks' places among the measured OCs (1: the fastest; 0: not measured).
	Ranks []int `json:"ranks"`
	// Share is the best measured time over the best time of the picks (1: a pick is the best);
	// First that of the first pick alone (0: not measured).
	Share float64 `json:"share"`
	First float64 `json:"first_share"`
	// Unranked is the same share for the first two OCs in catalogue order (BASE and ST), which
	// the pipeline searches without a classifier.
	Unranked float64 `json:"unranked_share"`
}

// Spread summarises the repeated timings of the ok rows.
type Spread struct {
	MedianCV    float64 `json:"median_cv"`     // standard deviation over median
	MedianRange float64 `json:"median_range"`  // (max - min) over median
	P95Range    float64 `json:"p95_range"`     // 95th percentile of the same
	RowsOver5   float64 `json:"share_range_5"` // share of rows whose range is over 5% of the median
}

// StencilRow is one stencil's best measured kernel and its bandwidth.
type StencilRow struct {
	Name       string  `json:"name"`
	ID         string  `json:"id"`
	Variants   int     `json:"ok_variants"`
	BestOC     string  `json:"best_oc"`
	BestMs     float64 `json:"best_ms_per_step"`
	Setting    string  `json:"best_setting"`
	GBs        float64 `json:"gbs"`             // bytes read plus written once per step, over the time
	OfCopy     float64 `json:"share_of_copy"`   // GBs over the copy bandwidth
	WorstOverB float64 `json:"worst_over_best"` // slowest ok variant over the fastest
}

// AccuracyRow scores estimates against measurements over a group of variants.
type AccuracyRow struct {
	Group    string  `json:"group"`
	N        int     `json:"n"`
	MAPE     float64 `json:"mape_percent"`
	Spearman float64 `json:"spearman"`
	// PickShare is the best measured time over the measured time of the variant the estimate
	// ranks fastest (1: it found the best).
	PickShare float64 `json:"pick_share"`
	// MedianRatio is the median of estimate over measurement (under 1: the estimate is faster).
	MedianRatio float64 `json:"median_ratio"`
}

type variant struct {
	st        *smart.Stencil
	m         smart.Measurement
	estimate  float64 // analytic
	predicted float64 // default model
}

func main() {
	data := flag.String("data", "data/measured/h100-sxm/classic", "data sets measured on a GPU (globs, comma-separated)")
	modelDir := flag.String("models", "", "directory of models to use in place of the embedded defaults")
	copyGBs := flag.Float64("copy-gbs", 0, "the device's copy bandwidth, GB/s read plus written (default: the best the data set recorded)")
	asJSON := flag.Bool("json", false, "print the reports as JSON, one per line")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "measured:", err)
		os.Exit(1)
	}
	defaults, err := loadModels(*modelDir)
	if err != nil {
		fail(err)
	}
	dirs, err := dataset.Glob(strings.Split(*data, ","))
	if err != nil {
		fail(fmt.Errorf("-data: %w", err))
	}
	var reps []*Report
	for _, dir := range dirs {
		rep, err := run(context.Background(), dir, *copyGBs, defaults)
		if err != nil {
			fail(err)
		}
		reps = append(reps, rep)
		if *asJSON {
			if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
				fail(err)
			}
			continue
		}
		printReport(rep)
	}
	if !*asJSON && (len(reps) > 1 || len(reps[0].Picks) > 1) { // a campaign's data set holds hundreds
		printSummary(reps)
	}
}

// loadModels returns the embedded defaults with the models of dir ("": none) in their place.
func loadModels(dir string) (*predict.Models, error) {
	ms, err := predict.Defaults()
	if err != nil || dir == "" {
		return ms, err
	}
	return ms, ms.UseDir(dir, kinds.All())
}

// printSummary sets the classifier's first OC and the default runtime model's pick of every
// stencil side by side.
func printSummary(reps []*Report) {
	fmt.Printf("\nSummary over %d data sets: the classifier's first OC and the default runtime model's pick, each as the best measured time over theirs\n", len(reps))
	width := 24 // the campaign's names run longer
	for _, r := range reps {
		for _, p := range r.Picks {
			width = max(width, len(p.Name))
		}
	}
	fmt.Printf("%-*s %-16s %-16s %12s %12s\n", width, "stencil", "best OC", "first OC", "first share", "model pick")
	within, n := 0, 0
	logFirst, logPick := 0.0, 0.0
	for _, r := range reps {
		for i, p := range r.Picks {
			pick := r.Models[i].PickShare
			first := "-"
			if len(p.Picks) > 0 {
				first = p.Picks[0]
			}
			fmt.Printf("%-*s %-16s %-16s %12.2f %12.2f\n", width, p.Name, p.BestOC, first, p.First, pick)
			n++
			if p.First > 0 && 1/p.First <= 1.10 {
				within++
			}
			logFirst += math.Log(max(p.First, 1e-9))
			logPick += math.Log(pick)
		}
	}
	fmt.Printf("first OC within 1.10x of the best measured OC: %d of %d; geometric mean share: first OC %.2f, model pick %.2f\n",
		within, n, math.Exp(logFirst/float64(n)), math.Exp(logPick/float64(n)))
}

func run(ctx context.Context, dir string, copyGBs float64, defaults *predict.Models) (*Report, error) {
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return nil, err
	}
	if copyGBs == 0 {
		recorded, err := dataset.CopyBandwidths(dir)
		if err != nil {
			return nil, err
		}
		for _, c := range recorded {
			copyGBs = max(copyGBs, c.GBs)
		}
	}
	if !(copyGBs > 0) {
		return nil, fmt.Errorf("data set %s records no copy bandwidth (%s); give the device's with -copy-gbs", dir, dataset.CopyFile)
	}
	if !slices.Contains(meta.Sources, smart.Measured) || len(meta.Devices) != 1 {
		return nil, fmt.Errorf("data set %s is not measured on one GPU (sources %v, %d devices)", dir, meta.Sources, len(meta.Devices))
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpu, err := cat.Lookup(meta.Devices[0].GPU)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dir, err)
	}
	rep := &Report{Data: dir, Device: meta.Devices[0].Name, CopyGBs: copyGBs, Rows: len(rows)}
	stencils := map[string]*smart.Stencil{}
	byStencil := map[string][]*variant{}
	var order []string
	for _, m := range rows {
		if !m.OK() {
			continue
		}
		st := stencils[m.StencilID]
		if st == nil {
			var err error
			if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
				return nil, err
			}
			st.Steps = 8 // as the GPU runner measured it
			stencils[m.StencilID] = st
			order = append(order, m.StencilID)
		}
		est, err := roofline.Evaluator{Catalog: cat}.Evaluate(ctx, smart.Query{Stencil: st, OC: m.OC, Setting: m.Setting, GPU: gpu.Name})
		if err != nil {
			return nil, err
		}
		v := &variant{st: st, m: m, estimate: math.NaN(), predicted: math.NaN()}
		if est.OK() {
			v.estimate = est.TimeMs
		}
		byStencil[m.StencilID] = append(byStencil[m.StencilID], v)
		rep.OK++
	}
	var all []*variant
	for _, id := range order {
		vs := byStencil[id]
		st := stencils[id]
		sel, rt, err := defaults.For(st)
		if err != nil {
			return nil, err
		}
		if err := predictDefault(rt, st, gpu, vs); err != nil {
			return nil, err
		}
		all = append(all, vs...)
		rep.Stencils = append(rep.Stencils, bandwidth(st, vs, copyGBs))
		name := cmp.Or(st.Name, id)
		rep.Ranking = append(rep.Ranking, accuracy(name, vs, func(v *variant) float64 { return v.estimate }))
		rep.Models = append(rep.Models, accuracy(name, vs, func(v *variant) float64 { return v.predicted }))
		pick, err := classifierPicks(sel, st, gpu, vs)
		if err != nil {
			return nil, err
		}
		rep.Picks = append(rep.Picks, pick)
	}
	// Per OC, scored within each stencil (times of different stencils do not compare) and
	// averaged over the stencils.
	byOC := map[smart.Combination][][]*variant{}
	for _, id := range order {
		in := map[smart.Combination][]*variant{}
		for _, v := range byStencil[id] {
			in[v.m.OC] = append(in[v.m.OC], v)
		}
		for oc, vs := range in {
			byOC[oc] = append(byOC[oc], vs)
		}
	}
	ocs := make([]smart.Combination, 0, len(byOC))
	for oc := range byOC {
		ocs = append(ocs, oc)
	}
	slices.Sort(ocs)
	for _, oc := range ocs {
		var parts []AccuracyRow
		for _, vs := range byOC[oc] {
			parts = append(parts, accuracy(oc.String(), vs, func(v *variant) float64 { return v.estimate }))
		}
		rep.Analytic = append(rep.Analytic, average(oc.String(), parts))
	}
	rep.Spread = spread(all)
	rep.Outside = outside(all, gpu)
	return rep, nil
}

// outside scores the variants whose settings the search space rejects on gpu.
func outside(vs []*variant, gpu smart.GPU) Outside {
	best := map[string]float64{}
	for _, v := range vs {
		if b, ok := best[v.m.StencilID]; !ok || v.m.TimeMs < b {
			best[v.m.StencilID] = v.m.TimeMs
		}
	}
	var ratios []float64
	for _, v := range vs {
		t, err := smart.DecodeTuning(v.st.Dims, v.m.OC, v.m.Setting)
		if err != nil || t.Usage(v.st).Fits(gpu) != nil {
			ratios = append(ratios, v.m.TimeMs/best[v.m.StencilID])
		}
	}
	if len(ratios) == 0 {
		return Outside{}
	}
	slices.Sort(ratios)
	return Outside{N: len(ratios), MinRatio: ratios[0], MedianRatio: stat.Quantile(0.5, stat.Empirical, ratios, nil)}
}

// average combines rows of disjoint groups: MAPE weighted by their sizes, the rest their mean.
func average(group string, rows []AccuracyRow) AccuracyRow {
	out := AccuracyRow{Group: group}
	var ape, rho, pick, ratio float64
	var nRho int
	for _, r := range rows {
		out.N += r.N
		ape += r.MAPE * float64(r.N)
		pick += r.PickShare
		ratio += math.Log(r.MedianRatio)
		if !math.IsNaN(r.Spearman) {
			rho += r.Spearman
			nRho++
		}
	}
	out.MAPE, out.PickShare = ape/float64(out.N), pick/float64(len(rows))
	out.MedianRatio = math.Exp(ratio / float64(len(rows)))
	out.Spearman = math.NaN()
	if nRho > 0 {
		out.Spearman = rho / float64(nRho)
	}
	return out
}

// predictDefault fills in the runtime model rt's time for each variant.
func predictDefault(rt *predict.Model, st *smart.Stencil, gpu smart.GPU, vs []*variant) error {
	score, err := predict.ModelScorer(rt, st, gpu)
	if err != nil {
		return err
	}
	byOC := map[smart.Combination][]*variant{}
	for _, v := range vs {
		byOC[v.m.OC] = append(byOC[v.m.OC], v)
	}
	for oc, group := range byOC {
		settings := make([]smart.Setting, len(group))
		for i, v := range group {
			settings[i] = v.m.Setting
		}
		times, err := score(oc, settings)
		if err != nil {
			return fmt.Errorf("default model on %s %s: %w", st.Name, oc, err)
		}
		for i, v := range group {
			v.predicted = times[i]
		}
	}
	return nil
}

// classifierPicks ranks the measured OCs of st by their fastest variant and places the first two
// OCs of the classifier sel among them.
func classifierPicks(sel *predict.Model, st *smart.Stencil, gpu smart.GPU, vs []*variant) (PickRow, error) {
	ranked, err := tuner.RankOCs(sel.Model, st, gpu, smart.Combinations())
	if err != nil {
		return PickRow{}, fmt.Errorf("embedded classifier on %s: %w", st.Name, err)
	}
	best := map[smart.Combination]float64{}
	for _, v := range vs {
		if t, ok := best[v.m.OC]; !ok || v.m.TimeMs < t {
			best[v.m.OC] = v.m.TimeMs
		}
	}
	order := slices.Collect(maps.Keys(best))
	slices.SortFunc(order, func(a, b smart.Combination) int { return cmp.Compare(best[a], best[b]) })
	row := PickRow{Name: cmp.Or(st.Name, st.ID()), BestOC: order[0].String(), OCs: len(order)}
	share := func(ocs []smart.Combination) float64 {
		picked := math.Inf(1)
		for _, oc := range ocs {
			if t, ok := best[oc]; ok {
				picked = min(picked, t)
			}
		}
		return best[order[0]] / picked
	}
	ranked = ranked[:min(2, len(ranked))]
	for _, oc := range ranked {
		row.Picks = append(row.Picks, oc.String())
		row.Ranks = append(row.Ranks, slices.Index(order, oc)+1)
	}
	row.Share, row.Unranked = share(ranked), share(smart.Combinations()[:2])
	if len(ranked) > 0 {
		if _, ok := best[ranked[0]]; ok {
			row.First = share(ranked[:1])
		}
	}
	return row, nil
}

func bandwidth(st *smart.Stencil, vs []*variant, copyGBs float64) StencilRow {
	best, worst := vs[0], vs[0]
	for _, v := range vs {
		if v.m.TimeMs < best.m.TimeMs {
			best = v
		}
		if v.m.TimeMs > worst.m.TimeMs {
			worst = v
		}
	}
	points := float64(st.Grid[0]) * float64(st.Grid[1]) * float64(st.Grid[2])
	bytes := 2 * points * float64(st.Dtype.Size())
	gbs := bytes / (best.m.TimeMs * 1e-3) / 1e9
	return StencilRow{Name: st.Name, ID: st.ID(), Variants: len(vs), BestOC: best.m.OC.String(), BestMs: best.m.TimeMs,
		Setting: best.m.Setting.String(), GBs: gbs, OfCopy: gbs / copyGBs, WorstOverB: worst.m.TimeMs / best.m.TimeMs}
}

// accuracy scores est against the measured times of vs; variants without an estimate are left out.
func accuracy(group string, vs []*variant, est func(*variant) float64) AccuracyRow {
	var meas, pred, ratio []float64
	var ape float64
	bestMeas, pickMeas, pickEst := math.Inf(1), math.NaN(), math.Inf(1)
	for _, v := range vs {
		bestMeas = min(bestMeas, v.m.TimeMs)
		e := est(v)
		if math.IsNaN(e) {
			continue
		}
		meas = append(meas, v.m.TimeMs)
		pred = append(pred, e)
		ape += math.Abs(e-v.m.TimeMs) / v.m.TimeMs
		ratio = append(ratio, e/v.m.TimeMs)
		if e < pickEst {
			pickEst, pickMeas = e, v.m.TimeMs
		}
	}
	r := AccuracyRow{Group: group, N: len(meas), MAPE: math.NaN(), Spearman: math.NaN(), PickShare: bestMeas / pickMeas, MedianRatio: math.NaN()}
	if len(meas) > 0 {
		r.MAPE = 100 * ape / float64(len(meas))
		slices.Sort(ratio)
		r.MedianRatio = stat.Quantile(0.5, stat.Empirical, ratio, nil)
	}
	if len(meas) > 2 {
		r.Spearman = rankcorr.Spearman(meas, pred)
	}
	return r
}

func spread(vs []*variant) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	var cv, rng []float64
	over := 0
	for _, v := range vs {
		cv = append(cv, v.m.StdMs/v.m.TimeMs)
		r := (v.m.MaxMs - v.m.MinMs) / v.m.TimeMs
		rng = append(rng, r)
		if r > 0.05 {
			over++
		}
	}
	slices.Sort(cv)
	slices.Sort(rng)
	return Spread{MedianCV: stat.Quantile(0.5, stat.Empirical, cv, nil), MedianRange: stat.Quantile(0.5, stat.Empirical, rng, nil),
		P95Range: stat.Quantile(0.95, stat.Empirical, rng, nil), RowsOver5: float64(over) / float64(len(vs))}
}

func printReport(r *Report) {
	w := 10 // the stencil column: wider for the campaign's names
	for _, s := range r.Stencils {
		w = max(w, len(s.Name))
	}
	fmt.Printf("%s: %d rows, %d ok, measured on %s; copy bandwidth %.0f GB/s\n\n", r.Data, r.Rows, r.OK, r.Device, r.CopyGBs)
	fmt.Printf("Best measured kernel per stencil (bytes read plus written once per step over the time)\n")
	fmt.Printf("%-*s %5s %-14s %10s %8s %8s %12s  %s\n", w, "stencil", "ok", "best OC", "ms/step", "GB/s", "of copy", "worst/best", "setting")
	for _, s := range r.Stencils {
		fmt.Printf("%-*s %5d %-14s %10.4f %8.0f %8.2f %11.1fx  %s\n", w, s.Name, s.Variants, s.BestOC, s.BestMs, s.GBs, s.OfCopy, s.WorstOverB, s.Setting)
	}
	table := func(title string, rows []AccuracyRow) {
		fmt.Printf("\n%s\n%-*s %5s %9s %13s %9s %10s\n", title, max(w, 16), "group", "n", "MAPE %", "est/measured", "Spearman", "pick share")
		for _, a := range rows {
			fmt.Printf("%-*s %5d %9.1f %13.2f %9.2f %10.2f\n", max(w, 16), a.Group, a.N, a.MAPE, a.MedianRatio, a.Spearman, a.PickShare)
		}
	}
	table("Analytic model (models/roofline) against the measurements, per stencil", r.Ranking)
	table("Embedded default runtime model (trained on simulated data and the measured stencils: in-sample on those) against the measurements", r.Models)
	table("Analytic model against the measurements, per OC (within each stencil, averaged over the stencils)", r.Analytic)
	fmt.Printf("\nEmbedded OC classifier (trained on simulated data and the measured stencils: in-sample on those): its first two OCs, placed among the measured OCs by their fastest setting\n")
	fmt.Printf("%-*s %-14s %5s  %-32s %9s %8s %14s\n", w, "stencil", "best OC", "OCs", "classifier's first two", "places", "share", "BASE,ST share")
	for _, p := range r.Picks {
		places := make([]string, len(p.Ranks))
		for i, k := range p.Ranks {
			places[i] = "-" // not measured
			if k > 0 {
				places[i] = strconv.Itoa(k)
			}
		}
		fmt.Printf("%-*s %-14s %5d  %-32s %9s %8.2f %14.2f\n", w, p.Name, p.BestOC, p.OCs, strings.Join(p.Picks, ", "), strings.Join(places, ", "), p.Share, p.Unranked)
	}
	if o := r.Outside; o.N > 0 {
		fmt.Printf("\nKernels the search space now rejects (retiming's fused partial sums would spill): %d, at %.2fx to (median) %.1fx their stencil's fastest\n", o.N, o.MinRatio, o.MedianRatio)
	}
	fmt.Printf("\nTiming spread over the timed runs of each ok variant: median CV %.2f%%, median (max-min)/median %.2f%%, 95th percentile %.1f%%, %.1f%% of variants over 5%%\n",
		100*r.Spread.MedianCV, 100*r.Spread.MedianRange, 100*r.Spread.P95Range, 100*r.Spread.RowsOver5)
}
