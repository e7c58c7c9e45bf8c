package models

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"smart"
	"smart/internal/atomicfile"
)

// Magic opens every model file.
const Magic = "smart-model\n"

// FormatVersion is the version of the container and header this package writes and reads.
const FormatVersion = 1

// Limits on what a reader accepts before allocating, so a corrupt length cannot exhaust memory.
const (
	maxHeaderBytes  = 64 << 20
	maxPayloadBytes = 4 << 30
)

// Header describes a saved model: what it is, what it reads, and what it was trained on.
type Header struct {
	Kind string `json:"kind"`
	Task Task   `json:"task"`
	// Target is what the payload predicts: "class" (Select), "ln_ms" (Runtime: natural log of
	// milliseconds per step) or "ln1p_local_bytes" (Local).
	Target string `json:"target"`
	// Params are the hyper-parameters as given (smart train --param), to train the kind again the
	// same way; Hyper holds every value used, defaults included, as the kind reports them.
	Params   map[string]string `json:"params,omitempty"`
	Hyper    json.RawMessage   `json:"hyper,omitempty"`
	Features []string          `json:"features"`
	Inputs   *Inputs           `json:"inputs,omitempty"` // how rows are built; nil for matrices built elsewhere
	Norm     *Scale            `json:"norm,omitempty"`
	Classes  []Class           `json:"classes,omitempty"`
	Data     []DataRef         `json:"data"`
	CV       *Metrics          `json:"cv,omitempty"`
	// Range is what the stencils of Data covered (nil for foreign kernels and for models
	// trained before headers recorded it).
	Range *Range `json:"range,omitempty"`
	// Instances are the stencils (or foreign kernels) and GPUs of Data, by hash: smart eval
	// tells from them that data scored were trained on, whatever their files are called (nil for
	// models trained before headers recorded them).
	Instances *Instances `json:"instances,omitempty"`
	Created   time.Time  `json:"created"`
}

// The targets. A runtime model learns ln ms, or ln of the time over the analytic model's where
// its rows carry that model's time (TargetLnOverAnalytic): the trees then learn what the
// analytic model misses rather than the time itself, and the level follows the analytic model
// where they cannot (another grid, a stencil unlike those learned).
const (
	TargetClass          = "class"
	TargetLnMs           = "ln_ms"
	TargetLnOverAnalytic = "ln_ms_over_analytic"
	TargetLnLocalBytes   = "ln1p_local_bytes" // ln(1 + local bytes a thread): task Local
)

// AnalyticAnchor is what a TargetLnOverAnalytic model's target is relative to in row: the
// analytic model's ln ms (the row's second-to-last column, Inputs' order) where the row's last
// column says the analytic model answered, and 0 (the target is then ln ms) where it did not.
func AnalyticAnchor(row []float64) float64 {
	if n := len(row); n >= 2 && row[n-1] == 1 {
		return row[n-2]
	}
	return 0
}

// Inputs says how the rows of a model are built from a stencil (or a foreign kernel's
// configuration), an OC and setting, and a GPU, so that predictions build the same rows
// (models/rows.Featurizer). Columns come in this order: stencil features, tensor, setting
// (or kernel parameters) and its estimated usage, GPU features, analytic time.
type Inputs struct {
	Dims     int  `json:"dims,omitempty"`      // stencil dimensions
	MaxOrder int  `json:"max_order,omitempty"` // order the stencil features and the tensor are sized for
	Stencil  bool `json:"stencil,omitempty"`   // the stencil's features (StencilMART Table II and more)
	Tensor   bool `json:"tensor,omitempty"`    // the stencil's binary tensor
	Setting  bool `json:"setting,omitempty"`   // the OC and the encoded setting
	// Usage adds, after the setting's columns, the variant's estimated registers, fused partial
	// sums and local-memory values per thread (features.Usage); stencils only.
	Usage bool `json:"usage,omitempty"`
	// Kernel and KernelParams name a foreign kernel (imported Kernel Tuner data) and the
	// parameters that are its columns, in order.
	Kernel       string   `json:"kernel,omitempty"`
	KernelParams []string `json:"kernel_params,omitempty"`
	ProblemSize  []int    `json:"problem_size,omitempty"`
	GPU          bool     `json:"gpu,omitempty"` // the GPU's catalogue features
	// Analytic names the analytic model whose ln time is a column: "roofline-conv" (the
	// convolution model of models/roofline), or "" for none.
	Analytic string `json:"analytic,omitempty"`
}

