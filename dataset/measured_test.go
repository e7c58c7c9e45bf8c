package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

var updateMeasured = flag.Bool("update-measured", false, "rewrite testdata/measured-rows.txt from the committed data sets")

// measuredDigests is the golden record of the committed measurements: per data set under
// data/measured, its rows when the record was made and the SHA-256 of those rows as read (JSON,
// one a line). Data sets may grow (a resumed campaign) but their first rows must read the same.
const measuredDigests = "testdata/measured-rows.txt"

// TestCommittedDataSets reads every committed data set (of every format) and checks that the
// rows recorded in measuredDigests read as they did when it was made.
func TestCommittedDataSets(t *testing.T) {
	root := filepath.Join("..", "data", "measured")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == MetaFile {
			dirs = append(dirs, filepath.Dir(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no data sets under %s", root)
	}
	digests := map[string][]smart.Measurement{}
	for _, dir := range dirs {
		_, rows, err := ReadAll(dir)
		if err != nil {
			t.Errorf("reading a committed data set: %v", err)
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		digests[filepath.ToSlash(rel)] = rows
	}
	if *updateMeasured {
		var b strings.Builder
		for _, dir := range slices.Sorted(maps.Keys(digests)) {
			fmt.Fprintf(&b, "%s %d %s\n", dir, len(digests[dir]), rowsDigest(t, digests[dir]))
		}
		if err := os.WriteFile(measuredDigests, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(measuredDigests)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	checked := 0
	for sc.Scan() {
		var dir, sum string
		var n int
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %s", &dir, &n, &sum); err != nil {
			t.Fatalf("%s: %q: %v", measuredDigests, sc.Text(), err)
		}
		rows, ok := digests[dir]
		switch {
		case !ok:
			t.Errorf("data set %s (in %s) is gone or unreadable", dir, measuredDigests)
			continue
		case len(rows) < n:
			t.Errorf("data set %s: %d rows; %s recorded %d", dir, len(rows), measuredDigests, n)
			continue
		}
		if got := rowsDigest(t, rows[:n]); got != sum {
			t.Errorf("data set %s: its first %d rows read differently than when %s was made", dir, n, measuredDigests)
		}
		checked++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Errorf("%s lists no data set", measuredDigests)
	}
}

// rowsDigest is the SHA-256 of rows as JSON, one a line.
func rowsDigest(t *testing.T, rows []smart.Measurement) string {
	h := sha256.New()
	for _, m := range rows {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(append(b, '\n'))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestAppendToCommittedDataSet resumes a copy of a committed data set of FormatV1, as a resumed
// run would, and appends a row with the compiler's facts: the file keeps its bytes and format,
// and the row reads back without them.
func TestAppendToCommittedDataSet(t *testing.T) {
	src := filepath.Join("..", "data", "measured", "h100-sxm", "picks", "j2d5pt")
	dir := t.TempDir()
	for _, name := range []string{MetaFile, RowsFile} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, err := os.ReadFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	_, old, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, torn, err := Resume(dir)
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	if f := w.Meta().Format; f != FormatV1 {
		t.Fatalf("%s is of format %s; the test wants a committed data set of %s", src, f, FormatV1)
	}
	row := old[0]
	row.Setting = maps.Clone(row.Setting)
	row.Setting["bx"] *= 2
	row.Compiled = &smart.Compiled{RegsPerThread: 64, LocalBytesPerThread: 24}
	if w.Has(row) {
		t.Fatalf("%s already holds %s", src, row.Setting)
	}
	if err := w.Append(row); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) || bytes.Count(after, []byte("\n")) != bytes.Count(before, []byte("\n"))+1 {
		t.Fatalf("rows.csv after appending a row:\n%s", after)
	}
	_, rows, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	row.Compiled = nil
	if len(rows) != len(old)+1 || !reflect.DeepEqual(rows[:len(old)], old) || !reflect.DeepEqual(rows[len(old)], row) {
		t.Errorf("read back %d rows, the last %+v; want the %d committed and %+v", len(rows), rows[len(rows)-1], len(old), row)
	}
}
