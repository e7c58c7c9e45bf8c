package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/data"
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
		// benchmark_hub's other caches and HIP's names of the other Instinct GPUs.
		"NVIDIA TITAN RTX": "TITAN-RTX", "NVIDIA GeForce RTX 3060 Laptop GPU": "RTX-3060-Laptop",
		"NVIDIA GeForce RTX 3090": "RTX-3090", "NVIDIA GeForce RTX 2080 Ti": "RTX-2080-Ti",
		"AMD Instinct MI50/MI60": "MI50", "AMD Instinct MI100": "MI100", "AMD Instinct MI210": "MI210", "AMD Instinct MI300X": "MI300X",
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
		{"a100-sxm", "A100-40GB"}, // as h100-sxm names the H100-SXM
		{"A100-SXM4", "A100-40GB"},
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
		if gpu, ok := c.Resolve(tc.query); !ok || gpu != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %s", tc.query, gpu, ok, tc.want)
		}
	}
	if gpu, ok := c.Resolve("NVIDIA Z9000"); ok || gpu != "" {
		t.Errorf("Resolve of an unknown device = %q, %v; want \"\", false", gpu, ok)
	}
}

func TestLookupUnknownSuggests(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		query   string
		similar string // must be among the suggestions
	}{
		{"a10x", "A10G"},
		{"h10", "H100-SXM"},
		{"A100 80", "A100-80GB"},
		{"W660", "W6600"},
		{"NVIDIA H800", "H200"},
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

// TestDefaultShared: every caller shares one embedded catalogue, so nothing a caller does with
// the GPUs it is given, or with a file merged over it, may reach the next caller.
func TestDefaultShared(t *testing.T) {
	c := mustDefault(t)
	g, err := c.Lookup("a100")
	if err != nil {
		t.Fatal(err)
	}
	g.Sources["sms"] = "mine"
	g.Aliases[0] = "mine"
	g.Price.USDPerHour = -1
	all := c.GPUs()
	all[0].Name = "mine"
	all[0].Aliases = append(all[0].Aliases[:0], "mine")
	if _, err := c.Merge([]byte(`{"format": "smart-gpus/1", "gpus": [{"name": "a100", "sms": 7, "sources": {"sms": "mine"}}]}`), "mine.json"); err != nil {
		t.Fatal(err)
	}
	d := mustDefault(t)
	if d != c {
		t.Error("Default parsed the embedded catalogue again")
	}
	again, _ := d.Lookup("a100")
	if again.SMs != 108 || again.Sources["sms"] == "mine" || slices.Contains(again.Aliases, "mine") || again.Price.USDPerHour <= 0 {
		t.Errorf("the shared catalogue's A100 changed: %+v", again)
	}
	if first := d.GPUs()[0]; first.Name == "mine" || slices.Contains(first.Aliases, "mine") {
		t.Errorf("the shared catalogue's first GPU changed: %+v", first)
	}
	if _, err := d.Lookup("mine"); err == nil {
		t.Error("an alias a caller wrote resolves in the shared catalogue")
	}
}

func TestMergeNewGPU(t *testing.T) {
	base, _ := mustDefault(t).Lookup("RTX-A4000")
	body := fmt.Sprintf(`{"format": "smart-gpus/1", "gpus": [{"name": "RTX-4060", "aliases": ["NVIDIA GeForce RTX 4060"],
		"vendor": "NVIDIA", "arch": "Ada Lovelace", "compute_capability": "8.9", "sms": 24, "memory_gb": 8,
		"bandwidth_gbs": 272, "l2_mb": 24, "shared_per_sm_kb": 100, "shared_per_block_kb": 99, "regs_per_sm": %d,
		"regs_per_block": %d, "max_regs_per_thread": 255, "max_threads_per_sm": 1536, "max_threads_per_block": 1024,
		"max_blocks_per_sm": 24, "fp64_tflops": 0.24, "fp32_tflops": 15.1, "boost_clock_mhz": 2460,
		"constant_memory_kb": 64, "warp_size": 32, "price": null, "sources": {"*": "NVIDIA Ada whitepaper"}}]}`, base.RegsPerSM, base.RegsPerBlock)
	c, err := Load(writeFile(t, body))
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Lookup("nvidia geforce rtx 4060")
	if err != nil || g.SMs != 24 {
		t.Fatalf("new GPU: %+v, %v", g, err)
	}
	if got := c.Names(); got[len(got)-1] != "RTX-4060" {
		t.Errorf("new GPU not appended: %v", got)
	}
}

// TestMergeNewGPUFillsGuideLimits: a new NVIDIA GPU described by its datasheet's figures alone
// gets the limits and architecture of its compute capability, each limit citing the Programming
// Guide; the golden values are the Guide's for 8.9 (Ada).
func TestMergeNewGPUFillsGuideLimits(t *testing.T) {
	body := `{"format": "smart-gpus/1", "gpus": [{"name": "RTX-4060", "vendor": "NVIDIA", "compute_capability": "8.9",
		"sms": 24, "memory_gb": 8, "bandwidth_gbs": 272, "l2_mb": 24, "fp64_tflops": 0.24, "fp32_tflops": 15.1,
		"boost_clock_mhz": 2460, "shared_per_sm_kb": 100, "sources": {"*": "NVIDIA Ada whitepaper"}}]}`
	c, err := Load(writeFile(t, body))
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Lookup("RTX-4060")
	if err != nil {
		t.Fatal(err)
	}
	want := smart.GPU{Name: "RTX-4060", Vendor: "NVIDIA", Arch: "Ada Lovelace", ComputeCapability: "8.9", SMs: 24, MemoryGB: 8,
		BandwidthGBs: 272, L2MB: 24, SharedPerSMKB: 100, SharedPerBlockKB: 99, RegsPerSM: 65536, RegsPerBlock: 65536,
		MaxRegsPerThread: 255, MaxThreadsPerSM: 1536, MaxThreadsPerBlk: 1024, MaxBlocksPerSM: 24, FP64TFLOPS: 0.24,
		FP32TFLOPS: 15.1, BoostClockMHz: 2460, ConstantMemoryKB: 64, WarpSize: 32}
	got := g
	got.Sources = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("filled in:\n%+v\nwant\n%+v", got, want)
	}
	if g.Sources["shared_per_sm_kb"] != "" || g.Sources["regs_per_sm"] != GuideSource || g.Sources["warp_size"] != GuideSource {
		t.Errorf("sources %v: the limits filled in cite the Guide, the one given its own", g.Sources)
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
			[]string{`GPU "X1"`, `field "memory_gb": is missing or 0, and so are "bandwidth_gbs", "l2_mb", "fp64_tflops", "fp32_tflops", "boost_clock_mhz"; every GPU needs them`}},
		{"incomplete new AMD GPU: nothing filled in", `{"format": "smart-gpus/1", "gpus": [{"name": "X2", "vendor": "AMD", "arch": "CDNA3", "sms": 10, "memory_gb": 8, "bandwidth_gbs": 100, "l2_mb": 4, "fp64_tflops": 1, "fp32_tflops": 2, "boost_clock_mhz": 1000, "sources": {"*": "me"}}]}`,
			[]string{`GPU "X2"`, `field "shared_per_sm_kb": is missing or 0, and so are "shared_per_block_kb", "regs_per_sm"`, `"warp_size"; every GPU needs them`}},
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
		{"null", `null`, []string{"holds null, not a catalogue", `{"format": "smart-gpus/1", "gpus": [...]}`}},
		{"no gpus", `{"format": "smart-gpus/1"}`, []string{`field "gpus" is missing`}},
		{"null gpus", `{"format": "smart-gpus/1", "gpus": null}`, []string{`field "gpus" is missing or null`}},
		// An override's aliases join the catalogue's: the index is the one in the file.
		{"empty alias of an override", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "aliases": ["t4-x", ""]}]}`,
			[]string{`GPU "T4"`, `field "aliases[1]": is ""`}},
		{"newline in an alias", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "aliases": ["t4\nfake line"]}]}`,
			[]string{`field "aliases[0]": is "t4\nfake line"`, "letters, digits"}},
		{"escape in an alias", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "aliases": ["t4\u001b[2J"]}]}`,
			[]string{`field "aliases[0]"`}},
		{"right-to-left override in an alias", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "aliases": ["t4\u202etxt"]}]}`,
			[]string{`field "aliases[0]"`}},
		{"right-to-left override in a new GPU's alias", newGPU(`"aliases": ["x", "rtx\u202e4060"]`),
			[]string{`GPU "RTX-4060"`, `field "aliases[1]"`}},
		{"architecture not the capability's", newGPU(`"arch": "Hopper"`),
			[]string{`GPU "RTX-4060"`, `field "arch": is "Hopper", but compute capability 8.9 is Ada Lovelace`}},
		{"architecture of an override not the capability's", `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "arch": "Volta"}]}`,
			[]string{`GPU "T4"`, `field "arch"`, "compute capability 7.5 is Turing"}},
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
	missing := filepath.Join(t.TempDir(), "missing.json")
	if _, err := Load(missing); err == nil || err.Error() != "GPU catalogue file "+missing+": no such file or directory" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want \"GPU catalogue file %s: no such file or directory\" wrapping fs.ErrNotExist", err, missing)
	}
}

