package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"smart"
	"smart/internal/testctx"
)

// recorderQueries are the valid variants of a small plan, as queries on the A100.
func recorderQueries(t *testing.T) []smart.Query {
	t.Helper()
	sts := testStencils(t, 2, 3)
	plan, _ := NewPlan(sts, testOCs, 6, 5)
	items, err := plan.Items(context.Background(), sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	var qs []smart.Query
	for _, it := range items {
		if it.Invalid == "" {
			qs = append(qs, smart.Query{Stencil: it.Stencil, OC: it.OC, Setting: it.Setting, GPU: "A100-40GB"})
		}
	}
	return qs
}

// TestRecorderResumes: a recording interrupted by a lost device is resumed by a second recorder,
// which evaluates only what the first did not record and answers the rest from the data set;
// every variant is a row exactly once, and every answer is the evaluator's.
func TestRecorderResumes(t *testing.T) {
	ctx := context.Background()
	qs := recorderQueries(t)
	dir := t.TempDir()
	meta := simMeta(StencilParams(), nil, nil)
	w, _, err := OpenWriter(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	first := &fakeEval{failAfter: 11}
	r, err := NewRecorder(w, first)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range qs {
		if _, err = r.Evaluate(ctx, q); err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, errDeviceLost) || n != 11 || r.Recorded() != 0 {
		t.Fatalf("first recorder: %d answers, %d recorded, %v", n, r.Recorded(), err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w, torn, err := OpenWriter(dir, meta)
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	second := &batchEval{}
	if r, err = NewRecorder(w, second); err != nil {
		t.Fatal(err)
	}
	got, err := r.EvaluateBatch(ctx, qs[:20]) // 11 recorded, 9 in one batch of the evaluator
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs[20:] {
		m, err := r.Evaluate(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Recorded() != 11 || second.calls != len(qs)-11 || !reflect.DeepEqual(second.batches, []int{9}) {
		t.Fatalf("second recorder: %d recorded, %d calls, batches %v; want 11, %d, [9]", r.Recorded(), second.calls, second.batches, len(qs)-11)
	}
	for i, q := range qs {
		want, _ := (&fakeEval{}).Evaluate(ctx, q)
		if got[i].Status != want.Status || got[i].TimeMs != want.TimeMs || got[i].Source != smart.Simulated ||
			got[i].StencilID != q.Stencil.ID() || got[i].GPU != q.GPU || got[i].OC != q.OC || got[i].Setting.String() != q.Setting.String() {
			t.Fatalf("answer %d: %+v; want the evaluator's %+v for %s %s", i, got[i], want, q.OC, q.Setting)
		}
	}

	_, rows, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range rows {
		seen[Key(m)]++
	}
	for i, q := range qs {
		if k := Key(got[i]); seen[k] != 1 {
			t.Fatalf("variant %s %s is %d rows; want 1", q.OC, q.Setting, seen[k])
		}
	}
	if len(rows) != len(qs) {
		t.Fatalf("%d rows for %d variants", len(rows), len(qs))
	}
	entries, _ := os.ReadDir(filepath.Join(dir, StencilsDir))
	if len(entries) != 2 {
		t.Fatalf("%d stencil files; want the 2 stencils", len(entries))
	}
}

// TestRecorderCutBatch: a batch cut short records and answers its finished variants only.
func TestRecorderCutBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	qs := recorderQueries(t)[:6]
	w, err := Create(t.TempDir(), simMeta(StencilParams(), nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := NewRecorder(w, &slowBatchEval{finish: 2, test: testctx.Context(t), onWait: cancel})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.EvaluateBatch(ctx, qs)
	if !errors.Is(err, context.Canceled) || len(got) != len(qs) || w.Len() != 2 {
		t.Fatalf("%d answers, %d rows, %v; want %d answers, 2 rows and the cancel", len(got), w.Len(), err, len(qs))
	}
	for i, m := range got {
		if finished := m.Status != ""; finished != (i < 2) {
			t.Fatalf("answer %d: status %q", i, m.Status)
		}
	}
}

// TestRecorderRefuses: answers that cannot be rows, and queries a data set cannot key, are
// errors and write nothing.
func TestRecorderRefuses(t *testing.T) {
	q := recorderQueries(t)[0]
	for _, c := range []struct {
		name string
		ev   smart.Evaluator
		q    smart.Query
		want string
	}{
		{"no source", badEval{smart.Measurement{Status: smart.StatusOK, TimeMs: 1}}, q, "did not say whether"},
		{"measured into a simulated data set", badEval{smart.Measurement{Status: smart.StatusOK, TimeMs: 1, Source: smart.Measured}}, q, "cannot go into"},
		{"no stencil", &fakeEval{}, smart.Query{OC: q.OC, Setting: q.Setting, GPU: q.GPU}, "names none"},
		{"no GPU", &fakeEval{}, smart.Query{Stencil: q.Stencil, OC: q.OC, Setting: q.Setting}, "names none"},
	} {
		w, err := Create(t.TempDir(), simMeta(StencilParams(), nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRecorder(w, c.ev)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Evaluate(context.Background(), c.q); err == nil || !strings.Contains(err.Error(), c.want) || w.Len() != 0 {
			t.Errorf("%s: %v, %d rows; want an error with %q and no row", c.name, err, w.Len(), c.want)
		}
		w.Close()
	}
}

// TestWriterLock: while one writer has a data set open, a second is refused (two runs would
// write each other's rows again); once the first closes, the data set opens.
func TestWriterLock(t *testing.T) {
	dir := t.TempDir()
	meta := simMeta(StencilParams(), nil, nil)
	first, err := Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenWriter(dir, meta); err == nil || !strings.Contains(err.Error(), "being written by another run") {
		t.Fatalf("second writer: %v; want it refused", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, _, err := OpenWriter(dir, meta)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	second.Close()
}

// TestOpenWriterMessages: a directory that cannot be resumed says why and what to do.
func TestOpenWriterMessages(t *testing.T) {
	record := simMeta(StencilParams(), nil, nil)
	sts := testStencils(t, 1, 2)
	plan, _ := NewPlan(sts, testOCs, 2, 1)
	bench := simMeta(StencilParams(), plan, nil)
	for _, c := range []struct {
		name        string
		first, then Meta
		edit        func(dir string)
		want        string
	}{
		{"a record into a bench data set", bench, record, nil, "a tuning record needs a directory of its own"},
		{"a bench run into a record", record, bench, nil, "a planned measurement needs a directory of its own"},
		{"meta.json lost", record, record, func(dir string) { os.Remove(filepath.Join(dir, MetaFile)) }, "has rows.csv but no meta.json"},
	} {
		dir := t.TempDir()
		w, err := Create(dir, c.first)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if c.edit != nil {
			c.edit(dir)
		}
		if _, _, err := OpenWriter(dir, c.then); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}
