// Package rows builds the rows learned models read, from stencils (or foreign kernel
// configurations), OCs, settings and GPUs, as a models.Inputs describes them. Training
// (models/train) and inference (predict, tuner) share it, so a model sees the same columns in both.
package rows

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"smart"
	"smart/features"
	"smart/models"
	"smart/models/roofline"
)

// Featurizer builds the rows of one models.Inputs.
type Featurizer struct {
	in    models.Inputs
	names []string
	// The setting's columns (with its estimated usage, where read) are
	// [settingAt, settingAt+settings); the analytic model's, where read, the last two.
	settingAt, settings int
}

// Analytic model names for models.Inputs.Analytic: the stencil model and the convolution model
// of models/roofline.
const (
	AnalyticStencil = "roofline"
	AnalyticConv    = "roofline-conv"
)

// New checks in and returns its featurizer.
func New(in models.Inputs) (*Featurizer, error) {
	f := &Featurizer{in: in}
	switch {
	case in.Kernel == "" && in.Dims != 2 && in.Dims != 3:
		return nil, fmt.Errorf("inputs: dims is %d; stencil rows need 2 or 3", in.Dims)
	case in.Kernel != "" && (in.Stencil || in.Tensor):
		return nil, fmt.Errorf("inputs: foreign kernel %s has no stencil features", in.Kernel)
	case in.Analytic != "" && in.Analytic != AnalyticConv && in.Analytic != AnalyticStencil:
		return nil, fmt.Errorf("inputs: unknown analytic model %q (known: %s, %s)", in.Analytic, AnalyticStencil, AnalyticConv)
	case in.Analytic == AnalyticStencil && (in.Kernel != "" || !in.Setting):
		return nil, fmt.Errorf("inputs: the stencil analytic model needs a stencil, its OC and setting")
	case in.Analytic != "" && !in.GPU:
		return nil, fmt.Errorf("inputs: the analytic model needs the GPU")
	case in.Usage && (in.Kernel != "" || !in.Setting):
		return nil, fmt.Errorf("inputs: a variant's estimated usage needs a stencil, its OC and setting")
	}
	if in.Stencil {
		f.names = append(f.names, features.StencilNames(in.MaxOrder)...)
	}
	if in.Tensor {
		f.names = append(f.names, features.TensorNames(in.Dims, in.MaxOrder)...)
	}
	f.settingAt = len(f.names)
	if in.Setting {
		if in.Kernel != "" {
			f.names = append(f.names, in.KernelParams...)
		} else {
			f.names = append(f.names, features.SettingNames(in.Dims)...)
		}
	}
	if in.Usage {
		f.names = append(f.names, features.UsageNames()...)
	}
	f.settings = len(f.names) - f.settingAt
	if in.GPU {
		f.names = append(f.names, features.GPUNames()...)
	}
	if in.Analytic != "" {
		f.names = append(f.names, roofline.FeatureName, "roofline_ok")
	}
	if len(f.names) == 0 {
		return nil, fmt.Errorf("inputs select no columns")
	}
	return f, nil
}

// Inputs returns the description the featurizer was built from.
func (f *Featurizer) Inputs() models.Inputs { return f.in }

// Names returns the column names, in order.
func (f *Featurizer) Names() []string { return f.names }

// Accepts reports whether rows can be built for st (nil for a foreign kernel): a model of
// stencil features takes stencils of the dimensions it was trained on, and of orders its
// features reach; a model of a foreign kernel takes no stencil.
func (f *Featurizer) Accepts(st *smart.Stencil) error {
	if f.in.Kernel != "" && st != nil {
		return fmt.Errorf("the model predicts the foreign kernel %s (imported Kernel Tuner data), not stencils; give a model trained on stencil data sets", f.in.Kernel)
	}
	if f.in.Kernel == "" && (f.in.Stencil || f.in.Tensor) {
		if st == nil {
			return fmt.Errorf("the model reads a stencil's features and none was given")
		}
		if st.Dims != f.in.Dims {
			return fmt.Errorf("stencil %s is %d-D; the model was trained on %d-D stencils", st.Name, st.Dims, f.in.Dims)
		}
		if reach := cmp.Or(f.in.MaxOrder, smart.DefaultMaxOrder); st.Order() > reach {
			return fmt.Errorf("stencil %s has order %d; the model's features reach order %d", st.Name, st.Order(), reach)
		}
	}
	return nil
}

