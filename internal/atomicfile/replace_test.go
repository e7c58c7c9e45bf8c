package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckReplace: an existing file is replaced only where it starts as smart's output of the
// kind, is empty, is a device, or force is given; a refusal names the kind.
func TestCheckReplace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kind := StartingWith("a trace", "# smart trace")
	ours, notes, empty := write("ours", "# smart trace v1\n1,2\n"), write("notes", "my notes"), write("empty", "")
	short := write("short", "# sm") // shorter than the prefix: not ours, and no read error
	for _, c := range []struct {
		path    string
		force   bool
		notOurs bool
		fails   bool
	}{
		{ours, false, false, false},
		{notes, false, true, true},
		{notes, true, false, false},
		{short, false, true, true},
		{empty, false, false, false},
		{filepath.Join(dir, "new"), false, false, false},
		{filepath.Join(dir, "no", "new"), false, false, true},
		{os.DevNull, false, false, false},
	} {
		err := CheckReplace(c.path, c.force, kind)
		var ne *NotOursError
		if (err != nil) != c.fails || errors.As(err, &ne) != c.notOurs {
			t.Errorf("CheckReplace(%s, force %v) = %v; want failure %v, not ours %v", c.path, c.force, err, c.fails, c.notOurs)
		}
		if c.notOurs && ne != nil && (ne.What != "a trace" || ne.Path != c.path) {
			t.Errorf("CheckReplace(%s): %+v, want the kind and the path", c.path, ne)
		}
	}
}
