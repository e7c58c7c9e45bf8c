package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"smart"
)

// DefaultBatch is how many variants a Runner hands a smart.BatchEvaluator at once.
const DefaultBatch = 32

// Observer reads the GPU's state around a measurement (gpuinfo.Device is one). A Runner
// attaches its readings, taken after each batch, to the rows whose evaluator gave none.
type Observer interface {
	Read() (smart.Readings, error)
}

// Prefetcher is an Evaluator that can start on queries it will be asked later: a GPU backend
// compiles them while it measures the batches before. A Runner hands it every batch once, in the
// order it will evaluate them, Lookahead batches ahead of the one it measures.
type Prefetcher interface {
	Prefetch(qs []smart.Query)
	// Ahead is how many queries beyond the batch measured it can work on at once (a compiler
	// backend: its compilers times the variants one compiles), so a Runner hands over enough
	// batches to keep it busy while the GPU measures.
	Ahead() int
}

// DefaultLookahead is the fewest batches ahead of the one measured a Runner hands a Prefetcher.
// With one, a batch whose compiles outlast the batch before on the GPU leaves the GPU waiting
// while compilers that finished the next batch sit idle; two keeps them busy through such a
// batch, and what the run never reaches costs compiler time, not GPU time.
const DefaultLookahead = 2

// Runner measures work items with an Evaluator and appends a row per variant to a data set.
type Runner struct {
	Evaluator smart.Evaluator
	GPU       string // catalogue name, put in every query and row
	// Batch is the number of variants per EvaluateBatch call when Evaluator is a
	// smart.BatchEvaluator; 0 means DefaultBatch. Other evaluators get one variant at a time.
	Batch    int
	Observer Observer              // optional
	Progress func(done, total int) // optional; called after every batch, done counting skipped items
	// StopAfter, when positive, ends the run cleanly once this long has passed: the batch in
	// flight is cut off there, its finished variants are kept, and a later run resumes with the
	// rest. It fits a run into a lease (a time-limited GPU machine): a batch of slow variants
	// can take many minutes.
	StopAfter time.Duration
	// Deadline, when not zero, ends the run cleanly there, as StopAfter does (the earlier of the
	// two): a time limit counted from before the run (a call's start, the settings' drawing).
	Deadline time.Time
	// Lookahead is the number of batches a Prefetcher gets ahead of the one measured; 0 means
	// as many as hold its Ahead queries, at least DefaultLookahead.
	Lookahead int

	ids map[*smart.Stencil]string // Stencil.ID hashes the whole stencil: computed once a run
}

// Summary counts what a run did.
type Summary struct {
	Total    int                  // items of the run
	Skipped  int                  // already in the data set
	Written  int                  // rows appended by this run
	ByStatus map[smart.Status]int // rows appended, by status
	Cut      map[smart.Cut]int    // ok rows appended that the measuring protocol cut short, by cut
	// ReadingErrors counts batches whose Observer failed; their rows have no readings.
	ReadingErrors int
	Elapsed       time.Duration
	// Stopped says the run ended on StopAfter or Deadline with items left to measure.
	Stopped bool
}

