package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"smart/data"
	"smart/internal/atomicfile"
	"smart/models"
)

// BandsFormat names the layout of a file of learned models' intervals.
const BandsFormat = "smart-intervals/1"

// Band is the interval of one runtime model's predictions where they rest on one basis
// (measured on the GPU, transferred from another, simulated), from its errors on measured
// stencils it was not trained on.
type Band struct {
	Model           string `json:"model"` // as predict names it, e.g. "embedded runtime-3d.smartmodel"
	Basis           string `json:"basis"`
	models.Interval `json:"interval"`
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
	var b Bands
	if err := bandsFile.decode(name, r, &b); err != nil {
		return nil, err
	}
	for i, bd := range b.Bands {
		err := bd.Check()
		if err == nil && (bd.Model == "" || bd.Basis == "") {
			err = errors.New("it names no model or basis")
		}
		if err != nil {
			return nil, fmt.Errorf("intervals %s: band %d (%s, %s): %w", name, i+1, bd.Model, bd.Basis, err)
		}
	}
	return &b, nil
}

// WriteBands writes b to path atomically; an existing file is replaced only where it is a bands
// file itself.
func WriteBands(path string, b *Bands) error {
	kind := bandsFile.recognise(func(f io.Reader) error { _, err := DecodeBands("", f); return err })
	if err := atomicfile.CheckReplace(path, false, kind); err != nil {
		return fmt.Errorf("writing intervals %s: %w", path, err)
	}
	return writeJSON(path, b)
}

// DefaultBands returns the embedded intervals of the embedded runtime models.
func DefaultBands() (*Bands, error) {
	b, err := DecodeBands("data/calibration/intervals.json", bytes.NewReader(data.Intervals()))
	if err != nil {
		return nil, fmt.Errorf("the embedded intervals are broken (a bug in this build): %w", err)
	}
	return b, nil
}
