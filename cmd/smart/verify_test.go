package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
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

// TestVerifyOverflowJSON: a float32 stencil that overflows float32 within the verification
// steps gets valid JSON naming the overflow, each variant invalid rather than a wrong result.
func TestVerifyOverflowJSON(t *testing.T) {
	if _, err := cuda.FindTools(); err != nil {
		t.Skip(err)
	}
	stencil := `{"dims":2,"dtype":"float32","offsets":[[0,0],[1,0]],"coefficients":[1e-50,1e38]}`
	code, stdout, errs := runCLI(t, stencil, "verify", "-", "--oc", "BASE,TB", "--samples", "1", "--json")
	if code != 1 || !strings.Contains(errs, "2 of 2 variants failed verification") {
		t.Fatalf("exit %d, stderr %q; want 1, both variants failed", code, errs)
	}
	var got struct {
		Results []cuda.Result `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	if len(got.Results) != 2 {
		t.Fatalf("%d results, want 2", len(got.Results))
	}
	for _, r := range got.Results {
		if r.CPU.Status != smart.StatusInvalid || !strings.Contains(r.CPU.Detail, "the stencil overflows float32") {
			t.Errorf("%s: CPU %s, want invalid, the stencil overflowing float32", r.OC, r.CPU)
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

// cancelOnProgress is a stderr that cancels the command once its progress bar shows a finished
// item: a Ctrl-C in the middle of the run.
type cancelOnProgress struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnProgress) Write(p []byte) (int, error) {
	if m := regexp.MustCompile(`\] (\d+)/`).FindSubmatch(p); m != nil && string(m[1]) != "0" {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// TestVerifyInterrupted: a verification interrupted after its first batch lists the variants
// that finished and says it was interrupted (exit 1).
func TestVerifyInterrupted(t *testing.T) {
	if _, err := cuda.FindTools(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errw := &cancelOnProgress{cancel: cancel}
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: errw, interactive: true}
	code := run(ctx, e, []string{"verify", "j2d5pt", "--oc", "BASE", "--samples", "40", "--jobs", "1"})
	stderr := errw.String()
	m := regexp.MustCompile(`interrupted after (\d+) of 40 variants`).FindStringSubmatch(stderr)
	if code != 1 || m == nil || m[1] == "0" || m[1] == "40" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := m[1] + " variants: " + m[1] + " passed, 0 failed"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
}

// TestVerifySetting: --oc and --setting verify the one variant given, a setting made for the
// real grid (sb beyond the small copy's extent), on the small copy; a setting that cannot be
// generated, one of several OCs, or one beside --samples is a usage error naming the flag,
// found before the compilers are looked for.
func TestVerifySetting(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		in   string
	}{
		{"outside the space", []string{"--oc", "TB", "--setting", "bx=1,by=1,bz=128,shared=1,const=0,tt=2"}, "--setting: stencil file j3d7pt: invalid setting for TB on sm_80: bz=128 is not one of its values"},
		{"two OCs", []string{"--oc", "TB,ST", "--setting", "bx=32,by=4,bz=1,shared=1,const=0,tt=2"}, "--oc: a setting is of one optimization combination"},
		{"samples too", []string{"--oc", "TB", "--setting", "bx=32,by=4,bz=1,shared=1,const=0,tt=2", "--samples", "2"}, "give either"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			code, _, errs := runCLI(t, "", append([]string{"verify", "j3d7pt"}, c.args...)...)
			if code != 2 || !strings.Contains(errs, c.in) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, c.in)
			}
		})
	}
	if _, err := cuda.FindTools(); err != nil {
		t.Skip(err)
	}
	const set = "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=256,ufx=1,ufy=1,ufz=4"
	code, stdout, errs := runCLI(t, "", "verify", "j3d7pt", "--oc", "ST", "--setting", set, "--json")
	var got struct {
		Results []cuda.Result `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &got) != nil {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errs, stdout)
	}
	if len(got.Results) != 1 || !got.Results[0].OK() || got.Results[0].Setting.String() != set || got.Results[0].Grid != [3]int{21, 19, 17} {
		t.Errorf("results %+v; want the setting given, passed on the 21x19x17 grid", got.Results)
	}
}
