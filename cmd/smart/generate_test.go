package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"smart"
	"smart/data"
	"smart/generator"
)

// runCLI runs one command line and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := run(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestGenerateRandom(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	code, out, errs := runCLI(t, "", "generate", "--dims", "3", "--order", "2", "--count", "3", "--seed", "1", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "wrote 3 stencils") {
		t.Errorf("stdout %q", out)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"rand3d-o2-s1-0000.json", "rand3d-o2-s1-0001.json", "rand3d-o2-s1-0002.json"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	for i, name := range names {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		s, err := smart.ParseStencil(b, smart.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := generator.Spec{Dims: 3, Order: 2, Seed: 1}.Stencil(i)
		if !reflect.DeepEqual(s, ref) {
			t.Errorf("%s differs from Spec.Stencil(%d)", name, i)
		}
	}
	// --first continues the same stream.
	code, out, errs = runCLI(t, "", "generate", "--dims", "3", "--order", "2", "--first", "2", "--seed", "1", "--out", dir+"/")
	if want := filepath.Join(dir, "rand3d-o2-s1-0002.json") + " already there, unchanged\n"; code != 0 || out != want {
		t.Fatalf("--first 2: exit %d, stdout %q, want %q: %s", code, out, want, errs)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("--first 2 wrote a new file: %v", entries)
	}
	// The same set again, then one more: the stdout says what was written and what was there.
	for _, tc := range []struct{ count, want string }{
		{"3", "3 stencils already in " + dir + ", unchanged; wrote none (last: rand3d-o2-s1-0002.json)\n"},
		{"4", "wrote 1 of 4 stencils to " + dir + ", the other 3 already there unchanged (last: rand3d-o2-s1-0003.json)\n"},
	} {
		if code, out, errs := runCLI(t, "", "generate", "--dims", "3", "--order", "2", "--count", tc.count, "--seed", "1", "--out", dir); code != 0 || out != tc.want {
			t.Errorf("--count %s again: exit %d, stdout %q, want %q: %s", tc.count, code, out, tc.want, errs)
		}
	}
}

// Generated files are there to be edited: running generate again over them leaves an edited file
// (and every other) alone unless --force is given, and the same content is no conflict.
func TestGenerateKeepsEditedFiles(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "set")
	single := filepath.Join(dir, "one.json")
	notes := filepath.Join(dir, "notes.txt")
	randomN := func(count string, more ...string) []string {
		return append([]string{"generate", "--dims", "2", "--order", "2", "--count", count, "--seed", "4", "--out", set}, more...)
	}
	random := randomN("2")
	shape := []string{"generate", "--shape", "j2d5pt", "--out", single}
	for _, args := range [][]string{random, shape} {
		if code, _, errs := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	edited := filepath.Join(set, "rand2d-o2-s4-0001.json")
	const edit = "my edits\n"
	for _, tc := range []struct {
		name   string
		edit   string // the file edited before the run
		args   []string
		code   int
		stderr string // in stderr
		kept   bool   // whether the edit survives
	}{
		{"same command again", "", random, 0, "", false},
		{"same shape again", "", shape, 0, "", false},
		// A refusal to replace a file exits 2, as every command's (docs/commands.md).
		{"edited file", edited, random, 2, edited + " exists and differs from the stencil generated for it", true},
		{"edited file, more stencils", edited, randomN("3"), 2, "give another --out, delete the file, or give --force", true},
		{"other file", single, []string{"generate", "--shape", "j2d9pt", "--out", single}, 2, "give another --out, delete the file", true},
		{"notes file", notes, []string{"generate", "--dims", "2", "--order", "1", "--out", notes}, 2, notes + " exists and differs", true},
		{"edited file, forced", edited, randomN("2", "--force"), 0, "", false},
		{"other file, forced", single, []string{"generate", "--shape", "j2d5pt", "--out", single, "--force"}, 0, "", false},
	} {
		if tc.edit != "" {
			if err := os.WriteFile(tc.edit, []byte(edit), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errs := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, errs, tc.code, tc.stderr)
		}
		if tc.edit != "" {
			if b, _ := os.ReadFile(tc.edit); (string(b) == edit) != tc.kept {
				t.Errorf("%s: %s holds %q; edit kept %v, want %v", tc.name, tc.edit, b, !tc.kept, tc.kept)
			}
		}
		if _, err := os.Stat(filepath.Join(set, "rand2d-o2-s4-0002.json")); err == nil {
			t.Errorf("%s: a refused run wrote a new file", tc.name)
		}
	}
	entries, _ := os.ReadDir(set)
	if len(entries) != 2 {
		t.Errorf("the set holds %d entries, want the 2 stencils and no temporary", len(entries))
	}
}

