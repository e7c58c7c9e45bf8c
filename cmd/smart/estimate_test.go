package main

import (
	"encoding/json"
	"strings"
	"testing"

	"smart"
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
	var got estimateOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	st, _ := loadStencil(&env{}, "j3d7pt", smart.Limits{})
	oc, _ := smart.ParseCombination("ST_TB")
	tu, _ := smart.DecodeTuning(3, oc, roofline.DefaultSetting(st, oc))
	a100, _ := cat.Lookup("a100")
	want, _ := roofline.Model(st, tu, a100)
	if got.GPU != "A100-40GB" || got.Source != smart.Simulated || !got.DefaultSetting || got.Estimate.TimeMs != want.TimeMs {
		t.Errorf("JSON %+v, want the model's %v ms on A100-40GB, simulated", got, want.TimeMs)
	}
}

func TestEstimateErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown GPU", []string{"j3d7pt", "--gpu", "a1000", "--oc", "ST"}, 1, "did you mean"},
		{"AMD GPU", []string{"j3d7pt", "--gpu", "MI250X", "--oc", "ST"}, 1, "NVIDIA GPUs only"},
		{"impossible setting", []string{"j3d7pt", "--gpu", "t4", "--oc", "BASE", "--setting", "bx=64,by=32,bz=1,shared=1,const=1"}, 1, "threads per block exceed"},
		{"setting of another OC", []string{"j3d7pt", "--gpu", "t4", "--oc", "BASE", "--setting", "bx=32,by=8,bz=1,shared=1,const=1,tt=2"}, 1, "takes no parameter tt"},
		{"bad OC", []string{"j3d7pt", "--gpu", "t4", "--oc", "XX"}, 2, "unknown optimization"},
		{"no GPU", []string{"j3d7pt", "--oc", "ST"}, 2, "--gpu"},
		{"no file", []string{"--gpu", "t4", "--oc", "ST"}, 2, "stencil file"},
		{"missing file", []string{"nosuch.json", "--gpu", "t4", "--oc", "ST"}, 1, "nosuch.json"},
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
