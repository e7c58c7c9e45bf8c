package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"smart/app"
	"smart/internal/ktdata"
)

func TestTuneKernelTunerCLI(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	for _, method := range []string{"random", "bayes", "descent"} {
		t.Run(method, func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace.csv")
			code, stdout, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+filepath.Join(root, "convolution_milo/W7800.json.gz"),
				"--method", method, "--budget", "25", "--seed", "3", "--json", "--trace", trace)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var out map[string]any
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("--json printed %q: %v", stdout, err)
			}
			for _, k := range []string{"best_setting", "best_time_ms", "evaluations", "method", "seed", "source", "trace"} {
				if _, ok := out[k]; !ok {
					t.Errorf("--json lacks %s: %s", k, stdout)
				}
			}
			if out["evaluations"] != 25.0 || out["method"] != method || out["seed"] != 3.0 || out["source"] != "imported" {
				t.Errorf("output %v", out)
			}
			b, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 26 || !strings.HasPrefix(lines[0], "evaluation,best_ms") {
				t.Errorf("trace has %d lines, header %q", len(lines), lines[0])
			}
		})
	}
}

// TestTuneLabelledCLI: a kernel tuned over a float, a string and a boolean parameter (smart
// holds them as codes) is reported with the values as Kernel Tuner holds them: in the text, and
// as best_values in --json. The exhaustive search finds the fastest of the four.
func TestTuneLabelledCLI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.json")
	os.WriteFile(path, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["alpha","method","shmem"],
		"tune_params":{"alpha":[0.5,2.5],"method":["fast","exact"],"shmem":[false,true]},"objective":"time","cache":{
		"0.5,fast,False":{"time":3.0},"2.5,fast,False":{"time":2.0},"0.5,exact,True":{"time":1.5},"2.5,exact,True":{"time":4.0}}}`), 0o644)
	code, out, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+path, "--method", "random", "--budget", "10")
	if code != 0 || !strings.Contains(out, "best setting of k: alpha=0.5,method=exact,shmem=True") {
		t.Errorf("exit %d, stderr %q; want the best setting with its values in:\n%s", code, errs, out)
	}
	code, out, errs = runCLI(t, "", "tune", "--evaluator", "replay:"+path, "--method", "random", "--budget", "10", "--json")
	var rep struct {
		BestValues map[string]any `json:"best_values"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !reflect.DeepEqual(rep.BestValues, map[string]any{"alpha": 0.5, "method": "exact", "shmem": true}) {
		t.Errorf("exit %d, %v, stderr %q: best_values %v", code, err, errs, rep.BestValues)
	}
}

// TestTuneKTTCLI: a KTT file replays, its time reported as KTT's total duration in milliseconds.
func TestTuneKTTCLI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ktt.json")
	os.WriteFile(path, []byte(`{"Metadata":{"Device":"NVIDIA GeForce RTX 3090","TimeUnit":"Microseconds","KttVersion":"2.1.0"},"Results":[
		{"KernelName":"k","Status":"Ok","TotalDuration":1500,"Configuration":[{"Name":"B","Value":8,"ValueType":"UnsignedInt"}]},
		{"KernelName":"k","Status":"Ok","TotalDuration":1200,"Configuration":[{"Name":"B","Value":16,"ValueType":"UnsignedInt"}]}]}`), 0o644)
	code, out, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+path, "--method", "random", "--budget", "5")
	if code != 0 || !strings.Contains(out, "best setting of k: B=16") || !strings.Contains(out, "time: 1.2 ms, imported (NVIDIA GeForce RTX 3090); objective mean_ms (KTT's total duration)") {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
}

