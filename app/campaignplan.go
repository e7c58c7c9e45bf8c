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
// spec.GPU (a catalogue name or alias of an NVIDIA GPU) predict, and saves it to the new
// directory out. The spec, out and the GPU are checked first (SettingErrors of the spec's
// fields, Out and GPU), before the minutes of drawing. progress (nil: none) gets the stencils
// drawn.
func PlanCampaign(ctx context.Context, spec campaign.Spec, out string, progress func(done, total int)) (*campaign.Manifest, error) {
	var se *campaign.SpecError
	if errors.As(spec.Check(), &se) {
		return nil, &SettingError{Field: se.Field, Value: se.Value, Err: se.Err, Wrong: true}
	}
	if out == "" {
		return nil, wrong("Out", "", "required: the new manifest's directory")
	}
	// Both before the minutes of drawing; a directory that holds a manifest is a name to change.
	if err := atomicfile.CheckDir(out); err != nil {
		return nil, &SettingError{Field: "Out", Err: err}
	}
	if err := campaign.CheckNew(out); err != nil {
		return nil, &SettingError{Field: "Out", Err: err, Wrong: true}
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpu, err := cat.Lookup(spec.GPU)
	if err != nil {
		return nil, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	if err := gpu.RunsCUDA(); err != nil {
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
