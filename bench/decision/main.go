// Command decision measures how often the GPU smart recommends is really the fastest and really
// the most cost-efficient (StencilMART section V-D reports the same for its stencil instances;
// both sets of figures are in docs/performance.md), on two kinds of data:
//
//   - a held-out simulated data set: random stencils other than those the embedded models were
//     trained on (other seeds, and no offset pattern in common with a training stencil), timed by
//     the analytic model on the 13 catalogued NVIDIA GPUs under every OC at 20 random settings
//     each, as StencilMART measures; a stencil's true time on a GPU is its best row. smart's
//     recommendation is predict.Predictor.Recommend with the embedded models, as smart recommend
//     runs it. It also reports how the setting smart picks on each GPU fares under the analytic
//     model against the best of the random rows.
//   - the six-GPU Kernel Tuner convolution (imported measurements, data/kernel-tuner): for
//     each GPU a gbdt runtime model is trained on the other five GPUs (leave-one-GPU-out, the
//     GPU's catalogue features and the analytic convolution model among its columns), and every
//     configuration valid on all six is an instance: the predicted fastest GPU against the
//     measured one. Only GPUs with a price count for cost.
//
// Usage:
//
//	go run ./bench/decision [-stencils2 N] [-stencils3 N] [-kt DIR] [-work DIR] [-json]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"smart"
	"smart/bench/defaults/simset"
	"smart/bench/internal/jsonout"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/roofline"
	"smart/models/train"
	"smart/predict"
)

// Seeds of the held-out stencils (the training stencils use 21 and 31, see bench/defaults).
const (
	Seed2D = 1021
	Seed3D = 1031
	// Training sets: bench/defaults' seeds and sizes, whose patterns are kept out.
	TrainSeed2D, TrainStencils2D = 21, 240
	TrainSeed3D, TrainStencils3D = 31, 160
)

// DefaultKT is where the Kernel Tuner convolution caches are.
const DefaultKT = "data/kernel-tuner/convolution_milo"

// Accuracy is one line of the result table.
type Accuracy struct {
	Data      string  `json:"data"`
	Instances int     `json:"instances"`
	GPUs      int     `json:"gpus"`
	Priced    int     `json:"priced_gpus"`
	Fastest   float64 `json:"fastest_right"`        // share of instances
	CostEff   float64 `json:"cost_efficient_right"` // share of instances; NaN without 2 priced GPUs
	// Near and NearCost are the shares where the recommended GPU's true time (cost) is within
	// 5% of the best: where the truth itself hardly tells two GPUs apart.
	Near     float64 `json:"fastest_within_5pct"`
	NearCost float64 `json:"cost_within_5pct"`
	// Regret is the mean of the true time of the recommended GPU over the true best time.
	Regret     float64        `json:"time_regret"`
	CostRegret float64        `json:"cost_regret"`
	TrueWins   map[string]int `json:"true_fastest_wins"`
	// HalvesAgree and HalvesAgreeCost (simulated only) are how often the best rows of two
	// halves of the random settings pick the same fastest (most cost-efficient) GPU: how well
	// a perfect predictor of the truth's kind could score.
	HalvesAgree     float64 `json:"halves_agree,omitempty"`
	HalvesAgreeCost float64 `json:"halves_agree_cost,omitempty"`
	// PickShare (simulated only) is the median over stencils and GPUs of the best random row's
	// time over the analytic time of the setting smart picks (above 1: smart's pick is faster).
	PickShare float64 `json:"pick_share,omitempty"`
	// Optimism (simulated only) is the median of the predicted time of the setting smart picks
	// over its analytic time: the minimum of many noisy predictions is biased low.
	Optimism    float64 `json:"optimism,omitempty"`
	PickBetter  float64 `json:"pick_at_least_as_fast,omitempty"`
	SecondsEach float64 `json:"seconds_per_instance"`
}

