package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFlagErrors: a bad flag is one line on stderr and exit 2, with nothing on stdout (where a
// redirected output would collect it); --help prints the help file on stdout, its placeholders
// filled, and exits 0. Every command and subcommand is tried, so a missing help file fails here.
func TestFlagErrors(t *testing.T) {
	var names []string
	for _, c := range commands() {
		switch c.name { // their flags are their subcommands'
		case "dataset":
			names = append(names, subcommandNames(c.name, datasetCommands)...)
		case "campaign":
			names = append(names, subcommandNames(c.name, campaignCommands)...)
		default:
			names = append(names, c.name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			args := strings.Fields(name)
			code, out, errs := runCLI(t, "", append(args, "--bogus")...)
			if code != 2 || out != "" || strings.Count(errs, "not defined: -bogus") != 1 {
				t.Errorf("--bogus: exit %d, stdout %q, stderr %q; want 2, nothing, the error once", code, out, errs)
			}
			code, out, errs = runCLI(t, "", append(args, "--help")...)
			if code != 0 || !strings.HasPrefix(out, "Usage: smart "+name+" ") || errs != "" || placeholder.MatchString(out) {
				t.Errorf("--help: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

// placeholder matches a help file's mark for what the build fills in ("{shapes}").
var placeholder = regexp.MustCompile(`\{[a-z]+\}`)

func subcommandNames(group string, subs []command) []string {
	var names []string
	for _, c := range subs {
		names = append(names, group+" "+c.name)
	}
	return names
}

// TestAMDRefused: the commands that run smart's CUDA kernels, or simulate them, refuse an AMD
// GPU up front instead of producing nothing but failed variants.
func TestAMDRefused(t *testing.T) {
	for _, args := range [][]string{
		{"tune", "j3d7pt", "--evaluator", "sim", "--gpu", "mi250x"},
		{"bench", "--backend", "sim", "--gpu", "w6600", "--random", "1", "--out", t.TempDir()},
		{"predict", "j3d7pt", "--gpu", "w7800"},
		{"verify", "j2d5pt", "--gpu", "mi250x"},
	} {
		if code, out, errs := runCLI(t, "", args...); code == 0 || out != "" || !strings.Contains(errs, "only NVIDIA GPUs run them") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestUsageErrors: mistakes in how a command is called exit 2 before any work, with a message
// naming the flag.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "--max-order", "9", "j3d7pt"}, "--max-order is 9"},
		{[]string{"show", "-", "-"}, "given twice"},
		{[]string{"features", "-", "-"}, "given twice"},
		{[]string{"features", "--max-order", "9", "j3d7pt"}, "--max-order is 9; use 1 to 8"},
		{[]string{"eval", "../../data/models/runtime-3d.smartmodel.gz", "--data", "../../data/measured/h100-sxm/classic", "--holdout-gpu", "nosuch"}, "the data holds H100-SXM"},
		{[]string{"recommend", "j3d7pt", "--hours", "NaN"}, "--hours"},
		{[]string{"tune-bench", "--sim", "j2d5pt", "--parallel", "-1"}, "--parallel -1: give 0"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "iterml", "--batch", "8"}, "iterml sizes its own"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "bayes", "--initial", "5"}, "--initial: bayes does not read it (cstuner and descent do)"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "descent", "--model", "knn"}, "--model: descent does not read it (iterml does)"},
		{[]string{"tune", "j3d7pt", "--evaluator", "sim", "--method", "iterml", "--cut-ratio", "NaN"}, "--cut-ratio"},
	} {
		if code, _, errs := runCLI(t, "{}", c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestNamelessStencilTakesFileName: a stencil file without a name is called by its file's name
// in what the commands print, not by an empty string.
func TestNamelessStencilTakesFileName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heat2d.json")
	if err := os.WriteFile(path, []byte(`{"dims": 2, "offsets": [[0,0],[1,0],[-1,0]]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "", "show", path); code != 0 || !strings.HasPrefix(out, "heat2d: 2-D") {
		t.Errorf("exit %d, stdout %.40q, stderr %q", code, out, errs)
	}
}

// TestSubcommandUsageWrapped: a subcommand whose usage error comes wrapped or joined with
// another still points to its own help, not its group's, and exits 2 with its whole message.
func TestSubcommandUsageWrapped(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"bare", usagef("--n: must be positive")},
		{"wrapped", fmt.Errorf("reading x.json: %w", usagef("--n: must be positive"))},
		{"joined", errors.Join(errors.New("writing the report: disk full"), usagef("--n: must be positive"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			subs := []command{{"sub", "", func(context.Context, *env, []string) error { return tc.err }}}
			var out, errb bytes.Buffer
			e := &env{stdout: &out, stderr: &errb}
			code := exitCode(context.Background(), e, "group", runSubcommand(context.Background(), e, "group", subs, []string{"sub"}))
			want := fmt.Sprintf("smart group sub: %v\nRun 'smart group sub --help' for usage.\n", tc.err)
			if code != 2 || errb.String() != want {
				t.Errorf("exit %d, stderr %q; want 2, %q", code, errb.String(), want)
			}
		})
	}
}
