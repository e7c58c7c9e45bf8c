package app

import (
	"context"
	"errors"

	"smart/campaign"
	"smart/catalog"
	"smart/internal/atomicfile"
	"smart/predict"
)

// PlanCampaign draws the manifest of spec, whose settings the embedded runtime models of
// spec.GPU (a catalogue name or alias) predict, and saves it to the new directory out, which
// is checked first (a SettingError of Out), before the minutes of drawing. progress (nil: none)
// gets the stencils drawn.
func PlanCampaign(ctx context.Context, spec campaign.Spec, out string, progress func(done, total int)) (*campaign.Manifest, error) {
	if out == "" {
		return nil, wrong("Out", "", "required: the new manifest's directory")
	}
	if err := errors.Join(atomicfile.CheckDir(out), campaign.CheckNew(out)); err != nil {
		return nil, &SettingError{Field: "Out", Err: err} // before the minutes of drawing
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpu, err := cat.Lookup(spec.GPU)
	if err != nil {
		return nil, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	spec.GPU = gpu.Name
	m, err := campaign.Plan(ctx, spec, gpu, ms, progress)
	if err != nil {
		return nil, err
	}
	return m, m.Save(out)
}
