package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models/roofline"
	"smart/predict"
)

// smallSpec is a campaign of a few stencils, quick to plan.
func smallSpec() Spec {
	s := DefaultSpec()
	s.PerDims, s.MaxOrder, s.Float32Every, s.LargeEvery = 4, 2, 2, 3
	s.Grid2D, s.Grid3D = [3]int{512, 512, 1}, [3]int{64, 64, 64}
	s.Large2D, s.Large3D = [3]int{1024, 1024, 1}, [3]int{128, 128, 128}
	return s
}

var planned = sync.OnceValues(func() (*Manifest, error) {
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpu, err := cat.Lookup("H100-SXM")
	if err != nil {
		return nil, err
	}
	return Plan(context.Background(), smallSpec(), gpu, ms, nil)
})

// manifest plans the small campaign once and saves it into a new directory.
func manifest(t *testing.T) (*Manifest, string) {
	t.Helper()
	m, err := planned()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "campaign")
	c := *m
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	return &c, dir
}

// TestPlanShape: the stencils come 2-D and 3-D in turn, orders in equal shares, the share of
// float32 asked, every LargeEvery-th again on the large grid with the same settings; per OC the
// predicted settings come first, fastest first, and no variant is listed twice.
func TestPlanShape(t *testing.T) {
	m, _ := manifest(t)
	spec := m.Spec
	ids := map[string]bool{}
	for _, st := range m.stencils {
		if ids[st.ID()] {
			t.Errorf("stencil %s (%s) is drawn twice", st.ID(), st.Name)
		}
		ids[st.ID()] = true
	}
	orders := map[[2]int]int{}
	var f32, large int
	for i, e := range m.Entries {
		st := m.stencils[i]
		if st.Dims != e.Dims || st.Order() != e.Order || st.Dtype != e.Dtype || st.Grid != e.Grid || st.ID() != e.ID {
			t.Errorf("entry %d (%s) does not describe its stencil %s: %+v", i, e.Name, st.Name, e)
		}
		if e.Large {
			large++
			prev := m.Entries[i-1]
			if prev.Index != e.Index || prev.Dims != e.Dims || prev.Large || e.Grid == prev.Grid || e.Name != prev.Name+"-large" {
				t.Errorf("large entry %d copies %+v", i, prev)
			}
			continue
		}
		orders[[2]int{e.Dims, e.Order}]++
		if e.Dtype == smart.Float32 {
			f32++
		}
	}
	for dims := 2; dims <= 3; dims++ {
		for o := 1; o <= spec.MaxOrder; o++ {
			if n := orders[[2]int{dims, o}]; n != spec.PerDims/spec.MaxOrder {
				t.Errorf("%d-D order %d: %d stencils; want %d", dims, o, n, spec.PerDims/spec.MaxOrder)
			}
		}
	}
	if want := 2 * spec.PerDims / spec.Float32Every; f32 != want {
		t.Errorf("%d float32 stencils; want %d", f32, want)
	}
	if want := 2 * ((spec.PerDims + spec.LargeEvery - 1) / spec.LargeEvery); large != want {
		t.Errorf("%d large copies; want %d", large, want)
	}
	largeOrders := map[int]int{}
	for _, e := range m.Entries {
		if e.Large {
			largeOrders[e.Order]++
		}
	}
	if len(largeOrders) != spec.MaxOrder || largeOrders[1] != largeOrders[spec.MaxOrder] {
		t.Errorf("large copies by order %v; want every order alike", largeOrders)
	}
	// Items, stencil by stencil.
	at := 0
	for i, e := range m.Entries {
		items := m.items[at : at+e.Items]
		at += e.Items
		seen := map[string]bool{}
		perOC := map[smart.Combination][2]int{}
		lastPredicted, predictedDone := 0.0, false
		for _, it := range items {
			key := it.OC.String() + " " + it.Setting.String()
			if seen[key] {
				t.Errorf("%s: %s listed twice", e.Name, key)
			}
			seen[key] = true
			c := perOC[it.OC]
			switch it.Origin {
			case "predicted":
				c[0]++
				if predictedDone || it.PredictedMs < lastPredicted {
					t.Errorf("%s: predicted %s out of order", e.Name, key)
				}
				lastPredicted = it.PredictedMs
			case "uniform":
				predictedDone = true
				if it.Invalid == "" {
					c[1]++
				}
			}
			perOC[it.OC] = c
		}
		if e.Large {
			prev := m.items[at-e.Items-m.Entries[i-1].Items : at-e.Items]
			for k := range items {
				if items[k].OC != prev[k].OC || !reflect.DeepEqual(items[k].Setting, prev[k].Setting) {
					t.Fatalf("%s: item %d is %s %s; its stencil's is %s %s", e.Name, k, items[k].OC, items[k].Setting, prev[k].OC, prev[k].Setting)
				}
			}
			continue
		}
		for oc, c := range perOC {
			if c[0] > spec.Predicted || c[1] > spec.Uniform {
				t.Errorf("%s %s: %d predicted and %d uniform", e.Name, oc, c[0], c[1])
			}
		}
		if n := len(perOC); n != len(smart.Combinations()) {
			t.Errorf("%s: items of %d OCs; want every one (an OC without a valid setting as an invalid item)", e.Name, n)
		}
	}
}

