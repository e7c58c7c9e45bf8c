package models

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Classifier returns the probability of each class for a row of features. Class i is
// Header.Classes[i].
type Classifier interface {
	PredictProba(row []float64) ([]float64, error)
	PredictProbaBatch(rows [][]float64) ([][]float64, error)
}

// Regressor predicts one number for a row of features: for a kind's own implementation the
// training target (ln of milliseconds per step), for a loaded Model milliseconds per step.
type Regressor interface {
	Predict(row []float64) (float64, error)
	PredictBatch(rows [][]float64) ([]float64, error)
}

// Task is what a model predicts.
type Task string

// The tasks.
const (
	Select  Task = "select"  // best OC class of a stencil (classification)
	Runtime Task = "runtime" // time per step of a variant (regression on ln ms)
	// Local is the local memory a thread of a variant keeps, in bytes (regression on ln(1 +
	// bytes), TargetLnLocalBytes): spilled registers and arrays indexed at run time, learned
	// from the compiler's reports (bench/regmodel -local writes it; smart train does not).
	Local Task = "local"
)

// ParseTask reads a task name.
func ParseTask(s string) (Task, error) {
	switch Task(s) {
	case Select, Runtime:
		return Task(s), nil
	}
	return "", fmt.Errorf("unknown task %q: use %q (best OC) or %q (time per step)", s, Select, Runtime)
}

// Data is a feature matrix with its targets: what a Kind trains on.
type Data struct {
	Task     Task
	Features []string    // column names, in order
	X        [][]float64 // one row per sample
	// Y is the class index (Select) or ln of milliseconds per step (Runtime).
	Y       []float64
	Classes int      // number of classes (Select)
	Groups  []string // group of each row (the stencil ID): rows of a group stay on one side of a split
}

// Rows is the number of samples.
func (d *Data) Rows() int { return len(d.X) }

// Check reports why the matrix is not fit for training, or nil.
func (d *Data) Check() error {
	switch {
	case len(d.X) == 0:
		return fmt.Errorf("no rows to train on")
	case len(d.Y) != len(d.X):
		return fmt.Errorf("%d rows but %d targets", len(d.X), len(d.Y))
	case d.Groups != nil && len(d.Groups) != len(d.X):
		return fmt.Errorf("%d rows but %d groups", len(d.X), len(d.Groups))
	case d.Task == Select && d.Classes < 2:
		return fmt.Errorf("selection needs at least 2 classes, have %d", d.Classes)
	}
	for i, r := range d.X {
		if len(r) != len(d.Features) {
			return fmt.Errorf("row %d has %d features, the schema %d", i, len(r), len(d.Features))
		}
		if j := nonFinite(r); j >= 0 {
			return fmt.Errorf("row %d: feature %s is %v; features must be finite numbers", i, d.Features[j], r[j])
		}
		if math.IsNaN(d.Y[i]) || math.IsInf(d.Y[i], 0) {
			return fmt.Errorf("row %d: target is %v; targets must be finite", i, d.Y[i])
		}
	}
	if d.Task == Select {
		for i, y := range d.Y {
			if y != float64(int(y)) || y < 0 || int(y) >= d.Classes {
				return fmt.Errorf("row %d: class %v is not an integer in [0, %d)", i, y, d.Classes)
			}
		}
	}
	return nil
}

// nonFinite returns the index of the first NaN or infinite value of row, or -1.
func nonFinite(row []float64) int {
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return j
		}
	}
	return -1
}

// Subset returns the rows at idx (sharing the row slices).
func (d *Data) Subset(idx []int) *Data {
	s := &Data{Task: d.Task, Features: d.Features, Classes: d.Classes,
		X: make([][]float64, len(idx)), Y: make([]float64, len(idx))}
	if d.Groups != nil {
		s.Groups = make([]string, len(idx))
	}
	for i, j := range idx {
		s.X[i], s.Y[i] = d.X[j], d.Y[j]
		if d.Groups != nil {
			s.Groups[i] = d.Groups[j]
		}
	}
	return s
}

// Round is the progress of training after one boosting round or epoch.
type Round struct {
	Round, Rounds int
	Metric        string  // name of the loss, e.g. "l2" or "multi_logloss"
	Train         float64 // loss on the training rows
	Valid         float64 // loss on the validation rows; NaN without them
}

// Fitted is a trained model ready to save. It also implements Classifier or Regressor.
type Fitted interface {
	// Hyper returns the hyper-parameters it was trained with, defaults filled in; they are saved
	// in the header as JSON.
	Hyper() any
	// MarshalBinary returns the payload that the kind's Decode reads back.
	MarshalBinary() ([]byte, error)
}

