// Package golearn puts golearn's CART and KNN regressors (IterML section 3.3) behind
// models.Regressor, for the IterML pruning loop and for comparison with gbdt and forest.
//
// golearn's CART regressor re-scans every candidate threshold against every row, so training
// grows with the square of the rows: Train fits it on at most MaxRows rows (a seeded random
// subsample, 2000 by default) and records how many it used. KNN keeps its training rows and
// searches them all per prediction, so it too keeps at most MaxRows rows (20000 by default);
// its features are scaled to [0, 1] (the kind asks models for normalisation) so that no feature
// dominates the distance. golearn panics on some input; every call into it recovers.
package golearn

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/knn"
	"github.com/sjwhitworth/golearn/trees"
	"gonum.org/v1/gonum/mat"

	"smart/models"
)

// CARTParams are the hyper-parameters of the cart kind.
type CARTParams struct {
	MaxDepth  int    `json:"max_depth"` // -1: grow until leaves are pure
	Criterion string `json:"criterion"` // "mse" or "mae"
	MaxRows   int    `json:"max_rows"`  // rows golearn is fitted on, at most
	Seed      uint64 `json:"seed"`
	RowsUsed  int    `json:"rows_used"` // set by training
}

// DefaultCART returns the defaults of smart train --model cart.
func DefaultCART() CARTParams {
	return CARTParams{MaxDepth: 12, Criterion: "mse", MaxRows: 2000, Seed: 1}
}

// CART is a trained golearn CART regressor; it implements models.Regressor and models.Fitted.
type CART struct {
	Params CARTParams
	tree   *trees.CARTDecisionTreeRegressor
	cols   int
}

func (p CARTParams) check() error {
	switch {
	case p.Criterion != "mse" && p.Criterion != "mae":
		return fmt.Errorf("criterion is %q; use mse or mae", p.Criterion)
	case p.MaxDepth < -1 || p.MaxDepth == 0:
		return fmt.Errorf("max_depth is %d; use -1 (no limit) or 1 or more", p.MaxDepth)
	case p.MaxRows < 2:
		return fmt.Errorf("max_rows is %d; use 2 or more", p.MaxRows)
	}
	return nil
}

// TrainCART fits golearn's CART regressor to d (at most p.MaxRows rows of it).
func TrainCART(ctx context.Context, d *models.Data, p CARTParams) (c *CART, err error) {
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("cart: training data: %w", err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("cart: %w", models.ParamError{Err: err})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	X, Y := capRows(d, p.MaxRows, p.Seed)
	p.RowsUsed = len(X)
	inst, err := instances(X, Y)
	if err != nil {
		return nil, fmt.Errorf("cart: %w", err)
	}
	tree := trees.NewDecisionTreeRegressor(p.Criterion, int64(p.MaxDepth))
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("cart: golearn failed: %v", r)
		}
	}()
	if err := tree.Fit(inst); err != nil {
		return nil, fmt.Errorf("cart: golearn: %w", err)
	}
	return &CART{Params: p, tree: tree, cols: len(d.Features)}, nil
}

// capRows returns at most n rows of d, drawn without replacement with seed when there are more.
func capRows(d *models.Data, n int, seed uint64) ([][]float64, []float64) {
	if d.Rows() <= n {
		return d.X, d.Y
	}
	idx := rand.New(rand.NewPCG(seed, 0xca27)).Perm(d.Rows())[:n]
	X, Y := make([][]float64, n), make([]float64, n)
	for i, j := range idx {
		X[i], Y[i] = d.X[j], d.Y[j]
	}
	return X, Y
}

// instances builds golearn's data grid: one float attribute per feature and, when Y is not nil,
// a float class attribute holding the target.
func instances(X [][]float64, Y []float64) (*base.DenseInstances, error) {
	inst := base.NewDenseInstances()
	cols := len(X[0])
	specs := make([]base.AttributeSpec, cols)
	for j := range specs {
		specs[j] = inst.AddAttribute(base.NewFloatAttribute(fmt.Sprintf("f%d", j)))
	}
	var target base.AttributeSpec
	if Y != nil {
		a := base.NewFloatAttribute("target")
		target = inst.AddAttribute(a)
		if err := inst.AddClassAttribute(a); err != nil {
			return nil, err
		}
	}
	if err := inst.Extend(len(X)); err != nil {
		return nil, err
	}
	for i, row := range X {
		for j, v := range row {
			inst.Set(specs[j], i, base.PackFloatToBytes(v))
		}
		if Y != nil {
			inst.Set(target, i, base.PackFloatToBytes(Y[i]))
		}
	}
	return inst, nil
}

