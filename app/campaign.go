package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
)

// Campaign is one call of the measurement campaign: the manifest's variants that the GPU's
// campaign data set lacks, measured in the manifest's order on cuda (or simulated on sim)
// until all are measured or Time has passed; the next call resumes it.
type Campaign struct {
	Manifest *campaign.Manifest
	Backend  string // cuda or sim
	GPU      string // catalogue name (sim: required; cuda: "" finds it through NVML)
	Catalog  *catalog.Catalog
	CUDA     CUDAOptions
	Out      string        // the data set; "": CampaignDir(GPU)
	Time     time.Duration // stop cleanly after this long (0: never)
	Notes    io.Writer
	Progress func(done, total int)
}

// CampaignCall is what a call did.
type CampaignCall struct {
	campaign.Call
	Out     string
	CopyGBs float64 // the device-to-device copy the GPU runner measured; 0: none
}

// CampaignDir is where the repository keeps the campaign data set of gpu.
func CampaignDir(gpu string) string {
	return filepath.Join("data", "measured", strings.ToLower(gpu), "campaign")
}

// CampaignDirs are the campaign data sets the repository keeps: CampaignDir of every GPU
// measured.
func CampaignDirs() []string {
	dirs, _ := filepath.Glob(CampaignDir("*")) // the pattern is well formed
	return dirs
}

// CampaignDirsOf splits CampaignDirs into the data sets measured from the manifest of hash
// (or not begun) and the others, measured from another manifest.
func CampaignDirsOf(hash string) (of, others []string) {
	for _, dir := range CampaignDirs() {
		if meta, err := dataset.ReadMeta(dir); err == nil && meta.Plan != nil && meta.Plan.Manifest != "" && meta.Plan.Manifest != hash {
			others = append(others, dir)
		} else {
			of = append(of, dir)
		}
	}
	return of, others
}

// Check refuses settings that cannot be used; it needs no manifest.
func (c Campaign) Check() error {
	if err := cmp.Or(checkTime(c.Time), c.CUDA.Check()); err != nil {
		return err
	}
	name, err := ParseEvaluator(c.Backend)
	switch {
	case err != nil || (name.Kind != CUDA && name.Kind != Sim):
		return wrong("Backend", fmt.Sprintf("%q", c.Backend), "use cuda, sim, sim:calibrated or sim:FILE (a calibration file)")
	case name.Kind == Sim && c.GPU == "":
		return wrong("GPU", "", "required with the sim backend: the GPU to simulate")
	}
	return nil
}

// Run opens the backend, measures and logs the call. Where no call begins (settings refused, a
// backend or data set that does not open) the CampaignCall is zero.
func (c Campaign) Run(ctx context.Context) (CampaignCall, error) {
	start := time.Now()
	err := c.Check()
	name, _ := ParseEvaluator(c.Backend)
	cat := c.Catalog
	if err == nil && cat == nil {
		cat, err = catalog.Default()
	}
	if err != nil {
		return CampaignCall{}, err
	}
	// A GPU named that smart's CUDA does not run on is refused before a driver is looked for.
	if g, lerr := cat.Lookup(c.GPU); c.GPU != "" && lerr == nil {
		if err := g.RunsCUDA(); err != nil {
			return CampaignCall{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
		}
	}
	be, err := Open(name, nil, c.GPU, cat, c.CUDA, c.Notes)
	if err != nil {
		return CampaignCall{}, err
	}
	defer be.Close()
	if err := be.GPU.RunsCUDA(); err != nil { // every variant would be recorded invalid
		return CampaignCall{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	run := &campaign.Run{Manifest: c.Manifest, Out: c.Out, GPU: be.GPU.Name, Device: be.Device, Source: be.Source,
		Evaluator: be.Evaluator, Observer: be.Observer, Progress: c.Progress}
	if be.Runner != nil {
		run.Batch = be.Runner.BatchSize()
	}
	if run.Out == "" {
		run.Out = CampaignDir(run.GPU)
	}
	if be.Runner != nil {
		if old, err := dataset.ReadMeta(run.Out); err == nil {
			noteOlderFormat(c.Notes, run.Out, old.Format)
		}
	}
	if c.Time > 0 {
		run.StopAfter = max(c.Time-time.Since(start), time.Nanosecond)
	}
	call, err := run.Do(ctx)
	if call.Start.IsZero() { // the data set did not open: no call began
		return CampaignCall{}, err
	}
	if errors.Is(err, campaign.ErrTooShort) { // the time is the setting to change
		err = tooShort(c.Time, err)
	}
	out := CampaignCall{Call: call, Out: run.Out}
	if be.Runner != nil {
		out.CopyGBs = be.Runner.CopyBandwidth()
	}
	return out, errors.Join(err, AppendCopyBandwidth(run.Out, be, call.Rows, nil))
}
