package data

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// modelFiles holds the default models of smart predict and their manifest (defaults.json),
// gzip-compressed where large, and a README. bench/defaults rebuilds them from data it
// simulates with the calibrated analytic model and the measured data sets:
//
//go:generate go run ../bench/defaults -out models -measured-select -measured measured/h100-sxm/classic+measured/h100-sxm/more+measured/h100-sxm/random/*+measured/h100-sxm/picks*/*/rows.csv,measured/h100-sxm/campaign,measured/h200/random/*+measured/h200/resample/*+measured/h200/picks*/*/rows.csv,measured/h200/campaign
//go:embed models/*
var modelFiles embed.FS

// measuredFiles holds runtime models trained on measurements of one GPU (data/measured/GPU/models)
// and their manifest (models.json), which names the GPU each is for:
//
//go:embed measured/models.json measured/*/models/*
var measuredFiles embed.FS

// ModelFile returns the embedded file of that name from data/models, decompressed when it is
// stored as name.gz; package predict decodes it.
func ModelFile(name string) ([]byte, error) {
	if strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("no embedded model file %q", name)
	}
	return readModel(modelFiles, "models/"+name, strings.Join(ModelNames(), ", "))
}

// MeasuredModelFile returns the embedded file at path name under data/measured (its manifest
// models.json, or a model it lists), decompressed when it is stored as name.gz.
func MeasuredModelFile(name string) ([]byte, error) {
	return readModel(measuredFiles, "measured/"+name, "those data/measured/models.json lists")
}

func readModel(fsys embed.FS, path, have string) ([]byte, error) {
	if b, err := fsys.ReadFile(path); err == nil {
		return b, nil
	}
	z, err := fsys.ReadFile(path + ".gz")
	if err != nil {
		return nil, fmt.Errorf("no embedded model file %q; the embedded files are %s", path, have)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("embedded model file %s: %w", path, err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("embedded model file %s: %w", path, err)
	}
	return b, nil
}

// ModelNames lists the embedded model files by the names ModelFile takes, sorted.
func ModelNames() []string {
	entries, err := fs.ReadDir(modelFiles, "models")
	if err != nil { // cannot happen: the directory is embedded
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "README.md" {
			names = append(names, strings.TrimSuffix(e.Name(), ".gz"))
		}
	}
	return names
}
