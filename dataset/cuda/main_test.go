package cuda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// fixtures are built once for the package's tests rather than once a test: the emulated
// runners' build cache (the harness is the same for all but the tests that change the compiler)
// and the verifications' precompiled preludes. The tests that share them run one at a time.
var fixtures struct {
	dir string // removed when the tests end

	preludeOnce sync.Once
	prelude     string // a directory Verifier.prepare filled
	preludeErr  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "smart-cuda-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtures.dir = dir
	code := m.Run()
	if fixtures.prelude != "" {
		os.RemoveAll(fixtures.prelude)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// runnerCache is the build cache the emulated runners share. Its entries are named by the hash
// of their source, compiler and flags, so a test that plants a fault or changes the compiler
// builds its own.
func runnerCache() string { return filepath.Join(fixtures.dir, "runner") }

// verifier returns v with the tools and the shared precompiled preludes, skipping the test
// where the compilers are not installed.
func verifier(t *testing.T, v Verifier) *Verifier {
	t.Helper()
	v.Tools = tools(t)
	fixtures.preludeOnce.Do(func() {
		fixtures.prelude, fixtures.preludeErr = (&Verifier{Tools: v.Tools}).prepare(context.Background())
	})
	if fixtures.preludeErr != nil {
		t.Fatal(fixtures.preludeErr)
	}
	v.prepared = fixtures.prelude
	return &v
}
