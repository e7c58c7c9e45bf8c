package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRecommendInterruptedReport: Ctrl-C after the first of four stencils writes the report of
// the first, and the report lists the stencil interrupted in the words stderr uses, not the
// context package's, and says, as stderr does, how many stencils were not reached.
func TestRecommendInterruptedReport(t *testing.T) {
	html := filepath.Join(t.TempDir(), "r.html")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The bar draws once the first recommendation is in: Ctrl-C then.
	errb := &cancelOnBar{cancel: cancel}
	code := run(ctx, &env{stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: errb, interactive: true},
		[]string{"recommend", "--html", html, "j2d5pt", "j3d7pt", "j2d9pt", "j3d27pt"})
	page, err := os.ReadFile(html)
	if code != 1 || err != nil || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("exit %d, report %v, stderr %q; want 1, a report and 'interrupted'", code, err, errb.String())
	}
	if !strings.Contains(string(page), "j3d7pt") || !strings.Contains(string(page), ": interrupted") || strings.Contains(string(page), "context canceled") {
		t.Errorf("the report lists the stencil interrupted as\n%s\nwant it ending ': interrupted', as stderr does:\n%s", failedItems(string(page)), errb.String())
	}
	const left = "2 stencils not reached (j2d9pt to j3d27pt): interrupted"
	if !strings.Contains(failedItems(string(page)), left) || !strings.Contains(errb.String(), "\n"+left+"\n") {
		t.Errorf("the report lists\n%s\nand stderr says\n%s\nwant both to say %q", failedItems(string(page)), errb.String(), left)
	}
}

// failedItems are the report's lines of stencils that failed.
func failedItems(page string) string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, `class="warn"`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestRecommendGPUBlindModel: a model of the user's that learned one GPU gives every GPU that
// GPU's times; recommend says so and gives no advice on them, where the embedded models (which
// move one GPU's times to another by the analytic ratio) warn of nothing of the kind.
func TestRecommendGPUBlindModel(t *testing.T) {
	const blind = "cannot tell GPUs apart (it learned H100-SXM only)"
	for _, c := range []struct {
		args  []string
		warns bool
	}{
		{[]string{"--model", "../../data/measured/h100-sxm/models/runtime-3d.smartmodel.gz"}, true},
		{nil, false},
	} {
		args := append([]string{"recommend", "../../data/stencils/j3d7pt.json", "--gpus", "h100-sxm,v100,a100", "--have", "v100", "--json"}, c.args...)
		code, out, errs := runCLI(t, "", args...)
		var r struct {
			Have     struct{ Advice string } `json:"have"`
			Warnings []string                `json:"warnings"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, blind) && strings.Contains(w, "V100") })
		if warned != c.warns || strings.HasPrefix(r.Have.Advice, "no advice") != c.warns {
			t.Errorf("%v: warnings %q, advice %q; want the warning and no advice: %v", c.args, r.Warnings, r.Have.Advice, c.warns)
		}
	}
}