// Hyper implements models.Fitted.
func (c *CART) Hyper() any { return c.Params }

// cartPayload is what a cart model file holds: the parameters and golearn's tree.
type cartPayload struct {
	Params CARTParams      `json:"params"`
	Cols   int             `json:"cols"`
	Root   json.RawMessage `json:"root"`
}

// MarshalBinary implements models.Fitted: JSON of the parameters and golearn's node tree.
func (c *CART) MarshalBinary() ([]byte, error) {
	root, err := json.Marshal(c.tree.RootNode)
	if err != nil {
		return nil, err
	}
	return json.Marshal(cartPayload{Params: c.Params, Cols: c.cols, Root: root})
}

// DecodeCART reads a cart payload.
func DecodeCART(h *models.Header, payload []byte) (any, error) {
	var p cartPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, fmt.Errorf("cart payload: %w", err)
	}
	if p.Cols != len(h.Features) {
		return nil, fmt.Errorf("cart model reads %d features; the header lists %d", p.Cols, len(h.Features))
	}
	// Every node's feature must index a row, or prediction would panic deep in golearn.
	var mirror *node
	if err := json.Unmarshal(p.Root, &mirror); err != nil {
		return nil, fmt.Errorf("cart payload: no valid tree: %w", err)
	}
	if mirror == nil {
		return nil, errors.New("cart payload: no tree (null)")
	}
	if err := mirror.check(p.Cols); err != nil {
		return nil, err
	}
	tree := trees.NewDecisionTreeRegressor(p.Params.Criterion, int64(p.Params.MaxDepth))
	if err := json.Unmarshal(p.Root, &tree.RootNode); err != nil {
		return nil, fmt.Errorf("cart payload: %w", err)
	}
	return &CART{Params: p.Params, tree: tree, cols: p.Cols}, nil
}

// node mirrors the exported fields of golearn's tree nodes, to validate a decoded tree.
type node struct {
	Left, Right *node
	Feature     int64
}

func (n *node) check(cols int) error {
	if n == nil {
		return nil
	}
	if n.Feature < 0 || n.Feature >= int64(cols) {
		return fmt.Errorf("cart payload: a node splits on feature %d of %d", n.Feature, cols)
	}
	if err := n.Left.check(cols); err != nil {
		return err
	}
	return n.Right.check(cols)
}

// Predict predicts one row through golearn.
func (c *CART) Predict(row []float64) (float64, error) {
	out, err := c.PredictBatch([][]float64{row})
	if err != nil {
		return 0, err
	}
	return out[0], nil
}

// PredictBatch predicts rows through golearn.
func (c *CART) PredictBatch(rows [][]float64) (out []float64, err error) {
	if len(rows) == 0 {
		return nil, nil
	}
	for i, r := range rows {
		if len(r) != c.cols {
			return nil, fmt.Errorf("cart: row %d has %d features; the model reads %d", i, len(r), c.cols)
		}
	}
	inst, err := instances(rows, nil)
	if err != nil {
		return nil, fmt.Errorf("cart: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("cart: golearn failed to predict: %v", r)
		}
	}()
	return c.tree.Predict(inst), nil
}

// KNNParams are the hyper-parameters of the knn kind.
type KNNParams struct {
	K        int    `json:"k"`
	Distance string `json:"distance"` // "euclidean" or "manhattan"
	MaxRows  int    `json:"max_rows"` // training rows kept, at most
	Seed     uint64 `json:"seed"`
	RowsUsed int    `json:"rows_used"` // set by training
}

// DefaultKNN returns the defaults of smart train --model knn.
func DefaultKNN() KNNParams {
	return KNNParams{K: 5, Distance: "euclidean", MaxRows: 20000, Seed: 1}
}

// KNN is a golearn KNN regressor: the mean target of the K nearest training rows. It implements
// models.Regressor and models.Fitted.
type KNN struct {
	Params KNNParams
	knn    *knn.KNNRegressor
	x, y   []float64 // the training rows (flat) and targets, kept for saving
	cols   int
}

func (p KNNParams) check() error {
	switch {
	case p.Distance != "euclidean" && p.Distance != "manhattan":
		return fmt.Errorf("distance is %q; use euclidean or manhattan", p.Distance)
	case p.MaxRows < 1:
		return fmt.Errorf("max_rows is %d; use 1 or more", p.MaxRows)
	case p.K < 1:
		return fmt.Errorf("k is %d; use 1 or more", p.K)
	}
	return nil
}

