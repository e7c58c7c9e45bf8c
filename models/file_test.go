package models_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/models"
)

// linear is a test kind: the output is the weighted sum of the row, the payload its weights.
type linear struct{ W []float64 }

func (l *linear) Hyper() any                     { return map[string]int{"width": len(l.W)} }
func (l *linear) MarshalBinary() ([]byte, error) { return json.Marshal(l.W) }
func (l *linear) Predict(row []float64) (float64, error) {
	s := 0.0
	for i, v := range row {
		s += l.W[i] * v
	}
	return s, nil
}
func (l *linear) PredictBatch(rows [][]float64) ([]float64, error) {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i], _ = l.Predict(r)
	}
	return out, nil
}

// PredictProba gives class 1 the probability of the logistic of the sum.
func (l *linear) PredictProba(row []float64) ([]float64, error) {
	s, _ := l.Predict(row)
	p := 1 / (1 + math.Exp(-s))
	return []float64{1 - p, p}, nil
}
func (l *linear) PredictProbaBatch(rows [][]float64) ([][]float64, error) {
	out := make([][]float64, len(rows))
	for i, r := range rows {
		out[i], _ = l.PredictProba(r)
	}
	return out, nil
}

func testKinds() models.Kinds {
	decode := func(h *models.Header, payload []byte) (any, error) {
		l := &linear{}
		if err := json.Unmarshal(payload, &l.W); err != nil {
			return nil, err
		}
		if len(l.W) != len(h.Features) {
			panic("weights do not match the features") // exercises Load's recovery
		}
		return l, nil
	}
	return models.Kinds{
		"linear":       {Tasks: []models.Task{models.Runtime, models.Select, models.Local}, Decode: decode},
		"linear-norm":  {Tasks: []models.Task{models.Runtime}, Normalize: true, Decode: decode},
		"wrong-return": {Tasks: []models.Task{models.Runtime}, Decode: func(*models.Header, []byte) (any, error) { return "no model", nil }},
	}
}

