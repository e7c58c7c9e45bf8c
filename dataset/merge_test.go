package dataset

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
)

// runShard measures one shard of plan into a new data set and returns its directory.
func runShard(t *testing.T, sts []*smart.Stencil, plan *Plan, shard *Shard, meta Meta) string {
	t.Helper()
	ctx := context.Background()
	items, err := plan.Items(ctx, sts, smart.SM80(), testSpace, shard)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "shard")
	meta.Plan, meta.Shard = plan, shard
	w, err := Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if plan.InShard(st.ID(), shard) {
			w.AddStencil(st)
		}
	}
	if _, err := (&Runner{Evaluator: &fakeEval{}, GPU: meta.Devices[0].GPU}).Run(ctx, w, items); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sortedKeys(t *testing.T, dir string) []string {
	t.Helper()
	_, rows, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range rows {
		keys = append(keys, Key(m)+"|"+string(m.Status))
	}
	slices.Sort(keys)
	return keys
}

func TestMergeShards(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 5, 2)
	plan, _ := NewPlan(sts, testOCs, 3, 9)
	meta := simMeta(StencilParams(), nil, nil)
	whole := runShard(t, sts, plan, nil, meta)
	var shards []string
	for i := 1; i <= 3; i++ {
		shards = append(shards, runShard(t, sts, plan, &Shard{I: i, N: 3}, meta))
	}
	// Shards 1 and 3 ran on a GPU that measured its copy bandwidth; the merge keeps both records.
	at := time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)
	for i, gbs := range map[int]float64{0: 2900, 2: 2950} {
		if err := AppendCopyBandwidth(shards[i], CopyMeasurement{At: at, Device: "GPU", GBs: gbs}); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	// The second shard twice: its rows are duplicates, kept once.
	sum, err := Merge(ctx, out, append(shards, shards[1]), false)
	if err == nil || !strings.Contains(err.Error(), "are both shard 2/3") {
		t.Fatalf("merging a shard twice: %v", err)
	}
	sum, err = Merge(ctx, out, shards, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := sortedKeys(t, whole); !reflect.DeepEqual(sortedKeys(t, out), want) || sum.Rows != len(want) || sum.Duplicates != 0 {
		t.Fatalf("merged shards differ from the whole run (%+v)", sum)
	}
	m, err := ReadMeta(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != nil || !reflect.DeepEqual(m.Plan, plan) || len(m.MergedFrom) != 3 || m.AllowMixed {
		t.Fatalf("merged meta %+v", m)
	}
	stencils, err := filepath.Glob(filepath.Join(out, StencilsDir, "*.json"))
	if err != nil || len(stencils) != len(sts) {
		t.Fatalf("%d stencil files merged, want %d", len(stencils), len(sts))
	}
	copies, err := CopyBandwidths(out)
	if err != nil || len(copies) != 2 || copies[0].GBs != 2900 || copies[1].GBs != 2950 {
		t.Fatalf("merged copy bandwidths %v, %v; want 2900 and 2950", copies, err)
	}

	partial := filepath.Join(t.TempDir(), "partial")
	if sum, err := Merge(ctx, partial, shards[:2], false); err != nil || !slices.Equal(sum.MissingShards, []string{"3/3"}) {
		t.Fatalf("partial merge: %+v, %v", sum, err)
	}
	// Merging the whole run with the merged shards: every row is a duplicate.
	if sum, err := Merge(ctx, filepath.Join(t.TempDir(), "dups"), []string{whole, out}, false); err != nil || sum.Duplicates != sum.Rows {
		t.Fatalf("duplicates: %+v, %v", sum, err)
	}
}

func TestMergeRefusesMixing(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	a := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
	vmeta := simMeta(StencilParams(), nil, nil)
	vmeta.Devices = []Device{{GPU: "V100", Name: "analytic model"}}
	b := runShard(t, sts, plan, nil, vmeta)
	measured := simMeta(StencilParams(), nil, nil)
	measured.Sources = []smart.Source{smart.Measured}
	c, err := Create(filepath.Join(t.TempDir(), "measured"), measured)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	otherPlan, _ := NewPlan(sts, testOCs[:2], 3, 1)
	d := runShard(t, sts, otherPlan, nil, simMeta(StencilParams(), nil, nil))

	for _, tc := range []struct {
		with string
		want string
	}{
		{b, `differ in device ("analytic model" (A100-40GB) and "analytic model" (V100))`},
		{c.Dir(), "differ in source"},
		{d, "were planned differently, not as shards of one plan (settings drawn per OC: 2 and 3)"},
	} {
		_, err := Merge(ctx, filepath.Join(t.TempDir(), "m"), []string{a, tc.with}, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, new(*MixedError)) {
			t.Errorf("merge with %s: %v; want a *MixedError saying %q", tc.with, err, tc.want)
		}
	}
	out := filepath.Join(t.TempDir(), "mixed")
	sum, err := Merge(ctx, out, []string{a, b}, true)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := ReadMeta(out)
	if !m.AllowMixed || len(m.Devices) != 2 || sum.Rows != 2*2*2*2 {
		t.Fatalf("mixed merge: %+v, %+v", m, sum)
	}
	st, err := ComputeStats(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	gpus := map[string]int{}
	for _, c := range st.Counts {
		gpus[c.GPU] += c.Rows
	}
	if !reflect.DeepEqual(gpus, map[string]int{"A100-40GB": 8, "V100": 8}) {
		t.Fatalf("rows per GPU %v", gpus)
	}
}

// A merge that fails leaves no out directory, nor anything beside it, and one never writes into
// a directory that holds something.
func TestMergeFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	good := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
	vmeta := simMeta(StencilParams(), nil, nil)
	vmeta.Devices = []Device{{GPU: "V100", Name: "analytic model"}}
	damaged := runShard(t, sts, plan, nil, vmeta)
	rowsPath := filepath.Join(damaged, RowsFile)
	rows, err := os.ReadFile(rowsPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(rows), "\n")
	lines[4] = "1,2,damaged\n"
	if err := os.WriteFile(rowsPath, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		prepare func(out string) // what out holds before the merge
		want    []string         // in the error
	}{
		{"damaged input", func(string) {}, []string{rowsPath + ":5:"}},
		{"out holds a data set", func(out string) {
			if err := os.CopyFS(out, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
		}, []string{"already holds a data set", "choose another directory"}},
		{"out holds a file", func(out string) {
			os.Mkdir(out, 0o755)
			os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
		}, []string{"is not empty"}},
	} {
		parent := t.TempDir()
		out := filepath.Join(parent, "m")
		tc.prepare(out)
		before := listTree(t, parent)
		_, err := Merge(ctx, out, []string{good, damaged}, true)
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v; want one saying %q", tc.name, err, want)
			}
		}
		if after := listTree(t, parent); !reflect.DeepEqual(after, before) {
			t.Errorf("%s: the failed merge changed what %s holds from %v to %v", tc.name, parent, slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
		}
	}

	// An empty out directory, made ready for the merge, is filled.
	out := filepath.Join(t.TempDir(), "m")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if sum, err := Merge(ctx, out, []string{good}, false); err != nil || sum.Rows != 8 {
		t.Fatalf("merge into an empty directory: %+v, %v", sum, err)
	}
	if !reflect.DeepEqual(sortedKeys(t, out), sortedKeys(t, good)) {
		t.Error("the merge of one data set differs from it")
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("merged directory: %v, %v; want mode 0755", st.Mode(), err)
	}
}

// listTree lists what is under dir, by path relative to it: the files with their contents, the
// directories as "/".
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || d.IsDir() {
			files[rel] = "/"
			return err
		}
		b, err := os.ReadFile(path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestMergeFormats: data sets of every format merge into one of this Format (a format is no
// mix of devices or sources); the rows of the older formats have no compiler's facts, those of
// this one keep theirs, and the inputs are left as they were.
func TestMergeFormats(t *testing.T) {
	base := t.TempDir()
	v1, v2, v3 := filepath.Join(base, "v1"), filepath.Join(base, "v2"), filepath.Join(base, "v3")
	writeOldDataSet(t, v1, FormatV1, v1Header+"\n"+v1Row+"\n")
	writeOldDataSet(t, v2, FormatV2, v1Header+",runs,cut\n"+strings.Replace(v1Row, ",BASE,1,", ",BASE,2,", 1)+",5,slow\n")
	w, err := Create(v3, Meta{Sources: []smart.Source{smart.Measured}, Devices: []Device{{GPU: "H100-SXM", Name: "NVIDIA H100 80GB HBM3"}}, Params: StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	fresh := smart.Measurement{StencilID: "433dc349080b0b78", GPU: "H100-SXM", Device: "NVIDIA H100 80GB HBM3", Setting: smart.Setting{"bx": 8, "by": 4, "bz": 64, "shared": 0, "const": 0},
		Status: smart.StatusOK, TimeMs: 5, MinMs: 5, MaxMs: 5, MeanMs: 5, Reps: 5, Runs: 5, Source: smart.Measured,
		Compiled: &smart.Compiled{RegsPerThread: 96, LocalBytesPerThread: 0}}
	if err := w.Append(fresh); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{}
	for _, d := range []string{v1, v2, v3} {
		inputs[d], _ = os.ReadFile(filepath.Join(d, RowsFile))
	}
	out := filepath.Join(base, "merged")
	if _, err := Merge(context.Background(), out, []string{v1, v2, v3}, false); err != nil {
		t.Fatal(err)
	}
	meta, rows, err := ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Format != Format || len(rows) != 3 {
		t.Fatalf("merged: format %s, %d rows; want %s, 3", meta.Format, len(rows), Format)
	}
	for i, want := range []*smart.Compiled{nil, nil, fresh.Compiled} {
		if !reflect.DeepEqual(rows[i].Compiled, want) {
			t.Errorf("row %d (%s): compiler facts %v; want %v", i, rows[i].Setting, rows[i].Compiled, want)
		}
	}
	if rows[1].Cut != smart.CutSlow || !reflect.DeepEqual(rows[2], fresh) {
		t.Errorf("merged rows:\n%+v\n%+v", rows[1], rows[2])
	}
	for d, before := range inputs {
		if after, _ := os.ReadFile(filepath.Join(d, RowsFile)); !slices.Equal(after, before) {
			t.Errorf("merging changed %s", d)
		}
	}
}

// TestDistinct: data sets that hold the same rows are refused together, naming both: a data set
// and its copy, and a merge and a data set it was merged from (given by a relative path or not);
// two shards, and a merge with data sets it was not merged from, are not.
func TestDistinct(t *testing.T) {
	sts := testStencils(t, 4, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	meta := simMeta(StencilParams(), nil, nil)
	a := runShard(t, sts, plan, &Shard{I: 1, N: 2}, meta)
	b := runShard(t, sts, plan, &Shard{I: 2, N: 2}, meta)
	other := runShard(t, sts, plan, nil, meta)
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(context.Background(), merged, []string{a, b}, false); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(b))
	for _, c := range []struct {
		dirs []string
		want string // "": accepted
	}{
		{[]string{a, b}, ""},
		{[]string{merged, other}, ""},
		{[]string{a, cp}, "data sets " + a + " and " + cp + " are the same data set (one copies the other); give it once"},
		{[]string{merged, b}, "data set " + merged + " was merged from " + b + ", also given"},
		{[]string{filepath.Base(b), merged}, "data set " + merged + " was merged from " + filepath.Base(b) + ", also given"},
	} {
		metas := make([]Meta, len(c.dirs))
		for i, d := range c.dirs {
			var err error
			if metas[i], err = ReadMeta(d); err != nil {
				t.Fatal(err)
			}
		}
		err := Distinct(c.dirs, metas)
		if (c.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v; want %q", c.dirs, err, c.want)
		}
	}
}
