package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"smart/data"
	"smart/internal/atomicfile"
	"smart/internal/jsonerr"
)

// maxFileBytes bounds what Decode reads: a calibration is a few kilobytes.
const maxFileBytes = 1 << 20

// Decode parses and checks a calibration file's contents; name is for errors.
func Decode(name string, r io.Reader) (*File, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading calibration %s: %w", name, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("calibration %s: over %d bytes; not a calibration file", name, maxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", name, jsonerr.Describe(err))
	}
	if f.Format != Format {
		return nil, fmt.Errorf("calibration %s: format %q; this smart reads %q", name, f.Format, Format)
	}
	if err := f.Calibration.Check(); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", name, err)
	}
	iv := f.Interval
	if !(iv.Level > 0 && iv.Level < 1) || math.IsNaN(iv.LogLo) || math.IsNaN(iv.LogHi) || iv.LogLo > iv.LogHi || math.Abs(iv.LogLo) > 10 || math.Abs(iv.LogHi) > 10 {
		return nil, fmt.Errorf("calibration %s: interval level %g from %g to %g (log of measured/modelled); want a level in (0, 1) and bounds lo <= hi within ±10", name, iv.Level, iv.LogLo, iv.LogHi)
	}
	if len(f.FittedOn) == 0 {
		return nil, fmt.Errorf("calibration %s: field fitted_on is empty; a calibration names the data sets it was fitted on", name)
	}
	return &f, nil
}

// Read reads and checks the calibration file at path.
func Read(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading calibration: %w", err)
	}
	defer fh.Close()
	return Decode(path, fh)
}

// ErrNotCalibration is returned by Write for an existing file that is not a calibration file.
var ErrNotCalibration = errors.New("exists and is not a calibration file")

// Write writes f to path atomically. An existing file is replaced only where it is a calibration
// file itself or replace is set, so that a mistyped path loses nothing.
func Write(path string, f *File, replace bool) error {
	if err := CheckWritable(path, replace); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("writing calibration %s: %w", path, err)
	}
	return atomicfile.Write(path, append(data, '\n'))
}

// CheckWritable reports, before any work, why Write could not write path: an existing file
// that is not a calibration file (unless replace), or a directory that cannot take it.
func CheckWritable(path string, replace bool) error {
	if !replace {
		if _, err := os.Stat(path); err == nil {
			if _, rerr := Read(path); rerr != nil {
				return fmt.Errorf("writing calibration %s: %w", path, ErrNotCalibration)
			}
		}
	}
	return atomicfile.Check(path)
}

// Default returns the embedded calibration: the constants fitted to smart's own measurements.
func Default() (*File, error) {
	f, err := Decode("data/calibration/stencil.json", bytes.NewReader(data.Calibration()))
	if err != nil {
		return nil, fmt.Errorf("the embedded calibration is broken (a bug in this build): %w", err)
	}
	return f, nil
}
