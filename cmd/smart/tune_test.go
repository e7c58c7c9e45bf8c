package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"smart/internal/ktdata"
	"strings"
	"testing"
)

func TestTuneKernelTunerCLI(t *testing.T) {
	root := ktdata.Require(t)
	for _, method := range []string{"random", "bayes"} {
		t.Run(method, func(t *testing.T) {
			dir := t.TempDir()
			trace := filepath.Join(dir, "trace.csv")
			code, stdout, errs := runCLI(t, "", "tune", "--evaluator", "replay:"+filepath.Join(root, "dedispersion_milo/W7800.json.gz"),
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

func TestTuneUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tune", "j3d7pt"}, 2, "--evaluator"},
		{[]string{"tune", "--evaluator", "sim"}, 2, "give a stencil file"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "annealing"}, 2, "--method"},
		{[]string{"tune", "j3d7pt", "--evaluator", "gpu"}, 2, "use cuda, sim"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--oc", "BASE,ST", "--method", "cstuner"}, 1, "one space"},
		{[]string{"tune", "--evaluator", "replay:/nonexistent.json.gz"}, 1, "nonexistent"},
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