// Class is one class of a selection model: the OC predicted for it and the OCs merged into it
// because their times correlate (StencilMART IV-D). OC is one of Members.
type Class struct {
	OC      smart.Combination   `json:"oc"`
	Members []smart.Combination `json:"members"`
}

// DataRef names a data set a model was trained on and what it held.
type DataRef struct {
	Path string `json:"path"`
	// ID is the data set's identity where the trainer knew it (dataset.Meta.ID): a copy or a
	// path written otherwise has the same.
	ID      string         `json:"id,omitempty"`
	Rows    int            `json:"rows"`              // matrix rows built from it (instances for selection)
	Sources map[string]int `json:"sources"`           // ok measurements behind them per source: measured, imported, simulated
	GPUs    []string       `json:"gpus"`              // catalogue names
	Devices []string       `json:"devices,omitempty"` // devices as they named themselves
	// Constants names the analytic model's constants behind the data set's simulated rows, as
	// the data set records them (dataset.Constants.String(): the literature's, or a calibration
	// file with its sha256), each kind once; none where it records none.
	Constants []string `json:"constants,omitempty"`
}

// Metrics summarises a cross-validation. Percentages are in percent.
type Metrics struct {
	Folds    int    `json:"folds"`
	Grouping string `json:"grouping"` // what a fold keeps together, e.g. "stencil"
	Rows     int    `json:"rows"`
	// Select
	Accuracy    float64 `json:"accuracy,omitempty"`     // share of stencils whose predicted class is the best
	OracleShare float64 `json:"oracle_share,omitempty"` // mean over stencils of best time / time of the predicted OC
	// Runtime
	MAPE   float64 `json:"mape,omitempty"`
	MdAPE  float64 `json:"mdape,omitempty"` // median absolute percentage error
	P90APE float64 `json:"p90ape,omitempty"`
	// Interval is what the out-of-fold errors give a prediction of the model (runtime; nil in
	// files written before it was recorded).
	Interval *Interval `json:"interval,omitempty"`
}

