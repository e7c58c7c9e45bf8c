package hist

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/dmitryikh/leaves"
)

// Predictor evaluates a LightGBM text model with leaves' numbers: a regression through its own
// forest, bit for bit leaves' and faster, other models through leaves. Multiclass models return
// softmax probabilities, regression models and forests their raw (or averaged) output. leaves
// panics on some malformed input; every call here recovers and returns an error instead.
type Predictor struct {
	text     []byte
	outputs  int
	features int
	threads  int
	// forest predicts a regression (leaves' raw output, the trees' sum) in leaves' place,
	// with the same numbers; nil for classifiers and averaged forests.
	forest *forest

	// ens is leaves' model, loaded by the constructor where it predicts and on first use
	// (Leaves) where the forest does: a cold prediction spends its time loading trees.
	once   sync.Once
	ens    *leaves.Ensemble
	ensErr error
}

// NewPredictor loads a LightGBM text model with leaves. It checks the text with ParseLightGBM
// first, so that malformed trees are reported with their position rather than by a panic.
func NewPredictor(text []byte) (*Predictor, error) {
	e, err := ParseLightGBM(text)
	if err != nil {
		return nil, err
	}
	return newPredictor(text, e)
}

// newPredictor makes the predictor of text, already parsed as e. A regression (an objective
// leaves leaves untransformed, one output, trees summed) is predicted by the forest, and leaves
// loads it only if asked (Leaves); any other model is loaded into leaves here.
func newPredictor(text []byte, e *Ensemble) (*Predictor, error) {
	p := &Predictor{text: text, outputs: 1, features: len(e.FeatureNames), threads: runtime.GOMAXPROCS(0)}
	if e.NumClass == 1 && strings.HasPrefix(e.Objective, "regression") && !e.AverageOutput {
		p.forest = newForest(e)
		return p, nil
	}
	ens, err := p.Leaves()
	if err != nil {
		return nil, err
	}
	p.outputs = ens.NOutputGroups()
	return p, nil
}

// Leaves returns leaves' model of the text, loading it on the first call.
func (p *Predictor) Leaves() (*leaves.Ensemble, error) {
	p.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				p.ens, p.ensErr = nil, fmt.Errorf("leaves could not load the model: %v", r)
			}
		}()
		if p.ens, p.ensErr = leaves.LGEnsembleFromReader(bufio.NewReader(bytes.NewReader(p.text)), true); p.ensErr != nil {
			p.ensErr = fmt.Errorf("leaves could not load the model: %w", p.ensErr)
		}
	})
	return p.ens, p.ensErr
}

// Outputs is the number of values per row: 1, or the number of classes.
func (p *Predictor) Outputs() int { return p.outputs }

// Features is the number of features a row must have.
func (p *Predictor) Features() int { return p.features }

// Row predicts one row.
func (p *Predictor) Row(row []float64) (out []float64, err error) {
	if len(row) != p.features {
		return nil, fmt.Errorf("row has %d features; the model reads %d", len(row), p.features)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("leaves failed to predict: %v", r)
		}
	}()
	if p.forest != nil {
		out = make([]float64, 1)
		p.forest.predictBlock([][]float64{row}, out)
		return out, nil
	}
	out = make([]float64, p.outputs)
	if err := p.ens.Predict(row, 0, out); err != nil {
		return nil, fmt.Errorf("leaves failed to predict: %w", err)
	}
	return out, nil
}

// Rows predicts many rows in parallel; the result holds Outputs() values per row, row after row.
func (p *Predictor) Rows(rows [][]float64) ([]float64, error) {
	for i, r := range rows {
		if len(r) != p.features {
			return nil, fmt.Errorf("row %d has %d features; the model reads %d", i, len(r), p.features)
		}
	}
	if p.forest != nil {
		out := make([]float64, len(rows))
		p.forest.predictRows(rows, out, p.threads)
		return out, nil
	}
	out := make([]float64, len(rows)*p.outputs)
	// leaves predicts on goroutines of its own when given several threads, where a panic of
	// its would end the process: the rows are split here, each part predicted on one thread
	// under a recover.
	parts := max(1, min(p.threads, len(rows)))
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for k := range parts {
		lo, hi := k*len(rows)/parts, (k+1)*len(rows)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = p.dense(rows[lo:hi], out[lo*p.outputs:hi*p.outputs])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// dense predicts rows into out on one thread, a panic of leaves returned as an error.
func (p *Predictor) dense(rows [][]float64, out []float64) (err error) {
	if len(rows) == 0 {
		return nil
	}
	flat := make([]float64, 0, len(rows)*p.features)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("leaves failed to predict: %v", r)
		}
	}()
	if err := p.ens.PredictDense(flat, len(rows), p.features, out, 0, 1); err != nil {
		return fmt.Errorf("leaves failed to predict: %w", err)
	}
	return nil
}
