package predict

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"smart"
	"smart/data"
	"smart/models"
)

// EmbeddedModel describes one model embedded in the binary, read from its manifest entry and its
// file's header without decoding the model.
type EmbeddedModel struct {
	ModelInfo
	Dims int `json:"dims"`
	// GPU is the GPU whose measurements alone trained the model (predict scales its times to the
	// others); empty: a model of every GPU.
	GPU    string       `json:"gpu,omitempty"`
	Source smart.Source `json:"source"`
	// Created is when smart train wrote the model; SHA256 is the hash of its (decompressed) file,
	// which tells apart two builds whose models differ.
	Created time.Time `json:"created"`
	SHA256  string    `json:"sha256"`
}

// Embedded lists the models embedded in the binary: the defaults (data/models) first, then the
// models trained on one GPU's measurements (data/measured), each in its manifest's order.
func Embedded() ([]EmbeddedModel, error) {
	var out []EmbeddedModel
	for _, set := range []struct {
		read           func(string) ([]byte, error)
		manifest, name string
	}{
		{data.ModelFile, ManifestFile, "embedded "},
		{data.MeasuredModelFile, "models.json", "embedded measured/"},
	} {
		man, err := embeddedManifest(set.read, set.manifest)
		if err != nil {
			return nil, err
		}
		for _, e := range man.Models {
			b, err := set.read(e.File)
			if err != nil {
				return nil, err
			}
			h, _, err := models.Read(b)
			if err != nil {
				return nil, fmt.Errorf("the embedded models are broken (a bug in this build): %s: %w", e.File, err)
			}
			sum := sha256.Sum256(b)
			r := e.Training
			out = append(out, EmbeddedModel{
				ModelInfo: ModelInfo{Name: set.name + e.File, Kind: h.Kind, Task: h.Task, Data: h.Data, CV: h.CV, Trained: &r},
				Dims:      e.Dims, GPU: e.GPU, Source: e.Source, Created: h.Created, SHA256: hex.EncodeToString(sum[:]),
			})
		}
	}
	return out, nil
}
