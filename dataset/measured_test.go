package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
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
