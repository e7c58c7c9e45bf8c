package calibrate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"

	"smart/data"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/internal/jsonerr"
)

// maxFileBytes bounds what Decode reads: a calibration is a few kilobytes.
const maxFileBytes = 1 << 20

// Decode parses and checks a calibration file's contents; name is for errors.
func Decode(name string, r io.Reader) (*File, error) {
	var f File
	if err := calibrationFile.decode(name, r, &f); err != nil {
		return nil, err
	}
	if err := f.Calibration.Check(); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", name, err)
	}
	if err := f.Interval.Check(); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", name, err)
	}
	if len(f.FittedOn) == 0 {
		return nil, fmt.Errorf("calibration %s: field fitted_on is empty; a calibration names the data sets it was fitted on", name)
	}
	return &f, nil
}

// Read reads and checks the calibration file at path.
func Read(path string) (*File, error) {
	f, _, err := ReadOrigin(path)
	return f, err
}

// ReadOrigin reads the calibration file at path as Read does, and says where its constants come
// from as a data set simulated with them records it: path as given, its content's hash and what
// it was fitted on.
func ReadOrigin(path string) (*File, dataset.Constants, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, dataset.Constants{}, fmt.Errorf("reading calibration: %w", err)
	}
	defer fh.Close()
	return decodeOrigin(path, fh)
}

// decodeOrigin decodes a calibration file as Decode does, and identifies it by name and the
// sha256 of what it read.
func decodeOrigin(name string, r io.Reader) (*File, dataset.Constants, error) {
	h := sha256.New()
	f, err := Decode(name, io.TeeReader(r, h)) // which reads a file it accepts to its end
	if err != nil {
		return nil, dataset.Constants{}, err
	}
	var gpus []string
	rows := 0
	for _, s := range f.FittedOn {
		if !slices.Contains(gpus, s.GPU) {
			gpus = append(gpus, s.GPU)
		}
		rows += s.Rows
	}
	return f, dataset.Constants{Origin: dataset.ConstantsCalibration, File: name, SHA256: hex.EncodeToString(h.Sum(nil))[:12],
		FittedOn: fmt.Sprintf("%d rows of %d data sets, %s", rows, len(f.FittedOn), strings.Join(gpus, ", "))}, nil
}

// Write writes f to path atomically. An existing file is replaced only where it is a calibration
// file itself or replace is set, so that a mistyped path loses nothing.
func Write(path string, f *File, replace bool) error {
	if err := atomicfile.CheckReplace(path, replace, FileKind()); err != nil {
		return fmt.Errorf("writing calibration %s: %w", path, err)
	}
	return writeJSON(path, f)
}

// FileKind recognises a calibration file, for the rule on replacing files
// (atomicfile.CheckReplace): Write replaces only one of these unless told to.
func FileKind() atomicfile.Kind {
	return calibrationFile.recognise(func(f io.Reader) error { _, err := Decode("", f); return err })
}

// jsonFile is a kind of JSON file of this package: its name in errors, what one is, and its
// format.
type jsonFile struct{ kind, what, format string }

var (
	calibrationFile = jsonFile{"calibration", "a calibration file", Format}
	bandsFile       = jsonFile{"intervals", "an intervals file", BandsFormat}
)

// recognise recognises the files of kind k that decode reads.
func (k jsonFile) recognise(decode func(io.Reader) error) atomicfile.Kind {
	return atomicfile.Kind{What: k.what, Ours: func(path string) (bool, error) {
		f, err := os.Open(path)
		if err != nil {
			return false, err
		}
		defer f.Close()
		return decode(f) == nil, nil
	}}
}