func runtimeHeader() *models.Header {
	return &models.Header{
		Kind: "linear", Task: models.Runtime, Target: models.TargetLnMs, Features: []string{"a", "b"},
		Data: []models.DataRef{{Path: "data/sim3d", ID: "abc", Rows: 10, Sources: map[string]int{"simulated": 10},
			GPUs: []string{"A100-40GB"}, Constants: []string{"the literature's constants"}}},
		CV:      &models.Metrics{Folds: 5, Grouping: "stencil", Rows: 10, MAPE: 12.5},
		Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// TestLocalModel: a model of the local memory a thread keeps predicts bytes, e^v - 1 of the
// payload's v: 1 + 2 x 0.25 = 1.5 gives e^1.5 - 1.
func TestLocalModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "local.model")
	h := runtimeHeader()
	h.Task, h.Target = models.Local, models.TargetLnLocalBytes
	if err := models.Save(path, h, &linear{W: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Regressor.Predict([]float64{1, 0.25})
	if err != nil || math.Abs(got-math.Expm1(1.5)) > 1e-12 || m.Header.Task != models.Local {
		t.Errorf("Predict = %v, %v (task %s); want e^1.5 - 1 bytes", got, err, m.Header.Task)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.model")
	h := runtimeHeader()
	if err := models.Save(path, h, &linear{W: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Regressor.Predict([]float64{0.5, 0.25})
	if err != nil || math.Abs(got-math.Exp(1)) > 1e-12 {
		t.Errorf("Predict = %v, %v; want e (the exp of the payload's 1)", got, err)
	}
	batch, _ := m.Regressor.PredictBatch([][]float64{{0, 0}, {1, 0}})
	if batch[0] != 1 || math.Abs(batch[1]-math.E) > 1e-12 {
		t.Errorf("PredictBatch = %v", batch)
	}
	if m.Header.CV.MAPE != 12.5 || m.Header.Data[0].Sources["simulated"] != 10 || !m.Header.Created.Equal(h.Created) ||
		!slices.Equal(m.Header.Data[0].Constants, h.Data[0].Constants) {
		t.Errorf("header did not survive: %+v", m.Header)
	}
	if string(m.Header.Hyper) != `{"width":2}` {
		t.Errorf("hyper-parameters %s", m.Header.Hyper)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files after an atomic save; want only the model", len(entries))
	}

	// The same file gzip-compressed loads the same; a torn compressed file is an error naming it.
	raw, _ := os.ReadFile(path)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	gz := filepath.Join(dir, "m.model.gz")
	os.WriteFile(gz, z.Bytes(), 0o644)
	mz, err := models.Load(gz, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := mz.Regressor.Predict([]float64{0.5, 0.25}); math.Abs(got-math.Exp(1)) > 1e-12 {
		t.Errorf("compressed model predicts %v", got)
	}
	os.WriteFile(gz, z.Bytes()[:z.Len()/2], 0o644)
	if _, err := models.Load(gz, testKinds()); err == nil || !strings.Contains(err.Error(), gz) {
		t.Errorf("torn compressed model: %v", err)
	}

	// Saved to a .gz path, the file is that gzip stream: it inflates to the plain file.
	saved := filepath.Join(dir, "saved.model.gz")
	if err := models.Save(saved, h, &linear{W: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(saved)
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not gzip: %v", saved, err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inflated, raw) {
		t.Errorf("%s inflates to %d bytes (%v), the plain save is %d", saved, len(inflated), err, len(raw))
	}
}

func TestNormalisationAndClasses(t *testing.T) {
	dir := t.TempDir()
	h := runtimeHeader()
	h.Kind = "linear-norm"
	h.Norm = models.FitScale([][]float64{{0, 10}, {2, 30}})
	path := filepath.Join(dir, "n.model")
	if err := models.Save(path, h, &linear{W: []float64{1, 1}}); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	// (1, 30) scales to (0.5, 1): the payload sees 1.5.
	if got, _ := m.Regressor.Predict([]float64{1, 30}); math.Abs(got-math.Exp(1.5)) > 1e-12 {
		t.Errorf("normalised prediction %v, want exp(1.5)", got)
	}

	c := runtimeHeader()
	c.Task, c.Target = models.Select, models.TargetClass
	c.Classes = []models.Class{{OC: 0, Members: []smart.Combination{0}}, {OC: smart.Combination(smart.ST), Members: []smart.Combination{smart.Combination(smart.ST), smart.Combination(smart.ST | smart.RT)}}}
	path = filepath.Join(dir, "c.model")
	if err := models.Save(path, c, &linear{W: []float64{1, 0}}); err != nil {
		t.Fatal(err)
	}
	m, err = models.Load(path, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Classifier.PredictProba([]float64{0, 5})
	if err != nil || p[0] != 0.5 || p[1] != 0.5 {
		t.Errorf("PredictProba = %v, %v", p, err)
	}
	if got := m.Header.Classes[1].Members[1].String(); got != "ST_RT" {
		t.Errorf("class members read back as %s", got)
	}
	if _, err := m.Classifier.PredictProba([]float64{math.NaN(), 0}); err == nil || !strings.Contains(err.Error(), "feature a") {
		t.Errorf("NaN feature: %v", err)
	}
	if _, err := m.Classifier.PredictProbaBatch([][]float64{{1, 2, 3}}); err == nil || !strings.Contains(err.Error(), "reads 2") {
		t.Errorf("wrong width: %v", err)
	}
}

// A model of the time over the analytic model's adds the row's analytic ln time (its
// second-to-last column, read before normalisation) where the last column says the analytic
// model answered, and nothing where it did not.
func TestAnalyticAnchor(t *testing.T) {
	dir := t.TempDir()
	h := runtimeHeader()
	h.Kind, h.Target = "linear-norm", models.TargetLnOverAnalytic
	h.Features = []string{"x", "roofline_ln_ms", "roofline_ok"}
	h.Inputs = &models.Inputs{Dims: 2, Setting: true, GPU: true, Analytic: "roofline"}
	h.Norm = models.FitScale([][]float64{{0, -5, 0}, {2, 5, 1}})
	path := filepath.Join(dir, "r.model")
	if err := models.Save(path, h, &linear{W: []float64{1, 0, 0}}); err != nil { // predicts the scaled x
		t.Fatal(err)
	}
	m, err := models.Load(path, testKinds())
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]float64{{1, 2, 1}, {1, 2, 0}, {2, -3, 1}}
	want := []float64{math.Exp(0.5 + 2), math.Exp(0.5), math.Exp(1 - 3)}
	got, err := m.Regressor.PredictBatch(rows)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		one, _ := m.Regressor.Predict(rows[i])
		if math.Abs(got[i]-want[i]) > 1e-12 || math.Abs(one-want[i]) > 1e-12 {
			t.Errorf("row %v: PredictBatch %v, Predict %v; want %v", rows[i], got[i], one, want[i])
		}
	}
	if a := models.AnalyticAnchor([]float64{7}); a != 0 {
		t.Errorf("AnalyticAnchor of a row too short for the columns = %v; want 0", a)
	}
	// Without the analytic model's column there is nothing to be relative to.
	h.Inputs.Analytic = ""
	if err := models.Write(&bytes.Buffer{}, h, nil); err == nil || !strings.Contains(err.Error(), "analytic") {
		t.Errorf("target %s without the analytic column: %v", h.Target, err)
	}
}

func modelBytes(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := models.Write(&b, runtimeHeader(), []byte("[1,2]")); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// reseal recomputes the checksum so that a test reaches the check after it.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

func TestBadFiles(t *testing.T) {
	good := modelBytes(t)
	corrupt := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	headerAt := len(models.Magic) + 8
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a smart model file"},
		{"foreign", []byte("PK\x03\x04 a zip file"), "not a smart model file"},
		{"stencil", []byte(`{"format":"smart-stencil/1"}`), "not a smart model file"},
		{"cut in version", good[:len(models.Magic)+2], "truncated"},
		{"cut in header", good[:headerAt+10], "truncated"},
		{"cut in payload", good[:len(good)-6], "truncated"},
		{"cut checksum", good[:len(good)-1], "truncated"},
		{"newer version", corrupt(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(models.Magic):], models.FormatVersion+1)
			return b
		}), "newer"},
		{"flipped bit", corrupt(func(b []byte) []byte { b[headerAt+3] ^= 1; return b }), "checksum"},
		{"huge header length", corrupt(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(models.Magic)+4:], 1<<31)
			return b
		}), "header length"},
		{"bad header JSON", corrupt(func(b []byte) []byte { b[headerAt] = '['; return reseal(b) }), "corrupt model header"},
		{"unknown kind", corrupt(func(b []byte) []byte {
			return reseal(bytes.Replace(b, []byte(`"kind":"linear"`), []byte(`"kind":"lineas"`), 1))
		}), `kind "lineas" is not known`},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := models.Load(path, testKinds())
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q should name the file and mention %q", err, tc.want)
			}
			// The command line tells what to give instead by this sentinel.
			if notModel := strings.Contains(tc.want, "not a smart model file"); errors.Is(err, models.ErrNotModel) != notModel {
				t.Errorf("error %q: errors.Is(err, ErrNotModel) is %v, want %v", err, !notModel, notModel)
			}
		})
	}
}