// TrainFunc fits a model. valid may be nil; a kind that stops early uses it. params are the
// user's "name=value" hyper-parameters; an unknown name is an error that lists the known ones.
// report, if not nil, is called after each round.
type TrainFunc func(ctx context.Context, train, valid *Data, params map[string]string, report func(Round)) (Fitted, error)

// DecodeFunc reads a payload written by Fitted.MarshalBinary and returns a Classifier or a
// Regressor for h.Task.
type DecodeFunc func(h *Header, payload []byte) (any, error)

// Kind is one model family.
type Kind struct {
	Tasks []Task // the tasks it can learn
	// Normalize asks that features be scaled to [0, 1] (by the training rows' minimum and maximum)
	// before training and prediction; distance- and gradient-based kinds need it, trees do not.
	Normalize bool
	// Tensor asks for the stencil's binary tensor among the columns (features.TensorNames);
	// kinds that read only the feature vector leave it false.
	Tensor bool
	Train  TrainFunc
	Decode DecodeFunc
}

// Kinds maps kind names (as written in model files and given to smart train --model) to kinds.
type Kinds map[string]Kind

// Names returns the registered names, sorted.
func (k Kinds) Names() []string { return slices.Sorted(maps.Keys(k)) }

// Lookup returns the kind called name that can learn task.
func (k Kinds) Lookup(name string, task Task) (Kind, error) {
	kind, ok := k[name]
	if !ok {
		return Kind{}, fmt.Errorf("unknown model kind %q; known kinds: %s", name, strings.Join(k.Names(), ", "))
	}
	if !slices.Contains(kind.Tasks, task) {
		var can []string
		for _, n := range k.Names() {
			if slices.Contains(k[n].Tasks, task) {
				can = append(can, n)
			}
		}
		return Kind{}, fmt.Errorf("model kind %q cannot learn the %s task; kinds that can: %s", name, task, strings.Join(can, ", "))
	}
	return kind, nil
}

// ParseParams reads "name=value" pairs separated by commas, as given to smart train --param.
func ParseParams(s string) (map[string]string, error) {
	p := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return p, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("parameter %q is not of the form name=value", item)
		}
		if _, dup := p[k]; dup {
			return nil, fmt.Errorf("parameter %s is given twice", k)
		}
		p[k] = v
	}
	return p, nil
}

// ParamError marks an error in the hyper-parameters a kind was given (smart train --param), as
// against one in the data: the caller can tell the user the fix is in the command line.
type ParamError struct{ Err error }

func (e ParamError) Error() string { return e.Err.Error() }
func (e ParamError) Unwrap() error { return e.Err }

// ApplyParams sets hyper-parameters from "name=value" strings into the pointers of known (each
// an *int, *float64, *bool or *string), so every kind parses its parameters the same way. An
// unknown name or a value of the wrong type is a ParamError naming the parameter.
func ApplyParams(params map[string]string, known map[string]any) error {
	if err := applyParams(params, known); err != nil {
		return ParamError{err}
	}
	return nil
}

func applyParams(params map[string]string, known map[string]any) error {
	for _, name := range slices.Sorted(maps.Keys(params)) {
		v := params[name]
		dst, ok := known[name]
		if !ok {
			valid := slices.Sorted(maps.Keys(known))
			return fmt.Errorf("unknown hyper-parameter %q; this kind takes %s", name, strings.Join(valid, ", "))
		}
		var err error
		switch p := dst.(type) {
		case *int:
			*p, err = strconv.Atoi(v)
		case *uint64:
			*p, err = strconv.ParseUint(v, 10, 64)
		case *float64:
			*p, err = strconv.ParseFloat(v, 64)
			if err == nil && (math.IsNaN(*p) || math.IsInf(*p, 0)) {
				return fmt.Errorf("hyper-parameter %s=%q: not a finite number", name, v)
			}
		case *bool:
			*p, err = strconv.ParseBool(v)
		case *string:
			*p = v
		default:
			return fmt.Errorf("hyper-parameter %s has unsupported type %T", name, dst)
		}
		if err != nil {
			return fmt.Errorf("hyper-parameter %s=%q: not a valid %s", name, v, strings.TrimPrefix(fmt.Sprintf("%T", dst), "*"))
		}
	}
	return nil
}

// Importance is how much a feature contributed to a tree model.
type Importance struct {
	Feature string  `json:"feature"`
	Gain    float64 `json:"gain"`   // total gain of the splits on it
	Splits  int     `json:"splits"` // number of splits on it
}
