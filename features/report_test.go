package features

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestReport: the text lists every feature and draws the tensor slice by slice; the JSON
// keeps the schema's order and the values exactly.
func TestReport(t *testing.T) {
	st := named(t, "j3d7pt", 0, 0)
	rep, err := NewReport("in.json", st, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	head := "j3d7pt (in.json), id " + st.ID() + ", maximum order 1:\n  dims           3\n  bytes_per_elem 8\n  order          1\n  nnz            7\n"
	tensor := `tensor 3x3x3 (z, y, x; rows from y = -1):
 z = -1
  0 0 0
  0 1 0
  0 0 0
 z = 0
  0 1 0
  1 1 1
  0 1 0
 z = +1
  0 0 0
  0 1 0
  0 0 0
`
	if !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tensor) {
		t.Errorf("text:\n%s\nwant it to start with\n%s\nand end with\n%s", text, head, tensor)
	}
	if lines := strings.Count(text, "\n"); lines != 1+len(StencilNames(1))+1+12 {
		t.Errorf("%d lines; want a line per feature", lines)
	}

	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"features":{"dims":3,"bytes_per_elem":8,"order":1,"nnz":7,`) {
		t.Errorf("features out of the schema's order: %s", js)
	}
	var back struct {
		Features map[string]float64 `json:"features"`
		Tensor   []float64          `json:"tensor"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	for i, n := range rep.Features.Names {
		if back.Features[n] != rep.Features.Values[i] {
			t.Errorf("feature %s: JSON %v, computed %v", n, back.Features[n], rep.Features.Values[i])
		}
	}
	if !reflect.DeepEqual(back.Tensor, rep.Tensor) {
		t.Errorf("tensor %v, want %v", back.Tensor, rep.Tensor)
	}
	if rep, err := NewReport("in.json", st, 1, false); err != nil || rep.Tensor != nil || rep.TensorShape != nil {
		t.Errorf("without the tensor: %+v, %v", rep, err)
	}
}
