package cuda

import (
	"context"
	"io"
	"os/exec"
	"reflect"
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
			s := &server{cmd: &exec.Cmd{}, stdin: discard{io.Discard}, lines: make(chan string, len(tc.answers)), stderr: &tail{max: 64}}
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