// TestManifestRoundTrip: a saved manifest loads to the same stencils and items; planning again
// writes the same bytes; an edited manifest or items file is refused.
func TestManifestRoundTrip(t *testing.T) {
	m, dir := manifest(t)
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash() != m.Hash() || len(got.items) != len(m.items) {
		t.Fatalf("loaded %d items, hash %s; saved %d, %s", len(got.items), got.Hash(), len(m.items), m.Hash())
	}
	for i := range m.items {
		a, b := m.items[i], got.items[i]
		if a.Stencil.ID() != b.Stencil.ID() || a.OC != b.OC || !reflect.DeepEqual(a.Setting, b.Setting) || a.Origin != b.Origin || a.Invalid != b.Invalid ||
			(a.PredictedMs == 0) != (b.PredictedMs == 0) {
			t.Fatalf("item %d: saved %+v, loaded %+v", i, a, b)
		}
	}
	// Items are deterministic: a second plan's items file is the same, byte for byte.
	again, err := Plan(context.Background(), m.Spec, mustGPU(t), mustModels(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := filepath.Join(t.TempDir(), "again")
	if err := again.Save(dir2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, ItemsFile))
	b, _ := os.ReadFile(filepath.Join(dir2, ItemsFile))
	if !bytes.Equal(a, b) {
		t.Error("planning the same spec twice wrote different items")
	}
	if err := m.Save(dir); err == nil {
		t.Error("Save overwrote a manifest")
	}

	data, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	for name, edit := range map[string]func(dir string){
		"items": func(d string) {
			os.WriteFile(filepath.Join(d, ItemsFile), append(slices.Clone(a), 0), 0o644)
		},
		"stencil id": func(d string) {
			os.WriteFile(filepath.Join(d, ManifestFile), bytes.Replace(data, []byte(m.Entries[0].ID), []byte("0123456789abcdef"), 1), 0o644)
		},
		"format": func(d string) {
			os.WriteFile(filepath.Join(d, ManifestFile), bytes.Replace(data, []byte(Format), []byte("smart-campaign/9"), 1), 0o644)
		},
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, ManifestFile), data, 0o644)
		os.WriteFile(filepath.Join(d, ItemsFile), a, 0o644)
		edit(d)
		if _, err := Load(d); err == nil {
			t.Errorf("edited %s: loaded", name)
		}
	}
}

