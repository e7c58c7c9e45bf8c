package cuda

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"smart"
)

// TestRunnerInterruptEndsCompiles: compiles run in process groups of their own, which a
// terminal's Ctrl-C does not reach, and Close leaves them to finish unless the last batch was
// cancelled: after a batch cut off by its context's cancellation (an interrupt), Close ends a
// module's compile at once, the compiler's own children included, rather than leave it running
// after the program exits.
func TestRunnerInterruptEndsCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	r := emulatedRunner(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "cc.sh")
	// A module's compile starts a child that would run for 5 minutes and says its pid.
	body := fmt.Sprintf(`#!/bin/sh
for a; do case $a in *.cu) src=$a ;; esac; done
if ! grep -q main_loop "$src"; then
	sleep 300 &
	echo $! > %[1]s.tmp && mv %[1]s.tmp %[1]s
	wait
	exit 1
fi
exec %[2]s "$@"
`, pidFile, r.Compiler.Path)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Compiler.Path = script
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pid := 0
	go func() {
		for ctx.Err() == nil {
			if b, err := os.ReadFile(pidFile); err == nil {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := r.EvaluateBatch(ctx, []smart.Query{base(smallStencil(t, "j2d5pt"), 16, 2)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the batch: %v; want its cancellation", err)
	}
	began := time.Now()
	r.Close()
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	if pid <= 0 {
		t.Fatal("the module's compile never started")
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the compiler's child %d still runs after Close", pid)
		}
	}
}

// alive says whether process pid runs (a zombie, dead but not yet reaped, does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill(0) said it is there
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