// newGPU is a catalogue file of one new GPU, complete and valid, with fields replaced by more
// (JSON members, such as `"arch": "Hopper"`).
func newGPU(more string) string {
	return `{"format": "smart-gpus/1", "gpus": [{"name": "RTX-4060", "aliases": ["NVIDIA GeForce RTX 4060"],
		"vendor": "NVIDIA", "arch": "Ada Lovelace", "compute_capability": "8.9", "sms": 24, "memory_gb": 8,
		"bandwidth_gbs": 272, "l2_mb": 24, "shared_per_sm_kb": 100, "shared_per_block_kb": 99, "regs_per_sm": 65536,
		"regs_per_block": 65536, "max_regs_per_thread": 255, "max_threads_per_sm": 1536, "max_threads_per_block": 1024,
		"max_blocks_per_sm": 24, "fp64_tflops": 0.24, "fp32_tflops": 15.1, "boost_clock_mhz": 2460,
		"constant_memory_kb": 64, "warp_size": 32, "sources": {"*": "NVIDIA Ada whitepaper"}, ` + more + `}]}`
}

func TestNewGPUIsValid(t *testing.T) {
	if _, err := Load(writeFile(t, newGPU(`"l2_mb": 32`))); err != nil {
		t.Fatalf("newGPU's file, the errors of TestMergeErrors aside: %v", err)
	}
}

