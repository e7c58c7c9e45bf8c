package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"smart"
	"smart/space"
)

// Variant is one space searched: the settings of one optimization combination. A foreign kernel
// (a Kernel Tuner cache) has a single variant whose OC is 0.
type Variant struct {
	OC    smart.Combination
	Space *space.Space
	// Lazy stands in for Space where generating the space would cost more than the search
	// (predict's search of a runtime model: thousands of predictions in well under a second).
	// Only Descent searches a variant without Space; Space, where given, is the one used.
	Lazy *space.Lazy
}

// names returns the parameter names of the variant's space in definition order.
func (v Variant) names() []string {
	if v.Space != nil {
		return v.Space.Names()
	}
	return v.Lazy.Names()
}

// check reports why set is not a valid setting of the variant's space, or nil.
func (v Variant) check(set smart.Setting) error {
	if v.Space != nil {
		return v.Space.Check(set)
	}
	return v.Lazy.Check(set)
}

// lazy returns the variant's lazy view.
func (v Variant) lazy() *space.Lazy {
	if v.Space != nil {
		return v.Space.Lazy()
	}
	return v.Lazy
}

// lazyMethod is a Method that searches variants given only by their Lazy view.
type lazyMethod interface {
	Method
	searchesLazy()
}

// Problem is what Search tunes: the variants, the Evaluator that answers how long a setting
// takes, and the stencil and GPU that complete each query.
type Problem struct {
	// Variants are the spaces searched, in rank order where a method cares (Pipeline keeps the
	// first ones). Most problems have one.
	Variants  []Variant
	Evaluator smart.Evaluator
	Stencil   *smart.Stencil // nil for a foreign kernel: the setting holds all its parameters
	GPU       string         // passed on in every query
	// Objective is the number minimised, read from a successful measurement; nil means TimeMs
	// (the median of the repetitions). MeanTime is Kernel Tuner's objective.
	Objective func(smart.Measurement) float64
	// Progress, when set, is called after every evaluation with the evaluations so far and the
	// best objective (+Inf before the first success).
	Progress func(evaluations int, best float64)
}

// MeanTime is Kernel Tuner's objective: the mean of the repetitions where the measurement has
// it, else the median.
func MeanTime(m smart.Measurement) float64 {
	if m.MeanMs > 0 {
		return m.MeanMs
	}
	return m.TimeMs
}

// Candidate is a setting of one variant.
type Candidate struct {
	Variant int
	Setting smart.Setting
}

// Outcome is an evaluated candidate.
type Outcome struct {
	Candidate
	Measurement smart.Measurement
	// Value is the objective; +Inf when the evaluation failed.
	Value float64
	// N is the evaluation's position in the search, from 1.
	N int
}

// OK reports whether the evaluation succeeded.
func (o Outcome) OK() bool { return !math.IsInf(o.Value, 1) }

// Budget limits a search; a zero field sets no limit. A search with no limit at all ends when
// its method does (an exhaustive search when the space is spent).
type Budget struct {
	Evaluations int           // evaluations, failed ones included
	Time        time.Duration // wall time of the whole search
	Target      float64       // stop once the best objective is at most this
}

// Stop says why a search ended.
type Stop string

// The reasons a search ends.
const (
	StopEvaluations Stop = "evaluations" // the evaluation budget is spent
	StopTime        Stop = "time"        // the time budget is spent
	StopTarget      Stop = "target"      // the target was reached
	StopDone        Stop = "done"        // the method finished: space exhausted or converged
	StopCancelled   Stop = "cancelled"   // the context was cancelled (Ctrl-C)
	StopError       Stop = "error"       // the evaluator failed (Search's error says how)
)

// ErrStop is what Run.Evaluate returns once the budget is spent or the target reached. A
// Method returns it (or an error wrapping it) as it gets it; Search then ends normally.
var ErrStop = errors.New("tuner: the search budget is spent or its target reached")

