package hist

import (
	"fmt"
	"strings"

	"smart/models"
)

// Compiled is an ensemble with its LightGBM text and its leaves predictor: what gbdt and forest
// models embed. It implements the prediction methods of models.Regressor and models.Classifier,
// the payload of models.Fitted, and feature importance.
type Compiled struct {
	ens  *Ensemble
	text []byte
	pred *Predictor
}

// Compile writes e in LightGBM's text format and loads that text into leaves, so that training
// is checked to produce a model that loads.
func Compile(e *Ensemble) (*Compiled, error) {
	text, err := e.MarshalText()
	if err != nil {
		return nil, err
	}
	pred, err := NewPredictor(text)
	if err == nil {
		_, err = pred.Leaves()
	}
	if err != nil {
		return nil, fmt.Errorf("the written model does not load back: %w", err)
	}
	return &Compiled{ens: e, text: text, pred: pred}, nil
}

// FromText loads a LightGBM text model, whether written by Compile or by LightGBM.
func FromText(text []byte) (*Compiled, error) {
	ens, err := ParseLightGBM(text)
	if err != nil {
		return nil, err
	}
	pred, err := newPredictor(text, ens)
	if err != nil {
		return nil, err
	}
	return &Compiled{ens: ens, text: text, pred: pred}, nil
}

// MarshalBinary returns the model in LightGBM's text format: the payload of a model file.
func (c *Compiled) MarshalBinary() ([]byte, error) { return c.text, nil }

// NumClass is the number of classes, or 1 for a regression.
func (c *Compiled) NumClass() int { return c.ens.NumClass }

// NumFeatures is the number of features a row has.
func (c *Compiled) NumFeatures() int { return c.pred.Features() }

// NumTrees is the number of trees.
func (c *Compiled) NumTrees() int { return len(c.ens.Trees) }

// Predict returns the regression output (leaves' number, Predictor).
func (c *Compiled) Predict(row []float64) (float64, error) {
	if c.pred.Outputs() != 1 {
		return 0, fmt.Errorf("model has %d classes; use PredictProba", c.pred.Outputs())
	}
	out, err := c.pred.Row(row)
	if err != nil {
		return 0, err
	}
	return out[0], nil
}

// PredictBatch predicts many rows in parallel.
func (c *Compiled) PredictBatch(rows [][]float64) ([]float64, error) {
	if c.pred.Outputs() != 1 {
		return nil, fmt.Errorf("model has %d classes; use PredictProbaBatch", c.pred.Outputs())
	}
	return c.pred.Rows(rows)
}

// PredictProba returns class probabilities through leaves (Predictor).
func (c *Compiled) PredictProba(row []float64) ([]float64, error) {
	if c.pred.Outputs() < 2 {
		return nil, fmt.Errorf("model is a regression; use Predict")
	}
	return c.pred.Row(row)
}

// PredictProbaBatch returns class probabilities for many rows, in parallel.
func (c *Compiled) PredictProbaBatch(rows [][]float64) ([][]float64, error) {
	if c.pred.Outputs() < 2 {
		return nil, fmt.Errorf("model is a regression; use Predict")
	}
	flat, err := c.pred.Rows(rows)
	if err != nil {
		return nil, err
	}
	k := c.pred.Outputs()
	out := make([][]float64, len(rows))
	for i := range out {
		out[i] = flat[i*k : (i+1)*k : (i+1)*k]
	}
	return out, nil
}

// Eval evaluates the trees in Go without leaves: the regression output, or the class
// probabilities. It is the reference that leaves' predictions are checked against.
func (c *Compiled) Eval(row []float64) []float64 {
	raw := c.ens.Raw(row)
	if c.ens.NumClass > 1 {
		Softmax(raw)
	}
	return raw
}

// Importance returns the features' importance in schema order, named by features (or, where
// features is short, by the model's own names).
func (c *Compiled) Importance(features []string) []models.Importance {
	gains, counts := c.ens.SplitGains(), c.ens.SplitCounts()
	out := make([]models.Importance, len(gains))
	for f := range gains {
		name := c.ens.FeatureNames[f]
		if f < len(features) {
			name = features[f]
		}
		out[f] = models.Importance{Feature: name, Gain: gains[f], Splits: counts[f]}
	}
	return out
}

// SafeNames makes feature names fit LightGBM's space-separated feature_names line.
func SafeNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.Map(func(r rune) rune {
			if r <= ' ' || strings.ContainsRune("=:\",[]{}", r) {
				return '_'
			}
			return r
		}, n)
		if out[i] == "" {
			out[i] = fmt.Sprintf("Column_%d", i)
		}
	}
	return out
}

// CheckHeader reports why c cannot serve the model file header h.
func (c *Compiled) CheckHeader(h *models.Header) error {
	switch {
	case c.NumFeatures() != len(h.Features):
		return fmt.Errorf("LightGBM model reads %d features; the header lists %d", c.NumFeatures(), len(h.Features))
	case h.Task == models.Select && c.NumClass() != len(h.Classes):
		return fmt.Errorf("LightGBM model has %d classes; the header lists %d", c.NumClass(), len(h.Classes))
	case h.Task == models.Runtime && c.NumClass() != 1:
		return fmt.Errorf("LightGBM model has %d outputs; a runtime model has 1", c.NumClass())
	}
	return nil
}
