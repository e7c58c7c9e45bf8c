package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/space"
	"smart/tuner"
)

// openReplay opens replay:DIR for a stencil: its rows of a data set, on the data set's GPU
// where none is named. A data set holds a sample of each OC's space, not all of it, and a
// replay answers only what was measured, so each OC's space is cut to the settings held.
func (tg *Tuning) openReplay(ctx context.Context, name EvaluatorName) error {
	t, dir := tg.tune, name.Path
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
	case !info.IsDir():
		return wrong("Evaluator", name.String(), "replays a Kernel Tuner file's own kernel, not a stencil: give no stencil file, or a data set directory of the stencil's rows")
	}
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return &SettingError{Field: "Evaluator", Value: name.String(), Err: err}
	}
	id := t.Stencil.ID()
	rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return m.StencilID != id })
	if len(rows) == 0 {
		why := ""
		if len(meta.Kernels) > 0 {
			why = "; its Kernel Tuner kernels are tuned with no stencil file"
		}
		return wrong("Evaluator", name.String(), "%s holds no rows of stencil %s (ID %s)%s", dir, t.Stencil.Name, id, why)
	}
	var gpus []string
	for _, m := range rows {
		if !slices.Contains(gpus, m.GPU) {
			gpus = append(gpus, m.GPU)
		}
	}
	if t.GPU == "" {
		if len(gpus) > 1 {
			return wrong("GPU", "", "%s holds rows of %s on %d GPUs (%s); name one", dir, t.Stencil.Name, len(gpus), strings.Join(gpus, ", "))
		}
		t.GPU = gpus[0]
		notef(t.Notes, "tuning for the %s, the GPU of %s's rows in %s\n", t.GPU, t.Stencil.Name, dir)
	}
	g, err := tg.cat.Lookup(t.GPU)
	if err != nil {
		return &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return !strings.EqualFold(m.GPU, g.Name) })
	if len(rows) == 0 {
		return wrong("GPU", t.GPU, "%s holds no rows of %s on the %s; it holds %s", dir, t.Stencil.Name, g.Name, strings.Join(gpus, ", "))
	}
	// A replay answers a GPU from one device's rows: those of another device of the same GPU
	// would be asked for and not found.
	device := rows[0].Device
	if n := len(rows); slices.ContainsFunc(rows, func(m smart.Measurement) bool { return m.Device != device }) {
		rows = slices.DeleteFunc(rows, func(m smart.Measurement) bool { return m.Device != device })
		notef(t.Notes, "%s holds %s's rows of several %s devices; replaying the %d of %s, not the other %d\n", dir, t.Stencil.Name, g.Name, len(rows), device, n-len(rows))
	}
	b := &Backend{Evaluator: dataset.NewReplay(rows, nil), GPU: g, Source: rows[0].Source, Device: dataset.Device{GPU: g.Name, Name: device}}
	if i := slices.IndexFunc(meta.Devices, func(d dataset.Device) bool { return d.Name == device && strings.EqualFold(d.GPU, g.Name) }); i >= 0 {
		b.Device = meta.Devices[i]
	}
	vs, settings, err := heldVariants(ctx, t.Stencil, t.OCs, g, rows)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return wrong("Evaluator", name.String(), "%s holds no setting of %s on the %s under the OCs searched that is valid there", dir, t.Stencil.Name, g.Name)
	}
	rest := ""
	if n := len(rows) - settings; n > 0 {
		rest = fmt.Sprintf(" (%d of its %d rows are not: repeats, or settings the space rules out)", n, len(rows))
	}
	notef(t.Notes, "%s holds a sample of each OC's space, not all of it: the search covers only the %d settings of %s it holds on the %s, under %d OCs%s\n",
		dir, settings, t.Stencil.Name, g.Name, len(vs), rest)
	tg.Backend, tg.GPU, tg.Source, tg.Device = b, g, b.Source, b.Device
	tg.Problem = tuner.Problem{Variants: vs, Evaluator: b.Evaluator, Stencil: t.Stencil, GPU: g.Name}
	tg.Kernel = t.Stencil.Name
	return nil
}

// heldVariants are the spaces of st on gpu under ocs (nil: all) cut to the settings rows hold,
// in the order of ocs, leaving out the OCs of none; settings counts theirs.
func heldVariants(ctx context.Context, st *smart.Stencil, ocs []smart.Combination, gpu smart.GPU, rows []smart.Measurement) (vs []tuner.Variant, settings int, err error) {
	if ocs == nil {
		ocs = smart.Combinations()
	}
	for _, oc := range ocs {
		held := slices.DeleteFunc(slices.Clone(rows), func(m smart.Measurement) bool { return m.OC != oc })
		if len(held) == 0 {
			continue
		}
		params, err := space.StencilParams(st, oc, gpu)
		if err != nil {
			return nil, 0, err
		}
		sp, err := space.New(ctx, tuner.HeldOnly(params, held))
		if err != nil {
			return nil, 0, fmt.Errorf("setting space of %s under %s: %w", st.Name, oc, err)
		}
		if n, _ := sp.Len(); n > 0 {
			vs, settings = append(vs, tuner.Variant{OC: oc, Space: sp}), settings+int(n)
		}
	}
	return vs, settings, nil
}