func TestDecoderPanicIsError(t *testing.T) {
	var b bytes.Buffer
	if err := models.Write(&b, runtimeHeader(), []byte("[1,2,3]")); err != nil {
		t.Fatal(err)
	}
	_, err := models.Decode(b.Bytes(), testKinds())
	if err == nil || !strings.Contains(err.Error(), "corrupt payload") {
		t.Errorf("panicking decoder gave %v", err)
	}
	h := runtimeHeader()
	h.Kind = "wrong-return"
	b.Reset()
	models.Write(&b, h, []byte("x"))
	if _, err := models.Decode(b.Bytes(), testKinds()); err == nil || !strings.Contains(err.Error(), "not a Regressor") {
		t.Errorf("wrong decoded type gave %v", err)
	}
}

func TestWriteChecksHeader(t *testing.T) {
	for _, f := range []func(h *models.Header){
		func(h *models.Header) { h.Kind = "" },
		func(h *models.Header) { h.Task = "guess" },
		func(h *models.Header) { h.Features = nil },
		func(h *models.Header) { h.Target = "ms" },
		func(h *models.Header) { h.Task = models.Local },                // its target is ln1p_local_bytes
		func(h *models.Header) { h.Target = models.TargetLnLocalBytes }, // a runtime model's is not
		func(h *models.Header) { h.Task, h.Target = models.Select, models.TargetClass },
		func(h *models.Header) { h.Norm = &models.Scale{Min: []float64{0}, Max: []float64{1}} },
		func(h *models.Header) { // one class twice
			h.Task, h.Target = models.Select, models.TargetClass
			h.Classes = []models.Class{{OC: 0, Members: []smart.Combination{0}}, {OC: 0, Members: []smart.Combination{1}}}
		},
		func(h *models.Header) { // one OC in two classes
			h.Task, h.Target = models.Select, models.TargetClass
			h.Classes = []models.Class{{OC: 0, Members: []smart.Combination{0, 1}}, {OC: 1, Members: []smart.Combination{1}}}
		},
	} {
		h := runtimeHeader()
		f(h)
		if err := models.Write(&bytes.Buffer{}, h, nil); err == nil {
			t.Errorf("header %+v written", h)
		}
	}
	// A failing save leaves nothing behind, not even the temporary file.
	dir := t.TempDir()
	h := runtimeHeader()
	h.Kind = ""
	if err := models.Save(filepath.Join(dir, "x"), h, &linear{}); err == nil {
		t.Error("saved an invalid header")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed save left %d files", len(entries))
	}
	if err := models.Save(filepath.Join(dir, "missing", "x"), runtimeHeader(), &linear{}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("save into a missing directory: %v", err)
	}
}

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "runtime.model")
	h := &models.Header{Kind: "linear", Task: models.Runtime, Target: models.TargetLnMs, Features: []string{"a", "b"}}
	if err := models.Save(path, h, &linear{W: []float64{1, 0}}); err != nil {
		panic(err)
	}
	m, err := models.Load(path, testKinds())
	if err != nil {
		panic(err)
	}
	ms, _ := m.Regressor.Predict([]float64{0, 7}) // the payload predicts ln ms = 0
	fmt.Println(m.Header.Kind, m.Header.Task, ms, "ms")
	// Output: linear runtime 1 ms
}

