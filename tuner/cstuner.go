package tuner

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"smart"
)

// CSTuner is csTuner's pipeline (Sun et al., sections IV-C to IV-E) on one space: a random
// sample of Initial settings is measured; the parameters are grouped by the coefficient of
// variation of their best partners (Algorithm 1); a PMNF model (Equation 3) of the run time,
// and of the hardware metrics where the measurements carry NVML readings (combined by
// Algorithm 2), keeps the SampleRatio of the space it predicts fastest; and a genetic
// algorithm on the re-indexed genes of that sampled space tunes the groups one after another,
// each until the approximation stop. Rounds over the groups repeat while a round improves.
//
// csTuner looks the pairs of the grouping up in its measured sample; a random sample rarely
// holds a setting with all but two parameters at the best's values, so the lookup falls back
// on a regression model fitted to the sample (the Trees surrogate).
type CSTuner struct {
	Initial     int     // settings measured at random first (0 means 128, csTuner's)
	SampleRatio float64 // share of the space the PMNF sampling keeps (0 means 0.1)
	Pool        int     // settings the PMNF ranks in a larger space (0 means 1<<15)
	Collections int     // metric collections of Algorithm 2 (0 means 2)
	Genetic     Genetic
}

// Name implements Method.
func (*CSTuner) Name() string { return "cstuner" }

// Search implements Method.
func (m *CSTuner) Search(ctx context.Context, r *Run) error {
	if len(r.p.Variants) != 1 {
		return errors.New("cstuner tunes one space; give one optimization combination, or use the pipeline for several")
	}
	cfg := m.Genetic.withDefaults()
	n0 := m.Initial
	if n0 == 0 {
		n0 = 128
	}
	if left := r.Left(); left != math.MaxInt {
		n0 = min(n0, max(left/2, 1))
	}
	if _, err := randomBatch(ctx, r, n0); err != nil {
		return err
	}
	for r.best < 0 {
		// Nothing ran yet: there is nothing to group or fit, so keep sampling while any
		// setting is left.
		n, err := randomBatch(ctx, r, cfg.Size)
		if err != nil || n == 0 {
			return err
		}
	}
	sp := r.p.Variants[0].Space
	enc := newEncoder(r.p.Variants)
	sur := fitSurrogate(r.History(), enc, defaultEnsemble, 1, rand.New(rand.NewPCG(r.Seed(), 0xc5)))
	best, _ := r.Best()
	groups := groupParams(sp.Names(), pairCVs(sp, best.Setting, sur.timeOf(r, 0)))
	sampled, err := m.sample(r, groups)
	if err != nil {
		return err
	}
	g := newGenome(0, groups, append(sampled, best.Setting))
	for round := uint64(0); ; round++ {
		before, _ := r.Best()
		for k := range groups {
			cur, _ := r.Best()
			base, ok := g.genes(cur.Setting)
			if !ok {
				base, _ = g.genes(best.Setting)
			}
			active := make([]bool, len(groups))
			active[k] = true
			if len(g.tuples[k]) <= cfg.SubPopulations*cfg.Size {
				err = exhaustGene(ctx, r, g, base, k)
			} else {
				err = evolve(ctx, r, g, cfg, active, base, nil, r.Seed()*7919+round*1000+uint64(k))
			}
			if err != nil {
				return err
			}
		}
		if after, _ := r.Best(); after.Value >= before.Value {
			return nil // a round over every group brought nothing: converged
		}
	}
}

// randomBatch evaluates up to n settings drawn uniformly at random, not evaluated before, and
// says how many it drew: 0 once every setting has been evaluated.
func randomBatch(ctx context.Context, r *Run, n int) (int, error) {
	cs, err := pool(r, n)
	if err != nil || len(cs) == 0 {
		return 0, err
	}
	_, err = r.Evaluate(ctx, cs)
	return len(cs), err
}

