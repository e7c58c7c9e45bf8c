package predict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/data"
	"smart/models"
	"smart/models/gbdt"
)

func ref(gpus []string, sources map[string]int) models.DataRef {
	return models.DataRef{Path: "d", Rows: 1, GPUs: gpus, Sources: sources}
}

func TestProvenance(t *testing.T) {
	sim := map[string]int{"simulated": 10}
	meas := map[string]int{"measured": 10}
	both := map[string]int{"measured": 5, "simulated": 5}
	cases := []struct {
		name  string
		refs  []models.DataRef
		gpu   bool // the model reads the GPU's features
		ask   string
		basis Basis
		text  string
	}{
		{"simulated here", []models.DataRef{ref([]string{"A100-40GB", "V100"}, sim)}, true, "V100", BasisSimulated, "simulated: analytic model, no measurements of this GPU"},
		{"simulated elsewhere", []models.DataRef{ref([]string{"A100-40GB"}, sim)}, true, "V100", BasisExtrapolated, "extrapolated from simulations of other GPUs (A100-40GB), no measurements"},
		{"measured here", []models.DataRef{ref([]string{"A100-40GB"}, meas), ref([]string{"V100"}, sim)}, true, "A100-40GB", BasisMeasured, "trained on measurements of this GPU"},
		{"measured and simulated here", []models.DataRef{ref([]string{"A100-40GB"}, meas), ref([]string{"A100-40GB", "V100"}, sim)}, true, "A100-40GB", BasisMixed, "trained on measured and simulated data of this GPU"},
		{"measured elsewhere", []models.DataRef{ref([]string{"A100-40GB"}, meas), ref([]string{"A100-40GB", "V100"}, sim)}, true, "V100", BasisSimulated, "simulated: analytic model, no measurements of this GPU"},
		{"transfer", []models.DataRef{ref([]string{"A100-40GB"}, meas), ref([]string{"H100-SXM"}, meas)}, true, "V100", BasisTransfer, "predicted from other GPUs (measured on A100-40GB, H100-SXM)"},
		{"one-GPU mixed set", []models.DataRef{ref([]string{"T4"}, both)}, true, "T4", BasisMeasured, "trained on measurements of this GPU"},
		{"many-GPU mixed set", []models.DataRef{ref([]string{"T4", "L4"}, both)}, true, "L4", BasisMixed, "trained on measured and simulated data of this GPU"},
		{"blind to the GPU", []models.DataRef{ref([]string{"A100-40GB"}, meas)}, false, "T4", BasisTransfer, "predicted from other GPUs (measured on A100-40GB); the model does not read the GPU, so every GPU gets the same answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &Model{Name: "m", Model: &models.Model{Header: models.Header{Data: c.refs, Inputs: &models.Inputs{GPU: c.gpu}}}}
			p := m.Provenance(c.ask)
			if p.Basis != c.basis || p.Text != c.text {
				t.Errorf("got %s %q, want %s %q", p.Basis, p.Text, c.basis, c.text)
			}
		})
	}
}

func ExampleModel_Provenance() {
	m := &Model{Name: "runtime.model", Model: &models.Model{Header: models.Header{Inputs: &models.Inputs{GPU: true}, Data: []models.DataRef{
		{Path: "runs/a100", GPUs: []string{"A100-40GB"}, Sources: map[string]int{"measured": 12000}},
		{Path: "runs/sim", GPUs: []string{"A100-40GB", "T4"}, Sources: map[string]int{"simulated": 90000}},
	}}}}
	for _, g := range []string{"A100-40GB", "T4", "H100-SXM"} {
		fmt.Printf("%s: %s\n", g, m.Provenance(g).Text)
	}
	// Output:
	// A100-40GB: trained on measured and simulated data of this GPU
	// T4: simulated: analytic model, no measurements of this GPU
	// H100-SXM: predicted from other GPUs (measured on A100-40GB)
}

