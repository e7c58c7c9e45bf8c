package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"smart/app"
	"smart/campaign"
	"smart/dataset"
)

// TestCampaignScript runs bench/device/campaign.sh end to end with the sim backend, as on a lent
// GPU: a built smart binary, a manifest, two calls (the second resuming a complete data set
// adds nothing and is logged too), and the data set brought back as a tarball that extracts to
// every variant of the manifest.
func TestCampaignScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the smart binary and runs the campaign script")
	}
	for _, tool := range []string{"bash", "tar", "awk", "timeout", "python3", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "smart")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	manifest := filepath.Join(dir, "manifest")
	if code, _, errs := runCLI(t, "", "campaign", "plan", "--per-dims", "1", "--out", manifest); code != 0 {
		t.Fatalf("campaign plan: exit %d: %s", code, errs)
	}
	m, err := campaign.Load(manifest)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "measured", "h100-sxm", "campaign")
	script, err := filepath.Abs("../../bench/device/campaign.sh")
	if err != nil {
		t.Fatal(err)
	}
	for call := 1; call <= 2; call++ {
		out := filepath.Join(dir, "out", string(rune('0'+call)))
		cmd := exec.Command("bash", script, "0.5")
		cmd.Env = append(os.Environ(), "SMART="+bin, "OUT="+out, "BACKEND=sim", "GPU=h100-sxm", "MANIFEST="+manifest, "DATASET="+data)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("call %d: %v\n%s", call, err, b)
		}
		var rep app.CampaignReport
		b, err := os.ReadFile(filepath.Join(out, "call.json"))
		if err == nil {
			err = json.Unmarshal(b, &rep)
		}
		if err != nil {
			t.Fatalf("call %d: call.json: %v", call, err)
		}
		want := len(m.Items())
		if call == 2 {
			want = 0
		}
		if rep.Rows != want || rep.StencilsDone != len(m.Entries) || rep.Manifest != m.Hash() {
			t.Errorf("call %d: %+v; want %d rows and %d stencils done", call, rep, want, len(m.Entries))
		}
		// What comes back from the device machine: the data set, whole.
		back := filepath.Join(dir, "back", string(rune('0'+call)))
		if err := os.MkdirAll(back, 0o755); err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command("tar", "xzf", filepath.Join(out, "campaign.tgz"), "-C", back).CombinedOutput(); err != nil {
			t.Fatalf("call %d: tar: %v\n%s", call, err, b)
		}
		got := filepath.Join(back, "h100-sxm", "campaign")
		if _, rows, err := dataset.ReadAll(got); err != nil || len(rows) != len(m.Items()) {
			t.Errorf("call %d: the data set brought back holds %d rows (%v); want %d", call, len(rows), err, len(m.Items()))
		}
		calls, err := campaign.ReadCalls(got)
		if err != nil || len(calls) != call {
			t.Errorf("call %d: %d calls logged (%v)", call, len(calls), err)
		}
	}
	// status reads it.
	code, out, errs := runCLI(t, "", "campaign", "status", "--manifest", manifest, data)
	if code != 0 || !strings.Contains(out, "4 of 4 stencils started, 4 of them done") {
		t.Errorf("status: exit %d\n%s%s", code, out, errs)
	}

	// A whole lease in one call: the campaign, then the picks of every named stencil (with the
	// embedded models alone: the models directory is empty).
	lease, err := filepath.Abs("../../bench/device/lease.sh")
	if err != nil {
		t.Fatal(err)
	}
	leaseOut, picks := filepath.Join(dir, "out", "lease"), fmt.Sprintf("picks-test-%d", os.Getpid())
	t.Cleanup(func() { os.RemoveAll(filepath.Join("/tmp", picks)) })
	cmd := exec.Command("bash", lease, "0.5", t.TempDir())
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "SMART="+bin, "OUT="+leaseOut, "BACKEND=sim", "GPU=h100-sxm", "MANIFEST="+manifest,
		"DATASET="+filepath.Join(dir, "lease", "h100-sxm", "campaign"), "PICKS="+picks, "PICKS_SECONDS=120")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lease: %v\n%s", err, b)
	}
	for _, f := range []string{"campaign.tgz", "call.json", picks + ".tgz"} {
		if _, err := os.Stat(filepath.Join(leaseOut, f)); err != nil {
			t.Errorf("the lease left no %s: %v", f, err)
		}
	}
	back := filepath.Join(dir, "back", "lease")
	if err := os.MkdirAll(back, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("tar", "xzf", filepath.Join(leaseOut, picks+".tgz"), "-C", back).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	if _, rows, err := dataset.ReadAll(filepath.Join(back, picks, "j3d7pt")); err != nil || len(rows) == 0 {
		t.Errorf("the picks of j3d7pt: %d rows (%v); want the candidates measured", len(rows), err)
	}
}