func main() {
	s2 := flag.Int("stencils2", 60, "held-out random 2-D stencils")
	s3 := flag.Int("stencils3", 40, "held-out random 3-D stencils")
	samples := flag.Int("samples", 20, "settings per stencil, OC and GPU in the held-out set")
	kt := flag.String("kt", DefaultKT, "folder of the Kernel Tuner convolution caches (GPU.json.gz)")
	work := flag.String("work", filepath.Join(os.TempDir(), "smart-decision"), "directory for the data sets (kept between runs)")
	var b budgetFlags
	flag.IntVar(&b.classes, "classes", 0, "OC classes whose OCs are searched per GPU (0: the predictor's default)")
	flag.IntVar(&b.screen, "screen", 0, "settings drawn per OC when screening (0: default)")
	flag.IntVar(&b.refine, "refine", 0, "OCs searched in depth per GPU (0: default)")
	flag.IntVar(&b.deep, "deep", 0, "settings drawn per OC searched in depth (0: default)")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var out []Accuracy
	for _, c := range []struct{ dims, n, seed, trainSeed, trainN int }{{2, *s2, Seed2D, TrainSeed2D, TrainStencils2D}, {3, *s3, Seed3D, TrainSeed3D, TrainStencils3D}} {
		if c.n == 0 {
			continue
		}
		a, err := simulated(ctx, *work, c.dims, c.n, *samples, uint64(c.seed), uint64(c.trainSeed), c.trainN, b)
		if err != nil {
			fail(err)
		}
		out = append(out, a...)
	}
	if *kt != "" {
		a, err := kernelTuner(ctx, *work, *kt)
		if err != nil {
			fail(err)
		}
		out = append(out, a...)
	}
	if *asJSON {
		jsonout.Print("decision:", out)
		return
	}
	fmt.Println("| data | instances | GPUs (priced) | recommended GPU really fastest | within 5% of the fastest | time regret | really most cost-efficient | within 5% of the cheapest | cost regret |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, a := range out {
		fmt.Printf("| %s | %d | %d (%d) | %.1f%% | %.1f%% | %.3fx | %s | %s | %s |\n", a.Data, a.Instances, a.GPUs, a.Priced, 100*a.Fastest, 100*a.Near, a.Regret, pct(a.CostEff), pct(a.NearCost), ratio(a.CostRegret))
	}
	fmt.Println()
	for _, a := range out {
		fmt.Printf("%s: truly fastest GPU per instance: %s", a.Data, wins(a.TrueWins))
		if a.HalvesAgree > 0 {
			fmt.Printf("; two halves of the random settings agree on the fastest GPU in %.1f%% and on the most cost-efficient in %.1f%% of instances", 100*a.HalvesAgree, 100*a.HalvesAgreeCost)
		}
		if a.PickShare > 0 {
			fmt.Printf("; the setting smart picks runs (analytic model) at %.3fx the best of the random rows (median), as fast or faster in %.1f%% of cases; its predicted time is %.3fx its analytic time (median)", a.PickShare, 100*a.PickBetter, a.Optimism)
		}
		fmt.Printf("; %.2f s per instance\n", a.SecondsEach)
	}
}

// budgetFlags override the search budget recommendations use.
type budgetFlags struct{ classes, screen, refine, deep int }

func (f budgetFlags) apply(b *predict.Budget) {
	for _, o := range []struct {
		v   int
		dst *int
	}{{f.classes, &b.Classes}, {f.screen, &b.Screen.Samples}, {f.refine, &b.Refine}, {f.deep, &b.Deep.Samples}} {
		if o.v > 0 {
			*o.dst = o.v
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "decision:", err)
	os.Exit(1)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.3fx", v)
}

func wins(m map[string]int) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		return m[names[i]] > m[names[j]] || m[names[i]] == m[names[j]] && names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
	}
	return strings.Join(parts, ", ")
}

// pattern is a stencil's offsets as a key, whatever its grid, type and coefficients.
func pattern(st *smart.Stencil) string {
	return fmt.Sprint(smart.SortedOffsets(st.Offsets()))
}

// simulated builds (or reuses) the held-out data set of dims-D stencils and scores the
// recommendations on it.
func simulated(ctx context.Context, work string, dims, n, samples int, seed, trainSeed uint64, trainN int, b budgetFlags) ([]Accuracy, error) {
	out, err := simulatedOne(ctx, work, dims, n, samples, seed, trainSeed, trainN, b)
	if err != nil {
		return nil, fmt.Errorf("held-out %d-D: %w", dims, err)
	}
	return out, nil
}