// TestUseRejects feeds Models.Use files a user might give by mistake.
func TestUseRejects(t *testing.T) {
	good, err := data.ModelFile("runtime-3d.smartmodel")
	if err != nil {
		t.Fatal(err)
	}
	kinds := models.Kinds{}
	gbdt.Register(kinds)
	// A file of a newer format version: the version field rewritten, the checksum redone.
	newer := bytes.Clone(good)
	binary.LittleEndian.PutUint32(newer[len(models.Magic):], models.FormatVersion+1)
	binary.LittleEndian.PutUint32(newer[len(newer)-4:], crc32.ChecksumIEEE(newer[:len(newer)-4]))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"not a model", []byte(`{"format": "smart-stencil/1"}`), "not a smart model file"},
		{"truncated", good[:len(good)/2], "truncated or corrupt"},
		{"newer version", newer, "newer than this smart reads"},
		{"foreign kernel", foreignKernelModel(t, good), "foreign kernel"},
	}
	for _, c := range cases {
		ms := &Models{Select: map[int]*Model{}, Runtime: map[int]*Model{}}
		err := ms.Use(c.data, "x.model", kinds)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.model") {
			t.Errorf("%s: got %v, want an error naming x.model and saying %q", c.name, err, c.want)
		}
	}
	ms := &Models{Select: map[int]*Model{}, Runtime: map[int]*Model{}}
	if err := ms.Use(good, "good.model", kinds); err != nil || ms.Runtime[3] == nil {
		t.Fatalf("a good model: %v", err)
	}
}

// foreignKernelModel rewrites a model's header to say it reads a foreign kernel's parameters.
func foreignKernelModel(t *testing.T, good []byte) []byte {
	h, payload, err := models.Read(good)
	if err != nil {
		t.Fatal(err)
	}
	h.Inputs = &models.Inputs{Kernel: "convolution", Setting: true, KernelParams: h.Features, GPU: true}
	var b bytes.Buffer
	if err := models.Write(&b, h, payload); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMeasuredManifest checks data/measured/models.json against the models it lists: each a
// runtime or local-memory model of the dimensions it says, trained only on measurements of its one GPU, with
// the rows the manifest counts.
func TestMeasuredManifest(t *testing.T) {
	b, err := data.MeasuredModelFile("models.json")
	if err != nil {
		t.Fatal(err)
	}
	man, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Models) == 0 {
		t.Fatal("data/measured/models.json lists no model")
	}
	kinds := models.Kinds{}
	gbdt.Register(kinds)
	for _, e := range man.Models {
		b, err := data.MeasuredModelFile(e.File)
		if err != nil {
			t.Fatal(err)
		}
		m, err := newModel(b, e.File, kinds)
		if err != nil {
			t.Fatal(err)
		}
		h := m.Header
		if h.Task != models.Runtime && h.Task != models.Local || string(h.Task) != e.Task || h.Inputs.Dims != e.Dims {
			t.Errorf("%s: a %s model of %d-D stencils, the manifest says %s of %d-D", e.File, h.Task, h.Inputs.Dims, e.Task, e.Dims)
		}
		rows := 0
		for _, d := range h.Data {
			rows += d.Rows
			if len(d.GPUs) != 1 || d.GPUs[0] != e.GPU || d.Sources[string(smart.Measured)] != d.Rows {
				t.Errorf("%s: data set %s has GPUs %v and sources %v; want only measurements of %s", e.File, d.Path, d.GPUs, d.Sources, e.GPU)
			}
		}
		if rows != e.Rows || e.Source != smart.Measured || !slices.Equal(e.Training.GPUs, []string{e.GPU}) {
			t.Errorf("%s: %d rows in the model, manifest: %d rows, source %s, GPUs %v", e.File, rows, e.Rows, e.Source, e.Training.GPUs)
		}
	}
}

// The H100's runtime model trained on its measurements answers for stencils like those it was
// trained on; other GPUs, and stencils outside its range, get the simulated default.
func ExampleModels_Own() {
	ms, err := Defaults()
	if err != nil {
		panic(err)
	}
	b, err := data.StencilFile("j3d7pt")
	if err != nil {
		panic(err)
	}
	st, err := smart.ParseStencil(b, smart.Limits{})
	if err != nil {
		panic(err)
	}
	for _, gpu := range []string{"H100-SXM", "A100-40GB"} {
		m, _, err := ms.Own(st, gpu)
		if err != nil {
			panic(err)
		}
		if m == nil {
			fmt.Printf("%s: the default\n", gpu)
			continue
		}
		fmt.Printf("%s: %s, %s\n", gpu, m.Name, m.Provenance(gpu).Text)
	}
	st.Points = append(st.Points, smart.Point{Off: smart.Offset{0, 0, 5}, Coef: 0.01}) // order 5
	_, note, _ := ms.Own(st, "H100-SXM")
	fmt.Println(note)
	// Output:
	// H100-SXM: embedded measured/h100-sxm/models/runtime-3d.smartmodel, trained on measurements of this GPU
	// A100-40GB: the default
	// H100-SXM's runtime model trained on its measurements (embedded measured/h100-sxm/models/runtime-3d.smartmodel) covers float32 and float64 stencils of orders 1-4 only; the simulated default answers for this float64 stencil of order 5
}
