package app

import (
	"context"
	"fmt"
	"strconv"

	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/gbdt"
	"smart/models/kinds"
	"smart/models/train"
)

// Train trains a model of a kind on data sets: Load builds the matrix, Fit cross-validates
// it (CV folds grouped by stencil) and fits the model on all of it, and saves it to Out.
type Train struct {
	Data       []string     // data set directories
	Task       models.Task  // select or runtime
	Kind       string       // a kind of Kinds
	Kinds      models.Kinds // nil: kinds.All()
	Params     map[string]string
	CV         int              // cross-validation folds before the final fit; 0: none
	Seed       uint64           // of the folds
	Catalog    *catalog.Catalog // nil: the embedded catalogue
	NoAnalytic bool             // leave the analytic model's time out of the columns
	// Target is what a runtime model learns (train.Options.Target): models.TargetLnMs ("") or
	// models.TargetLnOverAnalytic.
	Target  string
	Dims    int    // keep only the stencils of this many dimensions; 0: all
	Out     string // the model file; "": not saved (the caller saves Trained)
	Replace bool   // replace Out even where it is not a model file
	// Labels, for select, are labels computed in memory for some of Data, by directory, in
	// place of their labels.json (dataset.ComputeLabels with another data set's classes).
	Labels map[string]*dataset.Labels
	// CrossValidation, when set, gets the folds done; Round each round of the final fit.
	CrossValidation func(done, total int)
	Round           func(models.Round)
}

// Trained is a model fitted and saved, with its cross-validation report and each row's
// prediction by the fold that did not see it (nil: none).
type Trained struct {
	Fitted      models.Fitted
	Header      *models.Header
	CV          *train.Report
	Predictions *train.Predictions
}

func (t Train) kinds() models.Kinds {
	if t.Kinds == nil {
		return kinds.All()
	}
	return t.Kinds
}

// Check refuses settings that cannot train: no data sets, one fold, stencils of other than 2 or 3
// dimensions, or an Out that holds something other than a model file (replacing a model is
// retraining; replacing anything else is a slip), unless Replace.
func (t Train) Check() error {
	switch {
	case len(t.Data) == 0:
		return wrong("Data", "", "give the data set directories to train on")
	case t.CV == 1 || t.CV < 0:
		return wrong("CV", strconv.Itoa(t.CV), "use 0 (no cross-validation) or 2 or more folds")
	case t.Dims != 0 && t.Dims != 2 && t.Dims != 3:
		return wrong("Dims", strconv.Itoa(t.Dims), "stencils are 2-D or 3-D")
	case t.Target != "" && t.Target != models.TargetLnMs && t.Target != models.TargetLnOverAnalytic:
		return wrong("Target", t.Target, "use "+models.TargetLnMs+" or "+models.TargetLnOverAnalytic)
	}
	return checkReplace("Out", t.Out, t.Replace, atomicfile.Kind{What: "a model file", Ours: models.IsModelFile})
}

// Load checks t (Check) and builds the matrix of the data sets for the kind and task; more
// cross-validation folds than the data has stencils are a *SettingError of CV. Once ctx is done
// it stops reading, with an error that wraps ctx.Err().
func (t Train) Load(ctx context.Context) (*train.Set, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	kind, err := t.kinds().Lookup(t.Kind, t.Task)
	if err != nil {
		return nil, &SettingError{Field: "Kind", Err: err, Wrong: true}
	}
	set, err := train.Load(ctx, t.Data, train.Options{Task: t.Task, Tensor: kind.Tensor, Catalog: t.Catalog, NoAnalytic: t.NoAnalytic, Dims: t.Dims, Labels: t.Labels,
		Target: t.Target})
	if err != nil {
		return nil, err
	}
	// Each fold holds a stencil (a configuration of a foreign kernel) at least: said before any
	// training, not after the first.
	switch groups := distinct(set.Data.Groups); {
	case t.CV > 0 && groups < 2:
		return nil, wrong("CV", strconv.Itoa(t.CV), "the data has %d stencil (or configuration) and cross-validation needs 2; use 0 to train without it", groups)
	case t.CV > groups:
		return nil, wrong("CV", strconv.Itoa(t.CV), "the data has %d stencils (or configurations) and each fold holds one at least; use at most %d, or 0 to train without cross-validation", groups, groups)
	}
	return set, nil
}

// Fit cross-validates on set, fits the model on all of it and saves it to Out, if any.
func (t Train) Fit(ctx context.Context, set *train.Set) (*Trained, error) {
	out := &Trained{}
	if t.Kind == "gbdt" {
		// A leaf of more than half the rows leaves no split: the model would be its root, the
		// same prediction for every row. The default is refused too, not lowered: LightGBM's
		// users expect a default to be the same on every data set. One row splits at no value.
		n := gbdt.DefaultParams().MinDataInLeaf
		v, given := t.Params["min_data_in_leaf"]
		if given {
			n, _ = strconv.Atoi(v) // a malformed value (0 here) is the kind's to refuse
		}
		if rows := len(set.Data.X); 2*n > rows && rows >= 2 {
			what := fmt.Sprint(n)
			if !given {
				what += " (the default)"
			}
			return nil, fmt.Errorf("gbdt: %w", models.ParamError{Err: fmt.Errorf("min_data_in_leaf is %s, but no tree could split %d rows into leaves that large; give min_data_in_leaf=N with N at most %d (less where cross-validation and early stopping hold rows out)", what, rows, rows/2)})
		}
	}
	if t.CV > 0 {
		progress := func(done int) {
			if t.CrossValidation != nil {
				t.CrossValidation(done, t.CV)
			}
		}
		p, err := train.CrossValidate(ctx, t.kinds(), t.Kind, set, t.CV, t.Seed, t.Params, progress)
		if err != nil {
			return nil, fmt.Errorf("cross-validation: %w", err)
		}
		r := train.Score(set, p)
		r.Kind, r.Folds = t.Kind, t.CV
		out.CV, out.Predictions = &r, p
	}
	var err error
	if out.Fitted, out.Header, err = train.Fit(ctx, t.kinds(), t.Kind, set, t.Params, t.Round); err != nil {
		return nil, err
	}
	if out.CV != nil {
		out.Header.CV = out.CV.Summary()
	}
	if t.Out == "" {
		return out, nil
	}
	if err := models.Save(t.Out, out.Header, out.Fitted); err != nil {
		return nil, err
	}
	return out, nil
}

// distinct counts the different values of xs.
func distinct(xs []string) int {
	seen := make(map[string]bool, len(xs))
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}