// Result is the outcome of a search.
type Result struct {
	Method string
	Seed   uint64
	// Best is the fastest successful evaluation; its Value is +Inf (and its Setting nil) when
	// none succeeded.
	Best        Outcome
	Evaluations int
	Failures    []Outcome // the failed evaluations, in order
	// Trace is the best objective after each evaluation (+Inf before the first success).
	Trace   []float64
	History []Outcome // every evaluation, in order
	Stop    Stop
	Elapsed time.Duration // wall time of the search
	// EvalTime is the part of Elapsed spent in the Evaluator; the rest is the strategy's.
	EvalTime time.Duration
}

// Method is a search strategy: it proposes settings through r until it is done or r says stop.
type Method interface {
	// Name is the strategy's name as written in results, e.g. "iterml".
	Name() string
	// Search runs the strategy. It returns nil when the strategy is done, ErrStop (as returned by
	// r.Evaluate) when stopped, or the error that ended it.
	Search(ctx context.Context, r *Run) error
}

// Search tunes p with method m under budget b; seed alone decides every random choice. The
// result holds what was found even when err is not nil (an Evaluator failure, a cancelled
// context).
func Search(ctx context.Context, p Problem, b Budget, m Method, seed uint64) (Result, error) {
	if err := p.check(m); err != nil {
		return Result{}, err
	}
	if b.Evaluations < 0 || b.Time < 0 {
		return Result{}, fmt.Errorf("tuner: budget %+v: limits must not be negative", b)
	}
	r := newRun(&p, b, seed)
	err := m.Search(ctx, r)
	res := Result{Method: m.Name(), Seed: seed, Evaluations: len(r.history), Trace: r.trace,
		History: r.history, Stop: r.stop, Elapsed: time.Since(r.start), EvalTime: r.evalTime}
	res.Best = Outcome{Value: math.Inf(1)}
	if r.best >= 0 {
		res.Best = r.history[r.best]
	}
	for _, o := range r.history {
		if !o.OK() {
			res.Failures = append(res.Failures, o)
		}
	}
	switch {
	case err == nil:
		if res.Stop == "" {
			res.Stop = StopDone
		}
	case errors.Is(err, ErrStop):
		err = nil
	default:
		res.Stop = StopError
		if ctx.Err() != nil {
			res.Stop = StopCancelled
		}
		return res, fmt.Errorf("tuner: %s: %w", m.Name(), err)
	}
	return res, nil
}

// check refuses a problem m cannot search.
func (p *Problem) check(m Method) error {
	if len(p.Variants) == 0 {
		return errors.New("tuner: the problem has no space to search")
	}
	if p.Evaluator == nil {
		return errors.New("tuner: the problem has no evaluator")
	}
	_, lazyOK := m.(lazyMethod)
	for i, v := range p.Variants {
		switch {
		case v.Space == nil && v.Lazy == nil:
			return fmt.Errorf("tuner: variant %d (%s) has no space", i, v.OC)
		case v.Space == nil && !lazyOK:
			return fmt.Errorf("tuner: variant %d (%s) has only a lazy space, which %s does not search", i, v.OC, m.Name())
		case v.Space == nil:
			continue // a lazy space cannot tell that it is empty: the search finds no setting
		}
		if v.Space.Count().Sign() == 0 {
			return fmt.Errorf("tuner: variant %d (%s): %w", i, v.OC, space.ErrEmpty)
		}
	}
	return nil
}

// Run is a search in progress as a Method sees it: the problem, the seeded random source, and
// evaluation through the cache and the budget. It is not safe for concurrent use.
type Run struct {
	p     *Problem
	b     Budget
	seed  uint64
	rng   *rand.Rand
	start time.Time
	names [][]string       // parameter names of each variant, in space order
	cache []map[string]int // per variant: key -> index in history
	// Per variant, the index in its space of each setting evaluated (where the space numbers
	// its settings in 64 bits): a pool drawn by index leaves out what has run without a key.
	indexed []map[uint64]bool
	at      []uint64 // each evaluation's index in its variant's space, when indexed
	history []Outcome
	trace   []float64
	best    int // index in history, -1 before a success
	stop    Stop
	buf     []byte

	evalTime time.Duration
}