func TestGenerateTinyKeepAndCancel(t *testing.T) {
	for _, args := range [][]string{
		{"--dims", "2", "--order", "1", "--keep", "1e-300"},
		{"--dims", "3", "--order", "8", "--keep", "1e-9"},
	} {
		code, out, errs := runCLI(t, "", append([]string{"generate"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if _, err := smart.ParseStencil([]byte(out), smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	dir := filepath.Join(t.TempDir(), "set")
	if code := run(ctx, e, []string{"generate", "--dims", "3", "--order", "2", "--count", "5", "--out", dir}); code == 0 || !strings.HasSuffix(errb.String(), ": interrupted\n") {
		t.Errorf("cancelled: exit %d, stderr %q; want a failure saying so", code, errb.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("cancelled before the first stencil, wrote %d files", len(entries))
	}
}

func TestGenerateShapes(t *testing.T) {
	code, out, errs := runCLI(t, "", "generate", "--shape", "j3d7pt", "--out", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if sample, _ := data.StencilFile("j3d7pt"); out != string(sample) {
		t.Errorf("stdout differs from the embedded sample:\n%s", out)
	}
	path := filepath.Join(t.TempDir(), "b.json")
	code, _, errs = runCLI(t, "", "generate", "--shape", "box", "--dims", "3", "--order", "2",
		"--dtype", "float32", "--grid", "64x32x16", "--steps", "3", "--out", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(path)
	s, err := smart.ParseStencil(b, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "box3d-o2-f32" || s.NNZ() != 125 || s.Dtype != smart.Float32 || s.Grid != [3]int{64, 32, 16} || s.Steps != 3 {
		t.Errorf("got %s nnz %d %s grid %v steps %d", s.Name, s.NNZ(), s.Dtype, s.Grid, s.Steps)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--shape", "j3d7pt", "--dims", "2"}, 2, "shape j3d7pt is 3-D of order 1"},
		{[]string{"--shape", "hexagon"}, 2, "the shapes are star, box"},
		{[]string{"--shape", "j2d5pt,j2d5pt", "--out", "x"}, 2, "--shape j2d5pt,j2d5pt: j2d5pt is given twice"},
		{[]string{"--shape", "box", "--dims", "3"}, 2, "order is 0"},
		{[]string{"--shape", "j3d7pt", "--seed", "3"}, 2, "leave them out with --shape"},
		{[]string{"--dims", "3"}, 2, "give --dims and --order"},
		{[]string{"--dims", "2", "--order", "0"}, 2, "--order is 0; use 1 to 8"},
		{[]string{"--dims", "0", "--order", "2"}, 2, "--dims is 0; use 2 or 3"},
		{[]string{"--dims", "3", "--order", "2", "--count", "3"}, 2, "--out -: 3 stencils cannot go to standard output; name a directory"},
		{[]string{"--dims", "3", "--order", "2", "--count", "2", "--out", "x.json"}, 2, "--out x.json: is a file, but 2 stencils need a directory"},
		{[]string{"--dims", "3", "--order", "2", "--keep", "2"}, 2, "keep probability is 2"},
		{[]string{"--dims", "3", "--order", "2", "--keep", "0"}, 2, "--keep is 0"}, // not the default 0.5
		{[]string{"--shape", "j3d7pt", "--grid", "64x64"}, 2, "--grid has 2 extents but j3d7pt is 3-D"},
		{[]string{"--shape", "j3d13pt", "--grid", "4x64x64"}, 2, `field "grid[0]": is 4`},
		{[]string{"--shape", "j3d7pt", "--grid", "64xax64"}, 2, `"a" is not an integer`},
		{[]string{"--shape", "j3d7pt", "--dtype", "int8"}, 2, `field "dtype"`},
		{[]string{"--count", "0"}, 2, "--count 0: give at least 1"},
		{[]string{"--dims", "2", "--order", "1", "--count", "9000000000000000000"}, 2, "--count 9000000000000000000: at most 1000000 stencils are written at a time"},
		{[]string{"--dims", "2", "--order", "1", "--count", "2000000", "--first", "5"}, 2, "--first 5 --count 1000000, then --first 1000005, and so on"},
		{[]string{"--dims", "2", "--order", "1", "--count", "2", "--first", "9223372036854775807"}, 2, "--first 9223372036854775807: the last of 2 stencils from it would be past index 9223372036854775807"},
		{[]string{"--shape", "j2d5pt", "--grid", "100,,100"}, 2, `--grid "100,,100": extent 2 of 3 is empty`},
		{[]string{"--shape", "j2d5pt", "--grid", "x100x100"}, 2, `--grid "x100x100": extent 1 of 3 is empty`},
	} {
		code, _, errs := runCLI(t, "", append([]string{"generate"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("generate %v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

func TestShow(t *testing.T) {
	code, out, errs := runCLI(t, "", "show", "../../data/stencils/j2d5pt.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := `j2d5pt: 2-D, order 1, 5 points, grid 8192x8192, float64, 10 steps, id 5868d95e08891da1
  y\x -1  0 +1
   +1  .  o  .
    0  o  @  o
   -1  .  o  .
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// Stdin, an embedded sample by name, and 3-D slices.
	sample, _ := data.StencilFile("j3d19pt")
	code, out, _ = runCLI(t, string(sample), "show", "-", "j3d19pt")
	if code != 0 || strings.Count(out, "z = ") != 6 || strings.Count(out, "@") != 2 || strings.Count(out, "  o") != 36 {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, "z = -1\n  y\\x -1  0 +1\n   +1  .  o  .\n    0  o  o  o\n   -1  .  o  .\n") {
		t.Errorf("j3d19pt's z = -1 slice is not a plus:\n%s", out)
	}
}

func TestShowErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.json")
	os.WriteFile(bad, []byte(`{"dims":3,"offsets":[[0,0,0],[1,0,0],[0,1,0],[0,1]]}`), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(`{"dims":2,"offsets":[[0,0],[6,0]]}`), 0o644)
	code, out, errs := runCLI(t, "", "show", bad, "../../data/stencils/j3d7pt.json", filepath.Join(dir, "none.json"), big)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "j3d7pt: 3-D") {
		t.Errorf("the good file was not shown: %q", out)
	}
	for _, want := range []string{
		`smart show: stencil file ` + bad + `: field "offsets[3]": has 2 coordinates; a 3-D offset has 3`,
		`none.json: no such file; the embedded samples are j2d13pt`,
		`big.json: field "offsets": reach order 6`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not say %q", errs, want)
		}
	}
	if code, _, errs := runCLI(t, "", "show", "--max-order", "8", big); code != 0 {
		t.Errorf("--max-order 8: exit %d %s", code, errs)
	}
	if code, _, _ := runCLI(t, "", "show"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}

func TestFeaturesCommand(t *testing.T) {
	code, out, errs := runCLI(t, "", "features", "--json", "--tensor", "../../data/stencils/j3d7pt.json", "j2d5pt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	type report struct {
		Name        string             `json:"name"`
		Features    map[string]float64 `json:"features"`
		TensorShape []int              `json:"tensor_shape"`
		Tensor      []float64          `json:"tensor"`
	}
	var reps []report
	for _, line := range jsonLines(t, out) { // one per file
		var r report
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%v\n%s", err, line)
		}
		reps = append(reps, r)
	}
	if len(reps) != 2 || reps[0].Name != "j3d7pt" || reps[0].Features["nnz"] != 7 || reps[0].Features["nnz_ratio_o1"] != 6.0/26 ||
		len(reps[0].Tensor) != 729 || !reflect.DeepEqual(reps[0].TensorShape, []int{9, 9, 9}) || reps[0].Tensor[364] != 1 ||
		reps[1].Features["dims"] != 2 || len(reps[1].Tensor) != 81 {
		t.Errorf("unexpected report: %+v", reps)
	}
	// Keys keep the schema's order.
	if i, j := strings.Index(out, `"order"`), strings.Index(out, `"nnz_o1"`); i < 0 || j < i {
		t.Error("features out of schema order")
	}
	code, out, _ = runCLI(t, "", "features", "--max-order", "2", "j3d27pt")
	if code != 0 || !strings.Contains(out, "nnz_ratio_o1   1\n") || strings.Contains(out, "nnz_o3") {
		t.Errorf("text output:\n%s", out)
	}
	if code, _, errs := runCLI(t, "", "features", "--max-order", "1", "j2d9pt"); code != 1 || !strings.Contains(errs, "reach order 2, beyond the maximum 1; use a smaller stencil or raise the maximum order (up to 8) with --max-order") {
		t.Errorf("order beyond R: exit %d %s", code, errs)
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"generate", "show", "features"} {
		code, out, _ := runCLI(t, "", cmd, "--help")
		if code != 0 || !strings.Contains(out, "Example") || !strings.Contains(out, "smart "+cmd) {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
}

// TestGenerateHelpNameOrder: --help says how far a listing of the files is in index order, as far
// as it is: the names' index has 4 digits or more (the names of existing data), so index 10000
// lists before 9999.
func TestGenerateHelpNameOrder(t *testing.T) {
	spec := generator.Spec{Dims: 3, Order: 2, Seed: 1}
	last := -1 // the last index up to which the names sort in index order
	for i := 9990; i < 10010 && last < 0; i++ {
		if spec.Name(i+1) < spec.Name(i) {
			last = i
		}
	}
	if last < 0 {
		t.Fatal("the names sort in index order past 10000; correct the help")
	}
	_, help, _ := runCLI(t, "", "generate", "--help")
	if want := fmt.Sprintf("in index order up to index %d", last); !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
		t.Errorf("--help does not say the names sort in index order up to index %d:\n%s", last, help)
	}
}

// A stencil file that is not UTF-8 is refused by name, not read with its name garbled.
func TestShowNotUTF8(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, want string
	}{
		{"latin1.json", `{"name":"heat` + "\xff" + `","dims":2,"offsets":[[0,0]]}`, "the file is not UTF-8: byte 14 is 0xFF"},
		{"utf16.json", "\xff\xfe{\x00}\x00", "the file is UTF-16 (it starts with the byte-order mark FF FE); save it as UTF-8"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, "", "show", path)
		if want := "smart show: stencil file " + path + ": " + tc.want; code != 1 || out != "" || !strings.HasPrefix(errs, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", tc.name, code, out, errs, want)
		}
	}
}
