package nn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"smart/models"
)

// payloadVersion is the version of the payload layout MarshalBinary writes and Decode reads.
const payloadVersion = 1

// meta is the JSON part of a saved network: everything but the weight values.
type meta struct {
	Version int     `json:"version"`
	Arch    Arch    `json:"arch"`
	Width   int     `json:"width"`
	Tensor  []int   `json:"tensor"`
	Vector  []int   `json:"vector"`
	Mean    float64 `json:"mean"`
	Std     float64 `json:"std"`
	Params  []Param `json:"params"` // names and shapes; the values follow the JSON
}

// Hyper returns the hyper-parameters the network was trained with.
func (n *Net) Hyper() any { return n.hyper }

// MarshalBinary writes the network as a uint32 length and the JSON meta (architecture, columns,
// target scaling, weight names and shapes), then every weight value as a little-endian float64,
// tensor after tensor in the order of the meta.
func (n *Net) MarshalBinary() ([]byte, error) {
	m := meta{Version: payloadVersion, Arch: n.Arch, Width: n.Width, Tensor: n.Tensor, Vector: n.Vector,
		Mean: n.Mean, Std: n.Std, Params: n.Params}
	mj, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding network meta: %w", err)
	}
	count := 0
	for _, p := range n.Params {
		count += len(p.Data)
	}
	b := make([]byte, 4, 4+len(mj)+8*count)
	binary.LittleEndian.PutUint32(b, uint32(len(mj)))
	b = append(b, mj...)
	for _, p := range n.Params {
		for _, v := range p.Data {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b, nil
}

// Decode reads a payload written by MarshalBinary for the model described by h and returns the
// *Net. Every length, shape and value is checked against the architecture before use, so a
// corrupt payload gives an error, not a panic.
func Decode(h *models.Header, payload []byte) (*Net, error) {
	if len(payload) < 4 {
		return nil, errors.New("network payload is shorter than its length prefix")
	}
	ml := binary.LittleEndian.Uint32(payload)
	if uint64(ml) > uint64(len(payload)-4) {
		return nil, fmt.Errorf("network meta of %d bytes but only %d follow", ml, len(payload)-4)
	}
	var m meta
	dec := json.NewDecoder(bytes.NewReader(payload[4 : 4+ml]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("network meta: %w", err)
	}
	if m.Version != payloadVersion {
		return nil, fmt.Errorf("network payload version %d; this smart reads version %d", m.Version, payloadVersion)
	}
	n := &Net{Arch: m.Arch, Width: m.Width, Tensor: m.Tensor, Vector: m.Vector, Mean: m.Mean, Std: m.Std}
	if err := n.check(); err != nil {
		return nil, fmt.Errorf("network meta: %w", err)
	}
	if err := n.matchHeader(h); err != nil {
		return nil, err
	}
	want := n.Arch.shapes()
	if len(m.Params) != len(want) {
		return nil, fmt.Errorf("network has %d weight tensors; its architecture needs %d", len(m.Params), len(want))
	}
	values := payload[4+ml:]
	count := 0
	for i, p := range m.Params {
		if p.Name != want[i].Name || !slices.Equal(p.Shape, want[i].Shape) {
			return nil, fmt.Errorf("weight %d is %s %v; the architecture needs %s %v", i, p.Name, p.Shape, want[i].Name, want[i].Shape)
		}
		count += size(p.Shape)
	}
	if len(values) != 8*count {
		return nil, fmt.Errorf("network has %d bytes of weights; its %d values take %d", len(values), count, 8*count)
	}
	for i := range m.Params {
		p := &m.Params[i]
		p.Data = make([]float64, size(p.Shape))
		for j := range p.Data {
			v := math.Float64frombits(binary.LittleEndian.Uint64(values))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("weight %s[%d] is %v", p.Name, j, v)
			}
			p.Data[j], values = v, values[8:]
		}
	}
	n.Params = m.Params
	if len(h.Hyper) > 0 {
		if err := json.Unmarshal(h.Hyper, &n.hyper); err != nil {
			return nil, fmt.Errorf("hyper-parameters in the header: %w", err)
		}
	}
	return n, nil
}

// matchHeader checks that the network fits the header: its width, task and classes.
func (n *Net) matchHeader(h *models.Header) error {
	switch {
	case n.Width != len(h.Features):
		return fmt.Errorf("network reads rows of %d features; the header lists %d", n.Width, len(h.Features))
	case n.Arch.Classify != (h.Task == models.Select):
		return fmt.Errorf("network is a classifier=%v but the header's task is %s", n.Arch.Classify, h.Task)
	case n.Arch.Classify && n.Arch.Outputs != len(h.Classes):
		return fmt.Errorf("network has %d outputs; the header lists %d classes", n.Arch.Outputs, len(h.Classes))
	}
	return nil
}
