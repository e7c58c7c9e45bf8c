package predict

import (
	"bytes"
	"encoding/json"
	"fmt"

	"smart"
	"smart/models"
)

// ManifestFormat is the version tag of the defaults manifest (data/models/defaults.json).
const ManifestFormat = "smart-defaults/1"

// Manifest describes the embedded default models: which file holds which model, and the range
// of stencils each was trained on, so that predictions outside it are flagged. bench/defaults
// writes it beside the models.
type Manifest struct {
	Format  string  `json:"format"`
	Command string  `json:"command"` // how to rebuild the models and this file
	Models  []Entry `json:"models"`
}

// Entry is one default model and what it was trained on.
type Entry struct {
	File     string       `json:"file"`
	Task     string       `json:"task"` // "select" or "runtime"
	Dims     int          `json:"dims"`
	GPU      string       `json:"gpu,omitempty"` // the only GPU the model is for; empty: every GPU
	Training models.Range `json:"training"`
	Source   smart.Source `json:"source"` // of its rows: simulated, measured, or "simulated and measured"
	Rows     int          `json:"rows"`
}

// ParseManifest reads a defaults manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("defaults manifest: %w", err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("defaults manifest: format %q; this smart reads %q", m.Format, ManifestFormat)
	}
	return &m, nil
}

// ManifestFile is the manifest's name in the models directory.
const ManifestFile = "defaults.json"

// MarshalManifest writes m as indented JSON with a final newline.
func MarshalManifest(m *Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the defaults manifest: %w", err)
	}
	return append(b, '\n'), nil
}
