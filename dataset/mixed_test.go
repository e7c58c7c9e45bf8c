package dataset

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

// sourced is fakeEval answering as another source and device: a GPU that measured the variants
// the analytic model simulated.
type sourced struct {
	fakeEval
	source smart.Source
	device string
}

func (s *sourced) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	m, err := s.fakeEval.Evaluate(ctx, q)
	m.Source, m.Device, m.TimeMs = s.source, s.device, m.TimeMs*2
	return m, err
}

// runWith measures plan into a new data set of meta with ev, and returns its directory.
func runWith(t *testing.T, sts []*smart.Stencil, plan *Plan, meta Meta, ev smart.Evaluator) string {
	t.Helper()
	items, err := plan.Items(context.Background(), sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "set")
	meta.Plan = plan
	w, err := Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		w.AddStencil(st)
	}
	if _, err := (&Runner{Evaluator: ev, GPU: meta.Devices[0].GPU}).Run(context.Background(), w, items); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMergeKeepsEverySource: a row is a duplicate only where its variant, source and device
// match one merged already: the same variants simulated and measured on one GPU are all kept,
// whichever comes first. The readers of such a merge keep the sources apart: stats by source,
// fastest the measured rows alone, and labels, which name no source, refuse the stencils of two.
func TestMergeKeepsEverySource(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 3, 1)
	meta := simMeta(StencilParams(), nil, nil)
	sim := runWith(t, sts, plan, meta, &fakeEval{})
	meta.Sources, meta.Devices = []smart.Source{smart.Measured}, []Device{{GPU: "A100-40GB", Name: "NVIDIA A100-PCIE-40GB"}}
	measured := runWith(t, sts, plan, meta, &sourced{source: smart.Measured, device: "NVIDIA A100-PCIE-40GB"})
	_, simRows, _ := ReadAll(sim)
	n := len(simRows)

	for _, tc := range []struct {
		name       string
		dirs       []string
		mixed      bool
		rows, dups int
	}{
		{"simulated, then measured", []string{sim, measured}, true, 2 * n, 0},
		{"measured, then simulated", []string{measured, sim}, true, 2 * n, 0},
		{"one source twice", []string{sim, sim, measured}, true, 2 * n, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m")
			sum, err := Merge(ctx, out, tc.dirs, tc.mixed)
			if err != nil || sum.Rows != tc.rows || sum.Duplicates != tc.dups {
				t.Fatalf("merge: %+v, %v; want %d rows, %d duplicates", sum, err, tc.rows, tc.dups)
			}
			_, rows, err := ReadAll(out)
			if err != nil {
				t.Fatal(err)
			}
			bySource := map[smart.Source]int{}
			for _, m := range rows {
				bySource[m.Source]++
			}
			if want := map[smart.Source]int{smart.Simulated: n, smart.Measured: n}; !reflect.DeepEqual(bySource, want) {
				t.Errorf("rows by source %v; want %v", bySource, want)
			}
		})
	}

	mixed := filepath.Join(t.TempDir(), "mixed")
	if _, err := Merge(ctx, mixed, []string{sim, measured}, true); err != nil {
		t.Fatal(err)
	}
	s, err := ComputeStats(context.Background(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	wins := map[smart.Source]int{}
	for _, b := range s.BestOC {
		wins[b.Source] += b.Stencils
	}
	if want := map[smart.Source]int{smart.Simulated: 2, smart.Measured: 2}; !reflect.DeepEqual(wins, want) || len(s.Gap) != 2 {
		t.Errorf("best OCs by source %v, gaps %+v; want each source's 2 stencils apart", wins, s.Gap)
	}
	var text strings.Builder
	if err := s.WriteTables(&text, "mixed"); err != nil || !strings.Contains(text.String(), "A100-40GB (measured)") || !strings.Contains(text.String(), "A100-40GB (simulated)") {
		t.Errorf("stats of the merge (%v) do not tell the sources of the GPU apart:\n%s", err, text.String())
	}
	if _, err := ComputeLabels(context.Background(), mixed, LabelOptions{}); err == nil || !strings.Contains(err.Error(), "has rows of two sources, measured and simulated") {
		t.Errorf("labelling stencils timed by two sources: %v; want it refused", err)
	}
	f, err := FastestMeasured(context.Background(), []string{mixed})
	if err != nil {
		t.Fatal(err)
	}
	alone, _ := FastestMeasured(context.Background(), []string{measured})
	for i := range f.Fastest {
		f.Fastest[i].DataSets, f.Fastest[i].From, f.Fastest[i].To = nil, alone.Fastest[i].From, alone.Fastest[i].To
		alone.Fastest[i].DataSets = nil
	}
	if !reflect.DeepEqual(f.Fastest, alone.Fastest) {
		t.Errorf("fastest of the merge %+v; want the measured set's %+v", f.Fastest, alone.Fastest)
	}
}

// TestKernelProblemSizes: one kernel tuned on two problem sizes is refused in one data set,
// imported together or merged, naming both files and sizes; the rows of one size would be
// taken for the other's. A file that gives no size goes with either.
func TestKernelProblemSizes(t *testing.T) {
	dir := t.TempDir()
	cache := func(name, size string, time int) string {
		path := filepath.Join(dir, name)
		ps := ""
		if size != "" {
			ps = `"problem_size":` + size + `,`
		}
		os.WriteFile(path, []byte(`{"device_name":"X","kernel_name":"k",`+ps+`"tune_params_keys":["a"],"tune_params":{"a":[1,2]},
			"objective":"time","cache":{"1":{"time":`+string(rune('0'+time))+`},"2":{"time":4}}}`), 0o644)
		return path
	}
	small, large, none := cache("small.json", "[4096, 4096]", 1), cache("large.json", "[8192, 8192]", 4), cache("none.json", "", 2)
	for _, tc := range []struct {
		name  string
		files []string
		want  string // "": imported
	}{
		{"two sizes", []string{small, large}, "kernel k was tuned on problem size [4096 4096] in " + small + " but [8192 8192] in " + large},
		{"a size and none", []string{none, small}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "set")
			_, err := Import(context.Background(), out, tc.files, ImportOptions{})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "":
				if m, _ := ReadMeta(out); !slices.Equal(m.Kernels[0].ProblemSize, []int{4096, 4096}) {
					t.Errorf("problem size %v; want the one given", m.Kernels[0].ProblemSize)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), "import them into separate data sets") || !errors.As(err, new(*SizeError)):
				t.Errorf("import: %v; want a *SizeError saying %q", err, tc.want)
			}
		})
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for i, f := range []string{small, large} {
		if _, err := Import(context.Background(), []string{a, b}[i], []string{f}, ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Merge(context.Background(), filepath.Join(t.TempDir(), "m"), []string{a, b}, true)
	if err == nil || !strings.Contains(err.Error(), "merging "+b+": kernel k was tuned on problem size [4096 4096]") || !strings.HasSuffix(err.Error(), "keep them in separate data sets") {
		t.Errorf("merge of two sizes: %v", err)
	}
}

// TestMergeNamesUnfinished: an input that lacks some of its plan's variants (a run stopped
// and not resumed) is named: fewer rows than its items file lists, or no row of a stencil and
// OC of its shard where it has none; a finished one is not.
func TestMergeNamesUnfinished(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 4, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	meta := simMeta(StencilParams(), nil, nil)
	cut := func(dir string, keep int) { // rows.csv with its header and first keep rows
		b, _ := os.ReadFile(filepath.Join(dir, RowsFile))
		lines := strings.SplitAfter(string(b), "\n")
		os.WriteFile(filepath.Join(dir, RowsFile), []byte(strings.Join(lines[:1+keep], "")), 0o644)
	}
	saveItems := func(dir string, shard *Shard) {
		items, err := plan.Items(ctx, sts, smart.SM80(), testSpace, shard)
		if err != nil {
			t.Fatal(err)
		}
		if err := SaveItems(dir, items); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		prepare func(dir string, shard *Shard)
		want    *Unfinished // Dir filled in
	}{
		{"finished", func(dir string, shard *Shard) { saveItems(dir, shard) }, nil},
		{"one row short", func(dir string, shard *Shard) { saveItems(dir, shard); cut(dir, 7) }, &Unfinished{Shard: "2/2", Rows: 7, Variants: 8}},
		{"no items file, a stencil's OC missing", func(dir string, shard *Shard) { cut(dir, 6) }, &Unfinished{Shard: "2/2", Rows: 6, Unmeasured: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			one := runShard(t, sts, plan, &Shard{I: 1, N: 2}, meta)
			saveItems(one, &Shard{I: 1, N: 2})
			two := runShard(t, sts, plan, &Shard{I: 2, N: 2}, meta)
			tc.prepare(two, &Shard{I: 2, N: 2})
			sum, err := Merge(ctx, filepath.Join(t.TempDir(), "m"), []string{one, two}, false)
			if err != nil {
				t.Fatal(err)
			}
			var want []Unfinished
			if tc.want != nil {
				tc.want.Dir = two
				want = []Unfinished{*tc.want}
			}
			if !reflect.DeepEqual(sum.Unfinished, want) {
				t.Errorf("unfinished %+v; want %+v", sum.Unfinished, want)
			}
			var text strings.Builder
			sum.WriteText(&text, "m", 2)
			if said := strings.Contains(text.String(), "shard 2/2 ("+two+") is unfinished"); said != (tc.want != nil) {
				t.Errorf("the summary:\n%s", text.String())
			}
		})
	}
}

// TestMergeRemovesStaleTemporaries: a merge removes what a killed merge into the same directory
// left behind, and nothing else: not a temporary a running merge holds, not one holding files
// no merge writes, not another directory's.
func TestMergeRemovesStaleTemporaries(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	input := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(ctx, merged, []string{input}, false); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	copyTo := func(name string) string {
		dir := filepath.Join(parent, name)
		if err := os.CopyFS(dir, os.DirFS(merged)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale, running, other := copyTo(".m.merging-111"), copyTo(".m.merging-222"), copyTo(".n.merging-333")
	begun := filepath.Join(parent, ".m.merging-444") // killed before it wrote anything
	os.Mkdir(begun, 0o755)
	foreign := copyTo(".m.merging-555")
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	held, err := os.Open(running)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := lockFile(held); err != nil {
		t.Fatal(err)
	}

	sum, err := Merge(ctx, filepath.Join(parent, "m"), []string{input}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{stale, begun}; !reflect.DeepEqual(sum.Removed, want) {
		t.Errorf("removed %v; want %v", sum.Removed, want)
	}
	for _, dir := range []string{stale, begun} {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is left: %v", dir, err)
		}
	}
	for _, dir := range []string{running, other, foreign} {
		if _, err := os.Stat(filepath.Join(dir, RowsFile)); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

// TestCheckOpen: what OpenWriter would refuse is refused before the run, and nothing changes:
// a directory of someone else's files, a data set another run writes, one with a damaged line,
// one started differently.
func TestCheckOpen(t *testing.T) {
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	meta := simMeta(StencilParams(), plan, nil)
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dir string) // dir: a data set of meta's run
		exists  bool
		want    string // "": accepted
	}{
		{"new", func(t *testing.T, dir string) { os.RemoveAll(dir) }, false, ""},
		{"the same run", func(*testing.T, string) {}, true, ""},
		{"someone else's files", func(t *testing.T, dir string) {
			os.RemoveAll(dir)
			os.Mkdir(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
		}, false, "is not empty and holds no data set (notes.txt, ...)"},
		{"being written", func(t *testing.T, dir string) {
			w, _, err := Resume(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
		}, true, "is being written by another run"},
		{"a damaged line", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, RowsFile))
			lines := strings.SplitAfter(string(b), "\n")
			lines[2] = "1,2,damaged\n"
			os.WriteFile(filepath.Join(dir, RowsFile), []byte(strings.Join(lines, "")), 0o644)
		}, true, RowsFile + ":3: the row has 3 fields"},
		{"started differently", func(t *testing.T, dir string) {
			other := meta
			other.Devices = []Device{{GPU: "V100", Name: "analytic model"}}
			os.RemoveAll(dir)
			w, err := Create(dir, other)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
		}, true, "holds a data set started differently"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runShard(t, sts, plan, nil, meta)
			tc.prepare(t, dir)
			before := map[string]string{}
			if _, err := os.Stat(dir); err == nil {
				before = listTree(t, dir)
			}
			exists, err := CheckOpen(dir, meta)
			if exists != tc.exists || (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckOpen: %v, %v; want %v and %q", exists, err, tc.exists, tc.want)
			}
			after := map[string]string{}
			if _, err := os.Stat(dir); err == nil {
				after = listTree(t, dir)
			}
			if !reflect.DeepEqual(after, before) {
				t.Errorf("CheckOpen changed %s", dir)
			}
		})
	}
}

// TestOlderLabelsRead: a labels.json written before labels counted the stencils measured under
// only some OCs (no field "incomplete") still reads, as 0 of them.
func TestOlderLabelsRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LabelsFile), []byte(`{"format":"smart-labels/1","created":"2026-11-22T17:08:29Z","sources":["measured"],
		"devices":[{"gpu":"H100-SXM","name":"NVIDIA H100 80GB HBM3"}],"rows":2,"ocs":["BASE"],"pcc":[[null]],"relative":false,
		"classes_requested":5,"merges":null,"classes":[{"label":"BASE","members":["BASE"],"wins":1}],
		"instances":[{"stencil_id":"s1","gpu":"H100-SXM","best":"BASE","best_ms":1,"class":"BASE"}],"unlabelled":0}`), 0o644)
	if l, err := ReadLabels(dir); err != nil || l.Incomplete != 0 || len(l.Instances) != 1 {
		t.Errorf("older labels: %+v, %v", l, err)
	}
}