// Scale maps each feature x to (x - Min) / (Max - Min); a constant feature maps to 0.
type Scale struct {
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// FitScale returns the scale of the columns of X.
func FitScale(X [][]float64) *Scale {
	if len(X) == 0 {
		return &Scale{}
	}
	s := &Scale{Min: append([]float64(nil), X[0]...), Max: append([]float64(nil), X[0]...)}
	for _, r := range X[1:] {
		for j, v := range r {
			s.Min[j] = min(s.Min[j], v)
			s.Max[j] = max(s.Max[j], v)
		}
	}
	return s
}

// Apply returns row scaled, in a new slice.
func (s *Scale) Apply(row []float64) []float64 {
	out := make([]float64, len(row))
	for j, v := range row {
		if j >= len(s.Min) || s.Max[j] == s.Min[j] {
			continue
		}
		out[j] = (v - s.Min[j]) / (s.Max[j] - s.Min[j])
	}
	return out
}

// ApplyAll scales every row into new slices.
func (s *Scale) ApplyAll(X [][]float64) [][]float64 {
	out := make([][]float64, len(X))
	for i, r := range X {
		out[i] = s.Apply(r)
	}
	return out
}

func (h *Header) check() error {
	switch {
	case h.Kind == "":
		return errors.New("header has no kind")
	case h.Task != Select && h.Task != Runtime && h.Task != Local:
		return fmt.Errorf("header has unknown task %q", h.Task)
	case len(h.Features) == 0:
		return errors.New("header lists no features")
	case h.Task == Select && len(h.Classes) < 2:
		return fmt.Errorf("selection model lists %d classes; it needs at least 2", len(h.Classes))
	case h.Norm != nil && (len(h.Norm.Min) != len(h.Features) || len(h.Norm.Max) != len(h.Features)):
		return fmt.Errorf("normalisation has %d/%d constants for %d features", len(h.Norm.Min), len(h.Norm.Max), len(h.Features))
	}
	// Classes partition the OCs: a label or member twice would make two classes of one.
	label, member := map[smart.Combination]int{}, map[smart.Combination]int{}
	for i, c := range h.Classes {
		if j, dup := label[c.OC]; dup {
			return fmt.Errorf("classes %d and %d are both labelled %s", j, i, c.OC)
		}
		label[c.OC] = i
		for _, oc := range c.Members {
			if j, dup := member[oc]; dup {
				return fmt.Errorf("OC %s is a member of classes %d and %d", oc, j, i)
			}
			member[oc] = i
		}
	}
	switch {
	case h.Task == Select && h.Target != TargetClass:
		return fmt.Errorf("task %s has target %q; this version reads %q", h.Task, h.Target, TargetClass)
	case h.Task == Runtime && h.Target != TargetLnMs && h.Target != TargetLnOverAnalytic:
		return fmt.Errorf("task %s has target %q; this version reads %q or %q", h.Task, h.Target, TargetLnMs, TargetLnOverAnalytic)
	case h.Task == Local && h.Target != TargetLnLocalBytes:
		return fmt.Errorf("task %s has target %q; this version reads %q", h.Task, h.Target, TargetLnLocalBytes)
	case h.Target == TargetLnOverAnalytic && (h.Inputs == nil || h.Inputs.Analytic == ""):
		return fmt.Errorf("target %q needs rows that carry the analytic model's time; the inputs name none", h.Target)
	}
	return nil
}

// Write writes a model file to w.
func Write(w io.Writer, h *Header, payload []byte) error {
	if err := h.check(); err != nil {
		return err
	}
	hj, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encoding model header: %w", err)
	}
	var b bytes.Buffer
	b.WriteString(Magic)
	binary.Write(&b, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&b, binary.LittleEndian, uint32(len(hj)))
	b.Write(hj)
	binary.Write(&b, binary.LittleEndian, uint64(len(payload)))
	b.Write(payload)
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	_, err = w.Write(b.Bytes())
	return err
}

// Save encodes f and writes it with h to path atomically (a temporary file in the same
// directory, then a rename), gzip-compressed when path ends in .gz (as the embedded defaults
// are: a large ensemble's LightGBM text shrinks to about a third).
func Save(path string, h *Header, f Fitted) error {
	hyper, err := json.Marshal(f.Hyper())
	if err != nil {
		return fmt.Errorf("saving model %s: encoding hyper-parameters: %w", path, err)
	}
	h.Hyper = hyper
	payload, err := f.MarshalBinary()
	if err != nil {
		return fmt.Errorf("saving model %s: encoding %s payload: %w", path, h.Kind, err)
	}
	var b bytes.Buffer
	if err := Write(&b, h, payload); err != nil {
		return fmt.Errorf("saving model %s: %w", path, err)
	}
	return atomicfile.WriteMaybeGzip(path, b.Bytes())
}

// ErrNotModel is Read's error for data that does not start with Magic.
var ErrNotModel = errors.New("not a smart model file (it does not start with \"smart-model\")")