// A catalogue file is read no further than MaxFileBytes: a larger one (or an endless stream) is
// refused by name, not read whole into memory.
func TestLoadBounded(t *testing.T) {
	valid := `{"format": "smart-gpus/1", "gpus": []}`
	for _, tc := range []struct {
		name string
		size int // the file: valid, padded with spaces to size bytes
		ok   bool
	}{
		{"at the limit", MaxFileBytes, true},
		{"one byte over", MaxFileBytes + 1, false},
		{"far over", 4 * MaxFileBytes, false},
	} {
		path := writeFile(t, valid+strings.Repeat(" ", tc.size-len(valid)))
		_, err := Load(path)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && (err == nil || !strings.HasPrefix(err.Error(), "GPU catalogue file "+path+": the file is over 1048576 bytes (1 MiB)")):
			t.Errorf("%s: %v, want the file named and refused for its size", tc.name, err)
		}
	}
	if len(data.GPUs()) > MaxFileBytes/2 {
		t.Errorf("the embedded catalogue is %d bytes; raise MaxFileBytes (%d) so that a copy of it with more GPUs loads", len(data.GPUs()), MaxFileBytes)
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
	// unknown GPU "h10"; did you mean H100-SXM, A10, H100-NVL, H100-PCIe?
}

// The GPUs added from Kepler to Blackwell, with golden values from their datasheets and
// whitepapers, independent of the JSON file. The K80 is one GK210 (what CUDA shows as a device):
// half the board's memory, bandwidth and peaks.
func TestEmbeddedKeplerToBlackwell(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		name, cc  string
		sms       int
		memory    float64
		bandwidth float64
		fp32      float64
	}{
		{"K80", "3.7", 13, 12, 240, 4.365},
		{"K40", "3.5", 15, 12, 288, 5.04},
		{"M40", "5.2", 24, 12, 288, 7},
		{"P4", "6.1", 20, 8, 192, 5.5},
		{"P40", "6.1", 30, 24, 346, 12},
		{"GTX-1080-Ti", "6.1", 28, 11, 484, 11.34},
		{"V100-32GB", "7.0", 80, 32, 900, 15.7},
		{"V100-PCIe", "7.0", 80, 16, 900, 14},
		{"V100-PCIe-32GB", "7.0", 80, 32, 900, 14},
		{"TITAN-V", "7.0", 80, 12, 652.8, 14.9},
		{"Quadro-RTX-6000", "7.5", 72, 24, 672, 16.3},
		{"Quadro-RTX-8000", "7.5", 72, 48, 672, 16.3},
		{"A10", "8.6", 72, 24, 600, 31.2},
		{"A30", "8.0", 56, 24, 933, 10.3},
		{"A40", "8.6", 84, 48, 696, 37.4},
		{"RTX-3090", "8.6", 82, 24, 936, 35.6},
		{"RTX-4090", "8.9", 128, 24, 1008, 82.6},
		{"L40", "8.9", 142, 48, 864, 90.5},
		{"RTX-6000-Ada", "8.9", 142, 48, 960, 91.1},
		{"H100-PCIe", "9.0", 114, 80, 2000, 51},
		{"GH200", "9.0", 132, 96, 4000, 67},
		{"GH200-144GB", "9.0", 132, 144, 4900, 67},
		{"RTX-5090", "12.0", 170, 32, 1792, 104.8},
		{"RTX-PRO-6000-Blackwell", "12.0", 188, 96, 1792, 125},
		{"TITAN-RTX", "7.5", 72, 24, 672, 16.3},
		{"RTX-2070-Super", "7.5", 40, 8, 448, 9.1},
		{"RTX-3080", "8.6", 68, 10, 760, 29.8},
		{"RTX-3070", "8.6", 46, 8, 448, 20.3},
		{"RTX-3060", "8.6", 28, 12, 360, 12.7},
		{"RTX-3060-Laptop", "8.6", 30, 6, 336, 13.1},
		{"RTX-A5000", "8.6", 64, 24, 768, 27.8},
		{"RTX-4080", "8.9", 76, 16, 716.8, 48.7},
		{"RTX-4070", "8.9", 46, 12, 504, 29.1},
		{"P100-PCIe", "6.0", 56, 16, 732, 9.3},
		{"P100-PCIe-12GB", "6.0", 56, 12, 549, 9.3},
		{"V100S-PCIe", "7.0", 80, 32, 1134, 16.4},
		{"A100-80GB-PCIe", "8.0", 108, 80, 1935, 19.5},
		{"H100-NVL", "9.0", 132, 94, 3900, 60},
		{"H200-NVL", "9.0", 132, 141, 4800, 60},
		{"B200", "10.0", 148, 180, 8000, 75},
		{"GTX-TITAN-X", "5.2", 24, 12, 336.5, 6.6},
		{"GTX-1080", "6.1", 20, 8, 320, 8.87},
		{"TITAN-Xp", "6.1", 30, 12, 547.7, 12.1},
		{"K20X", "3.5", 14, 6, 250, 3.95},
		{"K20", "3.5", 13, 5, 208, 3.52},
		{"RTX-2080", "7.5", 46, 8, 448, 10.07},
		{"RTX-3080-Ti", "8.6", 80, 12, 912, 34.1},
		{"RTX-3090-Ti", "8.6", 84, 24, 1008, 40},
		{"RTX-4070-Ti", "8.9", 60, 12, 504, 40.1},
		{"RTX-4060-Ti", "8.9", 34, 8, 288, 22.1},
	}
	for _, tc := range tests {
		g, err := c.Lookup(tc.name)
		if err != nil {
			t.Errorf("catalogue lacks %s: %v", tc.name, err)
			continue
		}
		if g.ComputeCapability != tc.cc || g.SMs != tc.sms || g.MemoryGB != tc.memory || g.BandwidthGBs != tc.bandwidth || g.FP32TFLOPS != tc.fp32 || g.Dies != 0 {
			t.Errorf("%s: CC %s, %d SMs, %v GB, %v GB/s, %v TFLOPS, %d dies; want %s, %d, %v, %v, %v, 0",
				tc.name, g.ComputeCapability, g.SMs, g.MemoryGB, g.BandwidthGBs, g.FP32TFLOPS, g.Dies, tc.cc, tc.sms, tc.memory, tc.bandwidth, tc.fp32)
		}
	}
}

