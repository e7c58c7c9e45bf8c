package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesWholeFileAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	for _, text := range []string{"first version, longer than the second", "second"} {
		if err := Write(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != text {
			t.Fatalf("read %q, %v; want %q", got, err, text)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestWriteIntoMissingDirectoryFails(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "f"), []byte("x"))
	if err == nil {
		t.Fatal("wrote into a missing directory")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "f.csv"), ""},
		{filepath.Join(dir, "no", "f.csv"), "directory " + filepath.Join(dir, "no") + " does not exist"},
		{dir, "is a directory"},
	} {
		err := Check(c.path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%s) = %v; want %q", c.path, err, c.want)
		}
		if c.want != "" && Write(c.path, []byte("x")) == nil {
			t.Errorf("Write(%s) succeeded where Check failed", c.path)
		}
		if c.want != "" && strings.Contains(c.want, "does not exist") && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Check(%s) = %v does not wrap fs.ErrNotExist", c.path, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Check left %d files behind", len(entries))
	}
}
