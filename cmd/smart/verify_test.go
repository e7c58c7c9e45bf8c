package main

import (
	"encoding/json"
	"strings"
	"testing"

	"smart"
	"smart/dataset/cuda"
)

func TestVerifyJSON(t *testing.T) {
	if _, err := cuda.FindTools(); err != nil {
		t.Skip(err)
	}
	code, stdout, errs := runCLI(t, evilStencil, "verify", "-", "--oc", "ST_PR,BM_TB", "--samples", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		GPU     string `json:"gpu"`
		Failed  int    `json:"failed"`
		Results []struct {
			Stencil struct{ File string } `json:"stencil"`
			cuda.Result
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.GPU != "sm_80" || got.Failed != 0 || len(got.Results) != 2 {
		t.Fatalf("got %+v", got)
	}
	for i, oc := range []smart.Combination{smart.Combination(smart.ST).With(smart.PR), smart.Combination(smart.BM).With(smart.TB)} {
		r := got.Results[i]
		if r.OC != oc || !r.OK() || r.Stencil.File != "-" || r.Grid != [3]int{41, 37, 1} {
			t.Errorf("result %d: %+v", i, r)
		}
	}
}

func TestVerifyNeedsCompilers(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, errs := runCLI(t, evilStencil, "verify", "-")
	if code != 1 || !strings.Contains(errs, "apt-get install clang-14 g++") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestVerifyUnknownGPU: a GPU name the catalogue lacks is a usage error (exit 2), as in tune,
// found before the compilers are looked for.
func TestVerifyUnknownGPU(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, gpu := range []string{"nosuch", "a1000"} {
		code, _, errs := runCLI(t, evilStencil, "verify", "-", "--gpu", gpu)
		if code != 2 || !strings.Contains(errs, "--gpu: unknown GPU") {
			t.Errorf("--gpu %s: exit %d, stderr %q; want exit 2 and --gpu: unknown GPU", gpu, code, errs)
		}
	}
}