// Run evaluates the items missing from w, in order, and appends their rows. A variant that
// fails is a row with its failing status; an error of the evaluator itself (a cancelled
// context, a lost device) stops the run after the rows so far, the finished part of the batch
// in flight included, are synced, and is returned.
func (r *Runner) Run(ctx context.Context, w *Writer, items []Item) (Summary, error) {
	start := time.Now()
	deadline := r.Deadline
	if r.StopAfter > 0 && (deadline.IsZero() || start.Add(r.StopAfter).Before(deadline)) {
		deadline = start.Add(r.StopAfter)
	}
	evalCtx := ctx // ctx, or ctx with the deadline
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		evalCtx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	sum := Summary{Total: len(items), ByStatus: map[smart.Status]int{}, Cut: map[smart.Cut]int{}}
	if r.GPU == "" {
		return sum, errors.New("the runner names no GPU")
	}
	var todo []Item
	for _, it := range items {
		if w.Has(r.identity(it)) {
			sum.Skipped++
		} else {
			todo = append(todo, it)
		}
	}
	batch := 1
	be, isBatch := r.Evaluator.(smart.BatchEvaluator)
	if isBatch {
		batch = max(r.Batch, 0)
		if batch == 0 {
			batch = DefaultBatch
		}
	}
	progress := func() {
		if r.Progress != nil {
			r.Progress(sum.Skipped+sum.Written, sum.Total)
		}
	}
	progress()
	fail := func(err error) (Summary, error) {
		sum.Elapsed = time.Since(start)
		if serr := w.Sync(); serr != nil {
			err = errors.Join(err, serr)
		}
		return sum, err
	}
	// Batch i is todo[i*batch:(i+1)*batch]; a Prefetcher gets the first one and those up to Lookahead
	// ahead before the first is measured, then each further one as the one Lookahead before it
	// starts, so that what it starts on in order is what the GPU needs in order.
	p, prefetch := r.Evaluator.(Prefetcher)
	prefetch = prefetch && isBatch
	lookahead := r.Lookahead
	if lookahead <= 0 {
		lookahead = DefaultLookahead
		if prefetch {
			lookahead = max(lookahead, (p.Ahead()+batch-1)/batch)
		}
	}
	prefetched := 0 // batches handed to p
	prefetchTo := func(last int) {
		for ; prefetch && prefetched <= last && prefetched*batch < len(todo); prefetched++ {
			qs, _ := r.queries(todo[prefetched*batch : min((prefetched+1)*batch, len(todo))])
			if len(qs) > 0 {
				p.Prefetch(qs)
			}
		}
	}
	for i := 0; i*batch < len(todo); i++ {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			sum.Stopped = true
			break
		}
		chunk := todo[i*batch : min((i+1)*batch, len(todo))]
		left := len(todo) - i*batch - len(chunk) // items after this batch
		rows := make([]smart.Measurement, 0, len(chunk))
		queries, queried := r.queries(chunk)
		for _, it := range chunk {
			if it.Invalid != "" {
				m := r.identity(it)
				m.Status, m.Error, m.Source = smart.StatusInvalid, it.Invalid, w.meta.Sources[0]
				rows = append(rows, m)
			}
		}
		prefetchTo(i + lookahead)
		var got []smart.Measurement
		var evalErr error
		switch {
		case len(queries) == 0:
		case isBatch:
			got, evalErr = be.EvaluateBatch(evalCtx, queries)
			if len(got) != len(queries) && (evalErr == nil || got != nil) {
				evalErr = errors.Join(evalErr, fmt.Errorf("the evaluator answered %d of %d queries", len(got), len(queries)))
				got = nil
			}
		default:
			var m smart.Measurement
			m, evalErr = r.Evaluator.Evaluate(evalCtx, queries[0])
			got = []smart.Measurement{m}
		}
		var readings *smart.Readings
		if r.Observer != nil && len(got) > 0 && evalErr == nil {
			if rd, err := r.Observer.Read(); err == nil {
				readings = &rd
			} else {
				sum.ReadingErrors++
			}
		}
		cut := 0
		for i, m := range got {
			if evalErr != nil && m.Status == "" {
				cut++ // measured again on resuming
				continue
			}
			row, err := r.row(queried[i], m)
			if err != nil {
				return fail(err)
			}
			if row.Readings == nil {
				row.Readings = readings
			}
			rows = append(rows, row)
		}
		if err := w.Append(rows...); err != nil {
			return fail(err)
		}
		sum.Written += len(rows)
		for _, m := range rows {
			sum.ByStatus[m.Status]++
			if m.Cut != smart.CutNone {
				sum.Cut[m.Cut]++
			}
		}
		progress()
		if evalErr != nil {
			if ctx.Err() == nil && evalCtx.Err() != nil {
				sum.Stopped = cut > 0 || left > 0 // StopAfter cut the batch off
				break
			}
			return fail(fmt.Errorf("evaluating stencil %s %s %s: %w", queried[0].Stencil.Name, queried[0].OC, queried[0].Setting, evalErr))
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, w.Sync()
}

// queries are the items to evaluate among items (those not invalid), with the items they ask.
func (r *Runner) queries(items []Item) ([]smart.Query, []Item) {
	var qs []smart.Query
	var asked []Item
	for _, it := range items {
		if it.Invalid == "" {
			qs = append(qs, smart.Query{Stencil: it.Stencil, OC: it.OC, Setting: it.Setting, GPU: r.GPU})
			asked = append(asked, it)
		}
	}
	return qs, asked
}

// identity is the row skeleton of an item: what its key is made of.
func (r *Runner) identity(it Item) smart.Measurement {
	id, ok := r.ids[it.Stencil]
	if !ok {
		if r.ids == nil {
			r.ids = map[*smart.Stencil]string{}
		}
		id = it.Stencil.ID()
		r.ids[it.Stencil] = id
	}
	return smart.Measurement{StencilID: id, GPU: r.GPU, OC: it.OC, Setting: it.Setting}
}

// row checks an evaluator's answer and puts the item's identity on it: the row must answer the
// item asked, whatever the evaluator filled in.
func (r *Runner) row(it Item, m smart.Measurement) (smart.Measurement, error) {
	return answerRow(r.identity(it), m)
}

// answerRow puts the identity id (stencil, GPU, OC, setting) on an evaluator's answer m and
// checks that m can be a row: it says where its time comes from, has a status, and a time where
// it ran.
func answerRow(id, m smart.Measurement) (smart.Measurement, error) {
	m.StencilID, m.Kernel, m.GPU, m.OC, m.Setting = id.StencilID, "", id.GPU, id.OC, id.Setting
	switch {
	case m.Source == "":
		return m, fmt.Errorf("%s: the evaluator did not say whether its time is measured, simulated or predicted", describe(m))
	case m.Status == "":
		return m, fmt.Errorf("%s: the evaluator gave no status", describe(m))
	case m.OK() && !(m.TimeMs > 0 && !math.IsInf(m.TimeMs, 0)):
		return m, fmt.Errorf("%s: the evaluator gave status ok with time %v ms", describe(m), m.TimeMs)
	}
	return m, nil
}