func simulatedOne(ctx context.Context, work string, dims, n, samples int, seed, trainSeed uint64, trainN int, b budgetFlags) ([]Accuracy, error) {
	a := Accuracy{Data: fmt.Sprintf("held-out simulated %d-D", dims), TrueWins: map[string]int{}}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpus, err := simset.Trained(cat)
	if err != nil {
		return nil, err
	}
	train, err := simset.Stencils(dims, trainN, 0, trainSeed)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, st := range train {
		seen[pattern(st)] = true
	}
	dir := filepath.Join(work, fmt.Sprintf("heldout-%dd-n%d-s%d-seed%d", dims, n, samples, seed))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		start := time.Now()
		_, err := simset.Build(ctx, dir, simset.Options{Dims: dims, Stencils: n, Samples: samples, Seed: seed, GPUs: gpus,
			Progress: func(d, t int) {
				fmt.Fprintf(os.Stderr, "held-out %d-D: %d/%d stencils simulated (%s)\n", dims, d, t, time.Since(start).Round(time.Second))
			}})
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, err
		}
	}
	sts, err := simset.Stencils(dims, n, 0, seed)
	if err != nil {
		return nil, err
	}
	_, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return nil, err
	}
	// The truth: the best ok time of each stencil on each GPU.
	// The truth: the best ok time of each stencil on each GPU; and the same from each half of
	// the random settings, whose agreement is the ceiling a predictor can reach on this truth.
	truth := map[string]map[string]float64{}
	halves := [2]map[string]map[string]float64{{}, {}}
	keep := func(t map[string]map[string]float64, m smart.Measurement) {
		if t[m.StencilID] == nil {
			t[m.StencilID] = map[string]float64{}
		}
		if v, ok := t[m.StencilID][m.GPU]; !ok || m.TimeMs < v {
			t[m.StencilID][m.GPU] = m.TimeMs
		}
	}
	for _, m := range rows {
		if m.OK() {
			keep(truth, m)
			keep(halves[fnv32(m.Setting.String())%2], m)
		}
	}
	p, err := predict.DefaultPredictor()
	if err != nil {
		return nil, err
	}
	b.apply(&p.Budget)
	names := make([]string, len(gpus))
	price := map[string]float64{}
	for i, g := range gpus {
		names[i] = g.Name
		if g.Price != nil {
			price[g.Name] = g.Price.USDPerHour
		}
	}
	measured, predicted := map[string]map[string]float64{}, map[string]map[string]float64{}
	var shares, optimism []float64
	eval := roofline.Evaluator{Catalog: cat}
	start := time.Now()
	for _, st := range sts {
		if seen[pattern(st)] {
			continue // a pattern the models were trained on
		}
		tr := truth[st.ID()]
		if len(tr) < 2 {
			continue
		}
		r, err := p.Recommend(ctx, predict.Input{Stencil: st}, names, "", predict.Workload{Steps: 1})
		if err != nil {
			return nil, err
		}
		measured[st.ID()], predicted[st.ID()] = tr, map[string]float64{}
		for _, g := range r.GPUs {
			if g.Best == nil {
				continue
			}
			predicted[st.ID()][g.GPU] = g.Best.TimeMs
			if tr[g.GPU] == 0 {
				continue
			}
			m, err := eval.Evaluate(ctx, smart.Query{Stencil: st, OC: g.Best.OC, Setting: g.Best.Setting, GPU: g.GPU})
			if err != nil {
				return nil, err
			}
			if m.OK() {
				shares = append(shares, tr[g.GPU]/m.TimeMs)
				optimism = append(optimism, g.Best.TimeMs/m.TimeMs)
			} else {
				shares = append(shares, 0)
			}
		}
	}
	elapsed := time.Since(start)
	a = score(a.Data, names, measured, predicted, price)
	h0, h1 := map[string]map[string]float64{}, map[string]map[string]float64{}
	for id := range measured {
		h0[id], h1[id] = halves[0][id], halves[1][id]
	}
	ceiling := score("", names, h0, h1, price)
	a.HalvesAgree, a.HalvesAgreeCost = ceiling.Fastest, ceiling.CostEff
	if a.Instances == 0 {
		return nil, fmt.Errorf("no held-out %d-D stencil left after removing the training patterns", dims)
	}
	a.SecondsEach = elapsed.Seconds() / float64(a.Instances)
	sort.Float64s(shares)
	a.PickShare = shares[len(shares)/2]
	better := 0
	for _, s := range shares {
		if s >= 1 {
			better++
		}
	}
	a.PickBetter = float64(better) / float64(len(shares))
	sort.Float64s(optimism)
	a.Optimism = optimism[len(optimism)/2]
	opt, err := optimum(ctx, filepath.Join(dir, "optimum.json"), sts, measured, gpus, rows)
	if err != nil {
		return nil, err
	}
	o := score(a.Data+", truth: searched optimum", names, opt, predicted, price)
	o.SecondsEach = a.SecondsEach
	fmt.Fprintf(os.Stderr, "%s: %d of %d held-out stencils kept (the others share a training pattern)\n", a.Data, a.Instances, len(sts))
	return []Accuracy{a, o}, nil
}

