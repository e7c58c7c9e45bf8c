package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

// sampleDataSet writes sampleRows into a new data set and returns its directory.
func sampleDataSet(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sample")
	w, err := Create(dir, sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	rows := sampleRows()
	slow := rows[0]
	slow.Setting, slow.Cut = smart.Setting{"bx": 64, "by": 4, "bz": 1, "shared": 1, "const": 0, "sd": 3, "sb": 64, "ufx": 1, "ufy": 1, "ufz": 2}, smart.CutSlow
	if err := w.Append(append(rows, slow)...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// headerOnly copies dir's meta.json and the header of its rows.csv into a new data set.
func headerOnly(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "empty")
	meta, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := os.ReadFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, MetaFile), meta, 0o644)
	os.WriteFile(filepath.Join(out, RowsFile), rows[:bytes.IndexByte(rows, '\n')+1], 0o644)
	return out
}

func TestGlobRefusesADataSetTwice(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	os.MkdirAll(a, 0o755)
	os.WriteFile(filepath.Join(a, RowsFile), nil, 0o644)
	for _, patterns := range [][]string{
		{a, filepath.Join(a, RowsFile)},
		{a, a + string(filepath.Separator)},
		{filepath.Join(dir, "*"), a},
		{a, a},
	} {
		if got, err := Glob(patterns); err == nil || !strings.Contains(err.Error(), "is given twice") {
			t.Errorf("Glob(%q) = %v, %v; want it given twice", patterns, got, err)
		}
	}
}

// TestFastestCountsDistinctVariants: a variant in two data sets counts once, and no data set's
// fastest is an empty list, not null, in JSON.
func TestFastestCountsDistinctVariants(t *testing.T) {
	src := filepath.Join("..", "data", "measured", "h200", "random", "j3d125pt")
	one, err := FastestMeasured(context.Background(), []string{src})
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "again")
	if err := os.CopyFS(again, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	two, err := FastestMeasured(context.Background(), []string{src, again})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Fastest) != 1 || len(two.Fastest) != 1 || two.Fastest[0].Variants != one.Fastest[0].Variants || len(two.Fastest[0].DataSets) != 2 {
		t.Fatalf("one data set: %+v\nit twice: %+v; want the same variants in two data sets", one.Fastest, two.Fastest)
	}
	none, err := FastestMeasured(context.Background(), []string{headerOnly(t, src)})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(none); !strings.Contains(string(b), `"fastest":[]`) {
		t.Errorf("no rows: %s; want an empty list", b)
	}
}

