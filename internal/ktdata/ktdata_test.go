package ktdata

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Caches lists a kernel folder's caches in name order and nothing else.
func TestCaches(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"W7800.json.gz", "A100.json", "A100_T4.json.gz", "space.json", "README.md", "x.gz", "old.json.bak"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "sub.json"), 0o755)
	got, err := Caches(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "A100.json"), filepath.Join(dir, "W7800.json.gz")}; !slices.Equal(got, want) {
		t.Errorf("Caches = %v; want %v", got, want)
	}
	if _, err := Caches(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing folder gave no error")
	}
}
