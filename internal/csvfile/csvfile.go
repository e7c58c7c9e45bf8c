// Package csvfile reads the small CSV files smart keeps beside its data sets (the items a run
// planned, the calls of a campaign): a fixed header, then records of its width, with errors that
// name the file and line.
package csvfile

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Read reads the CSV text of r, named name in errors, whose first record must be header, and
// calls fn with every later record and its line number. A record reused between calls: fn
// copies what it keeps.
func Read(name string, r io.Reader, header []string, fn func(line int, rec []string) error) error {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = len(header)
	cr.ReuseRecord = true
	for line := 1; ; line++ {
		rec, err := cr.Read()
		switch {
		case errors.Is(err, io.EOF) && line == 1:
			return fmt.Errorf("%s: the file is empty; it starts with the header %s", name, strings.Join(header, ","))
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", name, err)
		case line == 1:
			if !slices.Equal(rec, header) {
				return fmt.Errorf("%s:1: the header is %s; want %s", name, strings.Join(rec, ","), strings.Join(header, ","))
			}
		default:
			if err := fn(line, rec); err != nil {
				return err
			}
		}
	}
}

// ReadFile is Read of the file at path. A missing file is no error: found is false.
func ReadFile(path string, header []string, fn func(line int, rec []string) error) (found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	return true, Read(path, f, header, fn)
}
