package cuda

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"smart"
)

// TestRunnersShareBuildCache: the shards of a run on several nodes share the default build cache
// (a home directory) and compile the harness, the same source for all, at the same time. Here
// two runners on one cache compile it at once (their compiles meet at a barrier after writing
// their output, before either returns): both must get a working harness and measure.
func TestRunnersShareBuildCache(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	a, b := emulatedRunner(t), emulatedRunner(t)
	b.CacheDir, b.Compiler = a.CacheDir, a.Compiler
	barrier := t.TempDir()
	script := filepath.Join(t.TempDir(), "cc.sh")
	// The harness is the source with main_loop; a compile of it waits, output written, until
	// two have been written.
	body := fmt.Sprintf(`#!/bin/sh
for a; do case $a in *.cu) src=$a ;; esac; done
%s "$@" || exit
grep -q main_loop "$src" || exit 0
touch %s/$$
for i in $(seq 600); do [ "$(ls %s | wc -l)" -ge 2 ] && exit 0; sleep 0.1; done
echo "the other runner's harness compile never came" >&2; exit 1
`, a.Compiler.Path, barrier, barrier)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	a.Compiler.Path, b.Compiler.Path = script, script
	st := smallStencil(t, "j2d5pt")
	errs := make(chan error, 2)
	for i, r := range []*Runner{a, b} {
		go func() {
			ms, err := r.EvaluateBatch(context.Background(), []smart.Query{base(st, 16, 2)})
			if err == nil && ms[0].Status != smart.StatusOK {
				err = fmt.Errorf("%s (%s)", ms[0].Status, ms[0].Error)
			}
			if err != nil {
				err = fmt.Errorf("runner %d: %w", i+1, err)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRunnerLeftCompileFinishesIntoCache: a call whose time limit (its context's deadline)
// runs out while a module compiles leaves that compile to finish into the build cache, so the
// next call, given as little time, finds the module built and measures it rather than compile
// it again and run out again. Here the module's first compile writes its output and then waits
// for a gate opened only once the first runner is closed, and any later compile of it never
// ends: the second runner measures only with the first runner's compile.
func TestRunnerLeftCompileFinishesIntoCache(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	a := emulatedRunner(t)
	dir := t.TempDir()
	count, written, gate := filepath.Join(dir, "count"), filepath.Join(dir, "written"), filepath.Join(dir, "gate")
	script := filepath.Join(dir, "cc.sh")
	body := fmt.Sprintf(`#!/bin/sh
for a; do case $a in *.cu) src=$a ;; esac; done
if ! grep -q main_loop "$src"; then
	echo >> %[1]s
	[ "$(wc -l < %[1]s)" -eq 1 ] || exec sleep 300
	%[4]s "$@" || exit
	touch %[2]s
	while [ ! -e %[3]s ]; do sleep 0.05; done
	exit
fi
exec %[4]s "$@"
`, count, written, gate, a.Compiler.Path)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	a.Compiler.Path = script
	b := emulatedRunner(t)
	b.Compiler = a.Compiler
	// The harness is built first, so that the deadline falls on the module's compile.
	a.defaults()
	if err := a.writeHeaders(); err != nil {
		t.Fatal(err)
	}
	if h := a.startBuild(harnessSource, true); func() error { <-h.done; return h.err }() != nil {
		t.Fatal(h.err)
	}
	st := smallStencil(t, "j2d5pt")
	q := []smart.Query{base(st, 16, 2)}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := a.EvaluateBatch(ctx, q); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the first call: %v; want its deadline", err)
	}
	// The compile has written its output (it may have been queued still when the deadline came).
	for _, err := os.Stat(written); err != nil; _, err = os.Stat(written) {
		time.Sleep(10 * time.Millisecond)
	}
	a.Close()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ms, err := b.EvaluateBatch(ctx, q)
	if err != nil {
		t.Fatalf("the next call: %v (the first call's compile was lost)", err)
	}
	if ms[0].Status != smart.StatusOK {
		t.Errorf("the next call: %s (%s)", ms[0].Status, ms[0].Error)
	}
}

// TestRunnerRebuildsEmptyEntries: a build renamed into the cache unsynced can be left empty by a
// crash; such an entry, the harness's or a module's, is built again rather than loaded.
func TestRunnerRebuildsEmptyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs emulated benchmarks")
	}
	a, b := emulatedRunner(t), emulatedRunner(t)
	dir := t.TempDir()
	a.CacheDir, a.Compiler = dir, Emulation(a.Compiler.Path, dir)
	b.CacheDir, b.Compiler = a.CacheDir, a.Compiler
	q := []smart.Query{base(smallStencil(t, "j2d5pt"), 16, 2)}
	for i, r := range []*Runner{a, b} {
		ms, err := r.EvaluateBatch(context.Background(), q)
		if err == nil && ms[0].Status != smart.StatusOK {
			err = fmt.Errorf("%s (%s)", ms[0].Status, ms[0].Error)
		}
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		r.Close() // the harness process ends, and its file can be written
		harness, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
		modules, _ := filepath.Glob(filepath.Join(dir, "*.so"))
		if len(harness) != 1 || len(modules) != 1 {
			t.Fatalf("the cache holds %q and %q; want the harness and a module", harness, modules)
		}
		for _, p := range append(harness, modules...) {
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}
