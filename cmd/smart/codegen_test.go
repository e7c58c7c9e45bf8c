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
	set := "bx=32,by=1,shared=1,const=1,sd=2,sb=8,ufx=1,ufy=2,tt=3"
	code, stdout, errs := runCLI(t, evilStencil, "codegen", "-", "--oc", "st_tb", "--setting", set, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := smart.ParseStencil([]byte(evilStencil), smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"// Stencil " + st.ID() + ": 2-D, order 1, 5 points, float64, grid 40x36, 4 time steps.",
		"// Optimization combination ST_TB, setting " + set + ".", "kernel_t3", "kernel_t1", "inline real* run("} {
		if !strings.Contains(string(src), want) {
			t.Errorf("source lacks %q", want)
		}
	}
	if strings.Contains(string(src), "system") || strings.Contains(string(src), "rm -rf") {
		t.Error("the stencil's name reached the source")
	}
	if !strings.Contains(stdout, "kernel_t3: grid 2x5x1, block 32x1x1") || !strings.Contains(stdout, "1 launch(es)") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestCodegenJSON(t *testing.T) {
	code, stdout, errs := runCLI(t, evilStencil, "codegen", "-", "--oc", "BASE", "--setting", "bx=32,by=4,shared=0,const=0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got codegenOutput
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
		{[]string{"codegen", "-", "--oc", "ST", "--setting", "bx=32,by=2,shared=1,const=0,sd=2,sb=8,ufx=1,ufy=1"}, 1, "by is 2; streaming along it (sd=2) needs a block size of 1"},
	} {
		code, _, errs := runCLI(t, evilStencil, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}
