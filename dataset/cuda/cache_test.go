package cuda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
