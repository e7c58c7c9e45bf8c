package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
)

func TestGPUsList(t *testing.T) {
	code, out, errs := runCLI(t, "", "gpus")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"A100-40GB", "H200", "MI250X", "W7800", "p4d.24xlarge", "2.740", "1555", "Sources:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, "", "gpus", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var gpus []smart.GPU
	if err := json.Unmarshal([]byte(out), &gpus); err != nil || len(gpus) < 16 {
		t.Fatalf("--json: %d GPUs, %v", len(gpus), err)
	}
	for _, g := range gpus {
		if g.Sources["bandwidth_gbs"] == "" {
			t.Errorf("%s: --json lacks the sources", g.Name)
		}
	}
}

func TestGPUsCatalogFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"format": "smart-gpus/1", "gpus": [{"name": "T4", "bandwidth_gbs": 300, "sources": {"bandwidth_gbs": "our measurement"}}]}`), 0o644)
	code, out, errs := runCLI(t, "", "gpus", "--catalog", good)
	if code != 0 || !strings.Contains(out, "300") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format": "smart-gpus/1", "gpus": [{"name": "T4", "bandwidth_gbs": 300}]}`), 0o644)
	code, _, errs = runCLI(t, "", "gpus", "--catalog", bad)
	if code != 1 || !strings.Contains(errs, "bad.json") || !strings.Contains(errs, `GPU "T4"`) || !strings.Contains(errs, "bandwidth_gbs") {
		t.Errorf("exit %d, stderr %q; want 1 naming the file, GPU and field", code, errs)
	}
	if code, _, _ := runCLI(t, "", "gpus", "extra"); code != 2 {
		t.Errorf("an argument: exit %d, want 2", code)
	}
	if code, out, _ := runCLI(t, "", "gpus", "--help"); code != 0 || !strings.Contains(out, "Examples:") {
		t.Errorf("--help: exit %d:\n%s", code, out)
	}
}
