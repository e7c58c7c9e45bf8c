package kinds_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"smart/models"
	"smart/models/kinds"
)

// FuzzDecodeEveryKind feeds damaged payloads, resealed with a valid header and checksum, to
// models.Decode for every kind a small model is stored for: it must return an error or a model
// that predicts without panicking (leaves, golearn and gorgonia panic on bad input; Decode and
// the loaded model must contain it). The models in testdata were written by
//
//	smart train --task runtime --dims 2 --model KIND --data data/measured/h100-sxm/random/j2d13pt --cv 0 --param P -o testdata/KIND.model
//
// with P rounds=3,min_data_in_leaf=5,early_stop=0 (gbdt), trees=2 (forest), max_depth=3
// (cart), k=3 (knn) and epochs=1,hidden=4 (mlp).
func FuzzDecodeEveryKind(f *testing.F) {
	paths, err := filepath.Glob("testdata/*.model")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no model files in testdata: %v", err)
	}
	var headers []*models.Header
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		h, payload, err := models.Read(b)
		if err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		headers = append(headers, h)
		f.Add(uint8(i), payload)
		f.Add(uint8(i), payload[:len(payload)/3])
	}
	all := kinds.All()
	f.Fuzz(func(t *testing.T, which uint8, payload []byte) {
		h := headers[int(which)%len(headers)]
		var file bytes.Buffer
		if err := models.Write(&file, h, payload); err != nil {
			return
		}
		m, err := models.Decode(file.Bytes(), all)
		if err != nil {
			return
		}
		row := make([]float64, len(h.Features))
		if m.Regressor != nil {
			m.Regressor.Predict(row)
			m.Regressor.PredictBatch([][]float64{row, row})
		}
		if m.Classifier != nil {
			m.Classifier.PredictProba(row)
		}
	})
}
