package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/app"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/gpuinfo"
	"smart/internal/ktdata"
	"smart/models/roofline"
	"smart/space"
)

// benchArgs is a small simulated run: two 2-D stencils, three OCs, three settings each.
func benchArgs(out string, extra ...string) []string {
	return append([]string{"bench", "--backend", "sim", "--gpu", "A100-40GB", "--random", "2", "--dims", "2",
		"--samples", "3", "--oc", "BASE,ST,ST_RT", "--out", out}, extra...)
}

func TestBenchCUDAWithoutGPU(t *testing.T) {
	if n, err := gpuinfo.Open(); err == nil {
		n.Close()
		t.Skip("this machine has a GPU")
	} else if !errors.Is(err, gpuinfo.ErrNoGPU) {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "", "bench", "--random", "2", "--out", t.TempDir())
	if code != 1 || errs != "smart bench: no NVIDIA driver or GPU found; without one, --backend sim simulates the times with the analytic model\n" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestBenchSimStatsLabel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errs := runCLI(t, "", benchArgs(out, "--dry-run")...)
	if code != 0 || !strings.Contains(stdout, "18 variants: 0 already in the data set, 18 to run") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, errs)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the dry run wrote something")
	}
	// A --time under a second would measure nothing.
	code, stdout, errs = runCLI(t, "", benchArgs(out, "--time", "1ns")...)
	if _, err := os.Stat(out); code != 2 || stdout != "" || !strings.Contains(errs, "--time 1ns: too short to measure anything; give 1s or more") || err == nil {
		t.Fatalf("--time 1ns: exit %d (stat %v)\n%s\n%s", code, err, stdout, errs)
	}
	// The time spent before the first batch: the run stops there, says so, and resumes below.
	if stdout := benchSpent(t, app.Bench{Random: 2, Dims: 2, Samples: 3, OCs: []smart.Combination{0, smart.Combination(smart.ST), smart.Combination(smart.ST | smart.RT)},
		GPU: "A100-40GB", Out: out}, time.Nanosecond); !strings.Contains(stdout, "stopped by --time with 18 variants left") {
		t.Fatalf("--time spent:\n%s", stdout)
	}
	code, stdout, errs = runCLI(t, "", benchArgs(out, "--json")...)
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errs)
	}
	var rep app.BenchReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.Written != 18 || rep.Source != "simulated" {
		t.Fatalf("bench report %+v, %v", rep, err)
	}
	if !strings.Contains(errs, "bench [") || !strings.Contains(errs, "18/18") {
		t.Errorf("no progress bar on stderr: %q", errs)
	}
	// Run again: everything is there.
	code, stdout, _ = runCLI(t, "", benchArgs(out, "--json")...)
	if json.Unmarshal([]byte(stdout), &rep); code != 0 || rep.Written != 0 || rep.Skipped != 18 {
		t.Fatalf("second run: exit %d, %+v", code, rep)
	}
	// Another plan may not reuse the directory.
	code, _, errs = runCLI(t, "", append(benchArgs(out), "--samples", "4")...)
	if code != 1 || !strings.Contains(errs, "started differently: its settings drawn per OC: 3, now 4") {
		t.Fatalf("other plan: exit %d: %s", code, errs)
	}

	code, stdout, errs = runCLI(t, "", "dataset", "stats", out, "--json")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, errs)
	}
	var st dataset.Stats
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.Rows != 18 || len(st.Counts) != 3 {
		t.Fatalf("stats %+v, %v", st, err)
	}
	code, stdout, _ = runCLI(t, "", "dataset", "stats", out)
	if code != 0 || !strings.Contains(stdout, "Rows by GPU, OC and status") || !strings.Contains(stdout, "simulated on A100-40GB") {
		t.Fatalf("stats text: %s", stdout)
	}
	// Two stencils correlate nothing to merge OCs by: refused, a class an OC labelled.
	code, _, errs = runCLI(t, "", "dataset", "label", out, "--classes", "2")
	if code != 1 || !strings.Contains(errs, "needs their times' correlation over at least 3 instances") || !strings.Contains(errs, "--classes-from") {
		t.Fatalf("label two stencils into 2 classes: exit %d\n%s", code, errs)
	}
	code, stdout, errs = runCLI(t, "", "dataset", "label", out, "--classes", "3")
	if code != 0 || !strings.Contains(stdout, "3 OCs ran, each a class of its own") {
		t.Fatalf("label: exit %d\n%s\n%s", code, stdout, errs)
	}
	l, err := dataset.ReadLabels(out)
	if err != nil || len(l.Classes) != 3 || len(l.Instances) != 2 {
		t.Fatalf("labels.json %+v, %v", l, err)
	}

	// Another data set labelled with these classes, as a measured one beside simulations.
	other := filepath.Join(t.TempDir(), "other")
	if code, _, errs := runCLI(t, "", "bench", "--backend", "sim", "--gpu", "V100", "--random", "2", "--dims", "2", "--seed", "9",
		"--samples", "3", "--oc", "BASE,ST,ST_RT", "--out", other); code != 0 {
		t.Fatalf("bench: %s", errs)
	}
	if code, _, errs := runCLI(t, "", "dataset", "label", other, "--classes-from", out, "--classes", "3"); code != 2 || !strings.Contains(errs, "leave out --classes") {
		t.Errorf("--classes-from with --classes: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "dataset", "label", other, "--classes-from", filepath.Join(t.TempDir())); code != 1 || !strings.Contains(errs, "label the data set first") {
		t.Errorf("--classes-from an unlabelled directory: exit %d, %s", code, errs)
	}
	code, stdout, errs = runCLI(t, "", "dataset", "label", other, "--classes-from", out)
	if code != 0 || !strings.Contains(stdout, "3 OCs ran, each a class of its own") {
		t.Fatalf("label --classes-from: exit %d\n%s\n%s", code, stdout, errs)
	}
	lo, err := dataset.ReadLabels(other)
	if err != nil || len(lo.Instances) != 2 || len(lo.Merges) != 0 {
		t.Fatalf("labels.json %+v, %v", lo, err)
	}
	for i, c := range lo.Classes {
		if c.Label != l.Classes[i].Label || !slices.Equal(c.Members, l.Classes[i].Members) {
			t.Errorf("class %d: %+v; want %+v's", i, c, l.Classes[i])
		}
	}
}

