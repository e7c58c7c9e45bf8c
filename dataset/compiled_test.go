package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
)

// TestCompiledFacts reads a facts file whose last line was cut short, refuses a bad line before
// it, and prefers a row's own facts to the file's.
func TestCompiledFacts(t *testing.T) {
	dir := t.TempDir()
	if f, err := ReadCompiledFacts(filepath.Join(dir, "none.csv")); err != nil || len(f.Facts) != 0 {
		t.Fatalf("a missing file: %d facts, %v; want none and no error", len(f.Facts), err)
	}
	header := strings.Join(CompiledHeader(), ",") + "\n"
	good := "abc,ST,\"bx=32,by=4\",sm_90,nvcc 11.8,40,640\nabc,BASE,\"bx=32,by=4\",sm_90,nvcc 11.8,22,0\n"
	path := filepath.Join(dir, "compiled.csv")
	if err := os.WriteFile(path, []byte(header+good+"abc,ST,\"bx=64"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadCompiledFacts(path)
	if err != nil || len(f.Facts) != 2 {
		t.Fatalf("read %d facts (%v), want 2", len(f.Facts), err)
	}
	set, err := smart.ParseSetting("bx=32,by=4")
	if err != nil {
		t.Fatal(err)
	}
	oc, err := smart.ParseCombination("ST")
	if err != nil {
		t.Fatal(err)
	}
	m := smart.Measurement{StencilID: "abc", OC: oc, Setting: set}
	if c, file := f.Of(m, "sm_90"); c == nil || !file || c.RegsPerThread != 40 || c.LocalBytesPerThread != 640 {
		t.Errorf("from the file: %+v, %v; want 40 registers, 640 bytes", c, file)
	}
	if c, _ := f.Of(m, "sm_80"); c != nil {
		t.Errorf("another architecture got %+v", c)
	}
	m.Compiled = &smart.Compiled{RegsPerThread: 30}
	if c, file := f.Of(m, "sm_90"); file || c.RegsPerThread != 30 {
		t.Errorf("a row's own facts: %+v, from the file %v; want its 30 registers", c, file)
	}
	if err := os.WriteFile(path, []byte(header+"abc,ST,x,sm_90,nvcc,many,0\n"+good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCompiledFacts(path); err == nil || !strings.Contains(err.Error(), "compiled.csv:2") {
		t.Errorf("a bad line: %v; want an error naming compiled.csv:2", err)
	}
}