// TestCampaignPlanFlags: a spec value out of range is a usage error naming its flag and range,
// a GPU smart's CUDA does not run on is refused before anything is drawn or written, and so is
// a directory that holds a manifest already.
func TestCampaignPlanFlags(t *testing.T) {
	held := t.TempDir()
	if err := os.WriteFile(filepath.Join(held, campaign.ManifestFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--per-dims", "0"}, "--per-dims 0: use 1 or more"},
		{[]string{"--max-order", "9"}, "--max-order 9: use 1 to 8"},
		{[]string{"--uniform", "0", "--predicted", "0"}, "--predicted 0: use 1 or more"},
		{[]string{"--gpu", "mi250x"}, "--gpu: GPU MI250X is made by AMD"},
		{[]string{"--out", held}, "--out: " + held + " already holds a campaign manifest; choose another directory"},
		{[]string{"--out", notes}, "--out: " + notes + " is a file, not a directory"}, // as a data set's directory is, a usage error
	} {
		out := filepath.Join(t.TempDir(), "m")
		code, _, errs := runCLI(t, "", append([]string{"campaign", "plan", "--per-dims", "1", "--out", out}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", c.args, out)
		}
		if b, err := os.ReadFile(filepath.Join(held, campaign.ManifestFile)); err != nil || string(b) != "{}" {
			t.Errorf("%v: the manifest in %s was changed (%v)", c.args, held, err)
		}
		if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
			t.Errorf("%v: %s was changed (%v)", c.args, notes, err)
		}
	}
}

// TestCampaignRunRefused: a call refused before it begins (a GPU smart's CUDA does not run on, a
// data set started on another GPU or from another manifest) writes nothing, prints no summary
// and says what differs, not that running it again resumes it.
func TestCampaignRunRefused(t *testing.T) {
	dir := t.TempDir()
	manifest, other, data := filepath.Join(dir, "m"), filepath.Join(dir, "other"), filepath.Join(dir, "sim")
	for _, args := range [][]string{{"--out", manifest}, {"--seed", "2", "--out", other}} {
		if code, _, errs := runCLI(t, "", append([]string{"campaign", "plan", "--per-dims", "1"}, args...)...); code != 0 {
			t.Fatalf("campaign plan %v: exit %d: %s", args, code, errs)
		}
	}
	runArgs := func(manifest, gpu, out string) []string {
		return []string{"campaign", "run", "--manifest", manifest, "--backend", "sim", "--gpu", gpu, "--out", out, "--json"}
	}
	amd := filepath.Join(dir, "amd")
	for _, backend := range []string{"sim", "cuda"} { // cuda: before the driver is looked for
		args := append(runArgs(manifest, "mi250x", amd), "--backend", backend)
		code, out, errs := runCLI(t, "", args...)
		if _, err := os.Stat(amd); code != 2 || out != "" || !strings.Contains(errs, "--gpu: GPU MI250X is made by AMD") || err == nil {
			t.Errorf("an AMD GPU on %s: exit %d (stat %v), %q, %q; want exit 2, nothing written", backend, code, err, out, errs)
		}
	}
	// A --time too short to measure anything would log an empty call at every try.
	code, out, errs := runCLI(t, "", append(runArgs(manifest, "h100", data), "--time", "1ms")...)
	if _, err := os.Stat(data); code != 2 || out != "" || !strings.Contains(errs, "--time 1ms: too short to measure anything; give 1s or more") || err == nil {
		t.Errorf("--time 1ms: exit %d (stat %v), %q, %q; want exit 2, nothing written", code, err, out, errs)
	}
	if code, _, errs := runCLI(t, "", runArgs(manifest, "h100", data)...); code != 0 {
		t.Fatalf("first call: exit %d: %s", code, errs)
	}
	for _, c := range []struct {
		manifest, gpu, want string
	}{
		{manifest, "h200", "its device is [H100-SXM"},
		{other, "h100", "was measured from another manifest"},
		{filepath.Join(dir, "none"), "h100", "--manifest " + filepath.Join(dir, "none") + ": campaign manifest: open"},
	} {
		code, out, errs := runCLI(t, "", runArgs(c.manifest, c.gpu, data)...)
		if code != 1 || out != "" || !strings.Contains(errs, c.want) || strings.Contains(errs, "run it again") {
			t.Errorf("%s on %s: exit %d, %q, %q; want exit 1, no summary and %q", c.manifest, c.gpu, code, out, errs, c.want)
		}
	}
	if code, _, errs := runCLI(t, "", "campaign", "status", "--manifest", filepath.Join(dir, "none"), data); code != 1 || !strings.Contains(errs, "--manifest "+filepath.Join(dir, "none")+": ") {
		t.Errorf("status of a missing manifest: exit %d, %q", code, errs)
	}
	if calls, err := campaign.ReadCalls(data); err != nil || len(calls) != 1 {
		t.Errorf("%d calls logged (%v); want the first alone", len(calls), err)
	}
}
