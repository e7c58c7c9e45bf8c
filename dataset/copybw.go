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

// CopyFile records the device-to-device copy bandwidth a GPU run measured, one line per run
// ("RFC 3339 time,device,GB/s"), appended: the ceiling a memory-bound stencil is compared with.
const CopyFile = "copy_bandwidth.csv"

// CopyMeasurement is one line of CopyFile.
type CopyMeasurement struct {
	At     time.Time
	Device string  // the device's own name
	GBs    float64 // bytes read plus written over the time of the copy
}

// AppendCopyBandwidth appends a measurement to the data set in dir. The device name comes from
// NVML, so commas in it are replaced to keep the line's three fields.
func AppendCopyBandwidth(dir string, c CopyMeasurement) error {
	if !(c.GBs > 0) {
		return fmt.Errorf("copy bandwidth %v GB/s: want a positive figure", c.GBs)
	}
	f, err := os.OpenFile(filepath.Join(dir, CopyFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("recording the copy bandwidth: %w", err)
	}
	line := fmt.Sprintf("%s,%s,%.3f\n", c.At.UTC().Format(time.RFC3339), strings.ReplaceAll(c.Device, ",", ";"), c.GBs)
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
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s line %d: %d fields, want time,device,GB/s", path, i+1, len(fields))
		}
		at, err1 := time.Parse(time.RFC3339, fields[0])
		gbs, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil || !(gbs > 0) {
			return nil, fmt.Errorf("%s line %d: %q is not time,device,GB/s", path, i+1, line)
		}
		out = append(out, CopyMeasurement{At: at, Device: fields[1], GBs: gbs})
	}
	return out, nil
}