// exhaustGene evaluates every value of gene k with the other genes at base (csTuner: a group
// with fewer settings than the population is searched exhaustively).
func exhaustGene(ctx context.Context, r *Run, g *genome, base []int, k int) error {
	sp := r.p.Variants[g.variant].Space
	var cs []Candidate
	for v := range g.tuples[k] {
		genes := append([]int(nil), base...)
		genes[k] = v
		c := Candidate{Variant: g.variant, Setting: g.setting(genes)}
		if sp.Check(c.Setting) == nil && !r.Seen(c) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	_, err := r.Evaluate(ctx, cs)
	return err
}

// metric is one quantity PMNF models: its name, its value in a measurement, and whether lower
// is better (for time, and for a metric that rises with time).
type metric struct {
	name  string
	value func(o Outcome) float64
	lower bool
}

// metrics lists the quantities of the successful evaluations: ln of the objective always, and
// the NVML readings that vary where the measurements carry them. With readings, Algorithm 2
// combines them into collections and the metric of each collection most correlated with the
// time is kept beside it.
func (m *CSTuner) metrics(ok []Outcome) []metric {
	out := []metric{{name: "ln_time", value: func(o Outcome) float64 { return math.Log(o.Value) }, lower: true}}
	if ok[0].Measurement.Readings == nil {
		return out
	}
	cands := []metric{
		{name: "power_w", value: func(o Outcome) float64 { return reading(o).PowerW }},
		{name: "sm_clock_mhz", value: func(o Outcome) float64 { return float64(reading(o).SMClockMHz) }},
		{name: "mem_clock_mhz", value: func(o Outcome) float64 { return float64(reading(o).MemClockMHz) }},
		{name: "temp_c", value: func(o Outcome) float64 { return float64(reading(o).TempC) }},
	}
	t := make([]float64, len(ok))
	for i, o := range ok {
		t[i] = out[0].value(o)
	}
	var names []string
	var values [][]float64
	var kept []metric
	for _, c := range cands {
		v := make([]float64, len(ok))
		for i, o := range ok {
			v[i] = c.value(o)
		}
		if cv(v) == 0 {
			continue // constant: it tells nothing
		}
		names, values, kept = append(names, c.name), append(values, v), append(kept, c)
	}
	n := m.Collections
	if n == 0 {
		n = 2
	}
	for _, col := range combineMetrics(names, values, n) {
		bestI, bestR := -1, 0.0
		for _, i := range col {
			if r := pcc(values[i], t); math.Abs(r) > math.Abs(bestR) {
				bestI, bestR = i, r
			}
		}
		if bestI >= 0 {
			mt := kept[bestI]
			mt.lower = bestR > 0 // a metric that rises with time is better low
			out = append(out, mt)
		}
	}
	return out
}

func reading(o Outcome) smart.Readings {
	if o.Measurement.Readings == nil {
		return smart.Readings{}
	}
	return *o.Measurement.Readings
}

// sample is csTuner's search-space sampling (section IV-D): a PMNF model per metric, fitted to
// the successful evaluations, ranks the space (or a pool of it); a setting's score is its mean
// rank over the metrics, and the SampleRatio best are kept.
func (m *CSTuner) sample(r *Run, groups [][]string) ([]smart.Setting, error) {
	var ok []Outcome
	for _, o := range r.History() {
		if o.OK() && o.Value > 0 {
			ok = append(ok, o)
		}
	}
	poolMax := m.Pool
	if poolMax == 0 {
		poolMax = 1 << 15
	}
	cands, err := pool(r, poolMax)
	if err != nil {
		return nil, err
	}
	ratio := m.SampleRatio
	if ratio == 0 {
		ratio = 0.1
	}
	keep := max(1, int(math.Ceil(ratio*float64(len(cands)+r.Evaluations()))))
	if keep >= len(cands) {
		return settingsOf(cands), nil
	}
	sp := r.p.Variants[0].Space
	xs := make([]smart.Setting, len(ok))
	for i, o := range ok {
		xs[i] = o.Setting
	}
	score := make([]float64, len(cands))
	fitted := 0
	for _, mt := range m.metrics(ok) {
		y := make([]float64, len(ok))
		for i, o := range ok {
			y[i] = mt.value(o)
		}
		model, err := fitPMNF(sp, groups, xs, y)
		if err != nil {
			continue // too few measurements for this metric: leave it out
		}
		pred := make([]float64, len(cands))
		for i, c := range cands {
			pred[i] = model.predict(c.Setting)
			if !mt.lower {
				pred[i] = -pred[i]
			}
		}
		for rank, i := range argsort(pred) {
			score[i] += float64(rank)
		}
		fitted++
	}
	if fitted == 0 {
		// No model could be fitted: the sampled space is a random share.
		r.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		return settingsOf(cands[:keep]), nil
	}
	idx := argsort(score)
	out := make([]smart.Setting, keep)
	for k := range out {
		out[k] = cands[idx[k]].Setting
	}
	return out, nil
}

func settingsOf(cs []Candidate) []smart.Setting {
	out := make([]smart.Setting, len(cs))
	for i, c := range cs {
		out[i] = c.Setting
	}
	return out
}
