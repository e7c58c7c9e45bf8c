package nn

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"smart/models"
)

// savedNet returns a small trained convmlp, its header and its payload.
func savedNet(t testing.TB) (*Net, *models.Header, []byte) {
	d := tensorTimeData(40, 81)
	n := mustTrain(t, KindConvMLP, d, nil, map[string]string{"filters": "2", "branch": "3", "hidden": "4", "epochs": "1"})
	p, err := n.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return n, header(KindConvMLP, d, models.FitScale(d.X)), p
}

// withMeta rewrites the JSON meta of payload p with edit and keeps the weights.
func withMeta(t testing.TB, p []byte, edit func(m map[string]any)) []byte {
	ml := binary.LittleEndian.Uint32(p)
	var m map[string]any
	if err := json.Unmarshal(p[4:4+ml], &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	mj, _ := json.Marshal(m)
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(mj)))
	return append(append(out, mj...), p[4+ml:]...)
}

func TestDecodeRoundTrip(t *testing.T) {
	n, h, p := savedNet(t)
	m, err := Decode(h, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Tensor, n.Tensor) || !slices.Equal(m.Vector, n.Vector) || m.Mean != n.Mean || m.Std != n.Std {
		t.Errorf("decoded columns or scaling differ")
	}
	for i := range n.Params {
		if !slices.Equal(m.Params[i].Data, n.Params[i].Data) || !slices.Equal(m.Params[i].Shape, n.Params[i].Shape) {
			t.Errorf("weights %s differ after the round trip", n.Params[i].Name)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	_, h, p := savedNet(t)
	nan := slices.Clone(p)
	binary.LittleEndian.PutUint64(nan[len(nan)-8:], math.Float64bits(math.NaN()))
	ml := binary.LittleEndian.Uint32(p)
	wide := *h
	wide.Features = append(slices.Clone(h.Features), "extra")
	selectH := *h
	selectH.Task = models.Select
	tests := []struct {
		name    string
		header  *models.Header
		payload []byte
		want    string
	}{
		{"empty", h, nil, "shorter than its length prefix"},
		{"meta length past the end", h, binary.LittleEndian.AppendUint32(nil, 1000), "meta of 1000 bytes"},
		{"meta not JSON", h, append(binary.LittleEndian.AppendUint32(nil, 3), "{x}"...), "network meta"},
		{"meta cut short", h, p[:4+ml/2], "meta of"},
		{"unknown field", h, withMeta(t, p, func(m map[string]any) { m["dropout"] = 0.5 }), "unknown field"},
		{"newer version", h, withMeta(t, p, func(m map[string]any) { m["version"] = 2 }), "payload version 2"},
		{"no outputs", h, withMeta(t, p, func(m map[string]any) { m["arch"].(map[string]any)["outputs"] = 0 }), "outputs is out of range"},
		{"huge layer", h, withMeta(t, p, func(m map[string]any) { m["arch"].(map[string]any)["hidden"] = []int{1 << 30} }), "out of range"},
		{"column outside the row", h, withMeta(t, p, func(m map[string]any) { m["vector"].([]any)[0] = 5000 }), "outside a row"},
		{"bad scaling", h, withMeta(t, p, func(m map[string]any) { m["std"] = 0 }), "target scaling"},
		{"shape changed", h, withMeta(t, p, func(m map[string]any) {
			m["params"].([]any)[0].(map[string]any)["shape"] = []int{3, 1, 3, 3}
		}), "the architecture needs conv0.w [2 1 3 3]"},
		{"weight missing", h, withMeta(t, p, func(m map[string]any) { m["params"] = m["params"].([]any)[1:] }), "weight tensors"},
		{"weights cut short", h, p[:len(p)-8], "bytes of weights"},
		{"weights too long", h, append(slices.Clone(p), 0, 0, 0, 0, 0, 0, 0, 0), "bytes of weights"},
		{"NaN weight", h, nan, "is NaN"},
		{"header wider", &wide, p, "header lists"},
		{"header task", &selectH, p, "task is select"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.header, tc.payload)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestLoadCorruptFile checks the whole path a user takes: a damaged model file gives an error
// naming it, never a panic.
func TestLoadCorruptFile(t *testing.T) {
	_, h, p := savedNet(t)
	kinds := models.Kinds{}
	Register(kinds)
	var file strings.Builder
	if err := models.Write(&file, h, p); err != nil {
		t.Fatal(err)
	}
	good := []byte(file.String())
	if _, err := models.Decode(good, kinds); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	for _, cut := range []int{10, len(good) / 2, len(good) - 1} {
		if _, err := models.Decode(good[:cut], kinds); err == nil {
			t.Errorf("file cut to %d bytes decoded without error", cut)
		}
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0x40
	if _, err := models.Decode(flipped, kinds); err == nil {
		t.Error("file with a flipped bit decoded without error")
	}
}

// FuzzDecode feeds damaged payloads to Decode: it must return an error or a network that
// predicts, and never panic.
func FuzzDecode(f *testing.F) {
	_, h, p := savedNet(f)
	f.Add(p)
	f.Add(p[:len(p)/2])
	f.Add(withMeta(f, p, func(m map[string]any) { m["arch"].(map[string]any)["filters"] = []int{3} }))
	f.Fuzz(func(t *testing.T, payload []byte) {
		n, err := Decode(h, payload)
		if err != nil {
			return
		}
		if _, err := n.Predict(make([]float64, n.Width)); err != nil {
			t.Errorf("decoded network cannot predict: %v", err)
		}
	})
}