// TestTuneRecordCLI: a tuning run recorded with --record and continued with a larger budget
// runs only the new settings and ends where a run of that budget from the start ends; a record
// of another GPU, or of a replay, is refused.
func TestTuneRecordCLI(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec")
	tune := func(budget string, extra ...string) map[string]any {
		t.Helper()
		args := append([]string{"tune", "j3d7pt", "--evaluator", "sim", "--oc", "ST_RT", "--method", "bayes", "--budget", budget, "--json"}, extra...)
		code, stdout, errs := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("--json printed %q: %v", stdout, err)
		}
		return out
	}
	first := tune("30", "--record", rec)
	if first["recorded_evaluations"] != nil || first["record"] != rec {
		t.Fatalf("first run: %v", first)
	}
	resumed := tune("60", "--record", rec)
	whole := tune("60")
	if resumed["recorded_evaluations"] != 30.0 || resumed["evaluations"] != 60.0 {
		t.Fatalf("resumed run: %v evaluations, %v recorded; want 60 and 30", resumed["evaluations"], resumed["recorded_evaluations"])
	}
	for _, k := range []string{"trace", "best_setting", "best_time_ms"} {
		if !reflect.DeepEqual(resumed[k], whole[k]) {
			t.Errorf("%s: resumed %v, whole run %v", k, resumed[k], whole[k])
		}
	}
	b, err := os.ReadFile(filepath.Join(rec, "rows.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 61 || !strings.Contains(lines[1], ",simulated,") {
		t.Errorf("rows.csv has %d lines; want a header and 60 simulated rows", len(lines))
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--gpu", "v100", "--record", rec}, 1, "started differently"},
		{[]string{"tune", "j3d7pt", "--evaluator", "model:x.model", "--record", rec}, 2, "cuda or sim"},
		{[]string{"tune", "j3d7pt", "--evaluator", "model:../../data/models/runtime-2d.smartmodel.gz"}, 1, "trained on 2-D stencils"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "bayes", "--surrogate", "model:../../data/models/runtime-2d.smartmodel.gz"}, 1, "trained on 2-D stencils"},
	} {
		if code, _, errs := runCLI(t, "", c.args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// cancelOnBar is a terminal's stderr that cancels when a progress bar first draws (a write
// beginning with a carriage return).
type cancelOnBar struct {
	bytes.Buffer
	cancel func()
}

func (w *cancelOnBar) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("\r")) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// TestTuneInterrupted: a search cancelled part way (Ctrl-C) still prints its best setting and
// writes its trace, and exits 1 saying it was interrupted; an output that cannot be written is
// refused before the search.
func TestTuneInterrupted(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.csv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	// Ctrl-C (signal.NotifyContext's cancel) as the progress bar first draws, after the first
	// evaluations of an exhaustive search of 380894 settings (13 s on an idle core): part way,
	// whatever the machine's load.
	errb := &cancelOnBar{cancel: cancel}
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: errb, interactive: true}, []string{"tune", "j3d7pt", "--evaluator", "sim",
		"--method", "exhaustive", "--oc", "ST_BM_RT_TB", "--budget", "0", "--json", "--trace", trace})
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("exit %d, stdout %q: %v; stderr %s", code, out.String(), err, errb.String())
	}
	n, _ := res["evaluations"].(float64)
	if code != 1 || res["stop"] != "cancelled" || res["best_setting"] == nil || n < 1 || !strings.Contains(errb.String(), "interrupted after") {
		t.Fatalf("exit %d, stop %v, best %v, %v evaluations; stderr %s", code, res["stop"], res["best_setting"], n, errb.String())
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != int(n)+1 {
		t.Errorf("the trace has %d lines for %v evaluations", lines, n)
	}

	missing := filepath.Join(t.TempDir(), "no", "trace.csv")
	code, stdout, errs := runCLI(t, "", "tune", "j3d7pt", "--evaluator", "sim", "--budget", "5", "--trace", missing)
	if code != 1 || stdout != "" || !strings.Contains(errs, "does not exist") || strings.Contains(errs, "evaluations") {
		t.Errorf("unwritable --trace: exit %d, stdout %q, stderr %q; want it refused before the search", code, stdout, errs)
	}
}

func TestTuneStencilCLI(t *testing.T) {
	emit := filepath.Join(t.TempDir(), "best.cu")
	code, stdout, errs := runCLI(t, "", "tune", "j3d7pt", "--evaluator", "sim", "--oc", "ST", "--method", "cstuner",
		"--budget", "40", "--initial", "16", "--emit", emit)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "best setting of j3d7pt under ST") || !strings.Contains(stdout, "simulated") {
		t.Errorf("stdout %q", stdout)
	}
	if b, err := os.ReadFile(emit); err != nil || !strings.Contains(string(b), "__global__") {
		t.Errorf("--emit wrote %d bytes: %v", len(b), err)
	}
}

