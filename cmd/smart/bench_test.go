package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchOutRefused: an --out that the run cannot write into is refused before the settings
// are drawn, with no summary and no advice to run the command again, which would fail the same
// way.
func TestBenchOutRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := runCLI(t, "", benchArgs(out)...)
	if code != 1 || stdout != "" || strings.Contains(errs, "again") || strings.Contains(errs, "drawing settings") ||
		!strings.Contains(errs, "--out: "+out+" is not empty and holds no data set (notes.txt, ...)") {
		t.Errorf("bench into someone else's directory: exit %d, %q, %q; want exit 1, the directory refused, no summary", code, stdout, errs)
	}
}

// TestCutFlag: --cut takes a factor of 1.5 or more, or 0 for never; a negative one is refused
// as a factor under 1.5 is, not read as never.
func TestCutFlag(t *testing.T) {
	for _, args := range []func(out string) []string{
		func(out string) []string { return benchArgs(out, "--cut", "-1") },
		func(out string) []string { return benchArgs(out, "--cut", "0.5") },
		func(out string) []string {
			return []string{"campaign", "run", "--backend", "sim", "--gpu", "h100", "--cut", "-1", "--out", out}
		},
	} {
		out := filepath.Join(t.TempDir(), "unused")
		args := args(out)
		code, stdout, errs := runCLI(t, "", args...)
		if code != 2 || stdout != "" || !strings.Contains(errs, "--cut ") || !strings.Contains(errs, "at least 1.5") {
			t.Errorf("%v: exit %d, %q, %q; want exit 2 naming --cut", args, code, stdout, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was written", args, out)
		}
	}
}