// TestLabelsLeaveOutIncomplete: a stencil measured under only some OCs (those of the data set's
// plan, or without one, of the others on its GPU) is left out of labels and stats, and counted.
func TestLabelsLeaveOutIncomplete(t *testing.T) {
	sts := testStencils(t, 3, 2)
	plan, _ := NewPlan(sts, testOCs[:3], 2, 1)
	for _, tc := range []struct {
		name       string
		plan       *Plan
		drop       smart.Combination // the OC whose rows are dropped
		of         int               // of how many stencils
		instances  int
		incomplete int
		err        string
	}{
		{"all measured", plan, testOCs[2], 0, 3, 0, ""},
		{"one stencil short of an OC", plan, testOCs[2], 1, 2, 1, ""},
		{"no stencil under an OC of the plan", plan, testOCs[2], 3, 0, 3, "no stencil measured under every OC with an ok time to label (3 measured under only some)"},
		{"no plan, no stencil under an OC", nil, testOCs[2], 3, 3, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
			meta, rows, err := ReadAll(dir)
			if err != nil {
				t.Fatal(err)
			}
			meta.Plan = tc.plan
			dropped := map[string]bool{}
			kept := slices.DeleteFunc(rows, func(m smart.Measurement) bool {
				if m.OC != tc.drop || len(dropped) == tc.of && !dropped[m.StencilID] {
					return false
				}
				dropped[m.StencilID] = true
				return true
			})
			out := filepath.Join(t.TempDir(), "set")
			w, err := Create(out, Meta{Sources: meta.Sources, Devices: meta.Devices, Params: meta.Params, Plan: meta.Plan})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Append(kept...); err != nil {
				t.Fatal(err)
			}
			w.Close()
			l, err := ComputeLabels(context.Background(), out, LabelOptions{Classes: 3}) // no merge: two instances correlate nothing
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("labels: %v; want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case len(l.Instances) != tc.instances || l.Incomplete != tc.incomplete:
				t.Errorf("%d instances, %d incomplete; want %d and %d", len(l.Instances), l.Incomplete, tc.instances, tc.incomplete)
			}
			s, err := ComputeStats(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			best, left := 0, 0
			for _, b := range s.BestOC {
				best += b.Stencils
			}
			for _, in := range s.Incomplete {
				left += in.Stencils
			}
			gap := 0
			for _, g := range s.Gap {
				gap += g.Stencils
			}
			if best != tc.instances || gap != tc.instances || left != tc.incomplete {
				t.Errorf("stats: best OCs of %d stencils, ratios of %d, %d incomplete; want %d, %d and %d", best, gap, left, tc.instances, tc.instances, tc.incomplete)
			}
			// Partial labels every stencil, the incomplete ones by the best of their OCs, and
			// still counts them.
			p, err := ComputeLabels(context.Background(), out, LabelOptions{Classes: 2, Partial: true})
			if err != nil || len(p.Instances) != 3 || p.Incomplete != tc.incomplete || p.Unlabelled != 0 {
				t.Errorf("partial labels: %v; want 3 instances, %d incomplete, none unlabelled", err, tc.incomplete)
			}
		})
	}
}