func newRun(p *Problem, b Budget, seed uint64) *Run {
	r := &Run{p: p, b: b, seed: seed, rng: rand.New(rand.NewPCG(seed, 0x7475_6e65)), start: time.Now(), best: -1}
	for _, v := range p.Variants {
		r.names = append(r.names, v.names())
		r.cache = append(r.cache, map[string]int{})
		r.indexed = append(r.indexed, map[uint64]bool{})
	}
	return r
}

// Problem returns the problem searched.
func (r *Run) Problem() *Problem { return r.p }

// Rand returns the search's random source, seeded by Search's seed.
func (r *Run) Rand() *rand.Rand { return r.rng }

// Seed returns the search's seed, for methods that derive further streams from it.
func (r *Run) Seed() uint64 { return r.seed }

// Left is the number of evaluations the budget still allows (math.MaxInt without a limit).
func (r *Run) Left() int {
	if r.b.Evaluations == 0 {
		return math.MaxInt
	}
	return r.b.Evaluations - len(r.history)
}

// Evaluations is the number of evaluations so far.
func (r *Run) Evaluations() int { return len(r.history) }

// History returns the evaluations so far, in order. The slice must not be modified.
func (r *Run) History() []Outcome { return r.history }

// Best returns the fastest successful evaluation so far and true, or false before one.
func (r *Run) Best() (Outcome, bool) {
	if r.best < 0 {
		return Outcome{Value: math.Inf(1)}, false
	}
	return r.history[r.best], true
}

// Lookup returns the outcome of a candidate evaluated before.
func (r *Run) Lookup(c Candidate) (Outcome, bool) {
	if c.Variant < 0 || c.Variant >= len(r.cache) {
		return Outcome{}, false
	}
	key, ok := r.key(c)
	if !ok {
		return Outcome{}, false
	}
	i, ok := r.cache[c.Variant][string(key)] // indexing by string(bytes) does not allocate
	if !ok {
		return Outcome{}, false
	}
	return r.history[i], true
}

// seenAt reports whether the setting at index i of variant v's space has been evaluated.
func (r *Run) seenAt(v int, i uint64) bool { return r.indexed[v][i] }

// Seen reports whether a candidate has been evaluated.
func (r *Run) Seen(c Candidate) bool {
	_, ok := r.Lookup(c)
	return ok
}

// variantKey is a candidate's key among the candidates of every variant, its variant and key,
// in the buffer that key uses: a map is indexed by string(variantKey(c)) without allocating.
func (r *Run) variantKey(c Candidate) []byte {
	b, _ := r.appendKey(append(strconv.AppendInt(r.buf[:0], int64(c.Variant), 10), ':'), c)
	r.buf = b
	return b
}

// key is the cache key of a candidate: its values in the space's parameter order, in a buffer
// that the next call reuses. It is false when the setting does not have exactly the space's
// parameters (Check then says why).
func (r *Run) key(c Candidate) ([]byte, bool) {
	b, ok := r.appendKey(r.buf[:0], c)
	r.buf = b
	return b, ok
}

// appendKey appends c's values in the space's parameter order to b.
func (r *Run) appendKey(b []byte, c Candidate) ([]byte, bool) {
	names := r.names[c.Variant]
	if len(c.Setting) != len(names) {
		return b, false
	}
	for _, n := range names {
		v, ok := c.Setting[n]
		if !ok {
			return b, false
		}
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ',')
	}
	return b, true
}

// Evaluate evaluates candidates and returns their outcomes in order. A candidate evaluated
// before is answered from the cache and does not count; each new one counts once, failed or
// not. Every candidate must be a valid setting of its variant's space: an invalid one is an
// error (a bug of the method), never evaluated. When the budget runs out, or the target is
// reached, Evaluate returns the outcomes of the candidates it got to and ErrStop.
func (r *Run) Evaluate(ctx context.Context, cands []Candidate) ([]Outcome, error) {
	at, err := r.evaluateAll(ctx, cands, false)
	if at == nil {
		return nil, err
	}
	out := make([]Outcome, len(at))
	for k, j := range at {
		out[k] = r.history[j]
	}
	return out, err
}

