package tuner

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"smart"
)

// Genetic holds the settings of csTuner's genetic algorithm (section IV-E); zero fields take
// the paper's values.
type Genetic struct {
	SubPopulations int     // sub-populations, each bred in its own goroutine (0 means 2)
	Size           int     // individuals per sub-population (0 means 16)
	Crossover      float64 // probability of uniform crossover (0 means 0.8)
	Mutation       float64 // probability that a bit of a gene flips (0 means 0.005)
	MigrateEvery   int     // generations between ring migrations (0 means 5)
	// TopN and Threshold are the approximation stop: a group is settled once the coefficient of
	// variation of the best TopN fitness values found while tuning it is below Threshold
	// (0 means 4 and 0.02).
	TopN      int
	Threshold float64
	// Stall ends a phase after this many generations without a new evaluation (0 means 5).
	Stall int
}

func (g Genetic) withDefaults() Genetic {
	setDefault(&g.SubPopulations, 2)
	setDefault(&g.Size, 16)
	setDefault(&g.Crossover, 0.8)
	setDefault(&g.Mutation, 0.005)
	setDefault(&g.MigrateEvery, 5)
	setDefault(&g.TopN, 4)
	setDefault(&g.Threshold, 0.02)
	setDefault(&g.Stall, 5)
	return g
}

// genome re-indexes a sampled space for the genetic algorithm (csTuner Fig. 7): a gene per
// parameter group whose value is the index of one of the group's value tuples found in the
// sampled space, sorted ascending. Genes are mutated in binary, so a gene of n tuples has
// ceil(log2 n) bits; a mutated value past the last tuple wraps around.
type genome struct {
	variant int
	groups  [][]string // parameter names of each group
	tuples  [][][]int  // per group, the distinct value tuples, ascending
	bits    []int      // per group
}

func newGenome(variant int, groups [][]string, sampled []smart.Setting) *genome {
	g := &genome{variant: variant, groups: groups}
	for _, names := range groups {
		seen := map[string][]int{}
		for _, s := range sampled {
			t := make([]int, len(names))
			for i, n := range names {
				t[i] = s[n]
			}
			seen[tupleKey(t)] = t
		}
		ts := make([][]int, 0, len(seen))
		for _, t := range seen {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(a, b int) bool { return slices.Compare(ts[a], ts[b]) < 0 })
		g.tuples = append(g.tuples, ts)
		g.bits = append(g.bits, bits.Len(uint(max(len(ts)-1, 0))))
	}
	return g
}

func tupleKey(t []int) string {
	var b strings.Builder
	for _, v := range t {
		b.WriteString(strconv.Itoa(v))
		b.WriteByte(',')
	}
	return b.String()
}

// setting decodes an individual.
func (g *genome) setting(genes []int) smart.Setting {
	s := smart.Setting{}
	for k, names := range g.groups {
		for i, n := range names {
			s[n] = g.tuples[k][genes[k]][i]
		}
	}
	return s
}

// genes encodes a setting; false when one of its group tuples is not in the genome.
func (g *genome) genes(s smart.Setting) ([]int, bool) {
	out := make([]int, len(g.groups))
	for k, names := range g.groups {
		t := make([]int, len(names))
		for i, n := range names {
			t[i] = s[n]
		}
		j, ok := slices.BinarySearchFunc(g.tuples[k], t, slices.Compare[[]int])
		if !ok {
			return nil, false
		}
		out[k] = j
	}
	return out, true
}

// individual is a member of a sub-population.
type individual struct {
	genes   []int
	fitness float64 // 1/objective; 0 for a failed, invalid or unevaluated setting
}

// subpop is one sub-population with its own random stream, bred in its own goroutine.
type subpop struct {
	rng *rand.Rand
	pop []individual
}