// Read reads a model file's header and payload from data, checking magic, version, lengths and
// checksum. Errors say what is wrong; the caller adds the file name.
func Read(data []byte) (*Header, []byte, error) {
	if len(data) < len(Magic) || string(data[:len(Magic)]) != Magic {
		return nil, nil, ErrNotModel
	}
	r := bytes.NewReader(data[len(Magic):])
	var version, hlen uint32
	if err := binary.Read(r, binary.LittleEndian, &version); err != nil {
		return nil, nil, errors.New("truncated model file: it ends inside the format version")
	}
	if version > FormatVersion {
		return nil, nil, fmt.Errorf("model file format version %d is newer than this smart reads (%d); upgrade smart", version, FormatVersion)
	}
	if version == 0 {
		return nil, nil, errors.New("corrupt model file: format version 0")
	}
	if err := binary.Read(r, binary.LittleEndian, &hlen); err != nil {
		return nil, nil, errors.New("truncated model file: it ends before the header length")
	}
	if hlen > maxHeaderBytes || int64(hlen) > int64(r.Len()) {
		return nil, nil, fmt.Errorf("truncated or corrupt model file: header length %d but only %d bytes follow", hlen, r.Len())
	}
	hj := make([]byte, hlen)
	io.ReadFull(r, hj)
	var plen uint64
	if err := binary.Read(r, binary.LittleEndian, &plen); err != nil {
		return nil, nil, errors.New("truncated model file: it ends before the payload length")
	}
	if plen > maxPayloadBytes || plen+4 != uint64(r.Len()) {
		return nil, nil, fmt.Errorf("truncated or corrupt model file: payload length %d but %d bytes follow (with the 4-byte checksum)", plen, r.Len())
	}
	payload := make([]byte, plen)
	io.ReadFull(r, payload)
	var sum uint32
	binary.Read(r, binary.LittleEndian, &sum)
	if got := crc32.ChecksumIEEE(data[:len(data)-4]); got != sum {
		return nil, nil, fmt.Errorf("corrupt model file: checksum %08x does not match the stored %08x", got, sum)
	}
	var h Header
	dec := json.NewDecoder(bytes.NewReader(hj))
	if err := dec.Decode(&h); err != nil {
		return nil, nil, fmt.Errorf("corrupt model header: %w", err)
	}
	if err := h.check(); err != nil {
		return nil, nil, fmt.Errorf("invalid model header: %w", err)
	}
	return &h, payload, nil
}

// Model is a loaded model. For a Select model Classifier is set; for a Runtime model Regressor
// is set and predicts milliseconds per step. Both take raw feature rows in Header.Features order
// and apply the normalisation themselves.
type Model struct {
	Header     Header
	Classifier Classifier
	Regressor  Regressor
}

// Load reads the model file at path and decodes it with the matching kind of kinds. Errors name
// the file and the problem; a decoder's panic becomes an error.
func Load(path string, kinds Kinds) (*Model, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("model file %s: no such file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("model file %s: %w", path, err)
	}
	m, err := Decode(data, kinds)
	if err != nil {
		return nil, fmt.Errorf("loading model %s: %w", path, err)
	}
	return m, nil
}

// IsModelFile reports whether the file at path is a model file (gzip-compressed or not), by its
// first bytes; a file it cannot open is not one, and the error says why. smart train checks it
// before replacing a file with a model, so that a mistyped path does not overwrite a stencil or
// a data file.
func IsModelFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if head, _ := br.Peek(len(gzipMagic)); string(head) == gzipMagic {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false, nil
		}
		r = zr
	}
	magic := make([]byte, len(Magic))
	n, _ := io.ReadFull(r, magic)
	return string(magic[:n]) == Magic, nil
}

// gzipMagic starts a gzip-compressed file.
const gzipMagic = "\x1f\x8b"

// gunzip inflates a compressed model file, refusing more than a model file may hold.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	const limit = maxHeaderBytes + maxPayloadBytes + 64
	out, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if len(out) > limit {
		return nil, fmt.Errorf("inflates to over %d bytes", limit)
	}
	return out, nil
}

// Decode is Load for the bytes of a model file, gzip-compressed or not (the embedded defaults
// are stored compressed).
func Decode(data []byte, kinds Kinds) (*Model, error) {
	if bytes.HasPrefix(data, []byte(gzipMagic)) {
		var err error
		if data, err = gunzip(data); err != nil {
			return nil, fmt.Errorf("its gzip compression is broken (a truncated or corrupt file): %w", err)
		}
	}
	h, payload, err := Read(data)
	if err != nil {
		return nil, err
	}
	kind, ok := kinds[h.Kind]
	if !ok {
		return nil, fmt.Errorf("model kind %q is not known to this smart (known: %v)", h.Kind, kinds.Names())
	}
	v, err := safeDecode(kind.Decode, h, payload)
	if err != nil {
		return nil, fmt.Errorf("decoding %s payload: %w", h.Kind, err)
	}
	m := &Model{Header: *h}
	var norm *Scale
	if kind.Normalize {
		if h.Norm == nil {
			return nil, fmt.Errorf("kind %s needs normalisation constants and the header has none", h.Kind)
		}
		norm = h.Norm
	}
	switch h.Task {
	case Select:
		c, ok := v.(Classifier)
		if !ok {
			return nil, fmt.Errorf("kind %s decoded a %T, not a Classifier", h.Kind, v)
		}
		m.Classifier = &loadedClassifier{c: c, norm: norm, names: h.Features, classes: len(h.Classes)}
	case Runtime, Local:
		r, ok := v.(Regressor)
		if !ok {
			return nil, fmt.Errorf("kind %s decoded a %T, not a Regressor", h.Kind, v)
		}
		m.Regressor = &loadedRegressor{r: r, norm: norm, names: h.Features, anchored: h.Target == TargetLnOverAnalytic, local: h.Task == Local}
	}
	return m, nil
}

