package predict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"smart"
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
	File     string        `json:"file"`
	Task     string        `json:"task"` // "select" or "runtime"
	Dims     int           `json:"dims"`
	GPU      string        `json:"gpu,omitempty"` // the only GPU the model is for; empty: every GPU
	Training TrainingRange `json:"training"`
	Source   smart.Source  `json:"source"` // of its rows: simulated, measured, or "simulated and measured"
	Rows     int           `json:"rows"`
}

// TrainingRange is what the stencils of a model's data covered.
type TrainingRange struct {
	Stencils int           `json:"stencils"`
	Seed     uint64        `json:"seed"`
	Orders   [2]int        `json:"orders"` // lowest and highest
	Dtypes   []smart.Dtype `json:"dtypes"`
	// Grids are the grid extents (x, y, z) the stencils had.
	Grids   [][3]int `json:"grids"`
	Steps   int      `json:"steps"`
	Samples int      `json:"samples_per_oc"` // settings per stencil, OC and GPU (the most, where they differ)
	GPUs    []string `json:"gpus"`
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

// Outside lists the ways st lies outside the stencils the model was trained on (order,
// element type, grid), each as a sentence; nil when it lies inside.
func (r TrainingRange) Outside(st *smart.Stencil) []string {
	var out []string
	if o := st.Order(); o < r.Orders[0] || o > r.Orders[1] {
		out = append(out, fmt.Sprintf("order %d is outside the trained orders %d-%d", o, r.Orders[0], r.Orders[1]))
	}
	if len(r.Dtypes) > 0 && !slices.Contains(r.Dtypes, st.Dtype) {
		out = append(out, fmt.Sprintf("element type %s was not trained on (only %v)", st.Dtype, r.Dtypes))
	}
	if len(r.Grids) > 0 {
		lo, hi := r.Grids[0], r.Grids[0]
		for _, g := range r.Grids {
			if points(g) < points(lo) {
				lo = g
			}
			if points(g) > points(hi) {
				hi = g
			}
		}
		if p := st.GridPoints(); p < points(lo) || p > points(hi) {
			out = append(out, fmt.Sprintf("the grid of %d points is outside the trained %s to %s", p, gridText(lo, st.Dims), gridText(hi, st.Dims)))
		}
	}
	return out
}

func points(g [3]int) int64 { return int64(g[0]) * int64(g[1]) * int64(max(g[2], 1)) }

func gridText(g [3]int, dims int) string {
	if dims == 3 {
		return fmt.Sprintf("%dx%dx%d", g[0], g[1], g[2])
	}
	return fmt.Sprintf("%dx%d", g[0], g[1])
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
