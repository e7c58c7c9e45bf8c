package predict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"smart"
	"smart/data"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/rows"
)

// Model is a loaded model with what predict needs beside it: where it came from, the rows it
// reads and, for the embedded defaults, the range of stencils it was trained on.
type Model struct {
	*models.Model
	Name  string        // the file, or "embedded select-3d.smartmodel"
	Range *models.Range // nil where unknown (a model trained before models recorded it)
	Given bool          // given by the user (Use), not embedded
	feat  *rows.Featurizer
}

// blindTo says, of a model given by the user that cannot tell GPUs apart (it reads no GPU
// column, or learned one GPU, whose columns were then constant), the GPUs it learned, where gpu
// is not among them: its answer for gpu is theirs. It returns nil otherwise (the embedded
// models of one GPU's measurements answer for others through the analytic ratio).
func (m *Model) blindTo(gpu string) []string {
	if !m.Given || m.Header.Inputs == nil {
		return nil
	}
	var learned []string
	for _, d := range m.Header.Data {
		for _, g := range d.GPUs {
			if !slices.Contains(learned, g) {
				learned = append(learned, g)
			}
		}
	}
	if slices.Contains(learned, gpu) || m.Header.Inputs.GPU && len(learned) > 1 {
		return nil
	}
	return learned
}

// Models are the classifiers and regressors predictions are made with, by stencil dimensions.
// The embedded defaults are decoded on first use, so a prediction of a 3-D stencil never parses
// the 2-D models.
type Models struct {
	Select  map[int]*Model
	Runtime map[int]*Model
	lazy    map[modelKey]func() (*Model, error)
	// own are runtime models trained on measurements of one GPU (data/measured), by dimensions
	// and GPU name, decoded on first use.
	own map[ownKey]func() (*Model, error)
	// local are the models of the local memory a variant's thread keeps (task local), by
	// dimensions, which every GPU's search consults (Local).
	local map[int]func() (*Model, error)
	given []*Model // by Use, in order
	mu    sync.Mutex
}

type modelKey struct {
	task models.Task
	dims int
}

type ownKey struct {
	dims int
	gpu  string
}

// Defaults returns the models embedded in the binary: the defaults of data/models, trained by
// bench/defaults, and the runtime models of data/measured, each trained on measurements of one
// GPU, which Own offers for that GPU.
func Defaults() (*Models, error) {
	ms := &Models{Select: map[int]*Model{}, Runtime: map[int]*Model{}, lazy: map[modelKey]func() (*Model, error){},
		own: map[ownKey]func() (*Model, error){}, local: map[int]func() (*Model, error){}}
	man, err := embeddedManifest(data.ModelFile, ManifestFile)
	if err != nil {
		return nil, err
	}
	for _, e := range man.Models {
		if e.GPU != "" {
			return nil, fmt.Errorf("the embedded models are broken (a bug in this build): %s is for %s only", e.File, e.GPU)
		}
		ms.lazy[modelKey{models.Task(e.Task), e.Dims}] = embeddedModel(data.ModelFile, e, "embedded "+e.File)
	}
	own, err := embeddedManifest(data.MeasuredModelFile, "models.json")
	if err != nil {
		return nil, err
	}
	for _, e := range own.Models {
		switch {
		case e.GPU != "" && models.Task(e.Task) == models.Runtime:
			ms.own[ownKey{e.Dims, e.GPU}] = embeddedModel(data.MeasuredModelFile, e, "embedded measured/"+e.File)
		case e.GPU != "" && models.Task(e.Task) == models.Local && ms.local[e.Dims] == nil:
			ms.local[e.Dims] = embeddedModel(data.MeasuredModelFile, e, "embedded measured/"+e.File)
		default:
			return nil, fmt.Errorf("the embedded models are broken (a bug in this build): data/measured/models.json lists %s, not a runtime or local-memory model of one GPU", e.File)
		}
	}
	return ms, nil
}

func embeddedManifest(read func(string) ([]byte, error), name string) (*Manifest, error) {
	b, err := read(name)
	if err != nil {
		return nil, err
	}
	man, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("the embedded models are broken (a bug in this build): %s: %w", name, err)
	}
	return man, nil
}

// embeddedModel decodes the model of e on its first call.
func embeddedModel(read func(string) ([]byte, error), e Entry, name string) func() (*Model, error) {
	return sync.OnceValues(func() (*Model, error) {
		b, err := read(e.File)
		if err != nil {
			return nil, err
		}
		kinds := models.Kinds{}
		gbdt.Register(kinds)
		m, err := newModel(b, name, kinds)
		if err != nil {
			return nil, fmt.Errorf("the embedded models are broken (a bug in this build): %w", err)
		}
		r := e.Training
		m.Range = &r
		return m, nil
	})
}