// breed makes one child per member (a cellular GA on a ring): two parents drawn from the
// member's four neighbours with probability proportional to fitness, uniform crossover of
// their active genes bit by bit, and mutation of the active bits.
func (sp *subpop) breed(g *genome, cfg Genetic, active []bool) [][]int {
	n := len(sp.pop)
	kids := make([][]int, n)
	for i := range sp.pop {
		hood := [4]int{(i + n - 1) % n, (i + 1) % n, (i + n - 2) % n, (i + 2) % n}
		a := sp.pop[sp.roulette(hood)].genes
		b := sp.pop[sp.roulette(hood)].genes
		kid := slices.Clone(a)
		cross := sp.rng.Float64() < cfg.Crossover
		for k := range kid {
			if !active[k] || g.bits[k] == 0 {
				continue
			}
			v := a[k]
			if cross {
				v = 0
				for bit := range g.bits[k] {
					src := a[k]
					if sp.rng.IntN(2) == 1 {
						src = b[k]
					}
					v |= src & (1 << bit)
				}
			}
			for bit := range g.bits[k] {
				if sp.rng.Float64() < cfg.Mutation {
					v ^= 1 << bit
				}
			}
			kid[k] = v % len(g.tuples[k])
		}
		kids[i] = kid
	}
	return kids
}

func (sp *subpop) roulette(hood [4]int) int {
	sum := 0.0
	for _, j := range hood {
		sum += sp.pop[j].fitness
	}
	if sum <= 0 {
		return hood[sp.rng.IntN(4)]
	}
	u := sp.rng.Float64() * sum
	for _, j := range hood {
		u -= sp.pop[j].fitness
		if u <= 0 {
			return j
		}
	}
	return hood[3]
}

// screen, when set, chooses what a generation evaluates: it gets the valid children not
// evaluated before and returns the candidates to evaluate, children or not (the Pipeline adds
// settings its model ranks high in the pruned space), and names the best evaluation the search
// breeds from (the Pipeline's hedge runs settings the search must not follow).
type screen interface {
	pick(kids []Candidate) []Candidate
	best() (Outcome, bool)
}

// evolve runs the genetic algorithm on the active genes, the others fixed at base, until the
// approximation stop, a stall, or the run's stop. It returns nil when the phase ended by
// itself and ErrStop (or an evaluator error) otherwise.
func evolve(ctx context.Context, r *Run, g *genome, cfg Genetic, active []bool, base []int, sc screen, seed uint64) error {
	space := r.p.Variants[g.variant].Space
	fitness := func(genes []int) (float64, bool, error) {
		c := Candidate{Variant: g.variant, Setting: g.setting(genes)}
		if o, ok := r.Lookup(c); ok {
			return fit(o), true, nil
		}
		if space.Check(c.Setting) != nil {
			return 0, true, nil // invalid: never evaluated, never chosen
		}
		return 0, false, nil
	}
	// The phase's own record of fitness values, for the approximation stop.
	phase := map[string]float64{}
	note := func(genes []int, f float64) {
		if f > 0 {
			phase[tupleKey(genes)] = f
		}
	}
	// Initial sub-populations: the base individual and random values of the active genes.
	sps := make([]*subpop, cfg.SubPopulations)
	var firstGenes [][]int
	for p := range sps {
		sp := &subpop{rng: rand.New(rand.NewPCG(seed, uint64(p)+1))}
		for i := range cfg.Size {
			genes := slices.Clone(base)
			if p > 0 || i > 0 {
				for k := range genes {
					if active[k] {
						genes[k] = sp.rng.IntN(len(g.tuples[k]))
					}
				}
			}
			sp.pop = append(sp.pop, individual{genes: genes})
			firstGenes = append(firstGenes, genes)
		}
		sps[p] = sp
	}
	if err := evaluateGenes(ctx, r, g, firstGenes, sc, fitness); err != nil {
		return err
	}
	for _, sp := range sps {
		for i := range sp.pop {
			sp.pop[i].fitness, _, _ = fitness(sp.pop[i].genes)
			note(sp.pop[i].genes, sp.pop[i].fitness)
		}
	}
	stall := 0
	for gen := 1; ; gen++ {
		if approximated(phase, cfg) {
			return nil
		}
		kids := make([][][]int, len(sps))
		var wg sync.WaitGroup
		for p, sp := range sps {
			wg.Go(func() { kids[p] = sp.breed(g, cfg, active) })
		}
		wg.Wait()
		var all [][]int
		for _, k := range kids {
			all = append(all, k...)
		}
		before := r.Evaluations()
		if err := evaluateGenes(ctx, r, g, all, sc, fitness); err != nil {
			return err
		}
		// A child takes its cell when it is at least as fit: the search keeps moving on plateaus.
		for p, sp := range sps {
			for i, kid := range kids[p] {
				f, known, _ := fitness(kid)
				if !known {
					continue // screened out: not evaluated
				}
				note(kid, f)
				if f >= sp.pop[i].fitness {
					sp.pop[i] = individual{genes: kid, fitness: f}
				}
			}
		}
		if gen%cfg.MigrateEvery == 0 && len(sps) > 1 {
			migrate(sps)
		}
		if sc != nil {
			adopt(g, sps, sc)
		}
		if r.Evaluations() == before {
			if stall++; stall >= cfg.Stall {
				return nil
			}
		} else {
			stall = 0
		}
	}
}