// Row builds one row. st is nil for a foreign kernel; oc and set are ignored by models without
// setting columns, gpu by models without GPU columns.
func (f *Featurizer) Row(st *smart.Stencil, oc smart.Combination, set smart.Setting, gpu smart.GPU) ([]float64, error) {
	in := f.in
	if err := f.Accepts(st); err != nil {
		return nil, err
	}
	row := make([]float64, 0, len(f.names))
	if in.Stencil {
		v, err := features.Stencil(st, in.MaxOrder)
		if err != nil {
			return nil, err
		}
		row = append(row, v...)
	}
	if in.Tensor {
		v, err := features.Tensor(st, in.MaxOrder)
		if err != nil {
			return nil, err
		}
		row = append(row, v...)
	}
	row = append(row, make([]float64, f.settings)...) // Refill's
	if in.GPU {
		v, err := features.GPU(gpu)
		if err != nil {
			return nil, err
		}
		row = append(row, v...)
	}
	if in.Analytic != "" {
		row = append(row, 0, 0) // Refill's
	}
	if err := f.Refill(row, st, oc, set, gpu); err != nil {
		return nil, err
	}
	return row, nil
}

// Refill rewrites the columns of row that depend on the OC and setting (the setting's and the
// analytic model's) for oc and set; row is one that Row built for st and gpu, whose other
// columns stay. A search that scores many settings of one stencil on one GPU builds the
// stencil's and the GPU's columns once this way.
func (f *Featurizer) Refill(row []float64, st *smart.Stencil, oc smart.Combination, set smart.Setting, gpu smart.GPU) error {
	in := f.in
	if len(row) != len(f.names) {
		return fmt.Errorf("row has %d columns; the inputs make %d", len(row), len(f.names))
	}
	if in.Setting {
		cols := row[f.settingAt : f.settingAt+f.settings]
		if in.Kernel != "" {
			for i, p := range in.KernelParams {
				v, ok := set[p]
				if !ok {
					return fmt.Errorf("setting %s lacks parameter %s of kernel %s", set, p, in.Kernel)
				}
				cols[i] = float64(v)
			}
		} else {
			v, err := features.Setting(in.Dims, oc, set)
			if err != nil {
				return err
			}
			n := copy(cols, v)
			if in.Usage {
				u, err := features.Usage(st, oc, set)
				if err != nil {
					return err
				}
				copy(cols[n:], u)
			}
		}
	}
	if in.Analytic != "" {
		ana := row[len(row)-2:]
		if v, ok := f.analytic(st, oc, set, gpu); ok {
			ana[0], ana[1] = v, 1
		} else {
			// The model thinks the variant cannot run on gpu, or does not model it.
			ana[0], ana[1] = 0, 0
		}
	}
	return nil
}

// analytic is the analytic model's ln milliseconds of a variant.
func (f *Featurizer) analytic(st *smart.Stencil, oc smart.Combination, set smart.Setting, gpu smart.GPU) (float64, bool) {
	if f.in.Analytic == AnalyticConv {
		ms, ok := f.convEstimate(set, gpu)
		return math.Log(ms), ok
	}
	t, err := smart.DecodeTuning(st.Dims, oc, set)
	if err != nil {
		return 0, false
	}
	v, err := roofline.Feature(st, t, gpu)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// convEstimate is the analytic time of a convolution configuration.
func (f *Featurizer) convEstimate(set smart.Setting, gpu smart.GPU) (float64, bool) {
	p := roofline.KernelTunerConv()
	if ps := f.in.ProblemSize; len(ps) >= 2 {
		p.Width, p.Height = ps[0], ps[1]
	}
	if v, ok := set["filter_width"]; ok {
		p.FilterW = v
	}
	if v, ok := set["filter_height"]; ok {
		p.FilterH = v
	}
	s, err := roofline.ConvSettingOf(set)
	if err != nil {
		return 0, false
	}
	e, err := p.Estimate(s, gpu, nil)
	if err != nil || !(e.TimeMs > 0) || math.IsInf(e.TimeMs, 0) {
		return 0, false
	}
	return e.TimeMs, true
}

// IsConvolution reports whether a foreign kernel's parameters are those of the convolution the
// analytic model knows.
func IsConvolution(params []string) bool {
	for _, p := range []string{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding", "use_shmem"} {
		if !slices.Contains(params, p) {
			return false
		}
	}
	return true
}