// Own returns the embedded runtime model trained on measurements of gpu for stencils of st's
// dimensions, or nil where there is none, where Use gave a runtime model of those dimensions,
// or where st lies outside its training range in order or element type; note then says why
// the default answers instead.
func (ms *Models) Own(st *smart.Stencil, gpu string) (m *Model, note string, err error) {
	ms.mu.Lock()
	load := ms.own[ownKey{st.Dims, gpu}]
	given := slices.ContainsFunc(ms.given, func(g *Model) bool {
		return g.Header.Task == models.Runtime && g.Header.Inputs.Dims == st.Dims
	})
	ms.mu.Unlock()
	if load == nil || given {
		return nil, "", nil
	}
	if m, err = load(); err != nil {
		return nil, "", err
	}
	r := m.Range
	if o := st.Order(); o < r.Orders[0] || o > r.Orders[1] || !slices.Contains(r.Dtypes, st.Dtype) {
		dtypes := make([]string, len(r.Dtypes))
		for i, d := range r.Dtypes {
			dtypes[i] = string(d)
		}
		return nil, fmt.Sprintf("%s's runtime model trained on its measurements (%s) covers %s stencils of orders %d-%d only; the simulated default answers for this %s stencil of order %d",
			gpu, m.Name, strings.Join(dtypes, " and "), r.Orders[0], r.Orders[1], st.Dtype, st.Order()), nil
	}
	return m, "", nil
}

// Local returns the embedded model of the local memory a thread of a variant keeps, for stencils
// of dims dimensions, or nil where there is none. It learned the compiler's reports on one GPU's
// architecture and answers for every GPU: the compiler decides what spills, under register
// limits that NVIDIA GPUs since Kepler share (255 a thread, 64K a block).
func (ms *Models) Local(dims int) (*Model, error) {
	ms.mu.Lock()
	load := ms.local[dims]
	ms.mu.Unlock()
	if load == nil {
		return nil, nil
	}
	return load()
}

// MeasuredGPUs lists, by name, the GPUs whose measurements train an embedded runtime model for
// stencils of dims dimensions.
func (ms *Models) MeasuredGPUs(dims int) []string {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var out []string
	for k := range ms.own {
		if k.dims == dims {
			out = append(out, k.gpu)
		}
	}
	slices.Sort(out)
	return out
}

// model returns the model of a task and dimensions, decoding an embedded one on first use.
func (ms *Models) model(task models.Task, dims int) (*Model, error) {
	ms.mu.Lock()
	have := ms.Select
	if task == models.Runtime {
		have = ms.Runtime
	}
	m, load := have[dims], ms.lazy[modelKey{task, dims}]
	ms.mu.Unlock()
	if m != nil || load == nil {
		return m, nil
	}
	m, err := load() // once per model, outside the lock: two models decode in parallel
	if err != nil {
		return nil, err
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if have[dims] == nil {
		have[dims] = m
	}
	return have[dims], nil
}

// Use replaces the model of the task and dimensions of the model file at path with it, as
// given to smart predict --model. kinds decodes it (models/kinds.All for every kind).
func (ms *Models) Use(data []byte, path string, kinds models.Kinds) error {
	m, err := newModel(data, path, kinds)
	if err != nil {
		return err
	}
	for _, o := range ms.given {
		if o.Header.Task == m.Header.Task && o.Header.Inputs.Dims == m.Header.Inputs.Dims {
			return &TwoModelsError{First: o.Name, Second: m.Name, Task: m.Header.Task, Dims: m.Header.Inputs.Dims}
		}
	}
	m.Given = true
	if err := ms.add(m); err != nil {
		return err
	}
	ms.given = append(ms.given, m)
	return nil
}

// TwoModelsError is two models given for the same task and dimensions: one would answer and
// the other be ignored.
type TwoModelsError struct {
	First, Second string
	Task          models.Task
	Dims          int
}

func (e *TwoModelsError) Error() string {
	return fmt.Sprintf("models %s and %s are both %s models of %d-D stencils; give one of them", e.First, e.Second, e.Task, e.Dims)
}

// UseDir uses every model file of dir (*.smartmodel, compressed or not, as bench/defaults writes
// them), each as Use.
func (ms *Models) UseDir(dir string, kinds models.Kinds) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.smartmodel*"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("directory %s holds no model files (*.smartmodel)", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading model: %w", err)
		}
		if err := ms.Use(b, f, kinds); err != nil {
			return err
		}
	}
	return nil
}

