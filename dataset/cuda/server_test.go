package cuda

import (
	"context"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"smart"
)

type discard struct{ io.Writer }

func (discard) Close() error { return nil }

// TestServerRunCompiled feeds server.run a harness's answers to RUN 0: the compiler's facts
// (COMPILED) come with the result whatever it is, are absent when the harness reports none (the
// emulation), and a COMPILED line that breaks the protocol is an error.
func TestServerRunCompiled(t *testing.T) {
	facts := &smart.Compiled{RegsPerThread: 40, LocalBytesPerThread: 16}
	for _, tc := range []struct {
		name     string
		answers  []string // then the process ends
		status   smart.Status
		compiled *smart.Compiled
		err      bool
	}{
		{"ok", []string{"BEGIN 0", "COMPILED 0 40 16", "RAN 0", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, smart.StatusOK, facts, false},
		{"none reported", []string{"BEGIN 0", "RAN 0", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, smart.StatusOK, nil, false},
		{"no spills", []string{"BEGIN 0", "COMPILED 0 255 0", "RESULT 0 wrong 1e-3 0"}, smart.StatusWrongResult, &smart.Compiled{RegsPerThread: 255}, false},
		{"died after", []string{"BEGIN 0", "COMPILED 0 40 16"}, smart.StatusLaunchError, facts, false},
		{"not a count", []string{"BEGIN 0", "COMPILED 0 40 -8", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, "", nil, true},
		{"short", []string{"BEGIN 0", "COMPILED 0 40", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, "", nil, true},
		{"twice", []string{"BEGIN 0", "COMPILED 0 40 16", "COMPILED 0 40 16", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, "", nil, true},
		{"another variant's", []string{"BEGIN 0", "COMPILED 1 40 16", "RESULT 0 ok 1e-16 5 1 1 1 1 1"}, "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &server{steps: 1, cmd: &exec.Cmd{}, stdin: discard{io.Discard}, lines: make(chan string, len(tc.answers)), stderr: &tail{max: 64}}
			for _, a := range tc.answers {
				s.lines <- a
			}
			close(s.lines)
			res, err := s.run(context.Background(), "RUN 0 0 5 0 0 10 1 k 1 1 1 32 1 1 0 1 1", time.Minute)
			if (err != nil) != tc.err {
				t.Fatalf("error %v; want one: %v", err, tc.err)
			}
			if err == nil && (res.status != tc.status || !reflect.DeepEqual(res.compiled, tc.compiled)) {
				t.Errorf("status %s (%s), compiled %v; want %s, %v", res.status, res.err, res.compiled, tc.status, tc.compiled)
			}
		})
	}
}

// TestParseRunResultPerStep: the harness times an ok or slow variant over a whole run of the
// stencil's steps and a stopped one over its first launch; rows hold ms per step either way.
func TestParseRunResultPerStep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer string // the words after "RESULT <tag>"
		steps  int
		status smart.Status
		cut    smart.Cut
		times  []float64
	}{
		{"ok", "ok 1e-16 10 8 16 12", 8, smart.StatusOK, smart.CutNone, []float64{1, 2, 1.5}},
		{"ok, one step", "ok 1e-16 10 8 16 12", 1, smart.StatusOK, smart.CutNone, []float64{8, 16, 12}},
		{"slow", "slow 1e-16 24", 8, smart.StatusOK, smart.CutSlow, []float64{3}},
		// A first launch of 2 fused steps took 6 ms, whatever the run's steps.
		{"stopped", "stopped 6 2", 8, smart.StatusOK, smart.CutStopped, []float64{3}},
		{"no steps", "ok 1e-16 10 8", 0, smart.StatusLaunchError, smart.CutNone, nil},
		{"zero time", "ok 1e-16 10 0", 8, smart.StatusLaunchError, smart.CutNone, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := strings.Fields(tc.answer)
			res := parseRunResult(f[0], f[1:], strings.Join(f[1:], " "), tc.steps)
			if res.status != tc.status || res.cut != tc.cut || !reflect.DeepEqual(res.times, tc.times) {
				t.Errorf("status %s (%s), cut %q, times %v; want %s, %q, %v", res.status, res.err, res.cut, res.times, tc.status, tc.cut, tc.times)
			}
		})
	}
}

// TestParseRunResultFailures: a wrong result keeps the harness's words on the first wrong point
// after its counts; a stencil the harness cannot check (overflow) is invalid, the reason kept.
func TestParseRunResultFailures(t *testing.T) {
	for _, tc := range []struct {
		answer string // the words after "RESULT <tag>"
		status smart.Status
		err    string
	}{
		{"wrong 1e-3 0", smart.StatusWrongResult, "max relative error 1e-3, 0 unwritten points"},
		{"wrong inf 0 point (3,1,0) is inf, want 2.5; 1 of 100 points wrong", smart.StatusWrongResult,
			"max relative error inf, 0 unwritten points; point (3,1,0) is inf, want 2.5; 1 of 100 points wrong"},
		{"overflow the stencil overflows float32 within 2 steps: its reference at point (1,1,0) is inf", smart.StatusInvalid,
			"the stencil overflows float32 within 2 steps: its reference at point (1,1,0) is inf"},
	} {
		f := strings.Fields(tc.answer)
		res := parseRunResult(f[0], f[1:], strings.Join(f[1:], " "), 2)
		if res.status != tc.status || res.err != tc.err || res.times != nil {
			t.Errorf("%q: %s (%s), times %v; want %s (%s), no times", tc.answer, res.status, res.err, res.times, tc.status, tc.err)
		}
	}
}
