package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
)

func mustDefault(t *testing.T) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The brief's list of GPUs, and the facts and prices it gives: golden values independent of
// the JSON file.
func TestEmbeddedFacts(t *testing.T) {
	c := mustDefault(t)
	for _, name := range []string{"P100", "V100", "T4", "RTX-2080-Ti", "A10G", "L4", "A100-40GB", "A100-80GB", "L40S",
		"H100-SXM", "H200", "RTX-A4000", "RTX-A6000", "MI250X", "W6600", "W7800"} {
		if _, err := c.Lookup(name); err != nil {
			t.Errorf("catalogue lacks %s: %v", name, err)
		}
	}
	tests := []struct {
		name      string
		bandwidth float64
		sms       int
		fp64      float64 // 0: not checked
	}{
		{"A100-40GB", 1555, 108, 9.7},
		{"H100-SXM", 3350, 132, 0},
		{"H200", 4800, 132, 0},
		{"V100", 900, 80, 0},
		{"P100", 732, 56, 0},
		{"RTX-2080-Ti", 616, 68, 0},
		{"T4", 320, 40, 0},
		{"L4", 300, 0, 0},
		{"L40S", 864, 0, 0},
		{"MI250X", 3276.8, 220, 47.9},
	}
	for _, tc := range tests {
		g, _ := c.Lookup(tc.name)
		if g.BandwidthGBs != tc.bandwidth || tc.sms != 0 && g.SMs != tc.sms || tc.fp64 != 0 && g.FP64TFLOPS != tc.fp64 {
			t.Errorf("%s: bandwidth %v, SMs %d, FP64 %v; want %v, %d, %v", tc.name, g.BandwidthGBs, g.SMs, g.FP64TFLOPS, tc.bandwidth, tc.sms, tc.fp64)
		}
	}
	prices := map[string]struct {
		usd      float64
		instance string
	}{
		"A100-40GB": {2.74, "p4d.24xlarge"}, "A100-80GB": {3.43, "p4de.24xlarge"}, "H100-SXM": {6.88, "p5.48xlarge"},
		"V100": {3.06, "p3.2xlarge"}, "T4": {0.526, "g4dn.xlarge"}, "A10G": {1.006, "g5.xlarge"},
		"L4": {0.805, "g6.xlarge"}, "L40S": {1.861, "g6e.xlarge"},
	}
	for _, g := range c.GPUs() {
		want, rented := prices[g.Name]
		switch {
		case rented && (g.Price == nil || g.Price.USDPerHour != want.usd || g.Price.Instance != want.instance ||
			g.Price.Provider != "AWS" || g.Price.Region != "us-east-1" || g.Price.Read != "2026-11-09"):
			t.Errorf("%s: price %+v, want $%v/h on %s, AWS us-east-1, read 2026-11-09", g.Name, g.Price, want.usd, want.instance)
		case !rented && g.Price != nil:
			t.Errorf("%s: has a price %+v the catalogue should not invent", g.Name, g.Price)
		}
	}
}

// Every number of the embedded catalogue cites its own source; no wildcard.
func TestEmbeddedSourcesPerField(t *testing.T) {
	for _, g := range mustDefault(t).GPUs() {
		if _, ok := g.Sources["*"]; ok {
			t.Errorf("%s: uses a wildcard source; cite each field", g.Name)
		}
		for _, n := range numbers(g) {
			if n.value != 0 && strings.TrimSpace(g.Sources[n.name]) == "" {
				t.Errorf("%s: field %s has no source", g.Name, n.name)
			}
		}
		if g.Price != nil && !strings.Contains(g.Sources["price"], "2026-11-09") {
			t.Errorf("%s: price source %q does not say when it was read", g.Name, g.Sources["price"])
		}
	}
}

// The Kernel Tuner caches name their devices; every name must resolve (MI250X's cache leaves it
// empty, so its file name stands in).
func TestKernelTunerDeviceNames(t *testing.T) {
	c := mustDefault(t)
	want := map[string]string{
		"NVIDIA A100-PCIE-40GB": "A100-40GB", "NVIDIA RTX A4000": "RTX-A4000", "NVIDIA RTX A6000": "RTX-A6000",
		"MI250X": "MI250X", "AMD Radeon PRO W6600": "W6600", "AMD Radeon PRO W7800": "W7800",
	}
	for name, canonical := range want {
		g, err := c.Lookup(name)
		if err != nil || g.Name != canonical {
			t.Errorf("Lookup(%q) = %q, %v; want %s", name, g.Name, err, canonical)
		}
	}
}