// The name NVML (nvidia-smi) reports for each NVIDIA GPU resolves to its entry; a GPU added
// to the catalogue without its NVML name fails here.
func TestNVMLNames(t *testing.T) {
	c := mustDefault(t)
	nvml := map[string]string{
		"Tesla K80": "K80", "Tesla K40m": "K40", "Tesla K40c": "K40", "Tesla M40": "M40",
		"Tesla P4": "P4", "Tesla P40": "P40", "Tesla P100-SXM2-16GB": "P100", "NVIDIA GeForce GTX 1080 Ti": "GTX-1080-Ti",
		"Tesla V100-SXM2-16GB": "V100", "Tesla V100-SXM2-32GB": "V100-32GB", "Tesla V100-PCIE-16GB": "V100-PCIe",
		"Tesla V100-PCIE-32GB": "V100-PCIe-32GB", "NVIDIA TITAN V": "TITAN-V", "Tesla T4": "T4",
		"NVIDIA GeForce RTX 2080 Ti": "RTX-2080-Ti", "Quadro RTX 6000": "Quadro-RTX-6000", "Quadro RTX 8000": "Quadro-RTX-8000",
		"NVIDIA A10": "A10", "NVIDIA A10G": "A10G", "NVIDIA A30": "A30", "NVIDIA A40": "A40",
		"NVIDIA A100-SXM4-40GB": "A100-40GB", "NVIDIA A100-PCIE-40GB": "A100-40GB", "NVIDIA A100-SXM4-80GB": "A100-80GB",
		"NVIDIA RTX A4000": "RTX-A4000", "NVIDIA RTX A6000": "RTX-A6000", "NVIDIA GeForce RTX 3090": "RTX-3090",
		"NVIDIA L4": "L4", "NVIDIA L40": "L40", "NVIDIA L40S": "L40S", "NVIDIA GeForce RTX 4090": "RTX-4090",
		"NVIDIA RTX 6000 Ada Generation": "RTX-6000-Ada", "NVIDIA H100 80GB HBM3": "H100-SXM", "NVIDIA H100 PCIe": "H100-PCIe",
		"NVIDIA H200": "H200", "NVIDIA GH200 480GB": "GH200", "NVIDIA GH200 144G HBM3e": "GH200-144GB",
		"NVIDIA GeForce RTX 5090": "RTX-5090", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": "RTX-PRO-6000-Blackwell",
		"NVIDIA TITAN RTX": "TITAN-RTX", "TITAN RTX": "TITAN-RTX", "NVIDIA GeForce RTX 2070 SUPER": "RTX-2070-Super",
		"NVIDIA GeForce RTX 3080": "RTX-3080", "NVIDIA GeForce RTX 3070": "RTX-3070", "NVIDIA GeForce RTX 3060": "RTX-3060",
		"NVIDIA GeForce RTX 3060 Laptop GPU": "RTX-3060-Laptop", "NVIDIA RTX A5000": "RTX-A5000",
		"NVIDIA GeForce RTX 4080": "RTX-4080", "NVIDIA GeForce RTX 4070": "RTX-4070",
		"Tesla P100-PCIE-16GB": "P100-PCIe", "Tesla P100-PCIE-12GB": "P100-PCIe-12GB", "Tesla V100S-PCIE-32GB": "V100S-PCIe",
		"NVIDIA A100 80GB PCIe": "A100-80GB-PCIe", "NVIDIA H100 NVL": "H100-NVL",
		"NVIDIA H200 NVL": "H200-NVL", "NVIDIA B200": "B200",
		"GeForce GTX TITAN X": "GTX-TITAN-X", "NVIDIA GeForce GTX 1080": "GTX-1080", "TITAN Xp": "TITAN-Xp", "NVIDIA TITAN Xp": "TITAN-Xp",
		"Tesla K20Xm": "K20X", "Tesla K20m": "K20", "Tesla K20c": "K20", "NVIDIA GeForce RTX 2080": "RTX-2080",
		"NVIDIA GeForce RTX 3080 Ti": "RTX-3080-Ti", "NVIDIA GeForce RTX 3090 Ti": "RTX-3090-Ti",
		"NVIDIA GeForce RTX 4070 Ti": "RTX-4070-Ti", "NVIDIA GeForce RTX 4060 Ti": "RTX-4060-Ti",
	}
	covered := map[string]bool{}
	for name, canonical := range nvml {
		g, err := c.Lookup(name)
		if err != nil || g.Name != canonical {
			t.Errorf("Lookup(%q) = %q, %v; want %s", name, g.Name, err, canonical)
		}
		covered[canonical] = true
	}
	for _, g := range c.GPUs() {
		if g.Vendor == "NVIDIA" && !covered[g.Name] {
			t.Errorf("%s: no NVML name in this test; add the name nvidia-smi reports to its aliases and here", g.Name)
		}
	}
}