// TestTuneEmbeddedModel checks what model:embedded resolves to: as a prior on the H100 the
// runtime model of the H100's own measurements, as the evaluator on the A100 the simulated
// default, which answers every query.
func TestTuneEmbeddedModel(t *testing.T) {
	code, stdout, errs := runCLI(t, "", "tune", "j3d7pt", "--gpu", "h100", "--evaluator", "sim", "--oc", "ST",
		"--method", "bayes", "--surrogate", "model:embedded", "--budget", "12", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var out struct {
		Prior string `json:"prior"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if want := "model:embedded: embedded measured/h100-sxm/models/runtime-3d.smartmodel (trained on measurements of this GPU)"; out.Prior != want {
		t.Errorf("prior %q, want %q", out.Prior, want)
	}
	code, stdout, errs = runCLI(t, "", "tune", "j3d7pt", "--gpu", "a100", "--evaluator", "model:embedded", "--oc", "ST",
		"--method", "random", "--budget", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "model:embedded is embedded runtime-3d.smartmodel (simulated") || !strings.Contains(stdout, "10 evaluations (0 failed)") {
		t.Errorf("stdout %q, stderr %q", stdout, errs)
	}
}

// TestTunePipelineClassifier checks which OCs the pipeline searches: the first --variants in
// the order given without a classifier, and with the embedded one the most probable class's
// own OC and then its first other member, the order smart predict reports for the same stencil.
func TestTunePipelineClassifier(t *testing.T) {
	code, stdout, errs := runCLI(t, "", "predict", "j3d7pt", "--gpu", "h100", "--json")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errs)
	}
	var pred struct {
		Classes []struct {
			OC      string   `json:"oc"`
			Members []string `json:"members"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(stdout), &pred); err != nil || len(pred.Classes) == 0 {
		t.Fatalf("predict --json: %v\n%s", err, stdout)
	}
	top := pred.Classes[0]
	want := []string{top.OC}
	for _, m := range top.Members {
		if m != top.OC && len(want) < 2 {
			want = append(want, m)
		}
	}
	for _, c := range []struct {
		clf      []string
		ocs      []string
		ranker   string
		stderrIs string
	}{
		{nil, []string{"BASE", "ST"}, "", "the pipeline searches BASE,ST, the first 2 of the 30 OCs in the order given"},
		{[]string{"--classifier", "embedded"}, want, "embedded select-3d.smartmodel (trained on measured and simulated data of this GPU)", "the first 2 of the 30 OCs ranked by embedded select-3d.smartmodel"},
	} {
		args := append([]string{"tune", "j3d7pt", "--gpu", "h100", "--evaluator", "sim", "--method", "pipeline", "--budget", "12", "--json"}, c.clf...)
		code, stdout, errs := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.clf, code, errs)
		}
		var out struct {
			OCs        []string `json:"ocs"`
			Classifier string   `json:"classifier"`
			BestOC     string   `json:"best_oc"`
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.OCs, c.ocs) || !strings.HasPrefix(out.Classifier, c.ranker) || (c.ranker == "") != (out.Classifier == "") ||
			!slices.Contains(c.ocs, out.BestOC) || !strings.Contains(errs, c.stderrIs) {
			t.Errorf("%v: ocs %v, classifier %q, best %s, stderr %q; want ocs %v, classifier %q..., stderr with %q",
				c.clf, out.OCs, out.Classifier, out.BestOC, errs, c.ocs, c.ranker, c.stderrIs)
		}
	}
}

func TestTuneUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tune", "j3d7pt"}, 2, "--evaluator: none named; use cuda, sim"},
		{[]string{"tune", "--evaluator", "sim"}, 2, "--evaluator sim: needs a stencil"},
		{[]string{"tune", "--evaluator", "sim", "--record", "x"}, 2, "--record: keeps the runs of a stencil"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "annealing"}, 2, "--method"},
		{[]string{"tune", "j3d7pt", "--evaluator", "gpu"}, 2, "use cuda, sim"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--batch", "-1"}, 2, "--batch -1: use 0"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--oc", "BASE,ST", "--method", "cstuner"}, 2, "searches the space of one OC"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--oc", ""}, 2, `the list "" has an empty name`}, // not BASE alone
		{[]string{"verify", "j3d7pt", "--oc", "BASE,,ST"}, 2, `the list "BASE,,ST" has an empty name`},
		{[]string{"space", "j3d7pt", "--oc", " "}, 2, "--oc: is empty"},
		{[]string{"tune", "--evaluator", "replay:/nonexistent.json.gz"}, 1, "--evaluator replay:/nonexistent.json.gz: open /nonexistent.json.gz"},
		{[]string{"tune", "j3d7pt", "--evaluator", "model:/nonexistent.model"}, 1, "--evaluator model:/nonexistent.model: model file /nonexistent.model: no such file"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "bayes", "--surrogate", "model:/nonexistent.model"}, 1, "--surrogate model:/nonexistent.model: model file /nonexistent.model: no such file"},
		{[]string{"tune", "--evaluator", "replay:/nonexistent.json.gz", "--method", "annealing"}, 2, "--method"}, // before any file
		{[]string{"tune-bench"}, 2, "give Kernel Tuner cache files"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.want)
		}
	}
	if code, stdout, _ := runCLI(t, "", "tune", "--help"); code != 0 || !strings.Contains(stdout, "Examples:") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
}