func mustGPU(t *testing.T) smart.GPU {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.Lookup("H100-SXM")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustModels(t *testing.T) *predict.Models {
	t.Helper()
	ms, err := predict.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// stopAfter is the analytic model, cancelling its context after n evaluations: a lease that
// ends mid-call.
type stopAfter struct {
	roofline.Evaluator
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if s.n == 0 {
		s.cancel()
		return smart.Measurement{}, context.Canceled
	}
	s.n--
	return s.Evaluator.Evaluate(ctx, q)
}

// blocked is an evaluator that answers nothing before its context ends: a GPU whose first
// compile outlasts the call.
type blocked struct{}

func (blocked) Evaluate(ctx context.Context, _ smart.Query) (smart.Measurement, error) {
	<-ctx.Done()
	return smart.Measurement{}, ctx.Err()
}

// TestRunTooShort: a call whose time runs out before its first variant is measured says so
// (ErrTooShort: the next call would stop there too), not merely that it stopped; it is logged.
func TestRunTooShort(t *testing.T) {
	m, _ := manifest(t)
	out := filepath.Join(t.TempDir(), "out")
	c, err := (&Run{Manifest: m, Out: out, Evaluator: blocked{}, GPU: "H100-SXM", Device: dataset.Device{GPU: "H100-SXM", Name: "slow"},
		Source: smart.Simulated, StopAfter: time.Millisecond}).Do(context.Background())
	if !errors.Is(err, ErrTooShort) || !c.Stopped || c.Rows != 0 {
		t.Errorf("call %+v, %v; want it stopped with no rows and ErrTooShort", c, err)
	}
	if calls, err := ReadCalls(out); err != nil || len(calls) != 1 {
		t.Errorf("%d calls logged (%v); want it", len(calls), err)
	}
}

// TestRunResumes: a campaign measured in interrupted calls holds, row for row, what one
// uninterrupted call measures; each call is logged with its rows; the stencils measured are
// stored; a data set of another manifest is refused.
func TestRunResumes(t *testing.T) {
	m, dir := manifest(t)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := catalog.Default()
	sim := roofline.Evaluator{Catalog: cat}
	newRun := func(out string, ev smart.Evaluator) *Run {
		return &Run{Manifest: m, Out: out, Evaluator: ev, GPU: "H100-SXM", Device: dataset.Device{GPU: "H100-SXM", Name: "analytic model (roofline)"},
			Source: smart.Simulated}
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := newRun(whole, sim).Do(context.Background()); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(t.TempDir(), "parts")
	var calls int
	for _, n := range []int{7, 100, 1} {
		ctx, cancel := context.WithCancel(context.Background())
		c, err := newRun(parts, &stopAfter{Evaluator: sim, n: n, cancel: cancel}).Do(ctx)
		cancel()
		calls++
		if err == nil || c.Rows < n {
			t.Fatalf("interrupted call: %+v, %v; want at least %d rows and the interruption", c, err, n)
		}
	}
	// The last call on another card and driver of the same GPU model.
	final := newRun(parts, sim)
	final.Device.UUID, final.Device.Driver, final.Device.CUDA = "GPU-other", "999.1", "13.9"
	last, err := final.Do(context.Background())
	calls++
	if err != nil || last.StencilsDone != len(m.Entries) {
		t.Fatalf("last call: %+v, %v", last, err)
	}
	rows := func(dir string) []string {
		_, ms, err := dataset.ReadAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range ms {
			keys = append(keys, dataset.Key(r)+" "+string(r.Status)+" "+strconv.FormatFloat(r.TimeMs, 'g', -1, 64))
		}
		sort.Strings(keys)
		return keys
	}
	if a, b := rows(whole), rows(parts); !reflect.DeepEqual(a, b) || len(a) != len(m.items) {
		t.Fatalf("interrupted calls hold %d rows, one call %d, the manifest %d items", len(b), len(a), len(m.items))
	}
	logged, err := ReadCalls(parts)
	if err != nil || len(logged) != calls {
		t.Fatalf("%d calls logged, %v; want %d", len(logged), err, calls)
	}
	total := 0
	for _, c := range logged {
		total += c.Rows
		if c.Rows2D+c.Rows3D != c.Rows {
			t.Errorf("call %+v: rows by dimensionality do not add up", c)
		}
	}
	if total != len(m.items) {
		t.Errorf("the calls logged %d rows; the data set holds %d", total, len(m.items))
	}
	if c := logged[len(logged)-1]; c.UUID != "GPU-other" || c.Driver != "999.1" {
		t.Errorf("the last call logged card %q and driver %q", c.UUID, c.Driver)
	}
	for _, st := range m.stencils {
		if _, err := dataset.ReadStencil(parts, st.ID()); err != nil {
			t.Error(err)
		}
	}
	// Another manifest of the same stencils (here: this one edited) may not add to the data set.
	other := *m
	other.hash = strings.Repeat("0", 64)
	// Such a call never begins: it returns the zero Call and logs nothing.
	refused, err := (&Run{Manifest: &other, Out: parts, Evaluator: sim, GPU: "H100-SXM", Device: dataset.Device{GPU: "H100-SXM", Name: "analytic model (roofline)"},
		Source: smart.Simulated}).Do(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the manifest was edited after measuring began") || refused != (Call{}) {
		t.Errorf("a data set of another manifest: %+v, %v; want the zero Call and the error", refused, err)
	}
	// A damaged calls.csv: the call never begins, and the log is left as it is.
	damaged := filepath.Join(parts, CallsFile)
	log, _ := os.ReadFile(damaged)
	os.WriteFile(damaged, append(slices.Clone(log), "a,b\n"...), 0o644)
	if refused, err := newRun(parts, sim).Do(context.Background()); err == nil || !strings.Contains(err.Error(), "calls.csv: record on line") || refused != (Call{}) {
		t.Errorf("a damaged calls.csv: %+v, %v; want the zero Call and the error", refused, err)
	}
	if after, _ := os.ReadFile(damaged); string(after) != string(log)+"a,b\n" {
		t.Errorf("a refused call changed calls.csv:\n%s", after)
	}
	os.WriteFile(damaged, log, 0o644)
	status, err := m.Status(context.Background(), []string{parts})
	if err != nil || len(status) != 1 || status[0].Done != len(m.Entries) || status[0].Rows != len(m.items) || len(status[0].Calls) != calls {
		t.Errorf("status %+v, %v; want every stencil done, %d rows and %d calls", status, err, len(m.items), calls)
	}
	if _, err := other.Status(context.Background(), []string{parts}); err == nil || !strings.Contains(err.Error(), "with the same "+fmt.Sprint(len(m.Entries))+" stencils as the manifest in "+dir) {
		t.Errorf("the status of another manifest's data set: %v", err)
	}
}

// TestPlanRedrawsRepeats: order-1 2-D stencils repeat within a few dozen draws; each repeat is
// drawn again from an unused index, so every stencil of the manifest is distinct.
func TestPlanRedrawsRepeats(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 80 stencils' settings")
	}
	spec := smallSpec()
	spec.PerDims, spec.MaxOrder, spec.Float32Every, spec.LargeEvery, spec.Uniform, spec.Predicted = 40, 1, 0, 0, 1, 0
	m, err := Plan(context.Background(), spec, mustGPU(t), mustModels(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, redrawn := map[string]bool{}, 0
	for i, st := range m.stencils {
		if ids[st.ID()] {
			t.Fatalf("stencil %s (%s) is drawn twice", st.ID(), st.Name)
		}
		ids[st.ID()] = true
		if e := m.Entries[i]; e.Index >= spec.PerDims {
			redrawn++
			if e.Index%spec.PerDims != i/2 || !strings.HasSuffix(e.Name, fmt.Sprintf("-%04d", e.Index)) {
				t.Errorf("entry %d redrawn as %+v", i, e)
			}
		}
	}
	if redrawn == 0 {
		t.Error("no stencil was drawn again: the test no longer exercises repeats")
	}
}

// TestLargeShares: the default campaign measures 20 stencils of each dimensionality again on the
// large grid, 5 of every order.
func TestLargeShares(t *testing.T) {
	s := DefaultSpec()
	byOrder := map[int]int{}
	for i := 0; i < s.PerDims; i++ {
		if s.large(i) {
			byOrder[1+i%s.MaxOrder]++
		}
	}
	if want := map[int]int{1: 5, 2: 5, 3: 5, 4: 5}; !reflect.DeepEqual(byOrder, want) {
		t.Errorf("large copies by order %v; want %v", byOrder, want)
	}
}

// TestPlanRefusesAMD: smart's kernels are CUDA, so a manifest for an AMD GPU would hold variants
// that only ever record invalid.
func TestPlanRefusesAMD(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.Lookup("MI250X")
	if err != nil {
		t.Fatal(err)
	}
	spec := smallSpec()
	spec.GPU = gpu.Name
	if _, err := Plan(context.Background(), spec, gpu, nil, nil); !errors.Is(err, smart.ErrNotCUDA) {
		t.Errorf("Plan on %s: %v; want smart.ErrNotCUDA", gpu.Name, err)
	}
}

// TestSpecCheck: each field out of range is a SpecError naming it, in Go and in manifest.json.
func TestSpecCheck(t *testing.T) {
	for _, c := range []struct {
		change     func(*Spec)
		field, msg string
	}{
		{func(s *Spec) {}, "", ""},
		{func(s *Spec) { s.PerDims = 0 }, "PerDims", "per_dims is 0; use 1 or more"},
		{func(s *Spec) { s.MaxOrder = 9 }, "MaxOrder", "max_order is 9; use 1 to 8"},
		{func(s *Spec) { s.MaxOrder = 0 }, "MaxOrder", "max_order is 0; use 1 to 8"},
		{func(s *Spec) { s.Float32Every = -1 }, "Float32Every", "float32_every is -1; use 0 (none) or more"},
		{func(s *Spec) { s.LargeEvery = -1 }, "LargeEvery", "large_every is -1; use 0 (none) or more"},
		{func(s *Spec) { s.Uniform = -1 }, "Uniform", "uniform is -1; use 0 or more"},
		{func(s *Spec) { s.Predicted = -2 }, "Predicted", "predicted is -2; use 0 or more"},
		{func(s *Spec) { s.Uniform, s.Predicted = 0, 0 }, "Predicted", "predicted is 0; use 1 or more where uniform is 0 too"},
		{func(s *Spec) { s.GPU = "" }, "GPU", `gpu is ""; name the catalogue GPU`},
	} {
		s := DefaultSpec()
		c.change(&s)
		err := s.Check()
		var se *SpecError
		if c.field == "" {
			if err != nil {
				t.Errorf("the default spec: %v", err)
			}
			continue
		}
		if !errors.As(err, &se) || se.Field != c.field || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("%+v: %v; want a SpecError of %s: %q", s, err, c.field, c.msg)
		}
	}
}

// TestCallsRoundTrip: calls.csv holds a call to the millisecond, so that a call shorter than a
// second keeps its rate; and a call's JSON keys are calls.csv's columns.
func TestCallsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 9, 5, 0, 250e6, time.UTC)
	c := Call{Start: start, End: start.Add(300 * time.Millisecond), GPU: "H100-SXM", Source: smart.Simulated, Rows: 720, OK: 720,
		Rows2D: 360, Rows3D: 360, StencilsDone: 6, CompileS: 1.5}
	if err := appendCall(dir, c); err != nil {
		t.Fatal(err)
	}
	calls, err := ReadCalls(dir)
	if err != nil || len(calls) != 1 {
		t.Fatalf("read %+v, %v", calls, err)
	}
	if got := calls[0]; !got.Start.Equal(c.Start) || !got.End.Equal(c.End) || got.RowsPerMinute() != 144000 {
		t.Errorf("read %v to %v, %.0f rows a minute; want %v to %v, 144000", got.Start, got.End, got.RowsPerMinute(), c.Start, c.End)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range keys {
		got = append(got, k)
	}
	want := slices.Clone(callsHeader)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("a call's JSON keys are %v; want calls.csv's columns %v", got, want)
	}
}

// TestMeasuredIn: a data set of another manifest is told from one of this manifest edited by
// the stencils its plan names: all of them (edited), none (another manifest) or some (either).
func TestMeasuredIn(t *testing.T) {
	m := &Manifest{Entries: []Entry{{ID: "b"}, {ID: "a"}}, hash: strings.Repeat("1", 64), dir: "camp"}
	for _, c := range []struct {
		name string
		plan *dataset.Plan
		want string // "": accepted
	}{
		{"this manifest", &dataset.Plan{Manifest: m.hash, Stencils: []string{"a", "b"}}, ""},
		{"edited", &dataset.Plan{Manifest: strings.Repeat("2", 64), Stencils: []string{"a", "b"}},
			"d was measured from manifest 222222222222, with the same 2 stencils as the manifest in camp (111111111111): the manifest was edited after measuring began"},
		{"another", &dataset.Plan{Manifest: strings.Repeat("3", 64), Stencils: []string{"c", "d", "e"}},
			"d was measured from another manifest (333333333333), none of whose 3 stencils is among the 2 of the manifest in camp (111111111111): give that manifest, or measure this one into another directory"},
		{"either", &dataset.Plan{Manifest: strings.Repeat("4", 64), Stencils: []string{"a", "c"}},
			"d was measured from manifest 444444444444, 1 of whose 2 stencils is among the 2 of the manifest in camp (111111111111): another manifest, or this one edited"},
		{"no manifest", nil, "d is not a campaign data set"},
		{"a bench's plan", &dataset.Plan{Seed: 1, Samples: 10, Stencils: []string{"a", "c"}}, "d is not a campaign data set: it was measured from no manifest"},
	} {
		err := m.measuredIn("d", c.plan)
		if (c.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// deadlineOf is the analytic model, noting the deadline of its first query's context and
// cancelling the call's context after n evaluations: an interrupt.
type deadlineOf struct {
	roofline.Evaluator
	n        int
	deadline time.Time
	cancel   context.CancelFunc
}

func (d *deadlineOf) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if d.deadline.IsZero() {
		d.deadline, _ = ctx.Deadline()
	}
	if d.n == 0 {
		d.cancel()
		return smart.Measurement{}, context.Canceled
	}
	d.n--
	return d.Evaluator.Evaluate(ctx, q)
}

// TestRunClockAndStops: a call's time limit counts from its start, opening the data set and
// counting what it holds included, not from when its first variant is measured; an interrupted
// call is logged as stopped, as one stopped by its time limit is, whose variants are left.
func TestRunClockAndStops(t *testing.T) {
	m, _ := manifest(t)
	cat, _ := catalog.Default()
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ev := &deadlineOf{Evaluator: roofline.Evaluator{Catalog: cat}, n: 5, cancel: cancel}
	const limit = time.Hour
	c, err := (&Run{Manifest: m, Out: out, Evaluator: ev, GPU: "H100-SXM", Device: dataset.Device{GPU: "H100-SXM", Name: "analytic model (roofline)"},
		Source: smart.Simulated, StopAfter: limit}).Do(ctx)
	if !errors.Is(err, context.Canceled) || c.Rows != 5 {
		t.Fatalf("interrupted call: %+v, %v", c, err)
	}
	if want := c.Start.Add(limit); !ev.deadline.Equal(want) {
		t.Errorf("the call ran to %s; want its start plus %s, %s", ev.deadline, limit, want)
	}
	calls, err := ReadCalls(out)
	if err != nil || len(calls) != 1 || !calls[0].Stopped || !c.Stopped {
		t.Errorf("logged %+v (%v), returned stopped %v; want the interrupted call logged as stopped", calls, err, c.Stopped)
	}
}
