package nn

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"smart/models"
)

// The kinds this package adds, as written in model files and given to smart train --model.
const (
	KindConvNet = "convnet"
	KindFcNet   = "fcnet"
	KindMLP     = "mlp"
	KindConvMLP = "convmlp"
)

// Register adds convnet, fcnet (task select), mlp and convmlp (task runtime) to k. All four ask
// models to scale features to [0, 1]; convnet and convmlp ask for the binary tensor columns.
func Register(k models.Kinds) {
	for _, name := range []string{KindConvNet, KindFcNet, KindMLP, KindConvMLP} {
		task := models.Runtime
		if name == KindConvNet || name == KindFcNet {
			task = models.Select
		}
		k[name] = models.Kind{
			Tasks:     []models.Task{task},
			Normalize: true,
			Tensor:    name == KindConvNet || name == KindConvMLP,
			Train: func(ctx context.Context, train, valid *models.Data, params map[string]string, report func(models.Round)) (models.Fitted, error) {
				n, err := Train(ctx, name, train, valid, params, report)
				if err != nil {
					return nil, err
				}
				return n, nil
			},
			Decode: func(h *models.Header, payload []byte) (any, error) {
				n, err := Decode(h, payload)
				if err != nil {
					return nil, err
				}
				return n, nil
			},
		}
	}
}

// Defaults returns the hyper-parameters a kind trains with when none are given. The learning
// rates and batch sizes are StencilMART's (V-A3); the MLP's seven hidden layers follow its
// sensitivity study (Fig. 13); the layer widths are this package's choice.
func Defaults(kind string) (Hyper, error) {
	switch kind {
	case KindConvNet:
		return Hyper{Filters: []int{16, 32}, Pool: true, Hidden: []int{128}, Epochs: 100, Batch: 50, LearnRate: 1e-4, Seed: 1}, nil
	case KindFcNet:
		return Hyper{Hidden: []int{256, 128, 64, 32}, Epochs: 100, Batch: 50, LearnRate: 1e-4, Seed: 1}, nil
	case KindMLP:
		return Hyper{Hidden: []int{256, 256, 256, 256, 256, 256, 256}, Epochs: 100, Batch: 256, LearnRate: 5e-4, Seed: 1}, nil
	case KindConvMLP:
		return Hyper{Filters: []int{16, 32}, Pool: true, Branch: []int{128, 128}, Hidden: []int{128, 64}, Epochs: 100, Batch: 256, LearnRate: 5e-4, Seed: 1}, nil
	}
	return Hyper{}, fmt.Errorf("unknown network kind %q; use %s, %s, %s or %s", kind, KindConvNet, KindFcNet, KindMLP, KindConvMLP)
}

// ParseHyper applies "name=value" parameters to the defaults of kind. Layer lists are widths
// joined by '-' (hidden=512-256-128); layers and width set hidden to that many layers of that
// width (the axes of StencilMART's Fig. 13).
func ParseHyper(kind string, params map[string]string) (Hyper, error) {
	h, err := Defaults(kind)
	if err != nil {
		return h, err
	}
	var filters, branch, hidden string
	layers, width := len(h.Hidden), h.Hidden[0]
	var seed int
	known := map[string]any{
		"hidden": &hidden, "layers": &layers, "width": &width,
		"epochs": &h.Epochs, "batch": &h.Batch, "lr": &h.LearnRate, "seed": &seed,
	}
	if len(h.Filters) > 0 {
		known["filters"], known["pool"] = &filters, &h.Pool
	}
	if kind == KindConvMLP {
		known["branch"] = &branch
	}
	if err := models.ApplyParams(params, known); err != nil {
		return h, fmt.Errorf("%s: %w", kind, err)
	}
	_, hasLayers := params["layers"]
	_, hasWidth := params["width"]
	switch {
	case hidden != "" && (hasLayers || hasWidth):
		return h, fmt.Errorf("%s: give hidden=... or layers= and width=, not both", kind)
	case hidden != "":
		if h.Hidden, err = parseLayers("hidden", hidden); err != nil {
			return h, fmt.Errorf("%s: %w", kind, err)
		}
	case hasLayers || hasWidth:
		if layers < 1 || layers > 64 || width < 1 || width > maxUnits {
			return h, fmt.Errorf("%s: layers=%d width=%d: give 1 to 64 layers of 1 to %d units", kind, layers, width, maxUnits)
		}
		h.Hidden = slices.Repeat([]int{width}, layers)
	}
	if filters != "" {
		if h.Filters, err = parseLayers("filters", filters); err != nil {
			return h, fmt.Errorf("%s: %w", kind, err)
		}
	}
	if branch != "" {
		if h.Branch, err = parseLayers("branch", branch); err != nil {
			return h, fmt.Errorf("%s: %w", kind, err)
		}
	}
	if seed < 0 {
		return h, fmt.Errorf("%s: seed=%d: give a non-negative seed", kind, seed)
	}
	if _, ok := params["seed"]; ok {
		h.Seed = uint64(seed)
	}
	if err := h.check(); err != nil {
		return h, fmt.Errorf("%s: %w", kind, err)
	}
	return h, nil
}

// parseLayers reads widths joined by '-', e.g. "256-128".
func parseLayers(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, "-") {
		u, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || u < 1 || u > maxUnits {
			return nil, fmt.Errorf("%s=%q: give layer widths of 1 to %d joined by '-', e.g. 256-128", name, s, maxUnits)
		}
		out = append(out, u)
	}
	return out, nil
}

// Train trains a network of the given kind on train (rows already scaled to [0, 1]); valid, if
// not nil, is scored after every epoch. params override the kind's Defaults (see ParseHyper).
func Train(ctx context.Context, kind string, train, valid *models.Data, params map[string]string, report func(models.Round)) (*Net, error) {
	h, err := ParseHyper(kind, params)
	if err != nil {
		err = models.ParamError{Err: err}
	}
	if err != nil {
		return nil, err
	}
	if err := train.Check(); err != nil {
		return nil, fmt.Errorf("%s: training data: %w", kind, err)
	}
	if valid != nil {
		if err := valid.Check(); err != nil {
			return nil, fmt.Errorf("%s: validation data: %w", kind, err)
		}
		if !slices.Equal(valid.Features, train.Features) {
			return nil, fmt.Errorf("%s: validation rows have a different feature schema from the training rows", kind)
		}
	}
	wantTask := models.Runtime
	if kind == KindConvNet || kind == KindFcNet {
		wantTask = models.Select
	}
	if train.Task != wantTask {
		return nil, fmt.Errorf("%s learns the %s task, not %s", kind, wantTask, train.Task)
	}
	cols, err := columnsFor(kind, train.Features)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	a := Arch{Channels: cols.channels, Side: cols.side, Filters: h.Filters, Pool: h.Pool,
		Inputs: len(cols.vector), Branch: h.Branch, Hidden: h.Hidden, Outputs: 1, Classify: train.Task == models.Select}
	if a.Classify {
		a.Outputs = train.Classes
	}
	n, err := newNet(a, len(train.Features), cols.tensor, cols.vector, h.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	n.hyper = h
	if err := n.fit(ctx, train, valid, h, report); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return n, nil
}
