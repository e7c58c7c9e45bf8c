package tuner

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"smart"
	"smart/dataset"
)

// cancelAfter is an Evaluator that cancels its context once n queries have been answered, as a
// user's Ctrl-C does, and answers nothing after that.
type cancelAfter struct {
	smart.Evaluator
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return smart.Measurement{}, err
	}
	if c.n--; c.n == 0 {
		defer c.cancel()
	}
	return c.Evaluator.Evaluate(ctx, q)
}

// TestRecordedSearchResumes: a search recorded into a data set and cancelled part way, started
// again with the same seed, asks for the same settings, is answered the recorded ones from the
// data set, runs only the rest, and ends as the search that was never interrupted.
func TestRecordedSearchResumes(t *testing.T) {
	st, err := smart.NewStencil("heat", 2, []smart.Offset{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}},
		[]float64{0.6, 0.1, 0.1, 0.1, 0.1}, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	meta := dataset.Meta{Sources: []smart.Source{smart.Simulated}, Devices: []dataset.Device{{GPU: "A100-40GB", Name: "testTime"}},
		Params: []string{"a", "b", "c", "d"}}
	const budget, cut = 60, 23
	for _, m := range methods() {
		t.Run(fmt.Sprintf("%s/%T", m.Name(), m), func(t *testing.T) {
			problem := func(ev smart.Evaluator) Problem {
				p, _ := testProblem(t)
				p.Stencil, p.GPU, p.Evaluator = st, "A100-40GB", ev
				return p
			}
			whole, err := Search(context.Background(), problem(newFakeEval(t, testSpace(t))), Budget{Evaluations: budget}, m, 7)
			if err != nil {
				t.Fatal(err)
			}

			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := dataset.Create(dir, meta)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := dataset.NewRecorder(w, &cancelAfter{Evaluator: newFakeEval(t, testSpace(t)), n: cut, cancel: cancel})
			if err != nil {
				t.Fatal(err)
			}
			first, err := Search(ctx, problem(rec), Budget{Evaluations: budget}, m, 7)
			// A batch the cancel cut short is lost to the search but not to the record.
			if !errors.Is(err, context.Canceled) || first.Stop != StopCancelled || first.Evaluations > cut || w.Len() != cut {
				t.Fatalf("interrupted search: %d evaluations, %d rows, %v; want at most %d, %[4]d and the cancel", first.Evaluations, w.Len(), err, cut)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}

			w, _, err = dataset.OpenWriter(dir, meta)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ev := newFakeEval(t, testSpace(t))
			if rec, err = dataset.NewRecorder(w, ev); err != nil {
				t.Fatal(err)
			}
			resumed, err := Search(context.Background(), problem(rec), Budget{Evaluations: budget}, m, 7)
			if err != nil {
				t.Fatal(err)
			}
			if historyKey(resumed) != historyKey(whole) || resumed.Best.Value != whole.Best.Value {
				t.Fatalf("the resumed search differs from the whole one:\n%s\n%s", historyKey(resumed), historyKey(whole))
			}
			if rec.Recorded() != cut || ev.evaluations() != whole.Evaluations-cut || w.Len() != whole.Evaluations {
				t.Fatalf("resumed: %d answered from the record, %d run, %d rows; want %d, %d, %d",
					rec.Recorded(), ev.evaluations(), w.Len(), cut, whole.Evaluations-cut, whole.Evaluations)
			}
		})
	}
}
