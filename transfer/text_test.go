package transfer

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"smart"
	"smart/dataset"
	"smart/models"
)

// TestPredictionWriteText compares what smart transfer prints with text checked by hand: an
// interval of ln 0.5 to ln 2 is x0.50 to x2.00 of each time, and top 2 keeps two rows.
func TestPredictionWriteText(t *testing.T) {
	p := &Prediction{Target: "A6000", Sources: []string{"A100", "A4000"}, Ignored: []string{"MI250X"}, Basis: "hardware ratio",
		Interval: &models.Interval{Level: 0.8, LogLo: math.Log(0.5), LogHi: math.Log(2), From: "the sources"},
		Variants: []Variant{
			{Setting: smart.Setting{"block_size_x": 16}, TimeMs: 1.5, LoMs: 0.75, HiMs: 3},
			{OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 32}, TimeMs: 2, Shot: true},
			{Setting: smart.Setting{"block_size_x": 64}, TimeMs: 4},
		}}
	want := `A6000, predicted from A100, A4000 (other vendor, left out: MI250X)
basis: hardware ratio
80% interval: x0.50 to x2.00 of each time (from the sources)
rank  time ms  interval            setting
1     1.5      0.75-3              block_size_x=16
2     2                  measured  ST bx=32
`
	var b bytes.Buffer
	if err := p.WriteText(&b, 2); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Variants of several stencils each name theirs, by name where the prediction has one.
	p.Variants[0].StencilID, p.Variants[1].StencilID, p.Variants[2].StencilID = "aa", "bb", "aa"
	p.Names = map[string]string{"aa": "j3d7pt"}
	want = `A6000, predicted from A100, A4000 (other vendor, left out: MI250X)
basis: hardware ratio
80% interval: x0.50 to x2.00 of each time (from the sources)
rank  time ms  interval            kernel  setting
1     1.5      0.75-3              j3d7pt  BASE block_size_x=16
2     2                  measured  bb      ST bx=32
`
	b.Reset()
	if err := p.WriteText(&b, 2); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestWriteShots: the shots are numbered from 1 in the order given.
func TestWriteShots(t *testing.T) {
	vs := []Variant{{Setting: smart.Setting{"x": 1}}, {Setting: smart.Setting{"x": 2}}}
	want := `measure these 2 settings on A6000 first (the zero-shot ranking's fastest, then one per stratum of it, spreading the parameters):
  1  x=1
  2  x=2
`
	var b bytes.Buffer
	if err := WriteShots(&b, "A6000", vs, nil, nil); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Shots of several stencils each name theirs.
	vs[0].StencilID, vs[1].StencilID = "aa", "bb"
	want = `measure these 2 settings on A6000 first (the zero-shot ranking's fastest, then one per stratum of it, spreading the parameters):
  1  j3d7pt: BASE x=1
  2  bb: BASE x=2
`
	b.Reset()
	if err := WriteShots(&b, "A6000", vs, nil, map[string]string{"aa": "j3d7pt"}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestVariantsJSON: beside a foreign kernel's coded setting, its values as its files hold them
// (a float label, a string label, a boolean), and no OC; a stencil's variant keeps its OC and
// has no values; a prediction without left-out shots writes none.
func TestVariantsJSON(t *testing.T) {
	params := []dataset.Param{
		{Name: "frac", Values: []int{7, 9}, Labels: []json.RawMessage{json.RawMessage("0.5"), json.RawMessage("1.0")}},
		{Name: "layout", Values: []int{3, 4}, Labels: []json.RawMessage{json.RawMessage(`"row"`), json.RawMessage(`"col"`)}},
		{Name: "padded", Values: []int{0, 1}, Bool: true},
	}
	vs := Variants{List: []Variant{{Kernel: "gemm", Setting: smart.Setting{"bx": 16, "frac": 9, "layout": 3, "padded": 1}, TimeMs: 2, Sources: 2}}, Params: params}
	b, err := json.Marshal(vs)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"kernel":"gemm","setting":{"bx":16,"frac":9,"layout":3,"padded":1},"time_ms":2,"sources":2,"values":{"bx":16,"frac":1.0,"layout":"row","padded":true}}]`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	p := Prediction{Target: "X", Variants: []Variant{{StencilID: "ab", OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 32}, TimeMs: 1}}}
	b, err = json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"variants":[{"stencil_id":"ab","setting":{"bx":32},"time_ms":1,"sources":0,"oc":"ST"}]`; !bytes.Contains(b, []byte(want)) || bytes.Contains(b, []byte("left_out")) {
		t.Errorf("got %s\nwant it to hold %s and no left_out_shots", b, want)
	}
}