// TestStatsCutShort: the ok rows the protocol cut short are counted by cut, and said so.
func TestStatsCutShort(t *testing.T) {
	s, err := ComputeStats(context.Background(), sampleDataSet(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[smart.Cut]int{"ST_RT": {smart.CutSlow: 1}, "BASE": {smart.CutStopped: 1}}
	for _, c := range s.Counts {
		if c.GPU == "A100-40GB" && !reflect.DeepEqual(c.Cut, want[c.OC]) {
			t.Errorf("%s: cut %v; want %v", c.OC, c.Cut, want[c.OC])
		}
	}
	var b bytes.Buffer
	if err := s.WriteTables(&b, "x"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"       GPU  OC or kernel  rows  ok  compile_error  launch_error  wrong_result  timeout  invalid  cut slow  cut stopped",
		"  A100-40GB          BASE     3   1              1             0             1        0        0         0            1",
		"2 of the ok rows were cut short by the measuring protocol, far slower than their stencil's fastest: 1 slow (timed by their checked run alone), 1 stopped",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("no line %q in\n%s", line, b.String())
		}
	}
	js, _ := json.Marshal(s)
	if !strings.Contains(string(js), `"cut":{"stopped":1}`) {
		t.Errorf("JSON without the cut rows: %s", js)
	}
}

// TestStatsNoRows: a data set of a header alone says it holds no rows, and its lists are empty
// in JSON, not null.
func TestStatsNoRows(t *testing.T) {
	s, err := ComputeStats(context.Background(), headerOnly(t, sampleDataSet(t)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.WriteTables(&b, "x"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "holds no rows") || strings.Contains(b.String(), "Rows by GPU") {
		t.Errorf("no rows:\n%s", b.String())
	}
	js, _ := json.Marshal(s)
	if !strings.Contains(string(js), `"counts":[],"best_oc":[],"gap":[]`) {
		t.Errorf("no rows: %s", js)
	}
}

// TestRowsWithByteOrderMark: a rows.csv and a meta.json an editor saved with a UTF-8 byte-order
// mark read as without one, and the data set is appended to.
func TestRowsWithByteOrderMark(t *testing.T) {
	dir := sampleDataSet(t)
	path := filepath.Join(dir, RowsFile)
	plain, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := ReadAll(dir)
	os.WriteFile(path, append([]byte("\xef\xbb\xbf"), plain...), 0o644)
	metaPath := filepath.Join(dir, MetaFile)
	meta, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(metaPath, append([]byte("\xef\xbb\xbf"), meta...), 0o644)
	_, got, err := ReadAll(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with a BOM: %d rows, %v; want %d", len(got), err, len(want))
	}
	w, _, err := Resume(dir)
	if err != nil {
		t.Fatal(err)
	}
	more := want[0]
	more.StencilID = "0000000000000009"
	if err := w.Append(more); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, got, err = ReadAll(dir); err != nil || len(got) != len(want)+1 {
		t.Errorf("appended to: %d rows, %v", len(got), err)
	}
}

// TestMergeWordsPlans: a merge of differently planned data sets says what differs between them
// in its own words, not those of a resumed run.
func TestMergeWordsPlans(t *testing.T) {
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs[:2], 2, 1)
	a := runShard(t, sts, plan, nil, simMeta(StencilParams(), nil, nil))
	campaign := *plan
	campaign.Samples, campaign.OCs, campaign.Manifest = 0, nil, strings.Repeat("ab", 32)
	b, err := Create(filepath.Join(t.TempDir(), "campaign"), simMeta(StencilParams(), &campaign, nil))
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	_, err = Merge(context.Background(), filepath.Join(t.TempDir(), "m"), []string{a, b.Dir()}, false)
	want := "were planned differently, not as shards of one plan (campaign manifest: none and abababababab)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "now") || strings.Contains(err.Error(), "measuring began") {
		t.Errorf("merge: %v; want %q", err, want)
	}
}

// TestStatsRepeatedRows: rows that give a variant again, as a hand edit or a stray append
// leaves them, are counted and said, those with another time apart; a data set of distinct
// variants says nothing of it.
func TestStatsRepeatedRows(t *testing.T) {
	dir := sampleDataSet(t)
	s, err := ComputeStats(context.Background(), dir)
	if err != nil || s.Repeated != 0 || s.Conflicting != 0 {
		t.Fatalf("distinct rows: %v, repeated %d, conflicting %d", err, s.Repeated, s.Conflicting)
	}
	path := filepath.Join(dir, RowsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	again := lines[1] // the first row, given again as it was
	i := slices.IndexFunc(lines[2:], func(l string) bool { return strings.Contains(l, ",ok,") })
	if i < 0 {
		t.Fatal("no ok row after the first")
	}
	other := strings.Replace(lines[2+i], ",ok,", ",launch_error,", 1) // an ok row, failed this time
	if err := os.WriteFile(path, []byte(string(b)+again+"\n"+other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = ComputeStats(context.Background(), dir); err != nil || s.Repeated != 2 || s.Conflicting != 1 {
		t.Fatalf("two rows given again, one changed: %v, repeated %d, conflicting %d", err, s.Repeated, s.Conflicting)
	}
	var out bytes.Buffer
	if err := s.WriteTables(&out, "x"); err != nil {
		t.Fatal(err)
	}
	if want := "rows.csv gives 2 variants again, 1 of them with another status or time"; !strings.Contains(out.String(), want) {
		t.Errorf("no %q in\n%s", want, out.String())
	}
}

// TestRowOfAnotherGPU: a row whose GPU meta.json's devices do not name, as an edit leaves it, is
// refused naming the row, not counted as another GPU's measurement.
func TestRowOfAnotherGPU(t *testing.T) {
	dir := sampleDataSet(t)
	path := filepath.Join(dir, RowsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	edited := strings.Replace(lines[2], ",A100-40GB,", ",H900-FOO,", 1)
	if edited == lines[2] {
		t.Fatalf("row %q is not the A100's", lines[2])
	}
	lines[2] = edited
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ComputeStats(context.Background(), dir)
	if want := path + `: row 2 is of GPU "H900-FOO"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("stats: %v; want an error naming %q", err, want)
	}
}

// TestResumeOtherShard: a data set resumed with another shard, or none, says which in words, not
// Go's <nil>.
func TestResumeOtherShard(t *testing.T) {
	dir := sampleDataSet(t)
	half := sampleMeta()
	half.Shard = &Shard{I: 1, N: 2}
	_, err := CheckOpen(dir, half)
	if err == nil || !strings.Contains(err.Error(), "it is no shard (every stencil), now shard 1/2") {
		t.Errorf("resumed as shard 1/2: %v", err)
	}
}