// TestBenchTimeCountsDrawing: --time counts drawing the settings (a random 3-D stencil's 30
// spaces: seconds), so a limit spent there measures nothing and says what is left to resume.
func TestBenchTimeCountsDrawing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	stdout := benchSpent(t, app.Bench{Random: 1, Dims: 3, Samples: 2, Out: out}, time.Millisecond)
	if !strings.Contains(stdout, "0 of 60 variants written") || !strings.Contains(stdout, "stopped by --time with 60 variants left") {
		t.Fatalf("--time 1ms:\n%s", stdout)
	}
	code, stdout, _ := runCLI(t, "", "bench", "--backend", "sim", "--random", "1", "--dims", "3", "--samples", "2", "--out", out)
	if code != 0 || !strings.Contains(stdout, "60 of 60 variants written") {
		t.Fatalf("resume: exit %d\n%s", code, stdout)
	}
}

// benchSpent runs b as smart bench --backend sim with its flags' defaults would, but with a
// --time under the least the flag takes (b is opened directly), and returns what bench prints.
func benchSpent(t *testing.T, b app.Bench, limit time.Duration) string {
	t.Helper()
	b.Backend, b.Seed, b.MaxOrder, b.CUDA.Cut, b.Time = app.Sim, 1, smart.DefaultMaxOrder, -1, limit
	bg, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	sum, err := bg.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printBench(&env{stdout: &out}, bg.Report(sum), false, false); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestBenchShardsMerge(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, "shard"+s[:1])
		if code, _, errs := runCLI(t, "", benchArgs(out, "--shard", s)...); code != 0 {
			t.Fatalf("shard %s: %s", s, errs)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, errs := runCLI(t, "", append([]string{"dataset", "merge", "--out", merged}, shards...)...)
	if code != 0 || !strings.Contains(stdout, "18 rows from 2 data sets") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, errs)
	}
	other := filepath.Join(dir, "v100")
	if code, _, errs := runCLI(t, "", "bench", "--backend", "sim", "--gpu", "V100", "--random", "2", "--dims", "2",
		"--samples", "3", "--oc", "BASE,ST,ST_RT", "--out", other); code != 0 {
		t.Fatal(errs)
	}
	code, _, errs = runCLI(t, "", "dataset", "merge", "--out", filepath.Join(dir, "mixed"), merged, other)
	if code != 1 || !strings.Contains(errs, "differ in device") || !strings.HasSuffix(errs, "; give --allow-mixed if joining them into one data set is meant\n") {
		t.Fatalf("mixing devices: exit %d: %s", code, errs)
	}
	if code, _, errs = runCLI(t, "", "dataset", "merge", "--allow-mixed", "--out", filepath.Join(dir, "mixed"), merged, other); code != 0 {
		t.Fatalf("--allow-mixed: %s", errs)
	}
	// The same V100 simulated with other constants: no row could say which gave it, so even
	// --allow-mixed refuses, and the advice is to keep them apart.
	recal := filepath.Join(dir, "v100-recal")
	if code, _, errs := runCLI(t, "", "bench", "--backend", "sim", "--gpu", "V100", "--random", "2", "--dims", "2",
		"--samples", "3", "--oc", "BASE,ST,ST_RT", "--seed", "9", "--out", recal); code != 0 {
		t.Fatal(errs)
	}
	meta := filepath.Join(recal, "meta.json")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"origin": "literature"`, `"origin": "calibration", "file": "cal.json", "sha256": "0123456789ab"`, 1)
	if edited == string(b) {
		t.Fatalf("%s names no literature constants:\n%s", meta, b)
	}
	if err := os.WriteFile(meta, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "", "dataset", "merge", "--allow-mixed", "--out", filepath.Join(dir, "recal-mixed"), other, recal)
	if code != 1 || !strings.Contains(errs, "with different constants of the analytic model") || !strings.HasSuffix(errs, "; keep them as separate data sets (train and eval read several)\n") {
		t.Fatalf("mixing constants with --allow-mixed: exit %d: %s", code, errs)
	}
}

func TestDatasetImportCLI(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	out := filepath.Join(t.TempDir(), "kt")
	code, stdout, errs := runCLI(t, "", "dataset", "import", filepath.Join(root, "convolution_milo/A100.json.gz"), "--out", out)
	if code != 0 || !strings.Contains(stdout, "compile_error 6, launch_error 155") || !strings.Contains(stdout, "A100-40GB") {
		t.Fatalf("import: exit %d\n%s\n%s", code, stdout, errs)
	}
	code, stdout, _ = runCLI(t, "", "dataset", "stats", out)
	if code != 0 || !strings.Contains(stdout, "0.5499") || !strings.Contains(stdout, "imported on A100-40GB (NVIDIA A100-PCIE-40GB)") {
		t.Fatalf("stats of the import:\n%s", stdout)
	}
	if code, _, errs := runCLI(t, "", "dataset", "label", out); code != 1 || !strings.Contains(errs, "no stencil rows") {
		t.Fatalf("labelling a kernel data set: exit %d: %s", code, errs)
	}
}

func TestDatasetUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"dataset"}, 2, "name a subcommand"},
		{[]string{"dataset", "frobnicate"}, 2, `unknown subcommand "frobnicate"`},
		{[]string{"dataset", "stats"}, 2, "give one data set directory"},
		{[]string{"dataset", "stats", "/nonexistent"}, 1, "is not a data set"},
		{[]string{"dataset", "stats", "dataset_test.go"}, 1, "a data set is a directory"},
		{[]string{"dataset", "fastest"}, 2, "give the data sets"},
		{[]string{"dataset", "fastest", "/nonexistent/*/rows.csv"}, 1, "/nonexistent/*/rows.csv names no data set"},
		{[]string{"dataset", "fastest", "-o", "dataset_test.go", "../../data/measured/h200/random/j3d125pt"}, 2, "-o dataset_test.go: the file exists and is not a file of fastest measured variants that smart wrote; nothing was written: choose another name, or give --force"},
		// refused before the data sets are read
		{[]string{"dataset", "fastest", "-o", "dataset_test.go", "/nonexistent/*/rows.csv"}, 2, "-o dataset_test.go: the file exists"},
		{[]string{"dataset", "fastest", "../../data/measured/h200/random/j3d125pt", "../../data/measured/h200/random/*/rows.csv"}, 1, "j3d125pt is given twice"},
		{[]string{"dataset", "merge", "../../data/measured/h100-sxm/random/j3d19pt", "../../data/measured/h100-sxm/campaign", "--out", filepath.Join(t.TempDir(), "m")}, 1,
			"planned differently, not as shards of one plan (campaign manifest: none and 11592bff6318); give --allow-mixed"},
		{[]string{"bench", "--random", "2"}, 2, "--out: required: the data set directory"},
		{[]string{"bench", "--random", "2", "--out", "x", "--shard", "3/2"}, 2, `shard "3/2" is not of the form`},
		{[]string{"bench", "--random", "2", "--out", "x", "--oc", "BM_CM"}, 2, "--oc:"},
		{[]string{"bench", "--backend", "sim", "--gpu", "A1000000", "--random", "2", "--out", "x"}, 2, "--gpu: unknown GPU"},
	} {
		code, _, errs := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	for _, args := range [][]string{{"bench", "--help"}, {"dataset", "import", "--help"}, {"dataset", "merge", "--help"}, {"dataset", "label", "--help"}, {"dataset", "stats", "--help"}, {"dataset", "fastest", "--help"}} {
		code, stdout, _ := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stdout, "Example") {
			t.Errorf("%v: exit %d, no example in\n%s", args, code, stdout)
		}
	}
}

// BenchmarkSimRun measures the rows per second of 'smart bench --backend sim' once the settings
// are drawn: the analytic model's evaluation plus the append-only writes. Then it measures a
// resume of the finished run: opening the data set (reading every row's key) and skipping all.
func BenchmarkSimRun(b *testing.B) {
	ctx := context.Background()
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	gpu, _ := cat.Lookup(app.DefaultSimGPU)
	sts, _ := dataset.RandomStencils(4, 3, 4, 1)
	plan, _ := dataset.NewPlan(sts, smart.Combinations(), 20, 1)
	items, err := plan.Items(ctx, sts, gpu, func(ctx context.Context, st *smart.Stencil, oc smart.Combination, g smart.GPU) (*space.Space, error) {
		return space.ForStencilContext(ctx, st, oc, g)
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	meta := dataset.Meta{Sources: []smart.Source{smart.Simulated}, Devices: []dataset.Device{{GPU: gpu.Name, Name: "analytic model (roofline)"}},
		Params: dataset.StencilParams(), Plan: plan}
	root := b.TempDir()
	var dir string
	runs := 0
	b.Run("run", func(b *testing.B) {
		for b.Loop() {
			runs++
			dir = filepath.Join(root, fmt.Sprint("run", runs))
			w, err := dataset.Create(dir, meta)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := (&dataset.Runner{Evaluator: roofline.Evaluator{Catalog: cat}, GPU: gpu.Name}).Run(ctx, w, items); err != nil {
				b.Fatal(err)
			}
			w.Close()
		}
		b.ReportMetric(float64(len(items))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("resume", func(b *testing.B) {
		for b.Loop() {
			w, _, err := dataset.Resume(dir)
			if err != nil {
				b.Fatal(err)
			}
			sum, err := (&dataset.Runner{Evaluator: roofline.Evaluator{Catalog: cat}, GPU: gpu.Name}).Run(ctx, w, items)
			if err != nil || sum.Skipped != len(items) {
				b.Fatal(sum, err)
			}
			w.Close()
		}
		b.ReportMetric(float64(len(items))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// TestBenchSetting measures the settings given instead of random ones: each on every stencil,
// invalid where it is outside a stencil's space, and timed as the analytic model times it.
func TestBenchSetting(t *testing.T) {
	const base3 = "bx=256,by=1,bz=1,shared=0,const=0" // a 3-D BASE setting
	const tb2 = "bx=32,by=8,shared=1,const=0,tt=2"    // a 2-D TB setting
	out := filepath.Join(t.TempDir(), "picks")
	args := []string{"bench", "--backend", "sim", "--gpu", "H100-SXM", "j3d7pt", "j2d5pt",
		"--setting", "BASE:" + base3, "--setting", "TB:" + tb2, "--json", "--out", out}
	code, stdout, errs := runCLI(t, "", args...)
	var rep app.BenchReport
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.Written != 4 {
		t.Fatalf("exit %d, %+v, %v: %s", code, rep, err, errs)
	}
	_, rows, err := dataset.ReadAll(out)
	if err != nil || len(rows) != 4 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	cat, _ := catalog.Load("")
	j3, _ := loadStencil(&env{}, "j3d7pt", smart.Limits{})
	j2, _ := loadStencil(&env{}, "j2d5pt", smart.Limits{})
	for _, m := range rows {
		st := j2
		if m.StencilID == j3.ID() {
			st = j3
		}
		if valid := (m.OC.String() == "BASE") == (st == j3); !valid {
			if m.Status != smart.StatusInvalid || m.Error == "" {
				t.Errorf("%s on %s: status %s, error %q; want invalid with the reason", m.OC, st.Name, m.Status, m.Error)
			}
			continue
		}
		want, err := roofline.Evaluator{Catalog: cat}.Evaluate(context.Background(), smart.Query{Stencil: st, OC: m.OC, Setting: m.Setting, GPU: "H100-SXM"})
		if err != nil || m.Status != smart.StatusOK || want.TimeMs != m.TimeMs || m.TimeMs <= 0 {
			t.Errorf("%s on %s: %s, %v ms; the analytic model gives %v (%v)", m.OC, st.Name, m.Status, m.TimeMs, want.TimeMs, err)
		}
	}
	// Run again: the same settings are there; other settings are another plan.
	code, stdout, _ = runCLI(t, "", args...)
	if json.Unmarshal([]byte(stdout), &rep); code != 0 || rep.Written != 0 || rep.Skipped != 4 {
		t.Fatalf("second run: exit %d, %+v", code, rep)
	}
	code, _, errs = runCLI(t, "", "bench", "--backend", "sim", "--gpu", "H100-SXM", "j3d7pt", "j2d5pt", "--setting", "BASE:"+base3, "--out", out)
	if code != 1 || !strings.Contains(errs, "started differently") {
		t.Fatalf("other settings: exit %d: %s", code, errs)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--setting", base3}, "names no OC"},                          // --oc all
		{[]string{"--oc", "BASE,ST", "--setting", base3}, "names no OC"},       // two OCs
		{[]string{"--setting", "XX:" + base3}, `unknown optimization "XX"`},    // bad OC
		{[]string{"--setting", "BASE:bx"}, "--setting: bx"},                    // bad setting
		{[]string{"--setting", "BASE:" + base3, "--samples", "3"}, "not both"}, // both plans
		{[]string{"--setting", "BASE:" + base3, "--setting", "BASE:" + base3}, "repeats"},
		{[]string{"--oc", "BASE", "--setting", "bx=1,by=1,bz=1,shared=0,const=0"}, "fits no stencil: j3d7pt"},
	} {
		dir := filepath.Join(t.TempDir(), "bad")
		code, _, errs := runCLI(t, "", append([]string{"bench", "--backend", "sim", "j3d7pt", "--out", dir}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the refused run wrote %s", c.args, dir)
		}
	}
}

// TestReadsInterrupted: a command interrupted while it reads a data set exits 1 saying where it
// stopped and that it was interrupted, once, and dataset label writes no labels.
func TestReadsInterrupted(t *testing.T) {
	data := filepath.Join(t.TempDir(), "j3d125pt")
	if err := os.CopyFS(data, os.DirFS("../../data/measured/h100-sxm/random/j3d125pt")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"dataset", "stats", data},
		{"dataset", "fastest", data},
		{"dataset", "label", data},
		{"train", "--task", "runtime", "--data", data, "-o", filepath.Join(t.TempDir(), "rt.model")},
		{"eval", "../../data/models/runtime-3d.smartmodel.gz", "--data", data},
	} {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
		code := run(ctx, e, args)
		want := filepath.Join(data, dataset.RowsFile) + ": stopped after 0 rows: interrupted\n"
		if code != 1 || !strings.HasPrefix(errb.String(), "smart "+args[0]) || !strings.HasSuffix(errb.String(), want) || strings.Count(errb.String(), "interrupted") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 1 and a line ending %q", args, code, errb.String(), want)
		}
	}
	if _, err := os.Stat(filepath.Join(data, dataset.LabelsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted dataset label left %s: %v", dataset.LabelsFile, err)
	}
}