// decode reads a file of kind k (name is its path) into v: at most maxFileBytes, of k's format,
// no unknown field. The format is checked first, so that another of smart's files (a data set's
// meta.json) is named as such rather than by its first field a calibration lacks.
func (k jsonFile) decode(name string, r io.Reader, v any) error {
	raw, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", k.kind, name, err)
	}
	if len(raw) > maxFileBytes {
		return fmt.Errorf("%s %s: over %d bytes; not %s", k.kind, name, maxFileBytes, k.what)
	}
	// As a stencil file or a data set's meta.json, a file an editor saved with a byte-order
	// mark reads as without one.
	raw = jsonerr.TrimBOM(raw)
	var head struct {
		Format *string `json:"format"`
	}
	if json.Unmarshal(raw, &head) == nil { // else the strict decoding below says what is wrong
		switch {
		case head.Format == nil:
			return fmt.Errorf("%s has no format field; %s is %q", name, k.what, k.format)
		case *head.Format != k.format:
			return fmt.Errorf("%s is format %q; %s is %q", name, *head.Format, k.what, k.format)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if field, ok := jsonerr.UnknownField(err); ok {
			return fmt.Errorf("%s %s: unknown field %q; %s (format %q) has none such: remove it, or mend its name's spelling", k.kind, name, field, k.what, k.format)
		}
		return fmt.Errorf("%s %s: %w%s", k.kind, name, jsonerr.Describe(err), nonNumber(raw, err))
	}
	// What follows the object (a second one pasted after it) would be ignored without a word.
	if more := bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n"); len(more) > 0 {
		at := len(raw) - len(more) + 1
		return fmt.Errorf("%s %s: invalid JSON at byte %d: more follows the end of the file's object; %s is one object", k.kind, name, at, k.what)
	}
	return nil
}

// nonNumber says, for a syntax error of decoding raw at a NaN or an infinity (which Go's and
// Python's JSON writers give for a float they cannot write), that JSON has no such number; ""
// for any other error.
func nonNumber(raw []byte, err error) string {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) || syn.Offset < 1 || syn.Offset > int64(len(raw)) {
		return ""
	}
	at := raw[syn.Offset-1:]
	for _, word := range []string{"NaN", "Infinity", "-Infinity", "+Inf", "Inf"} {
		if bytes.HasPrefix(at, []byte(word)) {
			return fmt.Sprintf(" (%s is not a number JSON allows: give a finite number)", word)
		}
	}
	return ""
}

// writeJSON writes v to path, indented, atomically.
func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.Write(path, append(raw, '\n'))
}

// EmbeddedName is what the embedded calibration is called in errors and outputs: the file of
// the repository it was built from.
const EmbeddedName = "data/calibration/stencil.json"

// Default returns the embedded calibration: the constants fitted to smart's own measurements.
func Default() (*File, error) {
	f, _, err := DefaultOrigin()
	return f, err
}

// DefaultOrigin returns the embedded calibration as Default does, and where its constants come
// from as ReadOrigin says it (the file as data/calibration/stencil.json). Each call returns a
// copy of its own, for the caller to change if it likes.
func DefaultOrigin() (*File, dataset.Constants, error) {
	e, err := embedded()
	if err != nil {
		return nil, dataset.Constants{}, err
	}
	return e.file.clone(), e.origin, nil
}

// embedded decodes the embedded calibration once a process: 120 kB of JSON, read by every
// estimate, prediction and simulation.
var embedded = sync.OnceValues(func() (decoded, error) {
	f, c, err := decodeOrigin(EmbeddedName, bytes.NewReader(data.Calibration()))
	if err != nil {
		return decoded{}, fmt.Errorf("the embedded calibration is broken (a bug in this build): %w", err)
	}
	return decoded{f, c}, nil
})

// decoded is a calibration file and where its constants come from.
type decoded struct {
	file   *File
	origin dataset.Constants
}

// clone is a copy of f that shares no slice, map or pointer with it.
func (f *File) clone() *File {
	c := *f
	c.FittedOn = slices.Clone(f.FittedOn)
	c.TestedOn = slices.Clone(f.TestedOn)
	c.LeaveOneOut = slices.Clone(f.LeaveOneOut)
	c.Test = slices.Clone(f.Test)
	c.InSample = slices.Clone(f.InSample)
	c.Unscored = slices.Clone(f.Unscored)
	c.Calibration.CopyGBs = maps.Clone(f.Calibration.CopyGBs)
	c.Calibration.OCScale = maps.Clone(f.Calibration.OCScale)
	if f.Range != nil {
		r := *f.Range
		r.Dtypes, r.Grids, r.GPUs = slices.Clone(r.Dtypes), slices.Clone(r.Grids), slices.Clone(r.GPUs)
		c.Range = &r
	}
	return &c
}