func safeDecode(dec DecodeFunc, h *Header, payload []byte) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("corrupt payload: %v", p)
		}
	}()
	return dec(h, payload)
}

// prepare checks the width and values of rows and normalises them when the kind asks for it.
func prepare(rows [][]float64, names []string, norm *Scale) ([][]float64, error) {
	for i, r := range rows {
		if len(r) != len(names) {
			return nil, fmt.Errorf("row %d has %d features; the model reads %d", i, len(r), len(names))
		}
		if j := nonFinite(r); j >= 0 {
			return nil, fmt.Errorf("row %d: feature %s is %v; features must be finite numbers", i, names[j], r[j])
		}
	}
	if norm == nil {
		return rows, nil
	}
	return norm.ApplyAll(rows), nil
}

type loadedClassifier struct {
	c       Classifier
	norm    *Scale
	names   []string
	classes int
}

func (l *loadedClassifier) PredictProba(row []float64) ([]float64, error) {
	rows, err := prepare([][]float64{row}, l.names, l.norm)
	if err != nil {
		return nil, err
	}
	p, err := l.c.PredictProba(rows[0])
	if err != nil {
		return nil, err
	}
	if len(p) != l.classes {
		return nil, fmt.Errorf("model returned %d probabilities; the header lists %d classes", len(p), l.classes)
	}
	return p, nil
}

func (l *loadedClassifier) PredictProbaBatch(rows [][]float64) ([][]float64, error) {
	rows, err := prepare(rows, l.names, l.norm)
	if err != nil {
		return nil, err
	}
	p, err := l.c.PredictProbaBatch(rows)
	if err != nil {
		return nil, err
	}
	if len(p) != len(rows) || len(p) > 0 && len(p[0]) != l.classes {
		return nil, fmt.Errorf("model returned %d probability vectors for %d rows (want %d classes each)", len(p), len(rows), l.classes)
	}
	return p, nil
}

type loadedRegressor struct {
	r     Regressor
	norm  *Scale
	names []string
	// anchored: the model predicts ln ms over the analytic model's (TargetLnOverAnalytic).
	anchored bool
	// local: the model predicts ln(1 + local bytes) (task Local); its predictions are bytes.
	local bool
}

// ms is the time of a row (as given, not normalised) from the model's prediction v for it, or
// for a Local model its local bytes a thread.
func (l *loadedRegressor) ms(row []float64, v float64) float64 {
	if l.local {
		return math.Expm1(v)
	}
	if l.anchored {
		v += AnalyticAnchor(row)
	}
	return math.Exp(v)
}

func (l *loadedRegressor) Predict(row []float64) (float64, error) {
	rows, err := prepare([][]float64{row}, l.names, l.norm)
	if err != nil {
		return 0, err
	}
	v, err := l.r.Predict(rows[0])
	return l.ms(row, v), err
}

func (l *loadedRegressor) PredictBatch(rows [][]float64) ([]float64, error) {
	prepared, err := prepare(rows, l.names, l.norm)
	if err != nil {
		return nil, err
	}
	p, err := l.r.PredictBatch(prepared)
	if err != nil {
		return nil, err
	}
	if len(p) != len(rows) {
		return nil, fmt.Errorf("model returned %d predictions for %d rows", len(p), len(rows))
	}
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = l.ms(rows[i], v)
	}
	return out, nil
}
