package main

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/space"
)

// smallStencil is a 2-D 5-point star on a 40x24 grid: small spaces, quick tests.
const smallStencil = `{"format": "smart-stencil/1", "name": "star", "dims": 2, "grid": [40, 24],
  "offsets": [[0,0],[1,0],[-1,0],[0,1],[0,-1]]}`

func TestSpaceSizesJSON(t *testing.T) {
	code, out, errs := runCLI(t, smallStencil, "space", "-", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got space.Report
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	st, err := smart.ParseStencil([]byte(smallStencil), smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Combinations) != 30 || got.GPU != "sm_80" || got.Stencil != "star" {
		t.Fatalf("%d combinations on %s for %s, want 30 on sm_80 for star", len(got.Combinations), got.GPU, got.Stencil)
	}
	for i, oc := range smart.Combinations() {
		s, err := space.ForStencil(st, oc, smart.SM80())
		if err != nil {
			t.Fatal(err)
		}
		c := got.Combinations[i]
		if c.OC != oc || c.Settings.Cmp(s.Count()) != 0 || len(c.Groups) != len(s.Groups()) {
			t.Errorf("%s: %s settings in %d groups, the space has %s in %d", oc, c.Settings, len(c.Groups), s.Count(), len(s.Groups()))
		}
		product := big.NewInt(1)
		for _, g := range c.Groups {
			product.Mul(product, new(big.Int).SetUint64(g.Settings))
		}
		if product.Cmp(c.Settings) != 0 {
			t.Errorf("%s: the groups' sizes multiply to %s, not %s", oc, product, c.Settings)
		}
	}
}

func TestSpaceText(t *testing.T) {
	code, out, errs := runCLI(t, smallStencil, "space", "-", "--oc", "st_cm")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"star: 2-D, order 1, grid 40x24; resource limits of sm_80", "ST_CM", "{const}=2", "parameter values", "cmx     1 2 4 8 16 32"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSpaceSample(t *testing.T) {
	st, _ := smart.ParseStencil([]byte(smallStencil), smart.Limits{})
	oc, _ := smart.ParseCombination("ST_BM_TB")
	s, err := space.ForStencil(st, oc, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	sample := func(seed string) []string {
		code, out, errs := runCLI(t, smallStencil, "space", "-", "--oc", "ST_BM_TB", "--sample", "6", "--seed", seed)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return strings.Split(strings.TrimSpace(out), "\n")
	}
	a := sample("3")
	if len(a) != 6 {
		t.Fatalf("%d settings, want 6:\n%s", len(a), strings.Join(a, "\n"))
	}
	for _, line := range a {
		set, err := smart.ParseSetting(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(set); err != nil {
			t.Errorf("sampled %s is invalid: %v", line, err)
		}
	}
	if len(slices.Compact(slices.Clone(a))) != 6 {
		t.Errorf("repeated settings in %v", a)
	}
	if b := sample("3"); !slices.Equal(a, b) {
		t.Errorf("the same seed gave %v and %v", a, b)
	}
	if c := sample("4"); slices.Equal(a, c) {
		t.Errorf("seeds 3 and 4 gave the same sample %v", a)
	}
}

func TestSpaceCheck(t *testing.T) {
	const good = "bx=1,by=8,bz=32,shared=1,const=0,sd=1,sb=64,ufx=1,ufy=1,ufz=1"
	const bad = "bx=32,by=8,bz=1,shared=1,const=0,sd=1,sb=64,ufx=1,ufy=1,ufz=1"
	code, out, errs := runCLI(t, "", "space", "j3d7pt", "--oc", "ST", "--check", good)
	if code != 0 || !strings.HasPrefix(out, "valid: ") {
		t.Errorf("valid setting: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "space", "j3d7pt", "--oc", "ST", "--check", bad)
	if code != 1 || out != "" || !strings.Contains(errs, `constraint "the block size along the streaming axis sd is 1" rejects sd=1,bx=32`) {
		t.Errorf("invalid setting: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCLI(t, "", "space", "j3d7pt", "--oc", "ST", "--check", bad, "--json")
	var got struct {
		Valid     bool
		Violation space.Violation
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 1 || got.Valid || got.Violation.Param != "sd" || !slices.Equal(got.Violation.Values, []int{1, 32, 8, 1}) {
		t.Errorf("--json: exit %d, %+v, %v\n%s", code, got, err, out)
	}
}

func TestSpaceGPU(t *testing.T) {
	count := func(args ...string) *big.Int {
		t.Helper()
		code, out, errs := runCLI(t, "", append([]string{"space", "j3d7pt", "--oc", "CM_TB", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var got space.Report
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		return got.Combinations[0].Settings
	}
	a100, p100, tiny := count(), count("--gpu", "p100"), count("--shared-kb", "8")
	// P100 has 48 KiB of shared memory per block to the A100's 163: fewer tiles fit.
	if p100.Cmp(a100) >= 0 || tiny.Cmp(p100) >= 0 || tiny.Sign() <= 0 {
		t.Errorf("CM_TB settings: sm_80 %s, P100 %s, 8 KiB %s; want decreasing and positive", a100, p100, tiny)
	}
}

func TestSpaceUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"space"}, 2, "give one stencil file"},
		{[]string{"space", "j3d7pt", "--sample", "3"}, 2, "--oc all: a sample or a setting to check needs one combination"},
		{[]string{"space", "j3d7pt", "--oc", "BM_CM"}, 2, "exclude each other"},
		{[]string{"space", "j3d7pt", "--oc", "ST", "--sample", "2", "--check", "bx=1"}, 2, "--check: check a setting or draw a sample, not both"},
		{[]string{"space", "j3d7pt", "--oc", "ST", "--check", "bx"}, 2, "not of the form name=value"},
		{[]string{"space", "j3d7pt", "--gpu", "nosuchgpu"}, 2, "unknown GPU"},
		{[]string{"space", "nosuchfile.json", "--gpu", "nosuchgpu"}, 2, "unknown GPU"}, // before the stencil is read
		{[]string{"space", "nosuchfile.json"}, 1, "stencil file nosuchfile.json"},
		{[]string{"space", "j3d7pt", "--catalog", "."}, 1, "is a directory"}, // read even without --gpu
		{[]string{"space", "j3d7pt", "--gpu", "mi250x"}, 2, "smart's kernels are CUDA"},
		{[]string{"codegen", "j3d7pt", "--gpu", "mi250x", "--oc", "BASE", "--setting", "bx=2,by=32,bz=2,shared=0,const=1"}, 2, "smart's kernels are CUDA"},
		{[]string{"space", "j3d7pt", "--oc", "ST", "--shared-kb", "9007199254740992"}, 2, "no GPU comes near that"}, // 2^53 KiB: 2^63 bytes
		{[]string{"space", "j3d7pt", "--oc", "ST", "--gpu-regs", "100000000000"}, 2, "no GPU comes near that"},
	}
	for _, tc := range tests {
		code, _, errs := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestSpaceRefusesGridsTheGPUCannotHold: with --gpu, a grid whose two float64 buffers outgrow
// the GPU's memory (90000^2 points x 8 bytes x 2 = 129.6e9 bytes, 120.7 GiB; the A100-40GB has 40 GiB) lists no
// space and checks no setting; without --gpu (sm_80's limits, no memory) the space is listed.
func TestSpaceRefusesGridsTheGPUCannotHold(t *testing.T) {
	huge := strings.Replace(smallStencil, "[40, 24]", "[90000, 90000]", 1)
	for _, args := range [][]string{
		{"space", "-", "--gpu", "a100"},
		{"space", "-", "--gpu", "a100", "--oc", "BASE", "--check", "bx=32,by=4,shared=1,const=1"},
	} {
		code, _, errs := runCLI(t, huge, args...)
		if code != 1 || !strings.Contains(errs, "120.7 GiB; the A100-40GB has 40 GiB") || !strings.Contains(errs, "give a smaller grid") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 saying the grids need 120.7 GiB of the A100's 40", args, code, errs)
		}
	}
	if code, _, errs := runCLI(t, huge, "space", "-", "--oc", "BASE"); code != 0 {
		t.Errorf("without --gpu: exit %d: %s", code, errs)
	}
}
