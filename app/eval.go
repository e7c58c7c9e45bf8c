package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"smart/catalog"
	"smart/dataset"
	"smart/internal/english"
	"smart/models"
	"smart/models/kinds"
	"smart/models/train"
)

// ErrNoInputs is a model file without the record of how its rows were built (models.Inputs),
// which Train writes: its data cannot be rebuilt to score it.
var ErrNoInputs = errors.New("no record of how its rows were built; it was not trained by app.Train")

// LocalModelError is a model of the local memory a thread keeps (task models.Local) given to
// Eval, which scores times and OCs.
type LocalModelError struct{ Model string }

func (e *LocalModelError) Error() string {
	return fmt.Sprintf("model %s predicts the local memory a thread keeps (task %s), not times or OCs", e.Model, models.Local)
}

// Eval scores a saved model on data sets: as it is, by cross-validating its kind with its
// hyper-parameters (Folds), or leave-one-GPU-out (Holdout).
type Eval struct {
	Model   string   // the model file
	Data    []string // data set directories
	Folds   int      // cross-validation folds; 0: none
	Holdout string   // a GPU of the data to hold out, "all" for each in turn, "": none
	Seed    uint64   // of the folds
	// CatalogFile is merged over the embedded catalogue; "": the embedded one alone.
	CatalogFile string
	// Progress, when set, gets the folds or held-out GPUs done.
	Progress func(done, total int)
}

// EvalResult is a model's scores: one report, or one per held-out GPU.
type EvalResult struct {
	File    string
	Model   *models.Model
	Reports []train.Report
	// AllHeldOut is true where each GPU was held out in turn (Holdout "all").
	AllHeldOut bool
}

// WriteText names the model and what it was trained on, then writes its scores: a table of
// the held-out GPUs, or each report's tables.
func (r *EvalResult) WriteText(w io.Writer) error {
	h := r.Model.Header
	fmt.Fprintf(w, "model %s: %s %s, trained on %s\n", r.File, h.Kind, h.Task, h.TrainingData())
	if r.AllHeldOut {
		return train.WriteHoldoutTable(w, r.Reports)
	}
	for _, rep := range r.Reports {
		if err := rep.WriteTables(w); err != nil {
			return err
		}
	}
	return nil
}

// Check refuses no data, one fold, and folds together with a held-out GPU, each a
// *SettingError of its field.
func (v Eval) Check() error {
	switch {
	case len(v.Data) == 0:
		return wrong("Data", "", "give the data set directories to score the model on")
	case v.Folds == 1 || v.Folds < 0:
		return wrong("Folds", fmt.Sprint(v.Folds), "use 2 or more folds")
	case v.Folds > 0 && v.Holdout != "":
		return wrong("Holdout", v.Holdout, "cross-validate or hold a GPU out, not both")
	}
	return nil
}

// trainedInstances says how many of the instances of set's rows (a stencil or foreign kernel on
// a GPU) the model was trained on, by in (its header's Instances), or "" for none or where the
// header records none: data re-imported or merged under another name, which its paths miss.
func trainedInstances(in *models.Instances, set *train.Set) string {
	if in == nil {
		return ""
	}
	keys := set.InstanceKeys()
	slices.Sort(keys)
	keys = slices.Compact(keys)
	trained := 0
	for _, k := range keys {
		if in.Has(k) {
			trained++
		}
	}
	all := english.Plural(len(keys), "instance") + " (a stencil or kernel on a GPU) these rows are of"
	switch trained {
	case 0:
		return ""
	case len(keys):
		return "the " + all
	}
	return fmt.Sprintf("%d of the %s", trained, all)
}

// Run checks v, reads the model, builds the data sets' rows as it was trained on them and
// scores it. notes gets the rows left out, the data's description and, where the data is what
// the model was trained on, that the scores are in-sample.
func (v Eval) Run(ctx context.Context, notes io.Writer) (*EvalResult, error) {
	if err := v.Check(); err != nil {
		return nil, err
	}
	all := kinds.All()
	m, err := models.Load(v.Model, all)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(v.CatalogFile)
	if err != nil {
		return nil, err
	}
	if v.Holdout != "" && v.Holdout != "all" {
		// The data name GPUs by the catalogue's names; take any name or alias of one.
		if g, err := cat.Lookup(v.Holdout); err == nil {
			v.Holdout = g.Name
		}
	}
	h := m.Header
	if h.Task == models.Local {
		return nil, &LocalModelError{Model: v.Model}
	}
	if h.Inputs == nil {
		return nil, fmt.Errorf("model %s: %w", v.Model, ErrNoInputs)
	}
	set, err := train.Load(ctx, v.Data, train.Options{Task: h.Task, Catalog: cat, Inputs: h.Inputs, Classes: h.Classes, Dims: h.Inputs.Dims})
	if err != nil {
		return nil, err
	}
	if set.Dropped > 0 {
		fmt.Fprintf(notes, "left out %d rows of stencils that are not %d-D, as the model is\n", set.Dropped, h.Inputs.Dims)
	}
	fmt.Fprintf(notes, "%s\n", set.Describe())
	reports, err := train.Assess(ctx, all, m, set, train.AssessOptions{Folds: v.Folds, Seed: v.Seed, Holdout: v.Holdout, Progress: v.Progress})
	if err != nil {
		return nil, err
	}
	id := func(dir string) string {
		if m, err := dataset.ReadMeta(dir); err == nil {
			return m.ID()
		}
		return ""
	}
	if v.Folds == 0 && v.Holdout == "" {
		overlap := h.TrainedOn(v.Data, id)
		if overlap == "" {
			overlap = trainedInstances(h.Instances, set)
		}
		if overlap != "" {
			fmt.Fprintf(notes, "note: the model was trained on %s: these scores are in-sample, not a test\n", overlap)
			for i := range reports {
				reports[i].InSample = overlap
			}
		}
	}
	return &EvalResult{File: v.Model, Model: m, Reports: reports, AllHeldOut: v.Holdout == "all"}, nil
}