// TestTuneTransferCLI tunes a Kernel Tuner cache with a prior from the same kernel on other
// GPUs, and refuses priors that are no such thing.
func TestTuneTransferCLI(t *testing.T) {
	root := ktdata.Require(t, "convolution_milo")
	conv := func(gpu string) string { return filepath.Join(root, "convolution_milo", gpu+".json.gz") }
	code, stdout, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+conv("W6600"), "--method", "bayes", "--budget", "10",
		"--surrogate", "transfer:"+conv("A4000")+","+conv("MI250X")+"@MI250X,"+conv("W7800"), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out["evaluations"] != 10.0 || !strings.HasPrefix(out["prior"].(string), "transfer:") || out["source"] != "imported" {
		t.Errorf("output %v", out)
	}
	// The prior is the sources' geometric mean, of both vendors: a ranking, not the target's times.
	if !strings.Contains(errs, "prior: the geometric mean of convolution_kernel's times in the imported measurements on NVIDIA RTX A4000, MI250X, AMD Radeon PRO W7800, as a ranking of the settings (not times on AMD Radeon PRO W6600)") {
		t.Errorf("stderr does not say what the prior is: %q", errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "bayes", "--surrogate", "transfer:" + conv("W6600")}, "the GPU being tuned"},
		// A cache that names no device needs its GPU named, as smart transfer has it.
		{[]string{"--method", "bayes", "--surrogate", "transfer:" + conv("A4000") + "," + conv("MI250X")}, "--surrogate: " + conv("MI250X") + ": the file does not name its device: name its GPU as " + conv("MI250X") + "@GPU"},
		{[]string{"--method", "bayes", "--surrogate", "sim"}, "transfer:CACHE"},
		{[]string{"--method", "iterml", "--surrogate", "transfer:" + conv("A4000")}, "pipeline and bayes"},
		{[]string{"--method", "pipeline", "--classifier", "embedded"}, "a Kernel Tuner kernel has none"},
	} {
		args := append([]string{"tune", "--evaluator", "replay:" + conv("W6600"), "--budget", "5"}, c.args...)
		code, _, errs := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if other, ok := ktdata.Dir("dedispersion_milo"); ok {
		code, _, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+conv("W6600"), "--budget", "5", "--method", "bayes",
			"--surrogate", "transfer:"+filepath.Join(other, "dedispersion_milo", "A4000.json.gz"))
		if code != 2 || !strings.Contains(errs, "holds kernel dedispersion_kernel") {
			t.Errorf("a prior of another kernel: exit %d, stderr %q", code, errs)
		}
	}
}