// Every name and alias resolves to the GPU that lists it: no alias is shadowed by another GPU's.
func TestEveryAliasResolvesToItsGPU(t *testing.T) {
	c := mustDefault(t)
	for _, g := range c.GPUs() {
		for _, key := range append([]string{g.Name}, g.Aliases...) {
			if got, err := c.Lookup(key); err != nil || got.Name != g.Name {
				t.Errorf("Lookup(%q) = %q, %v; want %s", key, got.Name, err, g.Name)
			}
		}
	}
}

// The per-capability limits of every embedded NVIDIA GPU cite the guide's column of its own
// compute capability, and the table here knows every capability the catalogue uses.
func TestEmbeddedGuideLimitsCited(t *testing.T) {
	for _, g := range mustDefault(t).GPUs() {
		if g.Vendor != "NVIDIA" {
			continue
		}
		if _, ok := limitsOf(g.ComputeCapability); !ok {
			t.Errorf("%s: compute capability %s is missing from limitsOf", g.Name, g.ComputeCapability)
		}
		for _, field := range []string{"shared_per_sm_kb", "shared_per_block_kb", "regs_per_sm", "max_threads_per_sm", "max_blocks_per_sm"} {
			if want := "column " + g.ComputeCapability; !strings.HasSuffix(g.Sources[field], want) {
				t.Errorf("%s: source of %s is %q; want the guide's %s", g.Name, field, g.Sources[field], want)
			}
		}
	}
}

