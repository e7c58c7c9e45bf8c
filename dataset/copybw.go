package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// CopyFile records each GPU run on the data set, one line per run, appended: when it ended, the
// device's name, the device-to-device copy bandwidth it measured (the ceiling a memory-bound
// stencil is compared with), the card's UUID and the rows the data set held at its end
// ("RFC 3339 time,device,GB/s,uuid,rows"). A data set resumed on another card of the same model
// holds rows of both, and meta.json names only the first: the rows after one line's count up to
// the next line's were measured on the next line's card. Lines written before the card was
// recorded have the first three fields only. A merge copies the lines of its inputs in order
// (meta.json's merged_from), each counting the rows of the data set it came from.
const CopyFile = "copy_bandwidth.csv"

// CopyMeasurement is one line of CopyFile.
type CopyMeasurement struct {
	At     time.Time
	Device string  // the device's own name
	GBs    float64 // bytes read plus written over the time of the copy
	UUID   string  // the card's, from NVML; empty in lines of the three-field format
	Rows   int     // rows of the data set at the end of the run; 0 in lines of the three-field format
}

// AppendCopyBandwidth appends a measurement to the data set in dir. The device name comes from
// NVML, so commas in it are replaced to keep the line's fields.
func AppendCopyBandwidth(dir string, c CopyMeasurement) error {
	if !(c.GBs > 0) {
		return fmt.Errorf("copy bandwidth %v GB/s: want a positive figure", c.GBs)
	}
	if c.Rows < 0 || strings.ContainsAny(c.UUID, ",\n") {
		return fmt.Errorf("copy bandwidth line: rows %d, UUID %q: want a count and a UUID without commas", c.Rows, c.UUID)
	}
	f, err := os.OpenFile(filepath.Join(dir, CopyFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("recording the copy bandwidth: %w", err)
	}
	line := fmt.Sprintf("%s,%s,%.3f", c.At.UTC().Format(time.RFC3339), strings.ReplaceAll(c.Device, ",", ";"), c.GBs)
	if c.UUID != "" || c.Rows != 0 {
		line += fmt.Sprintf(",%s,%d", c.UUID, c.Rows)
	}
	line += "\n"
	_, err = f.WriteString(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the copy bandwidth: %w", err)
	}
	return nil
}

// CopyBandwidths reads the copy bandwidths recorded in the data set in dir, oldest first; none
// (and no error) when the data set has no GPU runs. A last line without its newline, from a run
// killed while writing it, is skipped; a malformed whole line is an error naming file and line.
func CopyBandwidths(dir string) ([]CopyMeasurement, error) {
	path := filepath.Join(dir, CopyFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	lines = lines[:len(lines)-1] // after the last newline: empty, or a torn line
	var out []CopyMeasurement
	for i, line := range lines {
		fields := strings.Split(line, ",")
		if len(fields) != 3 && len(fields) != 5 {
			return nil, fmt.Errorf("%s line %d: %d fields, want time,device,GB/s,uuid,rows", path, i+1, len(fields))
		}
		at, err1 := time.Parse(time.RFC3339, fields[0])
		gbs, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil || !(gbs > 0) {
			return nil, fmt.Errorf("%s line %d: %q is not time,device,GB/s,uuid,rows", path, i+1, line)
		}
		c := CopyMeasurement{At: at, Device: fields[1], GBs: gbs}
		if len(fields) == 5 {
			rows, err := strconv.Atoi(fields[4])
			if err != nil || rows < 0 {
				return nil, fmt.Errorf("%s line %d: rows %q is not a count", path, i+1, fields[4])
			}
			c.UUID, c.Rows = fields[3], rows
		}
		out = append(out, c)
	}
	return out, nil
}
