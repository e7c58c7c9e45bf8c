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

func TestGPUsFilters(t *testing.T) {
	tests := []struct {
		args      []string
		code      int
		want, not []string
	}{
		{[]string{"--arch", "hopper"}, 0, []string{"H100-SXM", "H100-PCIe", "H200", "GH200"}, []string{"A100", "RTX-5090"}},
		{[]string{"--vendor", "amd"}, 0, []string{"MI250X", "W6600", "W7800"}, []string{"NVIDIA", "A100", "Hopper"}},
		{[]string{"--vendor", "NVIDIA", "--arch", "Kepler"}, 0, []string{"K80", "K40"}, []string{"M40", "P100"}},
		{[]string{"--arch", "keplr"}, 2, []string{"--arch", "Kepler", "Blackwell"}, nil},
		{[]string{"--vendor", "intel"}, 2, []string{"--vendor", "AMD, NVIDIA"}, nil},
		{[]string{"--vendor", "amd", "--arch", "ampere"}, 2, []string{"--vendor and --arch"}, nil},
	}
	for _, tc := range tests {
		code, out, errs := runCLI(t, "", append([]string{"gpus"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%v: output lacks %q:\n%s%s", tc.args, w, out, errs)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("%v: output has %q:\n%s", tc.args, n, out)
			}
		}
	}
	code, out, errs := runCLI(t, "", "gpus", "--arch", "kepler", "--json")
	var gpus []smart.GPU
	if err := json.Unmarshal([]byte(out), &gpus); code != 0 || err != nil || len(gpus) != 4 { // K80, K40, K20X, K20
		t.Errorf("--arch kepler --json: exit %d, %d GPUs, %v: %s", code, len(gpus), err, errs)
	}
}