// The per-capability limits are the Programming Guide's: a catalogue entry that differs, or
// names another capability, fails to load; Validate alone (a hypothetical GPU) and a capability
// the table lacks (a GPU newer than this build) are not held to the table.
func TestGuideLimits(t *testing.T) {
	v100, _ := mustDefault(t).Lookup("V100")
	tests := []struct {
		field  string
		change func(g *smart.GPU)
	}{
		{"shared_per_sm_kb", func(g *smart.GPU) { g.SharedPerSMKB = 128 }},
		{"shared_per_block_kb", func(g *smart.GPU) { g.SharedPerBlockKB = 48 }},
		{"max_threads_per_sm", func(g *smart.GPU) { g.MaxThreadsPerSM = 1536 }},
		{"max_blocks_per_sm", func(g *smart.GPU) { g.MaxBlocksPerSM = 16 }},
		{"regs_per_sm", func(g *smart.GPU) { g.RegsPerSM = 131072 }},
		{"shared_per_sm_kb", func(g *smart.GPU) { g.ComputeCapability = "7.5" }},
		{"", func(g *smart.GPU) { g.ComputeCapability = "13.0"; g.SharedPerSMKB = 256 }},
	}
	for _, tc := range tests {
		g := clone(v100)
		tc.change(&g)
		if err := Validate(g); err != nil {
			t.Errorf("%s: Validate: %v; the table is the catalogue's check", tc.field, err)
		}
		err := checkGuideLimits(g)
		var fe *FieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("capability %s the table lacks: %v", g.ComputeCapability, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%s: error %v, want a FieldError on %s", tc.field, err, tc.field)
		}
	}
	g, _ := mustDefault(t).Lookup("RTX-5090")
	g.ComputeCapability, g.SharedPerSMKB, g.SharedPerBlockKB = "10.0", 228, 227
	if err := checkGuideLimits(g); err == nil || !strings.Contains(err.Error(), "compute capability 10.0 has 2048") {
		t.Errorf("capability 10.0 with 1536 threads per SM: %v", err)
	}
	path := writeFile(t, `{"format": "smart-gpus/1", "gpus": [{"name": "T4", "shared_per_sm_kb": 96, "sources": {"shared_per_sm_kb": "a typo"}}]}`)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `field "shared_per_sm_kb": is 96, but compute capability 7.5 has 64`) {
		t.Errorf("an override off the guide's table: %v", err)
	}
}

