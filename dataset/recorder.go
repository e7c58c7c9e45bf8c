package dataset

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"smart"
)

// Recorder is an Evaluator that answers from a data set the variants it holds and evaluates the
// rest with another Evaluator, appending each answer to the data set as it comes. A tuning run
// that records this way and is interrupted is resumed by running it again: a search is
// deterministic given its seed and its answers, so it asks for the same variants, gets them from
// the record at no cost, and goes on where it stopped. The rows are a data set like any other,
// for training models on.
type Recorder struct {
	evaluator smart.Evaluator
	w         *Writer
	rows      map[string]smart.Measurement // by Key
	ids       map[*smart.Stencil]string    // Stencil.ID hashes the whole stencil: once a stencil
	recorded  int
}

// NewRecorder records ev's answers into w, answering from the rows w's data set holds already.
// The Recorder does not close w.
func NewRecorder(w *Writer, ev smart.Evaluator) (*Recorder, error) {
	r := &Recorder{evaluator: ev, w: w, rows: map[string]smart.Measurement{}, ids: map[*smart.Stencil]string{}}
	if _, _, err := Scan(w.Dir(), func(m smart.Measurement) error {
		r.rows[Key(m)] = m
		return nil
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// Recorded is how many queries were answered from rows recorded before.
func (r *Recorder) Recorded() int { return r.recorded }

// Evaluate implements smart.Evaluator.
func (r *Recorder) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	ms, err := r.EvaluateBatch(ctx, []smart.Query{q})
	if len(ms) == 0 || ms[0].Status == "" {
		return smart.Measurement{}, err
	}
	return ms[0], err
}

// EvaluateBatch implements smart.BatchEvaluator: the variants not recorded go to the wrapped
// evaluator in one batch where it takes batches. A batch cut short keeps (and records) the
// variants it finished.
func (r *Recorder) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	out := make([]smart.Measurement, len(qs))
	ids := make([]smart.Measurement, len(qs))
	keys := make([]string, len(qs))
	var todo []int
	for i, q := range qs {
		id, err := r.identity(q)
		if err != nil {
			return nil, err
		}
		ids[i], keys[i] = id, Key(id)
		if m, ok := r.rows[keys[i]]; ok {
			out[i] = m
			r.recorded++
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	got, evalErr := r.evaluate(ctx, qs, todo)
	var rows []smart.Measurement
	fresh := map[string]smart.Measurement{}
	for k, i := range todo {
		if k >= len(got) || got[k].Status == "" {
			continue // cut off: evaluated again on resuming
		}
		if _, ok := fresh[keys[i]]; ok {
			continue // asked twice in one batch: answered below
		}
		row, err := answerRow(ids[i], got[k])
		if err != nil {
			return nil, errors.Join(evalErr, err)
		}
		rows = append(rows, row)
		fresh[keys[i]] = row
	}
	if err := r.w.Append(rows...); err != nil {
		return nil, errors.Join(evalErr, fmt.Errorf("recording in %s: %w", r.w.Dir(), err))
	}
	maps.Copy(r.rows, fresh) // only once written: the record answers nothing it does not hold
	for _, i := range todo {
		out[i] = r.rows[keys[i]] // zero where the batch was cut off first
	}
	return out, evalErr
}

// evaluate asks the wrapped evaluator for the queries qs[todo], in one batch where it takes
// batches; the answers are in todo's order, as many as it finished.
func (r *Recorder) evaluate(ctx context.Context, qs []smart.Query, todo []int) ([]smart.Measurement, error) {
	if be, ok := r.evaluator.(smart.BatchEvaluator); ok && len(todo) > 1 {
		batch := make([]smart.Query, len(todo))
		for k, i := range todo {
			batch[k] = qs[i]
		}
		got, err := be.EvaluateBatch(ctx, batch)
		if err == nil && len(got) != len(batch) {
			err = fmt.Errorf("the evaluator answered %d of %d queries", len(got), len(batch))
		}
		return got, err
	}
	got := make([]smart.Measurement, 0, len(todo))
	for _, i := range todo {
		m, err := r.evaluator.Evaluate(ctx, qs[i])
		if err != nil {
			return got, err
		}
		got = append(got, m)
	}
	return got, nil
}

// identity is the row skeleton of a query, storing its stencil in the data set the first time.
func (r *Recorder) identity(q smart.Query) (smart.Measurement, error) {
	if q.Stencil == nil {
		return smart.Measurement{}, errors.New("a recorder records stencils; the query names none")
	}
	if q.GPU == "" {
		return smart.Measurement{}, errors.New("a recorder records the runs of one GPU; the query names none")
	}
	id, ok := r.ids[q.Stencil]
	if !ok {
		if err := r.w.AddStencil(q.Stencil); err != nil {
			return smart.Measurement{}, err
		}
		id = q.Stencil.ID()
		r.ids[q.Stencil] = id
	}
	return smart.Measurement{StencilID: id, GPU: q.GPU, OC: q.OC, Setting: q.Setting}, nil
}