// evaluateTrusted is Evaluate of candidates that are valid by construction (drawn or walked by
// their space's own lazy view) and whose settings the run keeps without copying (the method
// never changes them), answering their values only. A runtime model scores a setting in about
// the time that checking it against the constraints (the resource model), copying it and
// copying its outcome take: a search of the model pays for them here once, not twice.
func (r *Run) evaluateTrusted(ctx context.Context, cands []Candidate) ([]float64, error) {
	at, err := r.evaluateAll(ctx, cands, true)
	vs := make([]float64, len(at))
	for k, j := range at {
		vs[k] = r.history[j].Value
	}
	return vs, err
}

// evaluateAll is Evaluate answering the index in the history of each candidate it got to.
// Unless trusted, it checks the candidates and evaluates copies of their settings.
func (r *Run) evaluateAll(ctx context.Context, cands []Candidate, trusted bool) ([]int, error) {
	if r.stop != "" {
		return nil, ErrStop
	}
	// Check everything first, so that a bad batch evaluates nothing.
	keys := make([]string, len(cands))
	var fresh []int // indexes of candidates to evaluate, first occurrences only
	type variantKey struct {
		variant int
		key     string
	}
	pending := make(map[variantKey]bool, len(cands))
	for i, c := range cands {
		if c.Variant < 0 || c.Variant >= len(r.p.Variants) {
			return nil, fmt.Errorf("candidate %d names variant %d of %d", i, c.Variant, len(r.p.Variants))
		}
		b, ok := r.key(c)
		key := string(b)
		if ok {
			keys[i] = key
			if _, seen := r.cache[c.Variant][key]; seen {
				continue
			}
			if pending[variantKey{c.Variant, key}] {
				continue
			}
		}
		if !ok || !trusted {
			if err := r.p.Variants[c.Variant].check(c.Setting); err != nil {
				return nil, fmt.Errorf("invalid setting %s proposed: %w", c.Setting, err)
			}
		}
		pending[variantKey{c.Variant, key}] = true
		fresh = append(fresh, i)
	}
	if left := r.Left(); len(fresh) > left {
		fresh = fresh[:left]
	}
	if err := r.evaluate(ctx, cands, keys, fresh, trusted); err != nil {
		return nil, err
	}
	out := make([]int, 0, len(cands))
	for i, c := range cands {
		j, ok := r.cache[c.Variant][keys[i]]
		if !ok {
			break // cut by the budget
		}
		out = append(out, j)
	}
	if r.stop == "" && r.Left() == 0 {
		r.stop = StopEvaluations
	}
	if len(out) < len(cands) || r.stop != "" {
		return out, ErrStop
	}
	return out, nil
}