func TestIsModelFile(t *testing.T) {
	dir := t.TempDir()
	plain, zipped := filepath.Join(dir, "m.model"), filepath.Join(dir, "m.model.gz")
	for _, p := range []string{plain, zipped} {
		if err := models.Save(p, runtimeHeader(), &linear{}); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(dir, "stencil.json")
	os.WriteFile(other, []byte(`{"format":"smart-stencil/1"}`), 0o644)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("sm"), 0o644)
	for _, tc := range []struct {
		path string
		want bool
	}{{plain, true}, {zipped, true}, {other, false}, {short, false}, {dir, false}} {
		if got, _ := models.IsModelFile(tc.path); got != tc.want {
			t.Errorf("IsModelFile(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if _, err := models.IsModelFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestLoadSaysWhy: a missing file and a truncated compressed one are said in the model file's
// terms, not the operating system's or gzip's alone.
func TestLoadSaysWhy(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.smartmodel")
	if _, err := models.Load(missing, models.Kinds{}); err == nil || err.Error() != "model file "+missing+": no such file" {
		t.Errorf("a missing file: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(models.Magic + strings.Repeat("x", 4096)))
	zw.Close()
	if _, err := models.Decode(gz.Bytes()[:gz.Len()/2], models.Kinds{}); err == nil || !strings.Contains(err.Error(), "gzip compression is broken (a truncated or corrupt file)") {
		t.Errorf("a truncated compressed file: %v", err)
	}
}
