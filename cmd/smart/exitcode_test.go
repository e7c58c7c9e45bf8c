package main

import (
	"strings"
	"testing"
)

// TestExitCodes holds the commands to one rule (docs/commands.md): 0 on success (and for
// --help), 2 when the command line itself is wrong (an unknown command or flag, a flag value
// that names nothing known or that the command cannot take, a missing argument), 1 when a well
// formed request fails (a file missing or malformed, a stencil the models cannot answer for).
func TestExitCodes(t *testing.T) {
	const st = "../../data/stencils/j3d7pt.json"
	for _, tc := range []struct {
		code int
		args string
	}{
		{0, "help"},
		{0, "version"},
		{0, "--version"},
		{0, "gpus"},
		{0, "predict --help"},
		{0, "show " + st},
		{0, "estimate " + st + " --gpu a100 --oc ST"},

		{2, ""}, // the list of commands, on stderr
		{2, "nosuch"},
		{2, "version extra"},
		{2, "predict --nosuch " + st},
		{2, "predict --gpu a1000 " + st},    // an unknown GPU
		{2, "predict --gpu mi250x " + st},   // a GPU smart's kernels cannot run on
		{2, "recommend --have w6600 " + st}, // likewise
		{2, "recommend --gpus a100,nosuch " + st},
		{2, "estimate " + st + " --gpu a1000 --oc ST"},
		{2, "estimate " + st + " --gpu mi250x --oc ST"},
		{2, "estimate " + st + " --gpu a100 --oc NOSUCH"},
		{2, "codegen " + st + " --gpu a1000 --oc BASE --setting bx=32,by=4,bz=1,shared=0,const=0"},
		{2, "space " + st + " --gpu nosuch"},
		{2, "verify " + st + " --gpu nosuch"},
		{2, "tune j3d7pt --evaluator sim --gpu a1000"},
		{2, "bench --backend sim --gpu a1000 --random 1 --out unused"},
		{2, "predict --gpu a100"}, // no stencil

		{1, "show nosuch.json"},
		{1, "predict --gpu a100 nosuch.json"},
		{1, "estimate nosuch.json --gpu a100 --oc ST"},
		{1, "features nosuch.json"},
	} {
		code, _, errs := runCLI(t, "", strings.Fields(tc.args)...)
		if code != tc.code {
			t.Errorf("smart %s: exit %d, want %d; stderr %q", tc.args, code, tc.code, errs)
		}
		if code != 0 && !strings.HasPrefix(errs, "smart") {
			t.Errorf("smart %s: exit %d without an error on stderr (%q)", tc.args, code, errs)
		}
	}
}