// UnusedModelError is a model given in place of a default that none of the stencils can use:
// the defaults would answer in its place without a word.
type UnusedModelError struct {
	Model string // its name (file)
	Dims  int    // the dimensions of the stencils it was trained on
}

func (e *UnusedModelError) Error() string {
	return fmt.Sprintf("%s was trained on %d-D stencils; none of the stencils given is %d-D", e.Model, e.Dims, e.Dims)
}

// CheckGiven returns an *UnusedModelError for the first model given (Use) that none of ins can use.
func (ms *Models) CheckGiven(ins []Input) error {
	for _, m := range ms.given {
		dims := m.Header.Inputs.Dims
		if !slices.ContainsFunc(ins, func(in Input) bool { return in.Stencil.Dims == dims }) {
			return &UnusedModelError{Model: m.Name, Dims: dims}
		}
	}
	return nil
}

func newModel(b []byte, name string, kinds models.Kinds) (*Model, error) {
	mm, err := models.Decode(b, kinds)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	in := mm.Header.Inputs
	switch {
	case in == nil:
		return nil, fmt.Errorf("model %s does not say how its rows are built; predict needs one trained on data sets", name)
	case in.Kernel != "":
		return nil, fmt.Errorf("model %s predicts the foreign kernel %s (imported Kernel Tuner data), not stencils; give a model trained on stencil data sets", name, in.Kernel)
	case !in.Stencil && !in.Tensor:
		return nil, fmt.Errorf("model %s reads no stencil features; give a model trained on stencil data sets", name)
	case mm.Header.Task == models.Runtime && !in.Setting:
		return nil, fmt.Errorf("model %s predicts times without reading the setting; predict needs one that reads it", name)
	}
	f, err := rows.New(*in)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	if !slices.Equal(f.Names(), mm.Header.Features) {
		return nil, fmt.Errorf("model %s: its %d feature columns differ from the %d this smart builds for its inputs; it was written by another version of smart, train it again", name, len(mm.Header.Features), len(f.Names()))
	}
	return &Model{Model: mm, Name: name, Range: mm.Header.Range, feat: f}, nil
}

func (ms *Models) add(m *Model) error {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	dims := m.Header.Inputs.Dims
	switch m.Header.Task {
	case models.Select:
		ms.Select[dims] = m
	case models.Runtime:
		ms.Runtime[dims] = m
	default:
		return fmt.Errorf("model %s has task %q; predictions take a model of task select or runtime, and read the local-memory models embedded", m.Name, m.Header.Task)
	}
	return nil
}

// For returns the classifier and regressor for st, or an error that says why the stencil is
// beyond them: no model of its dimensions, an order beyond what the models read, or order 0.
func (ms *Models) For(st *smart.Stencil) (sel, rt *Model, err error) {
	// Decoding dominates a cold start: the two models decode side by side.
	var rtErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rt, rtErr = ms.model(models.Runtime, st.Dims)
	}()
	sel, err = ms.model(models.Select, st.Dims)
	<-done
	if err = errors.Join(err, rtErr); err != nil {
		return nil, nil, err
	}
	if sel == nil || rt == nil {
		return nil, nil, &NoModelError{Dims: st.Dims, Order: st.Order(), Reason: fmt.Sprintf("no %d-D model: the models cover %s stencils", st.Dims, ms.dimsText())}
	}
	if st.Order() == 0 {
		// A stencil that reads no neighbour is a pointwise update: nothing like it was learned.
		return nil, nil, &NoModelError{Dims: st.Dims, Order: 0, Reason: fmt.Sprintf("stencil %s reads no neighbour (order 0); the models learned stencils of order 1 and more", st.Name)}
	}
	// The runtime model first: a tuner's model evaluator reads it alone.
	for _, m := range []*Model{rt, sel} {
		if in := m.Header.Inputs; st.Order() > in.MaxOrder {
			orders := fmt.Sprintf("up to order %d", in.MaxOrder)
			if m.Range != nil {
				orders = fmt.Sprintf("of orders %d-%d", m.Range.Orders[0], m.Range.Orders[1])
			}
			return nil, nil, &NoModelError{Dims: st.Dims, Order: st.Order(), Reason: fmt.Sprintf("stencil %s has order %d; model %s was trained on %d-D stencils %s and reads no farther",
				st.Name, st.Order(), m.Name, in.Dims, orders)}
		}
	}
	return sel, rt, nil
}

