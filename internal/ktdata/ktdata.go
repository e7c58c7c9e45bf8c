// Package ktdata locates the measured Kernel Tuner data the tests replay: SMART_KT_DATA when set,
// else the copy in the repository (data/kernel-tuner: the convolution), else datasets/kernel-tuner
// in the shared folder beside the module's checkout (../shared/datasets/kernel-tuner from the
// repository root), which also holds the dedispersion.
package ktdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirs are the places to look, in order.
func dirs() []string {
	if dir := os.Getenv("SMART_KT_DATA"); dir != "" {
		return []string{dir}
	}
	root := moduleRoot()
	return []string{filepath.Join(root, "data", "kernel-tuner"), filepath.Join(root, "..", "shared", "datasets", "kernel-tuner")}
}

// Dir returns the first data directory that holds the kernel's folder (e.g. "convolution_milo"),
// and whether there is one.
func Dir(kernel string) (string, bool) {
	ds := dirs()
	for _, d := range ds {
		if _, err := os.Stat(filepath.Join(d, kernel)); err == nil {
			return d, true
		}
	}
	return ds[len(ds)-1], false
}

// DirOr is given where it is not empty (a folder the user named), else Dir(kernel).
func DirOr(given, kernel string) (string, bool) {
	if given != "" {
		return given, true
	}
	return Dir(kernel)
}

// Require returns the data directory that holds the kernel's folder, or skips the test when
// none does.
func Require(t testing.TB, kernel string) string {
	t.Helper()
	dir, ok := Dir(kernel)
	if !ok {
		t.Skipf("Kernel Tuner data of %s not found in %v (set SMART_KT_DATA)", kernel, dirs())
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

// Caches lists the Kernel Tuner caches of a kernel's folder, one per GPU in benchmark_hub's
// layout, in the order of their names: the *.json and *.json.gz files but space.json and the
// T4 files (*_T4.json*).
func Caches(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".json")
		if !e.IsDir() && base != name && base != "space" && !strings.HasSuffix(base, "_T4") && (strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz")) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out, nil
}