// optimum is a stronger truth than the best random row: for every stencil of ids, GPU and OC
// the analytic model's setting space is searched with the analytic model itself (256 random
// settings and a descent from the 8 best, seeded with the data set's best rows), and the
// stencil's true time on the GPU is the best over the OCs. It is cached in path.
func optimum(ctx context.Context, path string, sts []*smart.Stencil, ids map[string]map[string]float64, gpus []smart.GPU, rows []smart.Measurement) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &out) == nil && len(out) == len(ids) {
		return out, nil
	}
	out = map[string]map[string]float64{}
	type key struct {
		id, gpu string
		oc      smart.Combination
	}
	best := map[key][]smart.Measurement{}
	for _, m := range rows {
		if m.OK() {
			k := key{m.StencilID, m.GPU, m.OC}
			best[k] = append(best[k], m)
		}
	}
	start := time.Now()
	done := 0
	for _, st := range sts {
		if ids[st.ID()] == nil {
			continue
		}
		res := make([]float64, len(gpus))
		errs := make([]error, len(gpus))
		var wg sync.WaitGroup
		for i, g := range gpus {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i], errs[i] = optimumOn(ctx, st, g, func(oc smart.Combination) []smart.Measurement { return best[key{st.ID(), g.Name, oc}] })
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		out[st.ID()] = map[string]float64{}
		for i, g := range gpus {
			if !math.IsInf(res[i], 1) {
				out[st.ID()][g.Name] = res[i]
			}
		}
		done++
		fmt.Fprintf(os.Stderr, "searched optimum: %d/%d stencils (%s)\n", done, len(ids), time.Since(start).Round(time.Second))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return out, atomicfile.Write(path, b)
}

// optimumOn is the best analytic time of st on g over every OC.
func optimumOn(ctx context.Context, st *smart.Stencil, g smart.GPU, rowsOf func(smart.Combination) []smart.Measurement) (float64, error) {
	score := func(oc smart.Combination, sets []smart.Setting) ([]float64, error) {
		out := make([]float64, len(sets))
		for i, s := range sets {
			out[i] = math.Inf(1)
			if t, err := smart.DecodeTuning(st.Dims, oc, s); err == nil {
				if e, err := roofline.Model(st, t, g); err == nil {
					out[i] = e.TimeMs
				}
			}
		}
		return out, nil
	}
	best := math.Inf(1)
	for _, oc := range smart.Combinations() {
		rs := rowsOf(oc)
		sort.Slice(rs, func(i, j int) bool { return rs[i].TimeMs < rs[j].TimeMs })
		var seeds []smart.Setting
		for _, m := range rs[:min(8, len(rs))] {
			seeds = append(seeds, m.Setting)
			best = min(best, m.TimeMs)
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%s|%s|%s", st.ID(), oc, g.Name)
		f, err := predict.Search(ctx, score, st, oc, g, predict.Pass{Samples: 256, Starts: 8, Rounds: 20}, seeds, rand.New(rand.NewPCG(7, h.Sum64())))
		if err != nil && ctx.Err() != nil {
			return 0, err
		}
		if err == nil && f != nil {
			best = min(best, f.TimeMs)
		}
	}
	return best, nil
}

func fnv32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// argmin returns the key of the smallest value (times price, when price is given: only keys
// with a price count).
func argmin(t map[string]float64, price map[string]float64) string {
	best, bv := "", math.Inf(1)
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		if price != nil {
			p, ok := price[k]
			if !ok {
				continue
			}
			v *= p
		}
		if v < bv {
			best, bv = k, v
		}
	}
	return best
}

// ktFiles are the caches of the six GPUs; the MI250X file names no device.
var ktFiles = []struct{ file, device string }{
	{"A100.json.gz", ""}, {"A4000.json.gz", ""}, {"A6000.json.gz", ""}, {"MI250X.json.gz", "MI250X"}, {"W6600.json.gz", ""}, {"W7800.json.gz", ""},
}

