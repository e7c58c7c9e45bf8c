package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/data"
)

// TestLoad: a file, stdin, an embedded sample by name, a stencil without a name, and the
// errors of a missing file and a bad one, each naming the path.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	box, err := NamedStencil("box", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	boxFile := filepath.Join(dir, "b.json")
	if err := WriteFile(boxFile, box); err != nil {
		t.Fatal(err)
	}
	boxName := box.Name
	box.Name = ""
	unnamed := filepath.Join(dir, "mine.json")
	if err := WriteFile(unnamed, box); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	sample, err := data.StencilFile("j3d7pt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, stdin string
		name, err   string
	}{
		{path: boxFile, name: boxName},
		{path: "-", stdin: string(sample), name: "j3d7pt"},
		{path: "j3d7pt", name: "j3d7pt"},
		{path: "j3d7pt.json", name: "j3d7pt"},
		{path: unnamed, name: "mine"},
		{path: "-", stdin: mustRead(t, unnamed), name: "stdin"},
		{path: filepath.Join(dir, "none.json"), err: "stencil file " + filepath.Join(dir, "none.json") + ": no such file; the embedded samples are j2d13pt, "},
		{path: bad, err: "stencil file " + bad + ": "},
		{path: dir, err: "stencil file " + dir + ": is a directory, not a stencil file; give one of its *.json files"},
	}
	for _, tt := range tests {
		s, err := Load(tt.path, strings.NewReader(tt.stdin), smart.Limits{})
		switch {
		case tt.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("Load(%s) error %v, want one starting %q", tt.path, err, tt.err)
			}
		case err != nil:
			t.Errorf("Load(%s): %v", tt.path, err)
		case s.Name != tt.name:
			t.Errorf("Load(%s) names the stencil %q, want %q", tt.path, s.Name, tt.name)
		}
	}
}

func TestExpandDirs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.json", "a.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := ExpandDirs([]string{"j3d7pt", dir, "-"})
	want := []string{"j3d7pt", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), "-"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ExpandDirs = %q, %v; want %q", got, err, want)
	}
	if _, err := ExpandDirs([]string{empty}); err == nil || !strings.Contains(err.Error(), "holds no stencil files") {
		t.Errorf("an empty directory: %v", err)
	}
}

// TestLoadAll: files, directories (their *.json in name order) and sample names, in order, each
// with where it came from; the first failure stops it.
func TestLoadAll(t *testing.T) {
	dir := t.TempDir()
	sample, err := data.StencilFile("j2d5pt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b.json", "a.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), sample, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadAll([]string{"j3d7pt", dir}, nil, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"j3d7pt", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	if len(got) != len(want) {
		t.Fatalf("%d stencils, want %d", len(got), len(want))
	}
	for i, l := range got {
		if l.File != want[i] || l.Stencil == nil {
			t.Errorf("stencil %d from %q, want %q", i, l.File, want[i])
		}
	}
	// A file that fails does not stop the others: each failure is named, the rest are read.
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	got, err = LoadAll([]string{missing, dir, "j3d7pt"}, nil, smart.Limits{})
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), bad) {
		t.Errorf("error %v; want one naming %s and %s", err, missing, bad)
	}
	want = []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), "j3d7pt"}
	if len(got) != len(want) {
		t.Fatalf("%d stencils read past the failures, want %d", len(got), len(want))
	}
	for i, l := range got {
		if l.File != want[i] {
			t.Errorf("stencil %d from %q, want %q", i, l.File, want[i])
		}
	}
	// Standard input can be read once: "-" twice is refused before any is read, not read
	// empty the second time as a file cut short.
	got, err = LoadAll([]string{"-", "j3d7pt", "-"}, bytes.NewReader(sample), smart.Limits{})
	if want := `"-" (standard input) is given twice; it can be read once`; err == nil || err.Error() != want || len(got) != 0 {
		t.Errorf("- twice: %d stencils, error %v; want none and %q", len(got), err, want)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