func TestSelect(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		vendor, arch string
		want         []string // nil: an error on field
		field        string
	}{
		{"", "Kepler", []string{"K80", "K40", "K20X", "K20"}, ""},
		{"nvidia", "ada lovelace", []string{"L4", "L40S", "RTX-4090", "L40", "RTX-6000-Ada", "RTX-4080", "RTX-4070", "RTX-4070-Ti", "RTX-4060-Ti"}, ""},
		{"AMD", "", []string{"MI250X", "W6600", "W7800", "MI50", "MI100", "MI210", "MI300X"}, ""},
		{"", "blackwell", []string{"RTX-5090", "RTX-PRO-6000-Blackwell", "B200"}, ""},
		{"", "Ada", []string{"L4", "L40S", "RTX-4090", "L40", "RTX-6000-Ada", "RTX-4080", "RTX-4070", "RTX-4070-Ti", "RTX-4060-Ti"}, ""},
		{"", "lovelace", []string{"L4", "L40S", "RTX-4090", "L40", "RTX-6000-Ada", "RTX-4080", "RTX-4070", "RTX-4070-Ti", "RTX-4060-Ti"}, ""},
		{"", "Lovelace Ada", nil, "arch"},
		{"", "Keppler", nil, "arch"},
		{"Intel", "", nil, "vendor"},
		{"AMD", "Hopper", nil, ""},
	}
	for _, tc := range tests {
		gpus, err := c.Select(tc.vendor, tc.arch)
		var got []string
		for _, g := range gpus {
			got = append(got, g.Name)
		}
		var se *SelectError
		switch {
		case tc.want == nil && (!errors.As(err, &se) || se.Field != tc.field):
			t.Errorf("Select(%q, %q): error %v, want a SelectError on %q", tc.vendor, tc.arch, err, tc.field)
		case tc.want != nil && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("Select(%q, %q) = %v, %v; want %v", tc.vendor, tc.arch, got, err, tc.want)
		}
	}
	all, err := c.Select("", "")
	if err != nil || len(all) != c.Len() {
		t.Errorf("Select(\"\", \"\"): %d GPUs, %v; want all %d", len(all), err, c.Len())
	}
}

// An override's aliases are added to the catalogue's: docs/examples/mygpus.json names the A100
// as a cluster does, and the A100 keeps its own names and the name NVML reports.
func TestMergeAddsAliases(t *testing.T) {
	c, err := Load("../docs/examples/mygpus.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cluster-a100", "a100", "NVIDIA A100-SXM4-40GB", "A100-40GB"} {
		if g, err := c.Lookup(name); err != nil || g.Name != "A100-40GB" {
			t.Errorf("Lookup(%q) = %s, %v; want A100-40GB", name, g.Name, err)
		}
	}
	base, _ := mustDefault(t).Lookup("a100")
	g, _ := c.Lookup("a100")
	if len(g.Aliases) != len(base.Aliases)+1 {
		t.Errorf("aliases %v; want the catalogue's %v and cluster-a100", g.Aliases, base.Aliases)
	}
	// Given again, an alias the catalogue has is not listed twice.
	c2, err := Load(writeFile(t, `{"format": "smart-gpus/1", "gpus": [{"name": "A100-40GB", "aliases": ["A100", "x-a100"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := c2.Lookup("x-a100"); len(g.Aliases) != len(base.Aliases)+1 {
		t.Errorf("aliases %v; want the catalogue's and x-a100 once", g.Aliases)
	}
}

// A name written with its brand finds the GPU the name alone does.
func TestLookupAfterBrand(t *testing.T) {
	c := mustDefault(t)
	for name, want := range map[string]string{"nvidia a100": "A100-40GB", "NVIDIA H100": "H100-SXM", "GeForce RTX 4090": "RTX-4090",
		"AMD Instinct MI250X": "MI250X", "nvidia tesla t4": "T4"} {
		if g, err := c.Lookup(name); err != nil || g.Name != want {
			t.Errorf("Lookup(%q) = %s, %v; want %s", name, g.Name, err, want)
		}
	}
	if _, err := c.Lookup("nvidia"); err == nil {
		t.Error("the brand alone found a GPU")
	}
}
