package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart"
)

func TestCustomise(t *testing.T) {
	tests := []struct {
		grid    []int
		dtype   smart.Dtype
		want    [3]int
		dimsErr bool
		invalid bool
	}{
		{nil, smart.Float32, [3]int{8192, 8192, 1}, false, false},
		{[]int{64, 32}, smart.Float64, [3]int{64, 32, 1}, false, false},
		{[]int{64, 32, 16}, smart.Float64, [3]int{}, true, false},
		{[]int{64, 32}, "int8", [3]int{}, false, true},
	}
	for _, tt := range tests {
		s, err := NamedStencil("j2d5pt", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = Customise(s, tt.dtype, tt.grid, 7)
		var dims *GridDimsError
		switch {
		case tt.dimsErr:
			if !errors.As(err, &dims) || dims.Extents != 3 || dims.Dims != 2 || dims.Error() != "grid has 3 extents but j2d5pt is 2-D" {
				t.Errorf("grid %v: %v", tt.grid, err)
			}
		case tt.invalid:
			if err == nil || errors.As(err, &dims) {
				t.Errorf("dtype %s: %v", tt.dtype, err)
			}
		case err != nil || s.Grid != tt.want || s.Dtype != tt.dtype || s.Steps != 7:
			t.Errorf("grid %v: %v, %+v", tt.grid, err, s)
		}
	}
}

// TestFileWriter: files are written, the same content again is left and counted as such, a
// file with other content stops everything before anything is written unless forced, files
// without a path go to the stream, and a cancelled context writes nothing.
func TestFileWriter(t *testing.T) {
	dir := t.TempDir()
	files := func(content string, paths ...string) func(i int) (File, error) {
		return func(i int) (File, error) { return File{Path: paths[i], Data: []byte(content + paths[i])}, nil }
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	var done []int
	fw := FileWriter{Progress: func(n int) { done = append(done, n) }}
	w, err := fw.Write(context.Background(), 2, files("v1 ", a, b))
	if err != nil || w != (Written{Last: b, Wrote: 2}) || !slices.Equal(done, []int{1, 2}) {
		t.Fatalf("first write: %+v, progress %v, %v", w, done, err)
	}
	a2 := filepath.Join(dir, "a2.json")
	if w, err := fw.Write(context.Background(), 3, files("v1 ", a, b, a2)); err != nil || w != (Written{Last: a2, Wrote: 1, Unchanged: 2}) {
		t.Errorf("the same files again and a new one: %+v, %v; want 1 written, 2 unchanged", w, err)
	}
	if err := os.WriteFile(b, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.json")
	_, err = fw.Write(context.Background(), 2, files("v1 ", c, b))
	var changed *ChangedError
	if !errors.As(err, &changed) || changed.Path != b {
		t.Errorf("an edited file: %v", err)
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refusal wrote %s: %v", c, err)
	}
	fw.Force = true
	if w, err := fw.Write(context.Background(), 3, files("v1 ", a, b, a2)); err != nil || w != (Written{Last: a2, Wrote: 1, Unchanged: 2}) {
		t.Errorf("forced over an edited file: %+v, %v; want it written, the 2 others unchanged", w, err)
	}
	if _, err := fw.Write(context.Background(), 2, files("v2 ", a, b)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(b); string(got) != "v2 "+b {
		t.Errorf("forced: %s holds %q", b, got)
	}
	var stream bytes.Buffer
	if w, err := (FileWriter{Stream: &stream}).Write(context.Background(), 1, files("s", "")); err != nil || w != (Written{Wrote: 1}) || stream.String() != "s" {
		t.Errorf("to the stream: %q, %+v, %v", stream.String(), w, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, force := range []bool{false, true} {
		if _, err := (FileWriter{Force: force}).Write(ctx, 1, files("x", c)); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled (force %v): %v", force, err)
		}
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled, yet %s: %v", c, err)
	}
}

// TestFileWriterKeepsNothingPerFile: Write keeps nothing per file between its check and its
// writing, so that any count costs no memory up front (a count of math.MaxInt panicked in
// makeslice), and a file edited after the check is still refused.
func TestFileWriterKeepsNothingPerFile(t *testing.T) {
	dir := t.TempDir()
	errStop := errors.New("stop")
	for _, force := range []bool{false, true} {
		drawn := 0
		_, err := FileWriter{Force: force}.Write(context.Background(), math.MaxInt, func(i int) (File, error) {
			drawn++
			if i == 2 {
				return File{}, errStop
			}
			return File{Path: filepath.Join(dir, fmt.Sprintf("f%v-%d.json", force, i)), Data: []byte("x")}, nil
		})
		if !errors.Is(err, errStop) || drawn != 3 {
			t.Errorf("math.MaxInt files (force %v), the third failing: %v after %d drawn; want the third's error", force, err, drawn)
		}
	}
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	checked := 0
	file := func(i int) (File, error) {
		checked++
		if checked == 3 { // the check is done, the writing starts: b is edited meanwhile
			if err := os.WriteFile(b, []byte("edited"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return File{Path: []string{a, b}[i], Data: []byte("v1")}, nil
	}
	var changed *ChangedError
	if _, err := (FileWriter{}).Write(context.Background(), 2, file); !errors.As(err, &changed) || changed.Path != b {
		t.Errorf("a file edited after the check: %v; want a ChangedError of %s", err, b)
	}
	if got, _ := os.ReadFile(b); string(got) != "edited" {
		t.Errorf("%s edited after the check holds %q", b, got)
	}
}
