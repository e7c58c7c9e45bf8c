package main

import (
	"encoding/json"
	"strings"
	"testing"

	"smart"
	"smart/app"
	"smart/calibrate"
	"smart/catalog"
	"smart/models/roofline"
)

// smart estimate works for every combination with its default setting on every catalogued
// NVIDIA GPU, for a 2-D and a 3-D sample, and its JSON is the model's estimate.
func TestEstimateEveryOCEveryGPU(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, sample := range []string{"j3d7pt", "j2d9pt"} {
		for _, g := range cat.GPUs() {
			if g.Vendor != "NVIDIA" {
				continue
			}
			for _, oc := range smart.Combinations() {
				code, out, errs := runCLI(t, "", "estimate", sample, "--gpu", g.Name, "--oc", oc.String())
				if code != 0 || !strings.Contains(out, "ms per step") || !strings.Contains(out, "(default;") {
					t.Errorf("%s %s %s: exit %d: %s\n%s", sample, g.Name, oc, code, errs, out)
				}
			}
		}
	}
	code, out, errs := runCLI(t, "", "estimate", "j3d7pt", "--gpu", "NVIDIA A100-PCIE-40GB", "--oc", "st_tb", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var got app.Estimate
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	st, _ := loadStencil(&env{}, "j3d7pt", smart.Limits{})
	oc, _ := smart.ParseCombination("ST_TB")
	tu, _ := smart.DecodeTuning(3, oc, roofline.DefaultSetting(st, oc))
	a100, _ := cat.Lookup("a100")
	cal, err := calibrate.Default()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := roofline.ModelWith(st, tu, a100, &cal.Calibration)
	if got.GPU != "A100-40GB" || got.Source != smart.Simulated || !got.DefaultSetting || got.Estimate.TimeMs != want.TimeMs || got.Constants != "calibrated" {
		t.Errorf("JSON %+v, want the calibrated model's %v ms on A100-40GB, simulated", got, want.TimeMs)
	}
	if iv := got.Interval; iv == nil || !(iv.LoMs < want.TimeMs && want.TimeMs < iv.HiMs) || iv.Level != cal.Interval.Level {
		t.Errorf("interval %+v does not surround the estimate %v ms at level %v", iv, want.TimeMs, cal.Interval.Level)
	}
	code, out, errs = runCLI(t, "", "estimate", "j3d7pt", "--gpu", "a100", "--oc", "ST_TB", "--json", "--literature")
	got = app.Estimate{}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("--literature: exit %d, %v: %s", code, err, errs)
	}
	if lit, _ := roofline.Model(st, tu, a100); got.Estimate.TimeMs != lit.TimeMs || got.Constants != "literature" || got.Interval != nil {
		t.Errorf("--literature: %+v, want the literature model's %v ms and no interval", got, lit.TimeMs)
	}
}

func TestEstimateErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown GPU", []string{"j3d7pt", "--gpu", "a1000", "--oc", "ST"}, 2, "did you mean"},
		{"AMD GPU", []string{"j3d7pt", "--gpu", "MI250X", "--oc", "ST"}, 2, "NVIDIA GPUs only"},
		{"impossible setting", []string{"j3d7pt", "--gpu", "t4", "--oc", "BASE", "--setting", "bx=64,by=32,bz=1,shared=1,const=1"}, 2, "a block of 2048 threads must hold at least a warp (32) and at most the T4's 1024 threads"},
		{"setting of another OC", []string{"j3d7pt", "--gpu", "t4", "--oc", "BASE", "--setting", "bx=32,by=8,bz=1,shared=1,const=1,tt=2"}, 2, "unknown parameter tt; the space has bx,by,bz,shared,const"},
		{"bad OC", []string{"j3d7pt", "--gpu", "t4", "--oc", "XX"}, 2, "unknown optimization"},
		{"no GPU", []string{"j3d7pt", "--oc", "ST"}, 2, "--gpu"},
		{"no file", []string{"--gpu", "t4", "--oc", "ST"}, 2, "stencil file"},
		{"missing file", []string{"nosuch.json", "--gpu", "t4", "--oc", "ST"}, 1, "nosuch.json"},
		{"directory", []string{"../../data/stencils", "--gpu", "t4", "--oc", "ST"}, 1, "stencil file ../../data/stencils: is a directory, not a stencil file; give one of its *.json files (smart predict takes a directory"},
	}
	for _, tc := range tests {
		code, _, errs := runCLI(t, "", append([]string{"estimate"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d with %q", tc.name, code, errs, tc.code, tc.want)
		}
	}
	code, out, _ := runCLI(t, "", "estimate", "j2d5pt", "--gpu", "h100", "--oc", "BM", "--setting", "bx=64,by=4,shared=1,const=1,ufx=1,ufy=1,bmx=1,bmy=2")
	if code != 0 || !strings.Contains(out, "(given)") {
		t.Errorf("given setting: exit %d\n%s", code, out)
	}
}

// outsideSpace are settings the search space rejects (smart space --check exits 1) that the
// audit found estimate or codegen accepting, or panicking, spinning or exhausting memory on.
var outsideSpace = []struct {
	name, stencil, oc, setting string
}{
	{"tile product wraps to 0 (BM)", "j3d7pt", "BM", "bx=32,by=8,bz=1,shared=1,const=0,bmx=576460752303423488,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1"},
	{"tile product wraps to 0 (ST_BM_RT_TB)", "j3d7pt", "ST_BM_RT_TB", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,tt=2,bmx=4611686018427387904,bmy=4,bmz=1,ufx=1,ufy=1,ufz=1"},
	{"register product wraps", "j3d7pt", "ST_BM_RT_TB", "bx=2,by=7,bz=2,shared=1024,const=0,sd=2,sb=3,tt=2147483647,bmx=2147483647,bmy=3,bmz=1,ufx=64,ufy=2147483647,ufz=2"},
	{"shared memory wraps", "j3d7pt", "ST_RT_TB", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,tt=100000000,ufx=1,ufy=1,ufz=1"},
	{"tt spins", "j3d7pt", "ST_BM_RT_TB", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,tt=2147483647,bmx=1,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1"},
	{"shared is not 0 or 1", "j3d7pt", "BASE", "bx=32,by=8,bz=1,shared=2,const=0"},
	{"block size not a power of two", "j3d7pt", "BASE", "bx=33,by=8,bz=1,shared=1,const=0"},
	{"sb beyond the grid", "j3d7pt", "ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=100000000,ufx=1,ufy=1,ufz=1"},
	{"block wider than a tiny grid", "tiny", "BASE", "bx=32,by=8,shared=1,const=0"},
	{"11 TB of shared memory", "j3d7pt", "BM", "bx=32,by=8,bz=1,shared=1,const=0,bmx=1000000000,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1"},
	{"tt not a power of two", "j3d7pt", "TB", "bx=32,by=8,bz=1,shared=1,const=0,tt=3"},
	{"block too small for a warp", "j3d7pt", "BASE", "bx=4,by=2,bz=1,shared=1,const=0"},
	{"missing parameter", "j3d7pt", "BASE", "bx=32,by=8,shared=1,const=0"},
	{"fused partial sums spill", "j2d9pt", "ST_RT_PR_TB", "bx=1024,by=1,shared=1,const=1,sd=2,sb=128,ufx=1,ufy=1,tt=8"},
}

// The registers of the fused steps' partial sums that fit the spill bound are shown apart: the
// fastest j3d27pt kernel measured on the H100 asks for 12 beyond its 64 (resources_test.go).
func TestEstimateShowsFusedRegisters(t *testing.T) {
	code, out, errs := runCLI(t, "", "estimate", "j3d27pt", "--gpu", "h100-sxm", "--oc", "ST_CM_RT_PR_TB",
		"--setting", "bx=128,by=1,bz=8,shared=1,const=0,sd=2,sb=128,ufx=1,ufy=4,ufz=1,cmx=1,cmy=1,cmz=1,tt=2")
	if code != 0 || !strings.Contains(out, "64 registers") || !strings.Contains(out, "+ 12 registers per thread of the fused steps' partial sums") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
}

// tinyStencil is a 2-D stencil on a 12x12 grid: a block of 32 threads along x is wider than it.
const tinyStencil = `{"dims": 2, "grid": [12, 12], "offsets": [[0,0],[1,0],[-1,0],[0,1],[0,-1]]}`

// spaceVerdict runs smart space --check and returns its error message, which must be there.
func spaceVerdict(t *testing.T, stencil, oc, setting string, gpu ...string) string {
	t.Helper()
	stdin := ""
	if stencil == "tiny" {
		stencil, stdin = "-", tinyStencil
	}
	args := append([]string{"space", stencil, "--oc", oc, "--check", setting}, gpu...)
	code, _, errs := runCLI(t, stdin, args...)
	msg, ok := strings.CutPrefix(strings.TrimSpace(errs), "smart space: ")
	if code != 1 || !ok || !strings.Contains(msg, "invalid setting for") {
		t.Fatalf("smart space --check %s: exit %d, stderr %q; want it invalid", setting, code, errs)
	}
	return msg
}

// smart estimate rejects every setting the search space rejects, with the space's error.
func TestEstimateRejectsWhatTheSpaceRejects(t *testing.T) {
	for _, tc := range outsideSpace {
		want := spaceVerdict(t, tc.stencil, tc.oc, tc.setting, "--gpu", "a100")
		stencil, stdin := tc.stencil, ""
		if stencil == "tiny" {
			stencil, stdin = "-", tinyStencil
		}
		code, out, errs := runCLI(t, stdin, "estimate", stencil, "--gpu", "a100", "--oc", tc.oc, "--setting", tc.setting)
		if code != 2 || !strings.HasPrefix(errs, "smart estimate: --setting: "+want+"\n") || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 and %q", tc.name, code, errs, out, want)
		}
	}
}

// A default setting outside the space (a block wider than the grid) says so and how to fix it.
func TestEstimateDefaultOutsideSpace(t *testing.T) {
	code, _, errs := runCLI(t, tinyStencil, "estimate", "-", "--gpu", "a100", "--oc", "BASE")
	if code != 1 || !strings.Contains(errs, "the default setting bx=32,by=8,shared=1,const=1: invalid setting for BASE on A100-40GB: bx=32 is not one of its values [1 2 4 8]") ||
		!strings.Contains(errs, "give one that fits with --setting") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// An OC with no valid setting on the GPU at all says so, which constraint empties it and why,
// and suggests another OC or GPU, in estimate and in space's sample, not another --setting.
func TestEmptySpaceAdvice(t *testing.T) {
	for _, args := range [][]string{
		{"estimate", "j3d25pt", "--gpu", "k80", "--oc", "TB"},
		{"space", "j3d25pt", "--gpu", "k80", "--oc", "TB", "--sample", "3"},
	} {
		code, _, errs := runCLI(t, "", args...)
		for _, want := range []string{"TB has no valid setting for j3d25pt on the K80", "bytes of shared memory per block exceed the K80's 48 KiB",
			"; try another --oc (smart space FILE --gpu GPU counts the settings of each) or another --gpu\n"} {
			if code != 1 || !strings.Contains(errs, want) || strings.Contains(errs, "--setting") {
				t.Errorf("smart %s: exit %d, stderr %q; want 1 and %q", strings.Join(args, " "), code, errs, want)
			}
		}
	}
}
