package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
