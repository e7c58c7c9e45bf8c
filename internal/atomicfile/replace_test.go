package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestSealed: a sealed text is smart's to replace until a byte of it changes; one without a
// seal, or another's start, is not.
func TestSealed(t *testing.T) {
	dir := t.TempDir()
	kind := Sealed("an unedited source", "// made by smart", "// seal:")
	text := "// made by smart\nint main() {}\n"
	sealed := Seal(text, "// seal:")
	for _, c := range []struct {
		name, data string
		ours       bool
	}{
		{"sealed", sealed, true},
		{"unsealed", text, false},
		{"edited", strings.Replace(sealed, "main", "mine", 1), false},
		{"appended", sealed + "// a note\n", false},
		{"seal edited", sealed[:len(sealed)-2] + "X\n", false},
		{"another start", Seal("// made by hand\nint main() {}\n", "// seal:"), false},
		{"no final newline", strings.TrimSuffix(sealed, "\n"), false},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		ours, err := kind.Ours(p)
		if err != nil || ours != c.ours {
			t.Errorf("%s: ours %v (%v); want %v", c.name, ours, err, c.ours)
		}
		var not *NotOursError
		if err := CheckReplace(p, false, kind); c.ours != (err == nil) || !c.ours && !errors.As(err, &not) {
			t.Errorf("%s: CheckReplace = %v", c.name, err)
		}
	}
	if !strings.HasPrefix(sealed, text) || strings.Count(sealed, "\n") != strings.Count(text, "\n")+1 {
		t.Errorf("Seal changed the text or added more than a line:\n%s", sealed)
	}
}