// kernelTuner scores recommendations on the convolution caches, two ways: configurations held
// out (5 folds grouped by configuration; every GPU is in the training rows, as in StencilMART,
// whose test stencils are new but whose GPUs were all measured), and GPUs held out (a model
// trained on the other five GPUs predicts the sixth: a GPU nobody measured).
func kernelTuner(ctx context.Context, work, dir string) ([]Accuracy, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, f := range ktFiles {
		out := filepath.Join(work, "kt-"+strings.TrimSuffix(f.file, ".json.gz"))
		if _, err := os.Stat(filepath.Join(out, dataset.MetaFile)); err != nil {
			os.RemoveAll(out)
			opt := dataset.ImportOptions{Device: f.device, Resolve: cat.Resolve}
			if _, err := dataset.Import(ctx, out, []string{filepath.Join(dir, f.file)}, opt); err != nil {
				return nil, err
			}
		}
		dirs = append(dirs, out)
	}
	set, err := train.Load(ctx, dirs, train.Options{Task: models.Runtime, Catalog: cat})
	if err != nil {
		return nil, err
	}
	kinds := models.Kinds{}
	gbdt.Register(kinds)
	price := map[string]float64{}
	for _, g := range set.GPUNames() {
		if c, err := cat.Lookup(g); err == nil && c.Price != nil {
			price[g] = c.Price.USDPerHour
		}
	}
	var out []Accuracy

	start := time.Now()
	cv, err := train.CrossValidate(ctx, kinds, "gbdt", set, 5, 1, nil, nil)
	if err != nil {
		return nil, err
	}
	measured, predicted := table(set.Samples, cv.LnMs)
	a := score("Kernel Tuner convolution, configurations held out (5 folds)", set.GPUNames(), measured, predicted, price)
	a.SecondsEach = time.Since(start).Seconds() / float64(max(1, a.Instances))
	out = append(out, a)

	start = time.Now()
	var samples []train.Sample
	var ln []float64
	for _, g := range set.GPUNames() {
		test, p, err := train.Holdout(ctx, kinds, "gbdt", set, g, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("leaving %s out: %w", g, err)
		}
		samples, ln = append(samples, test.Samples...), append(ln, p.LnMs...)
	}
	measured, predicted = table(samples, ln)
	a = score("Kernel Tuner convolution, GPU held out (trained on the other five)", set.GPUNames(), measured, predicted, price)
	a.SecondsEach = time.Since(start).Seconds() / float64(max(1, a.Instances))
	out = append(out, a)
	fmt.Fprintf(os.Stderr, "Kernel Tuner convolution: priced GPUs %v\n", slices.Sorted(maps.Keys(price)))
	return out, nil
}

// table arranges rows and their predicted ln ms by configuration and GPU.
func table(samples []train.Sample, ln []float64) (measured, predicted map[string]map[string]float64) {
	measured, predicted = map[string]map[string]float64{}, map[string]map[string]float64{}
	for i, s := range samples {
		k := s.Setting.String()
		if measured[k] == nil {
			measured[k], predicted[k] = map[string]float64{}, map[string]float64{}
		}
		measured[k][s.GPU], predicted[k][s.GPU] = s.TimeMs, math.Exp(ln[i])
	}
	return measured, predicted
}

// score counts, over the configurations measured on every GPU, how often the predicted fastest
// (and most cost-efficient) GPU is the measured one.
func score(name string, gpus []string, measured, predicted map[string]map[string]float64, price map[string]float64) Accuracy {
	a := Accuracy{Data: name, GPUs: len(gpus), Priced: len(price), TrueWins: map[string]int{}}
	var right, rightCost, costN, near, nearCost int
	var regret, costRegret float64
	var keys []string
	for k, m := range measured {
		if len(m) == len(gpus) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		tr, pr := measured[k], predicted[k]
		a.Instances++
		best, pick := argmin(tr, nil), argmin(pr, nil)
		a.TrueWins[best]++
		if pick == best {
			right++
		}
		regret += tr[pick] / tr[best]
		if tr[pick] <= 1.05*tr[best] {
			near++
		}
		if len(price) >= 2 {
			costN++
			bc, pc := argmin(tr, price), argmin(pr, price)
			if bc == pc {
				rightCost++
			}
			c := tr[pc] * price[pc] / (tr[bc] * price[bc])
			costRegret += c
			if c <= 1.05 {
				nearCost++
			}
		}
	}
	n := float64(max(1, a.Instances))
	a.Fastest, a.Regret, a.Near = float64(right)/n, regret/n, float64(near)/n
	a.CostEff, a.CostRegret, a.NearCost = math.NaN(), math.NaN(), math.NaN()
	if costN > 0 {
		a.CostEff, a.CostRegret, a.NearCost = float64(rightCost)/float64(costN), costRegret/float64(costN), float64(nearCost)/float64(costN)
	}
	return a
}
