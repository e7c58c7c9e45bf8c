package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"smart/data"
	"smart/internal/atomicfile"
	"smart/internal/jsonerr"
)

// BandsFormat names the layout of a file of learned models' intervals.
const BandsFormat = "smart-intervals/1"

// Band is the interval of one runtime model's predictions where they rest on one basis
// (measured on the GPU, transferred from another, simulated), from its errors on measured
// stencils it was not trained on.
type Band struct {
	Model    string `json:"model"` // as predict names it, e.g. "embedded runtime-3d.smartmodel"
	Basis    string `json:"basis"`
	Interval `json:"interval"`
	// Coverage is the mean over those stencils of the share of their rows inside the band built
	// without them; TestCoverage that on data no band was built from (absent: none).
	Coverage     float64  `json:"coverage"`
	TestCoverage *float64 `json:"test_coverage,omitempty"`
	Test         string   `json:"test,omitempty"` // what TestCoverage was measured on
}

// Bands is a file of bands, as bench/intervals writes it.
type Bands struct {
	Format  string `json:"format"`
	Command string `json:"command"`
	Bands   []Band `json:"bands"`
}

// Lookup returns the band of a model on a basis, or nil.
func (b *Bands) Lookup(model, basis string) *Band {
	for i := range b.Bands {
		if b.Bands[i].Model == model && b.Bands[i].Basis == basis {
			return &b.Bands[i]
		}
	}
	return nil
}

// DecodeBands parses and checks a bands file; name is for errors.
func DecodeBands(name string, r io.Reader) (*Bands, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil || len(raw) > maxFileBytes {
		return nil, fmt.Errorf("intervals %s: unreadable or over %d bytes", name, maxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var b Bands
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("intervals %s: %w", name, jsonerr.Describe(err))
	}
	if b.Format != BandsFormat {
		return nil, fmt.Errorf("intervals %s: format %q; this smart reads %q", name, b.Format, BandsFormat)
	}
	for i, bd := range b.Bands {
		if !(bd.Level > 0 && bd.Level < 1) || !(bd.LogLo <= bd.LogHi) || math.Abs(bd.LogLo) > 10 || math.Abs(bd.LogHi) > 10 || bd.Model == "" || bd.Basis == "" {
			return nil, fmt.Errorf("intervals %s: band %d (%s, %s) is not an interval: level %g, bounds %g to %g", name, i+1, bd.Model, bd.Basis, bd.Level, bd.LogLo, bd.LogHi)
		}
	}
	return &b, nil
}

// WriteBands writes b to path atomically; an existing file is replaced only where it is a bands
// file itself.
func WriteBands(path string, b *Bands) error {
	if old, err := os.Open(path); err == nil {
		_, derr := DecodeBands(path, old)
		old.Close()
		if derr != nil {
			return fmt.Errorf("writing intervals %s: it exists and is not an intervals file", path)
		}
	}
	raw, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(raw, '\n'))
}

// DefaultBands returns the embedded intervals of the embedded runtime models.
func DefaultBands() (*Bands, error) {
	b, err := DecodeBands("data/calibration/intervals.json", bytes.NewReader(data.Intervals()))
	if err != nil {
		return nil, fmt.Errorf("the embedded intervals are broken (a bug in this build): %w", err)
	}
	return b, nil
}