func TestLookupAliases(t *testing.T) {
	c := mustDefault(t)
	tests := []struct{ query, want string }{
		{"a100", "A100-40GB"},
		{"A100", "A100-40GB"},
		{"a100-40gb", "A100-40GB"},
		{"NVIDIA A100-PCIE-40GB", "A100-40GB"},
		{"NVIDIA A100-SXM4-40GB", "A100-40GB"},
		{"nvidia a100-sxm4-40gb", "A100-40GB"},
		{"NVIDIA_A100_PCIE_40GB", "A100-40GB"},
		{"NVIDIA A100-SXM4-80GB", "A100-80GB"},
		{"NVIDIA H100 80GB HBM3", "H100-SXM"},
		{"Tesla V100-SXM2-16GB", "V100"},
		{"Tesla T4", "T4"},
		{"NVIDIA GeForce RTX 2080 Ti", "RTX-2080-Ti"},
		{"rtx 2080 ti", "RTX-2080-Ti"},
		{"NVIDIA L40S", "L40S"},
		{"AMD Instinct MI250X", "MI250X"},
	}
	for _, tc := range tests {
		g, err := c.Lookup(tc.query)
		if err != nil || g.Name != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %s", tc.query, g.Name, err, tc.want)
		}
	}
}

func TestLookupUnknownSuggests(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		query   string
		similar string // must be among the suggestions
	}{
		{"a10", "A10G"},
		{"h10", "H100-SXM"},
		{"A100 80", "A100-80GB"},
		{"W660", "W6600"},
		{"NVIDIA H200 NVL", "H200"},
	}
	for _, tc := range tests {
		_, err := c.Lookup(tc.query)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Lookup(%q): error %v, want *NotFoundError", tc.query, err)
		}
		if !slices.Contains(nf.Similar, tc.similar) || !strings.Contains(err.Error(), tc.similar) {
			t.Errorf("Lookup(%q): suggestions %v, want %s among them", tc.query, nf.Similar, tc.similar)
		}
	}
	_, err := c.Lookup("zzzz")
	if err == nil || !strings.Contains(err.Error(), "A100-40GB") {
		t.Errorf("an unmatched name should list the catalogue, got %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "--") {
		t.Errorf("the library's error names a flag: %v", err)
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mygpus.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMergeOverride(t *testing.T) {
	path := writeFile(t, `{"format": "smart-gpus/1", "gpus": [
		{"name": "a100", "bandwidth_gbs": 1600, "price": {"usd_per_hour": 1.5, "provider": "Lab", "region": "eu", "instance": "node7", "read": "2026-01-02"},
		 "sources": {"bandwidth_gbs": "our STREAM run", "price": "internal rate card"}}]}`)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := c.Lookup("A100-40GB")
	if g.BandwidthGBs != 1600 || g.Price.USDPerHour != 1.5 || g.Sources["bandwidth_gbs"] != "our STREAM run" {
		t.Errorf("override not applied: bandwidth %v, price %+v, source %q", g.BandwidthGBs, g.Price, g.Sources["bandwidth_gbs"])
	}
	if g.Name != "A100-40GB" || g.SMs != 108 || !strings.Contains(g.Sources["sms"], "whitepaper") {
		t.Errorf("fields not overridden changed: %+v", g)
	}
	if c.Len() != mustDefault(t).Len() {
		t.Errorf("an override added a GPU: %d entries", c.Len())
	}
	// The embedded catalogue is a value: loading a file does not change it.
	d, _ := mustDefault(t).Lookup("a100")
	if d.BandwidthGBs != 1555 {
		t.Errorf("the default catalogue changed to %v GB/s", d.BandwidthGBs)
	}
}

func TestMergeNewGPU(t *testing.T) {
	base, _ := mustDefault(t).Lookup("RTX-A4000")
	body := fmt.Sprintf(`{"format": "smart-gpus/1", "gpus": [{"name": "RTX-4090", "aliases": ["NVIDIA GeForce RTX 4090"],
		"vendor": "NVIDIA", "arch": "Ada Lovelace", "compute_capability": "8.9", "sms": 128, "memory_gb": 24,
		"bandwidth_gbs": 1008, "l2_mb": 72, "shared_per_sm_kb": 100, "shared_per_block_kb": 99, "regs_per_sm": %d,
		"regs_per_block": %d, "max_regs_per_thread": 255, "max_threads_per_sm": 1536, "max_threads_per_block": 1024,
		"max_blocks_per_sm": 24, "fp64_tflops": 1.29, "fp32_tflops": 82.6, "boost_clock_mhz": 2520,
		"constant_memory_kb": 64, "warp_size": 32, "price": null, "sources": {"*": "NVIDIA Ada whitepaper"}}]}`, base.RegsPerSM, base.RegsPerBlock)
	c, err := Load(writeFile(t, body))
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Lookup("nvidia geforce rtx 4090")
	if err != nil || g.SMs != 128 {
		t.Fatalf("new GPU: %+v, %v", g, err)
	}
	if got := c.Names(); got[len(got)-1] != "RTX-4090" {
		t.Errorf("new GPU not appended: %v", got)
	}
}

// Errors name the file, the GPU and the field.
func TestMergeErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"no source for an override", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "bandwidth_gbs": 300}]}`,
			[]string{`GPU "T4"`, `"bandwidth_gbs"`, "source"}},
		{"incomplete new GPU", `{"format": "smart-gpus/1", "gpus": [{"name": "X1", "vendor": "NVIDIA", "arch": "Y", "compute_capability": "9.0", "sms": 10, "sources": {"*": "me"}}]}`,
			[]string{`GPU "X1"`, `"memory_gb"`}},
		{"unknown field", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "bandwith_gbs": 300}]}`,
			[]string{`GPU "T4"`, `"bandwith_gbs"`, "not a GPU field"}},
		{"wrong type", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "sms": "forty", "sources": {"sms": "x"}}]}`,
			[]string{`GPU "T4"`, "sms"}},
		{"negative", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "sms": -4, "sources": {"sms": "x"}}]}`,
			[]string{`GPU "T4"`, `"sms"`, "not negative"}},
		{"bad price date", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "price": {"usd_per_hour": 1, "provider": "p", "region": "r", "instance": "i", "read": "yesterday"}, "sources": {"price": "x"}}]}`,
			[]string{`GPU "T4"`, `"price.read"`, "YYYY-MM-DD"}},
		{"alias taken", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "aliases": ["a100"]}]}`,
			[]string{`GPU "T4"`, `"aliases"`, "A100-40GB"}},
		{"one GPU twice", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "sms": 10, "sources": {"sms": "x"}}, {"name": "t4", "sms": 20, "sources": {"sms": "x"}}]}`,
			[]string{`GPU "T4"`, "gpus[1] names the GPU of gpus[0] again"}},
		{"wrong format", `{"format": "gpus/9", "gpus": []}`, []string{`"format"`, "smart-gpus/1"}},
		{"not JSON", `{"format": `, []string{"invalid JSON"}},
		{"missing name", `{"format": "smart-gpus/1", "gpus": [{"sms": 3}]}`, []string{"gpus[0]", `"name"`}},
		{"a list, as smart gpus --json prints", `[{"name": "T4"}]`, []string{"JSON array where an object is expected", `{"format": "smart-gpus/1", "gpus": [...]}`}},
		{"wrong type of a field", `{"format": "smart-gpus/1", "gpus": {}}`, []string{`field "gpus" has a JSON object where an array is expected`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.body)
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestValidateRules(t *testing.T) {
	good, _ := mustDefault(t).Lookup("V100")
	tests := []struct {
		field  string
		change func(g *smart.GPU)
	}{
		{"name", func(g *smart.GPU) { g.Name = "" }},
		{"vendor", func(g *smart.GPU) { g.Vendor = "Intel" }},
		{"compute_capability", func(g *smart.GPU) { g.ComputeCapability = "seven" }},
		{"warp_size", func(g *smart.GPU) { g.WarpSize = 48 }},
		{"shared_per_block_kb", func(g *smart.GPU) { g.SharedPerBlockKB = g.SharedPerSMKB + 1 }},
		{"regs_per_block", func(g *smart.GPU) { g.RegsPerBlock = g.RegsPerSM * 2 }},
		{"max_threads_per_block", func(g *smart.GPU) { g.MaxThreadsPerBlk = 4096 }},
		{"dies", func(g *smart.GPU) { g.Dies, g.Sources["dies"] = 3, "x" }},
		{"sources", func(g *smart.GPU) { delete(g.Sources, "l2_mb") }},
		{"sources", func(g *smart.GPU) { g.Sources["l2"] = "typo" }},
		{"price.usd_per_hour", func(g *smart.GPU) { g.Price.USDPerHour = 0 }},
		{"price.usd_per_hour", func(g *smart.GPU) { g.Price.USDPerHour = 1e308 }},
		{"shared_per_sm_kb", func(g *smart.GPU) { g.SharedPerSMKB = 1 << 53 }}, // KiB to bytes would overflow
		{"fp32_tflops", func(g *smart.GPU) { g.FP32TFLOPS = 1e300 }},
		{"aliases[0]", func(g *smart.GPU) { g.Aliases[0] = " - " }},
	}
	for _, tc := range tests {
		g := clone(good)
		tc.change(&g)
		err := Validate(g)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: error %v, want a FieldError on %s", tc.field, err, tc.field)
		}
	}
	if err := Validate(good); err != nil {
		t.Errorf("catalogue entry fails validation: %v", err)
	}
}

func ExampleCatalog_Lookup() {
	c, err := Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := c.Lookup("NVIDIA A100-PCIE-40GB") // the name NVML and Kernel Tuner give
	fmt.Println(g.Name, g.SMs, g.BandwidthGBs, g.Price.USDPerHour)
	_, err = c.Lookup("h10")
	fmt.Println(err)
	// Output:
	// A100-40GB 108 1555 2.74
	// unknown GPU "h10"; did you mean H100-SXM?
}
