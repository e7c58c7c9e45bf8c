package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/dataset/gpuinfo"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/train"
	"smart/predict"
)

// The kinds of evaluator a name starts with: KIND, or KIND:PATH.
const (
	CUDA     = "cuda"     // measure on this machine's NVIDIA GPU
	Sim      = "sim"      // the analytic model: simulated times
	Model    = "model"    // model:FILE, a runtime model, or model:embedded: predicted times
	Replay   = "replay"   // replay:DIR, a data set, or replay:CACHE, a Kernel Tuner cache
	Transfer = "transfer" // transfer:CACHE[,CACHE...]: a Kernel Tuner kernel on other GPUs (a prior only)
)

// Embedded is the path of model:embedded: the embedded runtime model of the GPU's own
// measurements where one covers the stencil, the simulated default otherwise.
const Embedded = "embedded"

// Calibrated is the path of sim:calibrated: the analytic model with the embedded calibration's
// constants, as smart estimate and smart predict use it (sim alone: the literature's; sim:FILE:
// a calibration file smart calibrate wrote).
const Calibrated = "calibrated"

// DefaultSimGPU is the GPU simulated when none is named: the A100 that StencilMART and the
// search space's default limits (smart.SM80) describe.
const DefaultSimGPU = "A100-40GB"

// evaluatorNames are the forms of an evaluator name, for NameError.
var evaluatorNames = []string{CUDA, Sim, Model + ":PATH", Replay + ":PATH", Transfer + ":CACHE[,CACHE...]"}

// EvaluatorName is an evaluator named as KIND or KIND:PATH.
type EvaluatorName struct {
	Kind string // CUDA, Sim, Model, Replay or Transfer
	Path string // the file, directory or comma-separated caches of model, replay and transfer
}

func (n EvaluatorName) String() string {
	if n.Path == "" {
		return n.Kind
	}
	return n.Kind + ":" + n.Path
}

// ParseEvaluator reads an evaluator name; a *NameError says what is wrong with one that names
// none.
func ParseEvaluator(name string) (EvaluatorName, error) {
	kind, path, _ := strings.Cut(name, ":")
	switch kind {
	case CUDA:
		return EvaluatorName{Kind: kind}, nil
	case Sim:
		return EvaluatorName{Kind: kind, Path: path}, nil
	case Model, Replay, Transfer:
		if path == "" {
			return EvaluatorName{}, &NameError{What: "evaluator", Name: name, Known: evaluatorNames, NoPath: true}
		}
		return EvaluatorName{Kind: kind, Path: path}, nil
	}
	return EvaluatorName{}, &NameError{What: "evaluator", Name: name, Known: evaluatorNames}
}

// CUDAOptions set up measuring on an NVIDIA GPU.
type CUDAOptions struct {
	Device   int    // NVML index of the GPU
	Reps     int    // timed runs per variant
	BuildDir string // nvcc build cache; "": the user cache directory
	// Cut: a variant over this many times its stencil's fastest so far is cut short; 0: the
	// runner's own factor, negative: never (cuda.Cut.Stencil).
	Cut float64
	// PerUnit bounds the variants compiled in one nvcc run (cuda.Runner.PerTU); 0: the runner's
	// own. Fewer a unit spread a stencil's compiling over more cores, at an nvcc start each.
	PerUnit int
}

// Backend is an evaluator built by name for one GPU, with what a data set records of it.
type Backend struct {
	Evaluator smart.Evaluator
	GPU       smart.GPU
	Source    smart.Source     // of cuda, sim and model; a replay's rows say their own
	Device    dataset.Device   // the device a data set names (cuda and sim)
	Observer  dataset.Observer // NVML's readings of the GPU (cuda; nil otherwise)
	Runner    *cuda.Runner     // the runner of cuda (nil otherwise)
	nv        *gpuinfo.NVML
}

// Close ends the runner's harness processes and compiles, and NVML.
func (b *Backend) Close() error {
	if b.Runner == nil {
		return nil
	}
	b.Runner.Close()
	return b.nv.Close()
}