// evaluateGenes evaluates the valid individuals not evaluated before, in order, after the
// screen when there is one.
func evaluateGenes(ctx context.Context, r *Run, g *genome, genes [][]int, sc screen, fitness func([]int) (float64, bool, error)) error {
	var cands []Candidate
	seen := map[string]bool{}
	for _, gs := range genes {
		if _, known, _ := fitness(gs); known {
			continue
		}
		k := tupleKey(gs)
		if seen[k] {
			continue
		}
		seen[k] = true
		cands = append(cands, Candidate{Variant: g.variant, Setting: g.setting(gs)})
	}
	if sc != nil {
		cands = sc.pick(cands)
	}
	if len(cands) == 0 {
		return nil
	}
	_, err := r.Evaluate(ctx, cands)
	return err
}

// adopt puts the screen's best setting, when it was found outside the population, in the
// place of the least fit individual of every sub-population that has nothing as fit.
func adopt(g *genome, sps []*subpop, sc screen) {
	best, ok := sc.best()
	if !ok || best.Variant != g.variant {
		return
	}
	genes, ok := g.genes(best.Setting)
	if !ok {
		return
	}
	f := fit(best)
	for _, sp := range sps {
		w := 0
		for i, in := range sp.pop {
			if in.fitness >= f {
				w = -1
				break
			}
			if in.fitness < sp.pop[w].fitness {
				w = i
			}
		}
		if w >= 0 {
			sp.pop[w] = individual{genes: slices.Clone(genes), fitness: f}
		}
	}
}

// migrate sends each sub-population's best individual to its two neighbours on the ring,
// where it replaces the least fit.
func migrate(sps []*subpop) {
	best := make([]individual, len(sps))
	for p, sp := range sps {
		b := sp.pop[0]
		for _, in := range sp.pop[1:] {
			if in.fitness > b.fitness {
				b = in
			}
		}
		best[p] = individual{genes: slices.Clone(b.genes), fitness: b.fitness}
	}
	n := len(sps)
	for p, sp := range sps {
		for _, from := range []int{(p + n - 1) % n, (p + 1) % n} {
			w := 0
			for i, in := range sp.pop {
				if in.fitness < sp.pop[w].fitness {
					w = i
				}
			}
			if best[from].fitness > sp.pop[w].fitness {
				sp.pop[w] = individual{genes: slices.Clone(best[from].genes), fitness: best[from].fitness}
			}
		}
	}
}

// approximated is csTuner's stop: the coefficient of variation of the best TopN fitness values
// is below the threshold.
func approximated(phase map[string]float64, cfg Genetic) bool {
	if len(phase) < cfg.TopN {
		return false
	}
	fs := make([]float64, 0, len(phase))
	for _, f := range phase {
		fs = append(fs, f)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(fs)))
	return cv(fs[:cfg.TopN]) < cfg.Threshold
}

// cv is the coefficient of variation (population standard deviation over the mean, csTuner
// Equation 1); 0 for fewer than two values or a zero mean.
func cv(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if mean == 0 {
		return 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs))) / math.Abs(mean)
}

// fit is the fitness of an outcome: the inverse of its objective, 0 when it failed.
func fit(o Outcome) float64 {
	if !o.OK() || o.Value <= 0 {
		return 0
	}
	return 1 / o.Value
}
