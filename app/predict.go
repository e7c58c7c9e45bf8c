package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"smart"
	"smart/catalog"
	"smart/dataset/gpuinfo"
	"smart/generator"
	"smart/models/kinds"
	"smart/predict"
)

// OpenPredictor returns the default predictor with the catalogue merged over by catalogFile
// ("" for none) and the models of modelFiles (smart train's files) in place of the defaults
// of their task and dimensions.
func OpenPredictor(catalogFile string, modelFiles []string) (*predict.Predictor, error) {
	p, err := predict.DefaultPredictor()
	if err != nil {
		return nil, err
	}
	if p.Catalog, err = catalog.Load(catalogFile); err != nil {
		return nil, err
	}
	p.CatalogFile = catalogFile
	all := kinds.All()
	for _, f := range modelFiles {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &SettingError{Field: "Models", Value: f, Err: fmt.Errorf("model file %s: no such file", f), Wrong: true}
		}
		if err != nil {
			return nil, fmt.Errorf("model file %s: %w", f, err)
		}
		if err := p.Models.Use(b, f, all); err != nil {
			if two := (*predict.TwoModelsError)(nil); errors.As(err, &two) {
				return nil, &SettingError{Field: "Models", Err: err, Wrong: true}
			}
			return nil, err
		}
	}
	return p, nil
}

// PredictSettings are the predictor of smart predict and smart recommend, and the GPU that
// predict searches.
type PredictSettings struct {
	GPU     string   // catalogue name or alias of the GPU to search; "" for the GPU NVML finds
	Catalog string   // GPU catalogue file merged over the embedded one; "" for none
	Models  []string // smart train's files, in place of the defaults of their task and dimensions
	// AllGPUs puts every catalogued GPU in the table, not only those the models were trained on
	// and those with a price.
	AllGPUs bool
	// Candidates is how many of the most probable OC classes are searched, each however
	// improbable; 0 keeps the default budget (predict.DefaultClasses classes, each after the
	// first at least predict.DefaultMinProbability probable).
	Candidates int
	Samples    int // random settings scored per OC searched in depth; 0 keeps the default budget's
	// NoTransfer searches a GPU without measurements of its own with the simulated default, not
	// with the runtime model of the nearest GPU measured scaled by the analytic model.
	NoTransfer bool
	// AnalyticWeight, when set, replaces predict.DefaultAnalyticWeight: the weight of the
	// calibrated analytic model's time in the ranking of the candidates, in [0, 1].
	AnalyticWeight *float64
}

// MaxSamples bounds Samples, far above the default 192: a search of an OC scores this many
// settings a few times over.
const MaxSamples = 1 << 20

// Check refuses a negative number of candidates and a number of samples out of range, each as
// a *SettingError of its field.
func (s PredictSettings) Check() error {
	switch {
	case s.Candidates < 0:
		return wrong("Candidates", fmt.Sprint(s.Candidates), "search at least 1 OC class")
	case s.Samples < 0 || s.Samples > MaxSamples:
		return wrong("Samples", fmt.Sprint(s.Samples), "score 1 to %d settings", MaxSamples)
	case s.AnalyticWeight != nil && !(*s.AnalyticWeight >= 0 && *s.AnalyticWeight <= 1):
		return wrong("AnalyticWeight", fmt.Sprint(*s.AnalyticWeight), "give a weight from 0 (the runtime model alone) to 1 (the analytic model alone); the default is %g", predict.DefaultAnalyticWeight)
	}
	return nil
}

// Predictor checks s and opens its predictor.
func (s PredictSettings) Predictor() (*predict.Predictor, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	p, err := OpenPredictor(s.Catalog, s.Models)
	if err != nil {
		return nil, err
	}
	if s.Samples > 0 {
		p.Budget.Deep.Samples = s.Samples
	}
	if s.Candidates > 0 {
		// N classes asked for are N searched, however improbable the classifier finds them.
		p.Budget.Classes, p.Budget.MinProbability = s.Candidates, 0
	}
	p.Transfer = !s.NoTransfer
	p.AllGPUs = s.AllGPUs
	if s.AnalyticWeight != nil {
		p.AnalyticWeight = *s.AnalyticWeight
	}
	return p, nil
}

// NoGPUNamedError is a GPU that was not named and could not be found: Err is
// gpuinfo.ErrNoGPU where the machine has none.
type NoGPUNamedError struct{ Err error }

func (e *NoGPUNamedError) Error() string { return e.Err.Error() }

func (e *NoGPUNamedError) Unwrap() error { return e.Err }

// SearchGPU is the catalogue name of the GPU that s names, or of the one NVML finds where it
// names none; a GPU the catalogue lacks, or one that does not run CUDA, is a SettingError of
// GPU.
func (s PredictSettings) SearchGPU(cat *catalog.Catalog) (string, error) {
	gpu := s.GPU
	if gpu == "" {
		found, err := gpuinfo.FirstGPU()
		if err != nil {
			return "", &NoGPUNamedError{Err: err}
		}
		gpu = found
	}
	g, err := cat.Lookup(gpu)
	if err != nil {
		return "", &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	if err := g.RunsCUDA(); err != nil {
		return "", &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	return gpu, nil
}

// Open opens the predictor of s, finds the GPU it searches (SearchGPU) and reads the stencils
// of paths (InputsFor).
func (s PredictSettings) Open(paths []string, stdin io.Reader) (*predict.Predictor, string, []predict.Input, error) {
	p, err := s.Predictor()
	if err != nil {
		return nil, "", nil, err
	}
	gpu, err := s.SearchGPU(p.Catalog)
	if err != nil {
		return nil, "", nil, err
	}
	ins, err := InputsFor(p, paths, stdin)
	return p, gpu, ins, err
}

// InputsFor reads the stencils of paths (PredictInputs) for p and refuses a model given to p
// (PredictSettings.Models) that none of them can use, as a *SettingError of Models naming it.
// Where some stencils were read and others not, it returns those read and an *UnreadError.
func InputsFor(p *predict.Predictor, paths []string, stdin io.Reader) ([]predict.Input, error) {
	ins, unread := PredictInputs(paths, stdin)
	if len(ins) == 0 {
		return nil, unread
	}
	var unused *predict.UnusedModelError
	switch err := p.Models.CheckGiven(ins); {
	case errors.As(err, &unused):
		return nil, wrong("Models", unused.Model, "was trained on %d-D stencils; none of the stencils given is %d-D", unused.Dims, unused.Dims)
	case err != nil:
		return nil, err
	}
	if unread != nil {
		return ins, &UnreadError{Err: unread}
	}
	return ins, nil
}

// UnreadError says that some stencils of a prediction could not be read (each failure naming
// its file); the others were, and a prediction goes on with them.
type UnreadError struct{ Err error }

func (e *UnreadError) Error() string { return e.Err.Error() }
func (e *UnreadError) Unwrap() error { return e.Err }

// PredictInputs reads the stencils of files, directories (their *.json), embedded sample names
// and stdin ("-"), going on past those that fail (generator.LoadAll): it returns those read
// and the failures joined.
func PredictInputs(paths []string, stdin io.Reader) ([]predict.Input, error) {
	named, err := generator.LoadAll(paths, stdin, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	out := make([]predict.Input, len(named))
	for i, n := range named {
		out[i] = predict.Input{Stencil: n.Stencil, File: n.File}
	}
	return out, err
}