// NoModelError is For's error when no model covers a stencil of Dims dimensions and order Order:
// none of its dimensions, or none that reads as far as its order. A model trained on such
// stencils would.
type NoModelError struct {
	Dims, Order int
	Reason      string // what the models cover
}

func (e *NoModelError) Error() string { return e.Reason }

func (ms *Models) dimsText() string {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	var d []string
	for _, n := range []int{2, 3} {
		_, s := ms.lazy[modelKey{models.Select, n}]
		_, r := ms.lazy[modelKey{models.Runtime, n}]
		if (s || ms.Select[n] != nil) && (r || ms.Runtime[n] != nil) {
			d = append(d, fmt.Sprintf("%d-D", n))
		}
	}
	if len(d) == 0 {
		return "no"
	}
	return strings.Join(d, " and ")
}

// Basis says what stands behind a model's number for one GPU.
type Basis string

// The bases, from the strongest to the weakest.
const (
	// BasisMeasured: the model was trained on measurements of this GPU.
	BasisMeasured Basis = "measured"
	// BasisMixed: trained on a data set of this GPU that mixes measured and simulated rows.
	BasisMixed Basis = "mixed"
	// BasisTransfer: trained on measurements of other GPUs only; this GPU is predicted from
	// them through its catalogue features.
	BasisTransfer Basis = "transfer"
	// BasisSimulated: trained on the analytic model's times for this GPU; no measurements.
	BasisSimulated Basis = "simulated"
	// BasisExtrapolated: trained on simulations of other GPUs only.
	BasisExtrapolated Basis = "extrapolated"
	// BasisAnalytic: no learned model reads the stencil (its order or dimensions lie beyond
	// them), so the analytic model alone chose the OC and setting and gave the time.
	BasisAnalytic Basis = "analytic"
)

// Provenance is what stands behind a predicted number, with a sentence a user reads.
type Provenance struct {
	Basis Basis  `json:"basis"`
	Model string `json:"model"`
	Text  string `json:"text"`
}

// Provenance reads from the model's header which data stands behind its predictions for gpu.
func (m *Model) Provenance(gpu string) Provenance {
	p := Provenance{Model: m.Name}
	var measuredOn, simulatedOn []string
	simulatedHere := false // by a data set of simulations alone
	for _, r := range m.Header.Data {
		meas := r.Sources[string(smart.Measured)]+r.Sources[string(smart.Imported)] > 0
		sim := r.Sources[string(smart.Simulated)] > 0
		here := slices.Contains(r.GPUs, gpu)
		simulatedHere = simulatedHere || (here && sim && !meas)
		switch {
		case here && meas && (!sim || len(r.GPUs) == 1) && p.Basis != BasisMeasured:
			p.Basis = BasisMeasured
		case here && meas && sim && p.Basis == "":
			p.Basis = BasisMixed
		}
		for _, g := range r.GPUs {
			if meas && !slices.Contains(measuredOn, g) {
				measuredOn = append(measuredOn, g)
			}
			if sim && !meas && !slices.Contains(simulatedOn, g) {
				simulatedOn = append(simulatedOn, g)
			}
		}
	}
	if p.Basis == BasisMeasured && simulatedHere {
		p.Basis = BasisMixed // its measurements of this GPU beside simulations of it
	}
	if p.Basis == "" {
		switch {
		case slices.Contains(simulatedOn, gpu):
			p.Basis = BasisSimulated
		case len(measuredOn) > 0:
			p.Basis = BasisTransfer
		default:
			p.Basis = BasisExtrapolated
		}
	}
	switch p.Basis {
	case BasisMeasured:
		p.Text = "trained on measurements of this GPU"
	case BasisMixed:
		p.Text = "trained on measured and simulated data of this GPU"
	case BasisTransfer:
		p.Text = "predicted from other GPUs (measured on " + strings.Join(measuredOn, ", ") + ")"
	case BasisSimulated:
		p.Text = "simulated: analytic model, no measurements of this GPU"
	case BasisExtrapolated:
		p.Text = "extrapolated from simulations of other GPUs (" + strings.Join(simulatedOn, ", ") + "), no measurements"
	}
	if in := m.Header.Inputs; in != nil && !in.GPU && p.Basis != BasisMeasured && p.Basis != BasisSimulated {
		p.Text += "; the model does not read the GPU, so every GPU gets the same answer"
	}
	return p
}
