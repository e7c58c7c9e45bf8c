// Package ktdata locates the measured Kernel Tuner data the tests replay: SMART_KT_DATA when
// set, else datasets/kernel-tuner in the shared folder beside the module's checkout
// (../shared/datasets/kernel-tuner from the repository root).
package ktdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the data directory and whether it exists.
func Dir() (string, bool) {
	dir := os.Getenv("SMART_KT_DATA")
	if dir == "" {
		dir = filepath.Join(moduleRoot(), "..", "shared", "datasets", "kernel-tuner")
	}
	_, err := os.Stat(dir)
	return dir, err == nil
}

// Require returns the data directory, or skips the test when it is missing.
func Require(t testing.TB) string {
	t.Helper()
	dir, ok := Dir()
	if !ok {
		t.Skipf("Kernel Tuner data not found at %s (set SMART_KT_DATA)", dir)
	}
	return dir
}

// moduleRoot walks up from the working directory (a package's directory under go test) to the
// directory holding go.mod; "." when there is none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}