// TestTuneBenchCLI compares two strategies on two GPUs' caches of one kernel: each GPU's
// transfer prior is the other's cache, and the optimum is read from the whole cache.
func TestTuneBenchCLI(t *testing.T) {
	root := ktdata.Require(t, "dedispersion_milo")
	files := []string{filepath.Join(root, "dedispersion_milo", "W6600.json.gz"), filepath.Join(root, "dedispersion_milo", "W7800.json.gz")}
	code, stdout, errs := runCLI(t, "", append([]string{"tune-bench", "--methods", "random,bayes-transfer", "--seeds", "2",
		"--random-seeds", "3", "--budget", "300", "--ratios", "", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var out app.Comparison
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Cases) != 2 || out.Cases[0].Settings != 11130 || len(out.Reach) != 4 {
		t.Fatalf("cases %+v, %d results", out.Cases, len(out.Reach))
	}
	for _, r := range out.Reach {
		want := map[string]int{"random": 3, "bayes-transfer": 2}[r.Method]
		if r.Seeds != want || len(r.Evaluations) != want {
			t.Errorf("%s on %s: %d seeds, want %d", r.Method, r.Case, r.Seeds, want)
		}
		for _, e := range r.Evaluations {
			if e < 0 || e > 300 {
				t.Errorf("%s on %s: %d evaluations with a budget of 300", r.Method, r.Case, e)
			}
		}
	}
	if code, _, errs := runCLI(t, "", "tune-bench", "--methods", "random,bayes-transfer", files[0]); code != 2 || !strings.Contains(errs, "needs a prior") {
		t.Errorf("bayes-transfer on one file: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "tune-bench", "--methods", "annealing", files[0]); code != 2 || !strings.Contains(errs, "bayes-transfer") {
		t.Errorf("unknown strategy: exit %d, %q", code, errs)
	}
}

// TestTuneBenchInterrupted: Ctrl-C during tune-bench prints the rows whose seeds all finished
// and says how far it got (exit 1).
func TestTuneBenchInterrupted(t *testing.T) {
	root := ktdata.Require(t, "dedispersion_milo")
	files := []string{filepath.Join(root, "dedispersion_milo", "W6600.json.gz"), filepath.Join(root, "dedispersion_milo", "W7800.json.gz")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errw := &cancelOnProgress{cancel: cancel}
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: errw, interactive: true}
	code := run(ctx, e, append([]string{"tune-bench", "--methods", "random", "--random-seeds", "40", "--budget", "5000",
		"--ratios", "", "--parallel", "1"}, files...))
	m := regexp.MustCompile(`interrupted after (\d+) of 80 searches; the (\d+) rows of 2`).FindStringSubmatch(errw.String())
	if code != 1 || m == nil || m[1] == "80" {
		t.Fatalf("exit %d, stderr %q", code, errw.String())
	}
	// Rows are printed whole or not at all: the first file's only once its 40 seeds finished.
	rows := strings.Count(out.String(), "dedispersion")
	if want := map[string]int{"0": 0, "1": 1}[m[2]]; rows != want {
		t.Errorf("%s complete rows but %d printed:\n%s", m[2], rows, out.String())
	}
}

// TestTuneNothingRan: a search that ends without a successful evaluation exits 1 saying why,
// the time limit or the failures, and its --json claims no best OC, setting or time.
func TestTuneNothingRan(t *testing.T) {
	// Every configuration of this cache failed.
	failed := filepath.Join(t.TempDir(), "failed.json")
	if err := os.WriteFile(failed, []byte(`{"device_name":"X","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2,3]},
		"objective":"time","cache":{"1":{"time":"RuntimeFailedConfig"},"2":{"time":"CompilationFailedConfig"},"3":{"time":"RuntimeFailedConfig"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		args       []string
		stdoutHas  string // in the text output
		stderrHas  string
		evaluation float64
	}{
		{"time ran out", []string{"j2d5pt", "--evaluator", "sim", "--method", "random", "--time", "1ns"},
			"", "--time 1ns: ran out before random finished any evaluation", 0},
		// --time counts building the 30 spaces of j3d7pt (hundreds of ms) as well: none is left.
		{"time spent building the spaces", []string{"j3d7pt", "--evaluator", "sim", "--method", "random", "--time", "1ms"},
			"", "--time 1ms: ran out before random finished any evaluation", 0},
		{"all failed", []string{"--evaluator", "replay:" + failed, "--method", "random", "--budget", "2"},
			"random found no setting that runs: all 2 evaluations failed", "no setting ran successfully in 2 evaluations", 2},
		{"all failed, space spent", []string{"--evaluator", "replay:" + failed, "--method", "exhaustive"},
			"all 3 evaluations failed", "the first failure:", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, errs := runCLI(t, "", append([]string{"tune"}, c.args...)...)
			if code != 1 || !strings.Contains(errs, c.stderrHas) || (c.stdoutHas == "" && stdout != "") || !strings.Contains(stdout, c.stdoutHas) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, stdout %q, stderr with %q", code, stdout, errs, c.stdoutHas, c.stderrHas)
			}
			code, stdout, errs = runCLI(t, "", append([]string{"tune", "--json"}, c.args...)...)
			var out map[string]any
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("--json printed %q: %v", stdout, err)
			}
			if code != 1 || !strings.Contains(errs, c.stderrHas) || out["evaluations"] != c.evaluation {
				t.Errorf("--json: exit %d, %v evaluations, stderr %q; want exit 1, %v evaluations, stderr with %q",
					code, out["evaluations"], errs, c.evaluation, c.stderrHas)
			}
			for _, k := range []string{"best_oc", "best_setting", "best_time_ms"} {
				if v, ok := out[k]; ok && v != nil {
					t.Errorf("--json claims %s %v with nothing run successfully", k, v)
				}
			}
		})
	}
}

// TestTuneReplayDataSetCLI: a smart data set holds a sample of each OC's space, not all of it:
// every method searches the settings it holds, and says so, on the data set's only GPU where
// --gpu names none. A data set of an imported Kernel Tuner cache tunes its kernel.
func TestTuneReplayDataSetCLI(t *testing.T) {
	const classic = "../../data/measured/h100-sxm/classic"
	for _, c := range []struct {
		method string
		gpu    []string
	}{{"bayes", []string{"--gpu", "H100-SXM"}}, {"random", nil}, {"exhaustive", nil}, {"pipeline", nil}, {"descent", nil}} {
		args := append([]string{"tune", "j3d7pt", "--evaluator", "replay:" + classic, "--method", c.method, "--budget", "30", "--json"}, c.gpu...)
		code, stdout, errs := runCLI(t, "", args...)
		var out map[string]any
		if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil {
			t.Errorf("%s: exit %d, %v: %s", c.method, code, err, errs)
			continue
		}
		if out["source"] != "measured" || out["evaluations"].(float64) < 1 || !strings.Contains(errs, "holds a sample of each OC's space, not all of it: the search covers only the") {
			t.Errorf("%s: output %v, stderr %q", c.method, out, errs)
		}
		if c.gpu == nil && !strings.Contains(errs, "tuning for the H100-SXM, the GPU of j3d7pt's rows") {
			t.Errorf("%s without --gpu: stderr %q; want the data set's GPU taken", c.method, errs)
		}
	}
	if code, _, errs := runCLI(t, "", "tune", "j3d7pt", "--evaluator", "replay:"+classic, "--gpu", "a100", "--method", "random"); code != 2 || !strings.Contains(errs, "holds no rows of j3d7pt on the A100-40GB; it holds H100-SXM") {
		t.Errorf("another GPU: exit %d, stderr %q", code, errs)
	}

	root := ktdata.Require(t, "convolution_milo")
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errs := runCLI(t, "", "dataset", "import", filepath.Join(root, "convolution_milo", "W7800.json.gz"), "--out", set); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	code, stdout, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+set, "--method", "random", "--budget", "10", "--json")
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil || out["kernel"] != "convolution_kernel" || out["evaluations"] != 10.0 {
		t.Errorf("an imported data set: exit %d, %v, output %v, stderr %q", code, err, out, errs)
	}
}

// TestTuneKernelTunerRefusals: flags that do not apply to a Kernel Tuner kernel are refused,
// and space.json's errors are reported as its own.
func TestTuneKernelTunerRefusals(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "A4000.json")
	os.WriteFile(cache, []byte(`{"device_name":"NVIDIA RTX A4000","kernel_name":"k","tune_params_keys":["a","b"],"tune_params":{"a":[1,2],"b":[1,2]},
		"objective":"time","cache":{"1,1":{"time":1},"1,2":{"time":2},"2,1":{"time":3},"2,2":{"time":4}}}`), 0o644)
	spaceJSON := func(condition string) {
		os.WriteFile(filepath.Join(dir, "space.json"), []byte(`{"ConfigurationSpace":{"TuningParameters":[
			{"Name":"a","Type":"int","Values":"[1, 2]"},{"Name":"b","Type":"int","Values":"[1, 2]"}],
			"Conditions":[{"Expression":"`+condition+`"}]}}`), 0o644)
	}
	for _, c := range []struct {
		condition string
		args      []string
		code      int
		want      string
	}{
		{"a < 3", []string{"--gpu", "v100"}, 2, "--gpu v100: does not apply to a Kernel Tuner kernel whose file names its device: " + cache + " was measured on NVIDIA RTX A4000"},
		{"a < 3", []string{"--oc", "ST"}, 2, "--oc: only a stencil has OCs to choose"},
		{"a < 3 +", nil, 1, filepath.Join(dir, "space.json") + `: constraint "a < 3 +": column`},
		{"c < 3", nil, 1, filepath.Join(dir, "space.json") + `: restriction "c < 3" reads c`},
		{"a > 5", nil, 1, filepath.Join(dir, "space.json") + ": its conditions (a > 5) leave kernel k no configuration"},
	} {
		spaceJSON(c.condition)
		args := append([]string{"tune", "--evaluator", "replay:" + cache, "--method", "random", "--budget", "3"}, c.args...)
		if code, _, errs := runCLI(t, "", args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v with %q: exit %d, stderr %q; want exit %d and %q", c.args, c.condition, code, errs, c.code, c.want)
		}
	}
}

// TestTuneBenchDefaultsCLI: with the default --methods, those that need a prior are left out
// where no file has one, with a note, and the JSON writes a seed that did not get there as null.
// A cache and its T4 twin, one GPU's data, are refused.
func TestTuneBenchDefaultsCLI(t *testing.T) {
	code, stdout, errs := runCLI(t, "", "tune-bench", "--sim", "j2d5pt", "--seeds", "1", "--random-seeds", "2", "--budget", "3", "--ratios", "0.001", "--json")
	if code != 0 || !strings.Contains(errs, "leaving out pipeline-transfer and bayes-transfer") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if strings.Contains(stdout, `"evaluations":[0`) || strings.Contains(stdout, `,0]`) || strings.Contains(stdout, `"Case"`) {
		t.Errorf("--json writes a seed that did not get there as 0, or capitalised keys:\n%s", stdout)
	}
	root := ktdata.Require(t, "convolution_milo")
	conv := filepath.Join(root, "convolution_milo")
	code, _, errs = runCLI(t, "", "tune-bench", "--methods", "random", "--random-seeds", "1", "--ratios", "",
		filepath.Join(conv, "A100.json.gz"), filepath.Join(conv, "A100_T4.json.gz"))
	if code != 1 || !strings.Contains(errs, "hold the same settings and times of convolution_kernel: they are one GPU's data") {
		t.Errorf("a cache and its T4 twin: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "", "tune", "--evaluator", "replay:"+filepath.Join(conv, "A100.json.gz"), "--method", "bayes",
		"--surrogate", "transfer:"+filepath.Join(conv, "A100_T4.json.gz")+"@A100-80GB", "--budget", "3")
	if code != 2 || !strings.Contains(errs, "it is the same GPU's data") {
		t.Errorf("a prior of the same GPU's data: exit %d, stderr %q", code, errs)
	}
}

// TestTuneBenchCatalog: the simulated stencil's GPU may be one a --catalog file names, as the
// advice on an unknown GPU says.
func TestTuneBenchCatalog(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "gpus.json")
	os.WriteFile(cat, []byte(`{"format": "smart-gpus/1", "gpus": [{"name": "A100-40GB", "aliases": ["cluster-a100"]}]}`), 0o644)
	args := []string{"tune-bench", "--sim", "j2d5pt", "--gpu", "cluster-a100", "--methods", "random", "--random-seeds", "1", "--budget", "3", "--ratios", ""}
	if code, _, errs := runCLI(t, "", args...); code != 2 || !strings.Contains(errs, "--catalog FILE") {
		t.Errorf("without the catalogue: exit %d, stderr %q", code, errs)
	}
	code, stdout, errs := runCLI(t, "", append(args, "--catalog", cat)...)
	if code != 0 || !strings.Contains(stdout, "j2d5pt ST_TB on A100-40GB (simulated)") {
		t.Errorf("with the catalogue: exit %d, stderr %q\n%s", code, errs, stdout)
	}
}

// TestTuneBenchHelpExample: the help's example of every GPU's cache names each of the six once,
// not the A100's T4 twin as well, and the help cites nothing a user cannot look up.
func TestTuneBenchHelpExample(t *testing.T) {
	help := helpText("tune-bench")
	if strings.Contains(help, "issue 9") {
		t.Error("the help cites issue 9")
	}
	m := regexp.MustCompile(`smart tune-bench (data/kernel-tuner/convolution_milo/\S+)\s+# takes minutes`).FindStringSubmatch(help)
	if m == nil {
		t.Fatalf("no example of every GPU's cache in:\n%s", help)
	}
	out, err := exec.Command("bash", "-c", "cd ../.. && printf '%s\\n' "+m[1]).Output()
	if err != nil {
		t.Skipf("bash: %v", err)
	}
	want := []string{"A100", "A4000", "A6000", "MI250X", "W6600", "W7800"}
	var got []string
	for _, f := range strings.Fields(string(out)) {
		got = append(got, strings.TrimSuffix(filepath.Base(f), ".json.gz"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s names %v; want %v", m[1], got, want)
	}
}

// TestTuneDataSetDeviceCLI: --gpu picks a device of a data set of imported caches by any name
// the catalogue resolves to its GPU (an alias, the driver's name); without it, the error says
// which flag names one.
func TestTuneDataSetDeviceCLI(t *testing.T) {
	src, set := t.TempDir(), filepath.Join(t.TempDir(), "set")
	var files []string
	for _, dev := range []string{"NVIDIA A100-PCIE-40GB", "NVIDIA RTX A4000"} {
		f := filepath.Join(src, strings.ReplaceAll(dev, " ", "_")+".json")
		os.WriteFile(f, []byte(`{"device_name":"`+dev+`","kernel_name":"k","tune_params_keys":["a"],"tune_params":{"a":[1,2]},
			"objective":"time","cache":{"1":{"time":1},"2":{"time":2}}}`), 0o644)
		files = append(files, f)
	}
	if code, _, errs := runCLI(t, "", append([]string{"dataset", "import", "--allow-mixed", "--out", set}, files...)...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	for _, c := range []struct {
		gpu  []string
		code int
		want string
	}{
		{[]string{"--gpu", "a4000"}, 0, "as measured on NVIDIA RTX A4000"},
		{[]string{"--gpu", "NVIDIA A100-PCIE-40GB"}, 0, "as measured on NVIDIA A100-PCIE-40GB"},
		{[]string{"--gpu", "RTX-A4000"}, 0, "as measured on NVIDIA RTX A4000"},
		{[]string{"--gpu", "h100"}, 2, `--gpu h100: ` + set + ` holds no rows of kernel k on "H100-SXM"; it holds "NVIDIA A100-PCIE-40GB" (A100-40GB), "NVIDIA RTX A4000" (RTX-A4000)`},
		{nil, 2, "measured on 2 devices (\"NVIDIA A100-PCIE-40GB\" (A100-40GB), \"NVIDIA RTX A4000\" (RTX-A4000)); name the one to tune on with --gpu\n"},
	} {
		args := append([]string{"tune", "--evaluator", "replay:" + set, "--method", "random", "--budget", "2"}, c.gpu...)
		if code, _, errs := runCLI(t, "", args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.gpu, code, errs, c.code, c.want)
		}
	}
}

// TestTunePartialCacheCLI: a cache that lacks configurations its space.json allows says so when
// opened; a search that meets one stops, as Kernel Tuner's simulation mode does, with the
// configuration in the kernel's values (no OC: a Kernel Tuner kernel has none) and what to do.
func TestTunePartialCacheCLI(t *testing.T) {
	dir := t.TempDir()
	cache, spaceJSON := filepath.Join(dir, "A4000.json"), filepath.Join(dir, "space.json")
	os.WriteFile(cache, []byte(`{"device_name":"NVIDIA RTX A4000","kernel_name":"k","tune_params_keys":["alpha","method"],
		"tune_params":{"alpha":[0.5,2.0],"method":["fast","exact"]},"objective":"time","cache":{
		"0.5,fast":{"time":1.25},"0.5,exact":{"time":1.5},"2.0,fast":{"time":1.0}}}`), 0o644)
	os.WriteFile(spaceJSON, []byte(`{"ConfigurationSpace":{"TuningParameters":[
		{"Name":"alpha","Type":"float","Values":"[0.5, 2.0]"},{"Name":"method","Type":"string","Values":"['fast', 'exact']"}]}}`), 0o644)
	code, _, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+cache, "--method", "exhaustive", "--budget", "0")
	for _, want := range []string{
		cache + " holds 3 of the 4 configurations of k that " + spaceJSON + " allows",
		"k alpha=2.0,method=exact on NVIDIA RTX A4000: the variant is not in the replayed data: " + cache + " lacks configurations that " + spaceJSON + " allows, and the search met one",
		"move " + spaceJSON + " away; or complete the cache",
	} {
		if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "BASE") {
			t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errs, want)
		}
	}
	// tune-bench takes each case's optimum over the whole space, and says the same.
	code, _, errs = runCLI(t, "", "tune-bench", "--methods", "random", "--seeds", "1", "--budget", "2", "--ratios", "", cache)
	if want := "the optimum is taken over every configuration of the space"; code != 1 || !strings.Contains(errs, want) ||
		!strings.Contains(errs, "move "+spaceJSON+" away; or complete the cache") {
		t.Errorf("tune-bench: exit %d, stderr %q; want exit 1, %q and what to do", code, errs, want)
	}
}

// TestTuneBenchStandardsOverBudget: a share of the space whose standard would spend more than the
// budget is left out of IterML's standards with a note naming it, not silently.
func TestTuneBenchStandardsOverBudget(t *testing.T) {
	cache := "../../data/kernel-tuner/convolution_milo/A100.json.gz"
	code, stdout, errs := runCLI(t, "", "tune-bench", "--methods", "random", "--seeds", "1", "--budget", "300", "--ratios", "0.01,0.08", "--json", cache)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 8% of the cache's 4362 settings is 349 evaluations, over 300; 1% is 44.
	if want := "IterML's standards of convolution_milo/A100 leave out the 8% (349 evaluations) of its 4362 settings: over the budget of 300 evaluations"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
	var out app.Comparison
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range out.Standards {
		if s.Ratio != 0.01 {
			t.Errorf("a standard at share %g; want only 0.01's", s.Ratio)
		}
	}
	if len(out.Standards) == 0 {
		t.Error("no standard at 1%")
	}
}

// TestTuneT4FileDevice: a T4 results file names no device: a --gpu the catalogue knows is taken
// by its catalogue name, one it lacks is said to be, and without --gpu the file's base name
// stands for the device, which is said too.
func TestTuneT4FileDevice(t *testing.T) {
	file := "../../data/kernel-tuner/convolution_milo/A100_T4.json.gz"
	for _, c := range []struct {
		gpu, want, note string
	}{
		{"a100", "A100-40GB", ""},
		{"totally-bogus", "totally-bogus", "the catalogue lacks totally-bogus: its times are taken as that GPU's"},
		{"", "A100_T4", "names no device: its base name, A100_T4, stands for it; name the GPU it was measured on with --gpu"},
	} {
		args := []string{"tune", "--evaluator", "replay:" + file, "--method", "random", "--budget", "3", "--seed", "1", "--json"}
		if c.gpu != "" {
			args = append(args, "--gpu", c.gpu)
		}
		code, out, errs := runCLI(t, "", args...)
		var r struct {
			GPU string `json:"gpu"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.GPU != c.want || !strings.Contains(errs, c.note) {
			t.Errorf("--gpu %q: exit %d, gpu %q, stderr %q; want %q and a note %q", c.gpu, code, r.GPU, errs, c.want, c.note)
		}
	}
}