// Open builds the evaluator that name names for stencil st (nil where the evaluator needs no
// stencil: sim, cuda, a data set's replay) on the GPU that gpu names in cat. cuda finds its GPU
// through NVML (gpu, when given, names a device the catalogue does not know); the others need
// gpu. Notes (nil: none) gets what a user should know about the model model:embedded chose.
func Open(name EvaluatorName, st *smart.Stencil, gpu string, cat *catalog.Catalog, cu CUDAOptions, notes io.Writer) (*Backend, error) {
	if name.Kind == CUDA {
		return openCUDA(cat, gpu, cu)
	}
	g, err := cat.Lookup(gpu)
	if err != nil {
		return nil, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	b := &Backend{GPU: g}
	switch name.Kind {
	case Sim:
		var constants dataset.Constants
		if b.Evaluator, constants, err = simEvaluator(name.Path, cat); err != nil {
			return nil, &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
		}
		b.Source, b.Device = smart.Simulated, SimDevice(g, constants)
	case Model:
		b.Source = smart.Predicted
		if st == nil {
			return nil, wrong("Evaluator", name.String(), "a runtime model answers for a stencil, and no stencil is given")
		}
		if b.Evaluator, _, err = modelEvaluator(name.Path, st, g, cat, notes); err != nil {
			err = &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
		}
	case Replay: // the rows say where their times come from
		var r *dataset.Replay
		if r, err = dataset.OpenReplay(name.Path, dataset.ImportOptions{}); err != nil {
			err = &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
			break
		}
		b.Evaluator = r
		if r.Note != "" {
			notef(notes, "%s\n", r.Note)
		}
	default:
		err = wrong("Evaluator", fmt.Sprintf("%q", name.String()), "a stencil's times come from %s", JoinList(evaluatorNames[:4], "or"))
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// modelEvaluator answers with the runtime model at path, or for Embedded with the model of
// the GPU's own measurements where one is embedded and covers the stencil, the simulated default
// otherwise (not another GPU's, which smart's predictions scale: an evaluator gives this GPU's
// times). what describes the embedded model chosen.
func modelEvaluator(path string, st *smart.Stencil, gpu smart.GPU, cat *catalog.Catalog, notes io.Writer) (ev smart.Evaluator, what string, err error) {
	var m *models.Model
	if path == Embedded {
		ms, err := predict.Defaults()
		if err != nil {
			return nil, "", err
		}
		own, note, err := ms.Own(st, gpu.Name)
		if err != nil {
			return nil, "", err
		}
		if own == nil {
			if _, own, err = ms.For(st); err != nil {
				return nil, "", fmt.Errorf("model:embedded: %w", err)
			}
		}
		if note != "" {
			notef(notes, "note: %s\n", note)
		}
		what = fmt.Sprintf("%s (%s)", own.Name, own.Provenance(gpu.Name).Text)
		notef(notes, "model:embedded is %s\n", what)
		m = own.Model
	} else if m, err = models.Load(path, kinds.All()); err != nil {
		return nil, "", err
	}
	re, err := train.NewEvaluator(m, cat)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if err := re.Accepts(st); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return re, what, nil
}

// notef writes a note where there is a writer for it.
func notef(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// SimDevice describes the analytic model of gpu with constants as a data set's device.
func SimDevice(gpu smart.GPU, constants dataset.Constants) dataset.Device {
	return dataset.Device{GPU: gpu.Name, Name: dataset.AnalyticModel, Constants: constants}
}

// simEvaluator is the analytic model with the constants sim:path names: the literature's (no
// path), the embedded calibration's (Calibrated) or those of a calibration file; with how a data
// set records them.
func simEvaluator(path string, cat *catalog.Catalog) (roofline.Evaluator, dataset.Constants, error) {
	var f *calibrate.File
	var constants dataset.Constants
	var err error
	switch path {
	case "":
		return roofline.Evaluator{Catalog: cat}, dataset.Constants{Origin: dataset.ConstantsLiterature}, nil
	case Calibrated:
		f, constants, err = calibrate.DefaultOrigin()
	default:
		f, constants, err = calibrate.ReadOrigin(path)
	}
	if err != nil {
		return roofline.Evaluator{}, constants, err
	}
	return roofline.Evaluator{Catalog: cat, Calibration: &f.Calibration}, constants, nil
}

// UnknownDeviceError is a GPU that NVML reports under a name the catalogue does not know.
type UnknownDeviceError struct {
	Index int
	Name  string
	Err   error // the catalogue's
}

func (e *UnknownDeviceError) Error() string {
	return fmt.Sprintf("GPU %d reports itself as %q: %v", e.Index, e.Name, e.Err)
}

func (e *UnknownDeviceError) Unwrap() error { return e.Err }

// DeviceGPU is the catalogue entry of the device NVML reports as name: given names it where the
// catalogue does not know the name, and may not relabel a device the catalogue knows as another
// GPU (the rows would say they were measured on a GPU they were not).
func DeviceGPU(cat *catalog.Catalog, given, name string, index int) (smart.GPU, error) {
	found, err := cat.Lookup(name)
	switch {
	case given == "" && err != nil:
		return smart.GPU{}, &UnknownDeviceError{Index: index, Name: name, Err: err}
	case given == "":
		return found, nil
	}
	g, gerr := cat.Lookup(given)
	switch {
	case gerr != nil:
		return smart.GPU{}, &SettingError{Field: "GPU", Err: gerr, Wrong: true}
	case err == nil && found.Name != g.Name:
		return smart.GPU{}, wrong("GPU", given, "GPU %d is %q, the catalogue's %s: the rows would name the wrong GPU; name no GPU", index, name, found.Name)
	}
	return g, nil
}

// openCUDA opens GPU cu.Device through NVML and sets up its runner; given names the catalogue
// entry where the catalogue does not know the device.
func openCUDA(cat *catalog.Catalog, given string, cu CUDAOptions) (*Backend, error) {
	if given != "" && cat != nil {
		// A GPU named that smart's kernels cannot run on is the first thing wrong, driver or not.
		if g, err := cat.Lookup(given); err == nil {
			if err := g.RunsCUDA(); err != nil {
				return nil, &SettingError{Field: "GPU", Err: err, Wrong: true}
			}
		}
	}
	nv, err := gpuinfo.Open()
	if err != nil {
		return nil, err
	}
	b := &Backend{nv: nv, Source: smart.Measured}
	dev, err := nv.Device(cu.Device)
	if err == nil {
		b.Observer = dev
		info := dev.Info()
		if b.GPU, err = DeviceGPU(cat, given, info.Name, cu.Device); err == nil {
			b.Device = dataset.Device{GPU: b.GPU.Name, Name: info.Name, UUID: info.UUID, Driver: info.Driver, CUDA: info.CUDA, CC: info.ComputeCapability}
			b.Runner, err = cudaRunner(info, b.GPU, cu)
		}
	}
	if err != nil {
		return nil, errors.Join(err, nv.Close())
	}
	b.Evaluator = b.Runner
	return b, nil
}

// cudaRunner sets up the nvcc-and-CUDA-events backend for the device NVML found.
func cudaRunner(info gpuinfo.Info, gpu smart.GPU, cu CUDAOptions) (*cuda.Runner, error) {
	nvcc, err := cuda.FindNVCC()
	if err != nil {
		return nil, err
	}
	arch, err := cuda.ArchOf(info.ComputeCapability)
	if err != nil {
		return nil, fmt.Errorf("GPU %s: %w", info.Name, err)
	}
	dir := cu.BuildDir
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return nil, &SettingError{Field: "BuildDir", Err: fmt.Errorf("no build directory: %w", err), Wrong: true}
		}
		dir = filepath.Join(cache, "smart", "nvcc")
	}
	r := &cuda.Runner{Compiler: cuda.NVCC(nvcc, arch), CacheDir: dir, Device: info.Index, GPU: gpu.Name, Name: info.Name, Reps: cu.Reps}
	r.Cut.Stencil = cu.Cut
	r.PerTU = cu.PerUnit
	return r, nil
}

// Check refuses a cut factor so small that variants near the fastest would be cut, and a
// negative unit size.
func (o CUDAOptions) Check() error {
	switch {
	case o.Cut > 0 && o.Cut < 1.5:
		return wrong("Cut", fmt.Sprint(o.Cut), "cut at a factor of at least 1.5, such as 3, or never")
	case o.PerUnit < 0:
		return wrong("PerUnit", fmt.Sprint(o.PerUnit), "give at least 1 variant a unit, or 0 for the runner's own")
	}
	return nil
}

// MinTime is the least time limit a measuring run is given: less measures nothing (opening the
// backend and the data set takes tens of milliseconds, a compile seconds), and every such call
// would stop again having done nothing.
const MinTime = time.Second

// tooShort is err (campaign.ErrTooShort) of a run whose time limit d ran out before it measured
// anything, as a refusal of the Time setting.
func tooShort(d time.Duration, err error) error {
	return wrong("Time", d.String(), "%w (opening the backend, compiling); give more, such as 9m", err)
}

// checkTime refuses a time limit that is negative or too short to measure anything (0: none).
func checkTime(d time.Duration) error {
	switch {
	case d < 0:
		return wrong("Time", d.String(), "give a positive duration such as 9m")
	case d > 0 && d < MinTime:
		return wrong("Time", d.String(), "too short to measure anything; give %s or more, such as 9m", MinTime)
	}
	return nil
}
