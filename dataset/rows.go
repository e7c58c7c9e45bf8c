package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/internal/jsonerr"
)

// Torn describes the last line of rows.csv when a writer was killed while writing it: the line
// has no newline, or is cut short of the header's field count. smart dataset stats --json prints
// it (snake_case keys, as all of smart's JSON).
type Torn struct {
	Line   int   `json:"line"`   // 1-based line number in rows.csv
	Offset int64 `json:"offset"` // where the line starts, and where the file is cut on Resume
	Bytes  int64 `json:"bytes"`  // length of the torn line
}

func (t *Torn) String() string {
	return fmt.Sprintf("line %d (%d bytes) was cut short, as by a killed run", t.Line, t.Bytes)
}

// Scan reads a data set and calls fn for every row in file order. A torn last line (a run
// killed mid-write, or one still writing) is skipped and returned; any other damage is an error
// naming the file, line and column.
func Scan(dir string, fn func(m smart.Measurement) error) (Meta, *Torn, error) {
	return ScanContext(context.Background(), dir, fn)
}

// scanCheck is how many rows ScanContext reads between two looks at its context: a data set of
// millions of rows stops within a fraction of a second.
const scanCheck = 4096

// ScanContext is Scan stopped by ctx: it looks at ctx before the first row and every few
// thousand rows after, and once ctx is done returns an error that wraps ctx.Err() and says how
// many rows were read.
func ScanContext(ctx context.Context, dir string, fn func(m smart.Measurement) error) (Meta, *Torn, error) {
	meta, err := ReadMeta(dir)
	if err != nil {
		return Meta{}, nil, err
	}
	path := filepath.Join(dir, RowsFile)
	read := 0
	torn, err := scanRows(path, meta.Format, meta.Params, func(m smart.Measurement) error {
		if read%scanCheck == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("%s: stopped after %d rows: %w", path, read, err)
			}
		}
		read++
		if !meta.holds(m) {
			return fmt.Errorf("%s: row %d is of GPU %q (device %q), which meta.json's devices do not name: the row does not belong to this data set; correct its gpu and device, or delete it",
				path, read, m.GPU, m.Device)
		}
		return fn(m)
	})
	return meta, torn, err
}

// holds reports whether a row of m's GPU belongs to a data set of meta: its GPU is one of
// meta's devices' (its device, where the catalogue knows no GPU). Meta without devices holds
// any row.
func (meta Meta) holds(m smart.Measurement) bool {
	if len(meta.Devices) == 0 {
		return true
	}
	return slices.ContainsFunc(meta.Devices, func(d Device) bool {
		if m.GPU != "" {
			return d.GPU == m.GPU
		}
		return d.GPU == "" && d.Name == m.Device
	})
}

// ReadAll returns every row of a data set. Scan is cheaper for large ones.
func ReadAll(dir string) (Meta, []smart.Measurement, error) {
	return ReadAllContext(context.Background(), dir)
}

// ReadAllContext is ReadAll stopped by ctx, as ScanContext is.
func ReadAllContext(ctx context.Context, dir string) (Meta, []smart.Measurement, error) {
	var rows []smart.Measurement
	meta, _, err := ScanContext(ctx, dir, func(m smart.Measurement) error {
		rows = append(rows, m)
		return nil
	})
	return meta, rows, err
}

// scanRows reads rows.csv of a data set of the given format and parameter columns.
//
// Every row the writer writes is one line, so a kill can only leave the last line torn: without
// its newline, or (were a write split) with too few fields. Such a line is reported, not read.
func scanRows(path, format string, params []string, fn func(m smart.Measurement) error) (*Torn, error) {
	cols, err := newColumns(format, params)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end, lastStart, err := tailOffsets(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var torn *Torn
	if end < st.Size() {
		torn = &Torn{Offset: end, Bytes: st.Size() - end}
	}
	// A file saved by a spreadsheet or an editor on Windows may begin with a byte-order mark,
	// which is no part of the header's first name.
	bom := int64(0)
	head := make([]byte, len(jsonerr.BOM))
	if _, err := f.ReadAt(head, 0); err == nil && string(head) == jsonerr.BOM && end >= int64(len(head)) {
		bom = int64(len(head))
	}
	r := csv.NewReader(bufio.NewReaderSize(io.NewSectionReader(f, bom, end-bom), 1<<16))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header := columnsOf(format, params)
	line := 0
	for {
		start := bom + r.InputOffset()
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil || (line > 1 && len(rec) != cols.n) {
			// A row is one write ending in its newline, so a killed run tears only a line without
			// one (cut above); a damaged whole line is an edit, which is not ours to delete.
			fix := ""
			if line > 1 && start >= lastStart {
				fix = "; it is the last line: fix it, or delete it to have the variant run again"
			}
			if err != nil {
				return nil, fmt.Errorf("%s: not a CSV file: %w%s", path, err, fix)
			}
			return nil, fmt.Errorf("%s:%d: the row has %d fields; the header has %d%s", path, line, len(rec), cols.n, fix)
		}
		if line == 1 {
			if err := checkHeader(rec, header); err != nil {
				return nil, fmt.Errorf("%s:1: %w", path, err)
			}
			continue
		}
		m, err := cols.decode(rec, path, line)
		if err != nil {
			return nil, err
		}
		if err := fn(m); err != nil {
			return nil, err
		}
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: the file is empty; it should start with the header %s", path, joinComma(header))
	}
	if torn != nil {
		torn.Line = line + 1
		if torn.Offset < end {
			torn.Line = line
		}
	}
	return torn, nil
}

func checkHeader(got, want []string) error {
	if slices.Equal(got, want) {
		return nil
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Errorf("header column %d is %q where meta.json's params call for %q; the file does not belong to this data set", i+1, got[i], want[i])
		}
	}
	return fmt.Errorf("header has %d columns where meta.json's params call for %d; the file does not belong to this data set", len(got), len(want))
}

func joinComma(s []string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(s)
	w.Flush()
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// tailOffsets returns end, the offset just past the file's last newline, and lastStart, where the
// line ending there starts. It reads the file backwards in chunks.
func tailOffsets(f *os.File, size int64) (end, lastStart int64, err error) {
	const chunk = 1 << 16
	buf := make([]byte, chunk)
	end = -1
	for pos := size; pos > 0; {
		n := min(int64(chunk), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] != '\n' {
				continue
			}
			if end < 0 {
				end = pos + i + 1
				continue
			}
			return end, pos + i + 1, nil
		}
	}
	if end < 0 {
		return 0, 0, nil
	}
	return end, 0, nil
}

// Glob expands patterns (filepath.Glob's, blanks trimmed, empty ones skipped) into the data
// set directories they name, in order; a pattern may name their rows.csv (DIR/*/rows.csv: the
// data sets among a directory's other files), which stands for its directory. A pattern that
// names none is an error, so that a mistyped path is not a silently smaller input, and so is a
// data set named twice (as DIR and DIR/rows.csv, or by two patterns), whose rows would count
// twice.
func Glob(patterns []string) ([]string, error) {
	var out []string
	by := map[string]string{} // the pattern that named each data set, by its absolute path
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("pattern %s: %w", p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s names no data set", p)
		}
		for _, f := range m {
			if filepath.Base(f) == RowsFile {
				f = filepath.Dir(f)
			}
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, fmt.Errorf("pattern %s: %w", p, err)
			}
			if prev, dup := by[abs]; dup {
				return nil, fmt.Errorf("data set %s is given twice (by %s and %s); give each data set once", f, prev, p)
			}
			by[abs] = p
			out = append(out, f)
		}
	}
	return out, nil
}
