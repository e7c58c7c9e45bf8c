package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/dataset/cuda"
)

// evilStencil has a name made of C++ that must not reach the generated source.
const evilStencil = `{"format": "smart-stencil/1", "name": "x\"); system(\"rm -rf /\"); /*", "dims": 2, "grid": [40, 36],
  "steps": 4, "offsets": [[0,0],[1,0],[-1,0],[0,1],[0,-1]]}`

func TestCodegenFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "k.cu")
	// Five steps fused four at a time: one launch of a 4-step kernel, one of a 1-step kernel.
	stencil := strings.Replace(evilStencil, `"steps": 4`, `"steps": 5`, 1)
	set := "bx=32,by=1,shared=1,const=1,sd=2,sb=8,ufx=1,ufy=2,tt=4"
	code, stdout, errs := runCLI(t, stencil, "codegen", "-", "--oc", "st_tb", "--setting", set, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := smart.ParseStencil([]byte(stencil), smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// Stencil " + st.ID() + ": 2-D, order 1, 5 points, float64, grid 40x36, 5 time steps.",
		"// Optimization combination ST_TB, setting " + set + ".", "kernel_t4", "kernel_t1", "inline real* run("} {
		if !strings.Contains(string(src), want) {
			t.Errorf("source lacks %q", want)
		}
	}
	if strings.Contains(string(src), "system") || strings.Contains(string(src), "rm -rf") {
		t.Error("the stencil's name reached the source")
	}
	if !strings.Contains(stdout, "kernel_t4: grid 2x5x1, block 32x1x1") || !strings.Contains(stdout, "4 steps per launch, 1 launch\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestCodegenJSON(t *testing.T) {
	code, stdout, errs := runCLI(t, evilStencil, "codegen", "-", "--oc", "BASE", "--setting", "bx=32,by=4,shared=0,const=0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got cuda.KernelJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := []cuda.Launch{{Kernel: "kernel_t1", Grid: [3]int{2, 9, 1}, Block: [3]int{32, 4, 1}, Steps: 1, Count: 4}}
	if got.OC != 0 || got.Steps != 4 || len(got.Launches) != 1 || got.Launches[0] != want[0] || !strings.Contains(got.Source, "namespace "+got.Namespace) {
		t.Errorf("got %+v", got)
	}
}

func TestCodegenErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"codegen", "-", "--setting", "bx=32"}, 2, "give the optimization combination with --oc"},
		{[]string{"codegen", "-", "--oc", "ST"}, 2, "give the setting with --setting"},
		{[]string{"codegen", "-", "--oc", "XX", "--setting", "bx=1"}, 2, `unknown optimization "XX"`},
		{[]string{"codegen", "-", "--oc", "XX"}, 2, `unknown optimization "XX"`},
		{[]string{"codegen", "-", "--oc", "BASE", "--setting", "bx=32"}, 2, "parameter by is missing"},
		{[]string{"codegen", "-", "--oc", "ST", "--setting", "bx=32,by=2,shared=1,const=0,sd=2,sb=8,ufx=1,ufy=1"}, 2,
			`invalid setting for ST on sm_80: sd: constraint "the block size along the streaming axis sd is 1" rejects sd=2,bx=32,by=2`},
		// The space of --gpu: 88 KiB of shared memory per block fit an A100, not a T4.
		{[]string{"codegen", "j3d7pt", "--oc", "BM", "--gpu", "t4", "--setting", bigSharedBM}, 2, "bytes of shared memory per block exceed the T4's"},
		{[]string{"codegen", "-", "--oc", "BASE", "--gpu", "a1000", "--setting", "bx=32,by=4,shared=0,const=0"}, 2, "did you mean"},
	} {
		code, _, errs := runCLI(t, evilStencil, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// smart codegen rejects every setting the search space rejects (on sm_80 without --gpu) with
// the space's error as a usage error, and generates nothing.
func TestCodegenRejectsWhatTheSpaceRejects(t *testing.T) {
	for _, tc := range outsideSpace {
		want := spaceVerdict(t, tc.stencil, tc.oc, tc.setting)
		stencil, stdin := tc.stencil, ""
		if stencil == "tiny" {
			stencil, stdin = "-", tinyStencil
		}
		code, out, errs := runCLI(t, stdin, "codegen", stencil, "--oc", tc.oc, "--setting", tc.setting)
		if code != 2 || !strings.HasPrefix(errs, "smart codegen: --setting: "+want+"\n") || out != "" {
			t.Errorf("%s: exit %d, stderr %q, %d bytes of stdout; want exit 2 and %q", tc.name, code, errs, len(out), want)
		}
	}
}

// bigSharedBM is a j3d7pt BM setting with 88 KiB of shared memory per block.
const bigSharedBM = "bx=32,by=8,bz=4,shared=1,const=0,bmx=1,bmy=2,bmz=4,ufx=1,ufy=1,ufz=1"

// Without --gpu the limits are sm_80's (an A100's), as for smart space.
func TestCodegenDefaultLimits(t *testing.T) {
	if code, _, errs := runCLI(t, "", "codegen", "j3d7pt", "--oc", "BM", "--setting", bigSharedBM); code != 0 {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// -o - writes the source to stdout, as generate --out - does, not to a file named "-".
func TestCodegenOutputDash(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"codegen", "-", "--oc", "BASE", "--setting", "bx=32,by=4,shared=0,const=0", "-o", "-"}, extra...)
		code, stdout, errs := runCLI(t, evilStencil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(stdout, "__global__") || strings.Contains(stdout, "wrote ") {
			t.Errorf("%v: stdout holds no source:\n%s", args, stdout)
		}
		if _, err := os.Stat("-"); err == nil {
			t.Fatalf("%v: wrote a file named -", args)
		}
	}
}
