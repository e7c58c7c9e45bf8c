package atomicfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
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

// TestCheckDir: a directory that exists or can be created passes, and nothing is left behind;
// one that cannot is refused saying why, in words that fit (/proc exists but takes no files).
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ dir, want string }{
		{dir, ""},
		{filepath.Join(dir, "new", "deeper"), ""},
		{file, "cannot write in " + file + ": " + file + " is not a directory"},
		{filepath.Join(file, "sub"), file + " is not a directory"},
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		cases = append(cases, struct{ dir, want string }{"/proc/smart-out", "directory /proc does not take new files"})
	}
	for _, c := range cases {
		err := CheckDir(c.dir)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckDir(%s) = %v; want %q", c.dir, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckDir left %d entries behind, created or temporary", len(entries)-1)
	}
	if st, err := os.Stat("/proc/self"); err == nil && st.IsDir() {
		if err := Check("/proc/x.cu"); err == nil || !strings.Contains(err.Error(), "directory /proc does not take new files") {
			t.Errorf("Check(/proc/x.cu) = %v", err)
		}
	}
}

// TestWriteThroughLinksAndDevices checks that a symbolic link keeps pointing at the file it
// names, which gets the data, and that a device is written, not replaced by a file.
func TestWriteThroughLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.cu")
	link := filepath.Join(dir, "link.cu")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Write(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the file the link names holds %q", b)
	}
	if err := Check(link); err != nil {
		t.Errorf("Check(link): %v", err)
	}

	null := filepath.Join(dir, "null")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	if err := Write(null, []byte("data")); err != nil {
		t.Fatalf("writing through a link to %s: %v", os.DevNull, err)
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to %s was replaced: %v, %v", os.DevNull, fi.Mode(), err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s is now a regular file (%v, %v)", os.DevNull, fi.Mode(), err)
	}
	if err := Check(null); err != nil {
		t.Errorf("Check(%s): %v", null, err)
	}
}

// TestWriteMaybeGzip: a .gz path gets the data gzip-compressed, which decompresses to it; any
// other path gets it as it is.
func TestWriteMaybeGzip(t *testing.T) {
	dir := t.TempDir()
	data := []byte(strings.Repeat("a cache line\n", 100))
	for _, name := range []string{"c.json.gz", "c.json"} {
		path := filepath.Join(dir, name)
		if err := WriteMaybeGzip(path, data); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(got))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Errorf("%s holds %d bytes, not the %d written", name, len(got), len(data))
		}
	}
}