// evaluate runs the fresh candidates through the evaluator (in one batch where it takes
// batches) and records them, stopping early on the time budget or the target.
func (r *Run) evaluate(ctx context.Context, cands []Candidate, keys []string, fresh []int, trusted bool) error {
	if len(fresh) == 0 {
		return nil
	}
	// Each new candidate's setting is copied once, for its query and its outcome, unless the
	// method hands it over: it keeps its own.
	own := cands
	if !trusted {
		own = make([]Candidate, len(cands))
		for _, i := range fresh {
			own[i] = Candidate{Variant: cands[i].Variant, Setting: cands[i].Setting.Clone()}
		}
	}
	if be, ok := r.p.Evaluator.(smart.BatchEvaluator); ok && len(fresh) > 1 {
		if r.timeUp() {
			return nil
		}
		qs := make([]smart.Query, len(fresh))
		for k, i := range fresh {
			qs[k] = r.query(own[i])
		}
		var ms []smart.Measurement
		cut, err := r.timed(ctx, func(ctx context.Context) (err error) {
			ms, err = be.EvaluateBatch(ctx, qs)
			return err
		})
		if err != nil && !cut {
			return err
		}
		if len(ms) != len(qs) {
			if cut {
				return nil
			}
			return fmt.Errorf("the evaluator answered %d of %d queries", len(ms), len(qs))
		}
		r.history = slices.Grow(r.history, len(fresh)) // one growth for the batch
		for k, i := range fresh {
			if !cut || ms[k].Status != "" { // a variant the deadline cut off was not evaluated
				r.record(own[i], keys[i], ms[k])
			}
		}
		return nil
	}
	for _, i := range fresh {
		if r.stop != "" || r.timeUp() {
			return nil
		}
		var m smart.Measurement
		cut, err := r.timed(ctx, func(ctx context.Context) (err error) {
			m, err = r.p.Evaluator.Evaluate(ctx, r.query(own[i]))
			return err
		})
		if cut {
			return nil
		}
		if err != nil {
			return err
		}
		r.record(own[i], keys[i], m)
	}
	return nil
}

// timed runs eval under the time budget's deadline and adds its time to evalTime. cut says the
// deadline ended it early (its error is that, not the evaluator's failure); the search then
// stops on time.
func (r *Run) timed(ctx context.Context, eval func(context.Context) error) (cut bool, err error) {
	t0 := time.Now()
	defer func() { r.evalTime += time.Since(t0) }()
	if r.b.Time <= 0 {
		return false, eval(ctx)
	}
	dctx, cancel := context.WithDeadline(ctx, r.start.Add(r.b.Time))
	defer cancel()
	err = eval(dctx)
	if err != nil && ctx.Err() == nil && dctx.Err() != nil {
		r.stop = StopTime
		return true, err
	}
	return false, err
}

func (r *Run) timeUp() bool {
	if r.b.Time > 0 && time.Since(r.start) >= r.b.Time {
		r.stop = StopTime
		return true
	}
	return false
}

// query is the query of c, whose setting it shares.
func (r *Run) query(c Candidate) smart.Query {
	return smart.Query{Stencil: r.p.Stencil, OC: r.p.Variants[c.Variant].OC, Setting: c.Setting, GPU: r.p.GPU}
}

// value is the objective of a measurement: +Inf for a failure or a number that is no time.
func (p *Problem) value(m smart.Measurement) float64 { return objectiveOf(m, p.Objective) }

// objectiveOf is objective(m), or the time where objective is nil: +Inf for a failure or a
// number that is no time.
func objectiveOf(m smart.Measurement, objective func(smart.Measurement) float64) float64 {
	if !m.OK() {
		return math.Inf(1)
	}
	v := m.TimeMs
	if objective != nil {
		v = objective(m)
	}
	if v < 0 || math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// record adds one evaluation of c, whose setting is the run's own copy, to the history, the
// cache and the trace.
func (r *Run) record(c Candidate, key string, m smart.Measurement) {
	o := Outcome{Candidate: c, Measurement: m,
		Value: r.p.value(m), N: len(r.history) + 1}
	r.cache[c.Variant][key] = len(r.history)
	var i uint64
	if sp := r.p.Variants[c.Variant].Space; sp != nil {
		var ok bool
		if i, ok = sp.Index64(c.Setting); ok {
			r.indexed[c.Variant][i] = true
		}
	}
	r.at = append(r.at, i)
	r.history = append(r.history, o)
	if o.OK() && (r.best < 0 || o.Value < r.history[r.best].Value) {
		r.best = len(r.history) - 1
	}
	best, _ := r.Best()
	r.trace = append(r.trace, best.Value)
	if r.b.Target > 0 && best.Value <= r.b.Target {
		r.stop = StopTarget
	}
	if r.p.Progress != nil {
		r.p.Progress(len(r.history), best.Value)
	}
}

// setDefault sets an option left at zero to its default.
func setDefault[T int | float64](v *T, d T) {
	if *v == 0 {
		*v = d
	}
}