// TrainKNN stores at most p.MaxRows rows of d in golearn's KNN regressor.
func TrainKNN(ctx context.Context, d *models.Data, p KNNParams) (*KNN, error) {
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("knn: training data: %w", err)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("knn: %w", models.ParamError{Err: err})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	X, Y := capRows(d, p.MaxRows, p.Seed)
	if p.K > len(X) {
		err := fmt.Errorf("k is %d but there are only %d training rows", p.K, len(X))
		if len(X) < d.Rows() {
			err = fmt.Errorf("k is %d but max_rows=%d keeps only %d training rows", p.K, p.MaxRows, len(X))
		}
		return nil, fmt.Errorf("knn: %w", models.ParamError{Err: err})
	}
	p.RowsUsed = len(X)
	flat := make([]float64, 0, len(X)*len(d.Features))
	for _, r := range X {
		flat = append(flat, r...)
	}
	return newKNN(p, flat, append([]float64(nil), Y...), len(d.Features))
}

func newKNN(p KNNParams, x, y []float64, cols int) (k *KNN, err error) {
	defer func() {
		if r := recover(); r != nil {
			k, err = nil, fmt.Errorf("knn: golearn failed: %v", r)
		}
	}()
	reg := knn.NewKnnRegressor(p.Distance)
	reg.Fit(y, x, len(y), cols)
	return &KNN{Params: p, knn: reg, x: x, y: y, cols: cols}, nil
}

// Hyper implements models.Fitted.
func (k *KNN) Hyper() any { return k.Params }

type knnPayload struct {
	Params KNNParams
	Cols   int
	X, Y   []float64
}

// MarshalBinary implements models.Fitted: the parameters and the kept rows, gob-encoded.
func (k *KNN) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(knnPayload{Params: k.Params, Cols: k.cols, X: k.x, Y: k.y})
	return b.Bytes(), err
}

// DecodeKNN reads a knn payload.
func DecodeKNN(h *models.Header, payload []byte) (any, error) {
	var p knnPayload
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&p); err != nil {
		return nil, fmt.Errorf("knn payload: %w", err)
	}
	switch {
	case p.Cols != len(h.Features):
		return nil, fmt.Errorf("knn model reads %d features; the header lists %d", p.Cols, len(h.Features))
	case p.Cols < 1 || len(p.X) != len(p.Y)*p.Cols:
		return nil, fmt.Errorf("knn payload holds %d values for %d rows of %d features", len(p.X), len(p.Y), p.Cols)
	case p.Params.K < 1 || p.Params.K > len(p.Y):
		return nil, fmt.Errorf("knn payload has k=%d for %d rows", p.Params.K, len(p.Y))
	}
	return newKNN(p.Params, p.X, p.Y, p.Cols)
}

// Predict returns the mean target of the K nearest training rows.
func (k *KNN) Predict(row []float64) (v float64, err error) {
	if len(row) != k.cols {
		return 0, fmt.Errorf("knn: row has %d features; the model reads %d", len(row), k.cols)
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = 0, fmt.Errorf("knn: golearn failed to predict: %v", r)
		}
	}()
	return k.knn.Predict(mat.NewDense(1, k.cols, append([]float64(nil), row...)), k.Params.K), nil
}

// PredictBatch predicts each row.
func (k *KNN) PredictBatch(rows [][]float64) ([]float64, error) {
	out := make([]float64, len(rows))
	for i, r := range rows {
		v, err := k.Predict(r)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// Register adds the cart and knn kinds to k.
func Register(k models.Kinds) {
	k["cart"] = models.Kind{Tasks: []models.Task{models.Runtime}, Decode: DecodeCART,
		Train: func(ctx context.Context, train, _ *models.Data, params map[string]string, _ func(models.Round)) (models.Fitted, error) {
			p := DefaultCART()
			if err := models.ApplyParams(params, map[string]any{"max_depth": &p.MaxDepth, "criterion": &p.Criterion, "max_rows": &p.MaxRows}); err != nil {
				return nil, fmt.Errorf("cart: %w", err)
			}
			return TrainCART(ctx, train, p)
		}}
	k["knn"] = models.Kind{Tasks: []models.Task{models.Runtime}, Normalize: true, Decode: DecodeKNN,
		Train: func(ctx context.Context, train, _ *models.Data, params map[string]string, _ func(models.Round)) (models.Fitted, error) {
			p := DefaultKNN()
			if err := models.ApplyParams(params, map[string]any{"k": &p.K, "distance": &p.Distance, "max_rows": &p.MaxRows}); err != nil {
				return nil, fmt.Errorf("knn: %w", err)
			}
			return TrainKNN(ctx, train, p)
		}}
}
