package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/transfer"
)

// TransferSettings say what a transfer predicts from and for.
type TransferSettings struct {
	From   []string // one kernel's measurements on other GPUs: PATH, or PATH@GPU for a file that does not name its GPU
	To     string   // the target: a catalogue name, or a name for a GPU the catalogue lacks (Shots then describe it)
	Shots  []string // settings measured on the target, PATH or PATH@GPU each
	Kernel string   // the kernel or stencil ID where the files hold several; transfer.AllKernels for all
	// Ratio is how a time moves to the target: "hardware" (bandwidth and FLOPS) or "analytic"
	// (the calibrated stencil model's ratio of each setting, for stencils); "": analytic for
	// stencils whose every source shares the target's architecture, as smart predict moves
	// times, hardware otherwise.
	Ratio    string
	Predict  transfer.Settings // share, level, FP64 (set too where every stencil is float64)
	Catalog  *catalog.Catalog
	Embedded *calibrate.File // the calibration of the analytic ratio; nil: calibrate.Default
}

// TransferJob is a transfer opened: the sources, the target and how to move between them.
type TransferJob struct {
	Files    []*transfer.File
	Sources  []transfer.Source
	Target   transfer.Target
	Settings transfer.Settings
	// Notes are what the user should know of the files read, sources and shots (transfer.File's
	// Note), a line each.
	Notes []string
}

// Check refuses, before any file is read, missing sources or target and a level or share out
// of range, each as a *SettingError of its field.
func (s TransferSettings) Check() error {
	switch p := s.Predict; {
	case len(s.From) == 0:
		return wrong("From", "", "required: the kernel's measurements on other GPUs")
	case s.To == "":
		return wrong("To", "", "required: the GPU to predict for (a catalogue name, or any name with settings measured on it)")
	case !(p.Level >= 0 && p.Level < 1): // NaN too
		return wrong("Level", fmt.Sprint(p.Level), "give a coverage in (0, 1), e.g. 0.8")
	case !(p.Share >= 0 && p.Share <= 1):
		return wrong("Share", fmt.Sprint(p.Share), "must lie in (0, 1], or be 0 to fit or default it")
	}
	return nil
}

// OpenTransfer checks s, and reads the files and the target. A target the catalogue lacks
// needs shots.
func OpenTransfer(s TransferSettings) (*TransferJob, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	files, err := openTransferFiles("From", s.From, s.Kernel, s.Catalog)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.GPU.Name == "" {
			// Its times cannot be moved to the target without its hardware: it would be left
			// out of the prediction as if of another vendor.
			return nil, wrong("From", f.Path, "the catalogue lacks its device %q; describe the GPU in a catalogue file (the catalogue's JSON format), or name a catalogued GPU as %s@GPU", f.Device, f.Path)
		}
	}
	t := &TransferJob{Files: files, Settings: s.Predict}
	if t.Sources, err = transfer.Select(files, s.Kernel); err != nil {
		return nil, &SettingError{Field: "Kernel", Err: err, Wrong: true}
	}
	if s.Kernel != "" && s.Kernel != transfer.AllKernels {
		// A file that holds none of the kernel named would be left out without a word (a
		// mistyped name given to a T4 file that names no kernel keeps only that file).
		for _, f := range files {
			if _, err := transfer.Select([]*transfer.File{f}, s.Kernel); err != nil {
				ids, _ := f.Kernels()
				return nil, wrong("Kernel", s.Kernel, "%s holds %s, not it; leave the file out, or name the kernel the files share", f.Path, strings.Join(ids, ", "))
			}
		}
	}
	var shots []*transfer.File
	if t.Target, shots, err = transferTarget(s, files); err != nil {
		return nil, err
	}
	for _, f := range append(slices.Clone(files), shots...) {
		if f.Note != "" {
			t.Notes = append(t.Notes, f.Note)
		}
	}
	for _, f := range files {
		if name := t.Target.GPU.Name; name != "" && f.GPU.Name == name {
			return nil, &SettingError{Field: "From", Wrong: true,
				Err: fmt.Errorf("%s holds measurements of the target %s itself; give them as settings measured on the target (shots), or leave the file out", f.Path, name)}
		}
	}
	// A double-precision stencil runs on the FP64 pipes: on a GPU with few of them (a T4 has
	// 1/32 of its FP32 rate) single-precision FLOPS would put it below its FP64 peak.
	stencils := stencilsOf(files)
	t.Settings.FP64 = t.Settings.FP64 || allFloat64(stencils)
	if len(stencils) == 0 {
		if s.Ratio == "analytic" {
			return nil, wrong("Ratio", "analytic", "the analytic model moves stencils (smart data sets); a Kernel Tuner kernel moves by the hardware ratio")
		}
		return t, checkRatio(s.Ratio)
	}
	cal := s.Embedded
	if cal == nil {
		if cal, err = calibrate.Default(); err != nil {
			return nil, err
		}
	}
	// No stencil's time falls below its copies or its FMAs on the target, whatever moved it there.
	t.Settings.Floor = transfer.StencilFloor(stencils, &cal.Calibration)
	if s.Ratio == "analytic" || (s.Ratio == "" && sameArch(t.Sources, t.Target.GPU)) {
		t.Settings.Ratio, t.Settings.RatioName = transfer.AnalyticRatio(stencils, &cal.Calibration), "the calibrated analytic model's"
	}
	return t, checkRatio(s.Ratio)
}

// sameArch says every source GPU is of the target's architecture (a target the catalogue lacks
// has none): within one the calibration, fitted on one GPU, moves stencil times to another
// better than bandwidth and FLOPS (docs/results/transfer.md); across, nothing measured says so.
func sameArch(srcs []transfer.Source, to smart.GPU) bool {
	if to.Arch == "" || len(srcs) == 0 {
		return false
	}
	for _, src := range srcs {
		if src.GPU.Arch != to.Arch {
			return false
		}
	}
	return true
}

// checkRatio refuses a ratio that is neither hardware nor analytic.
func checkRatio(ratio string) error {
	if ratio != "" && ratio != "hardware" && ratio != "analytic" {
		return wrong("Ratio", fmt.Sprintf("%q", ratio), "give hardware or analytic")
	}
	return nil
}

// stencilsOf is the stencils of files' data sets by ID (none for Kernel Tuner caches).
func stencilsOf(files []*transfer.File) map[string]*smart.Stencil {
	stencils := map[string]*smart.Stencil{}
	for _, f := range files {
		maps.Copy(stencils, f.Stencils)
	}
	return stencils
}

// allFloat64 reports whether there are stencils and every one of them is float64.
func allFloat64(stencils map[string]*smart.Stencil) bool {
	for _, st := range stencils {
		if st.Dtype != smart.Float64 {
			return false
		}
	}
	return len(stencils) > 0
}

// openTransferFiles opens PATH or PATH@GPU each; field names the setting they came from, kernel
// the kernel of a T4 file that names none (transfer.OpenKernel).
func openTransferFiles(field string, specs []string, kernel string, cat *catalog.Catalog) ([]*transfer.File, error) {
	var files []*transfer.File
	for _, spec := range specs {
		path, device, _ := strings.Cut(spec, "@")
		f, err := transfer.OpenKernel(path, device, kernel, cat)
		if errors.Is(err, dataset.ErrNoDevice) {
			return nil, unnamedDevice(field, path, err)
		}
		if err != nil {
			return nil, &SettingError{Field: field, Err: err}
		}
		files = append(files, f)
	}
	return files, nil
}

// unnamedDevice refuses, as a *SettingError of field, the file at path that does not name its
// GPU (err says so) where none was given for it: its times would be taken for a GPU unnamed.
func unnamedDevice(field, path string, err error) error {
	return &SettingError{Field: field, Err: fmt.Errorf("%w: name its GPU as %s@GPU", err, path), Wrong: true}
}

// transferTarget is the target GPU with its shots (of the kernel of sources), and the files
// they were read from; one the catalogue lacks stands on the shots.
func transferTarget(s TransferSettings, sources []*transfer.File) (transfer.Target, []*transfer.File, error) {
	t := transfer.Target{Name: s.To}
	g, err := s.Catalog.Lookup(s.To)
	switch {
	case err == nil:
		t.GPU = g
	case len(s.Shots) == 0:
		return t, nil, &SettingError{Field: "To", Err: fmt.Errorf("%w, and no settings measured on it describe it", err), Wrong: true}
	}
	// What the files hold (sizes, one GPU's measurements twice, shots of another kernel), not how
	// they were named: a failure of the request, as an empty or malformed file is.
	if err := transfer.CheckFiles(sources, nil, s.Kernel); err != nil {
		return t, nil, &SettingError{Field: "From", Err: err}
	}
	if len(s.Shots) == 0 {
		return t, nil, nil
	}
	files, err := openTransferFiles("Shots", s.Shots, s.Kernel, s.Catalog)
	if err != nil {
		return t, nil, err
	}
	if err := transfer.CheckFiles(sources, files, s.Kernel); err != nil {
		return t, nil, &SettingError{Field: "Shots", Err: err}
	}
	for _, f := range files {
		switch {
		case t.GPU.Name != "" && f.GPU.Name != "" && f.GPU.Name != t.GPU.Name:
			return t, nil, &SettingError{Field: "Shots", Wrong: true,
				Err: fmt.Errorf("%s holds measurements of %s, not of the target %s: shots are settings measured on the target (name the GPU as %s@GPU where the file misnames it)", f.Path, f.GPU.Name, t.GPU.Name, f.Path)}
		case t.GPU.Name == "" && f.GPU.Name != "":
			// The catalogue knows the shots' GPU: predicting for it by another name would
			// leave out its description and call its runs another GPU's.
			return t, nil, &SettingError{Field: "Shots", Wrong: true,
				Err: fmt.Errorf("%s holds measurements of %s, a catalogued GPU, not of %s: predict for %s as the target, or name the file's GPU as %s@%s where the file misnames it", f.Path, f.GPU.Name, s.To, f.GPU.Name, f.Path, s.To)}
		}
	}
	sel, err := transfer.Select(files, s.Kernel)
	if err != nil {
		return t, nil, &SettingError{Field: "Shots", Err: err, Wrong: true}
	}
	for _, src := range sel {
		t.Shots = append(t.Shots, src.Rows...)
	}
	return t, files, nil
}

// Predict predicts every setting on the target.
func (t *TransferJob) Predict() (*transfer.Prediction, error) {
	p, err := transfer.Predict(t.Sources, t.Target, t.Settings)
	if err != nil {
		return nil, err
	}
	p.Params, p.Names = t.CodedParams(), transfer.StencilNames(t.Files)
	if len(p.Names) == 0 {
		p.Names = nil
	}
	return p, nil
}

// CodedParams are the foreign kernel's parameters where some hold booleans or labels, whose
// codes a setting holds (dataset.Param.Text reads them); nil otherwise.
func (t *TransferJob) CodedParams() []dataset.Param {
	k := t.kernel()
	if k == nil || !slices.ContainsFunc(k.Params, func(p dataset.Param) bool { return p.Bool || p.Labels != nil }) {
		return nil
	}
	return k.Params
}

// kernel is the foreign kernel of the source files, as one that carries a space.json's
// conditions has it where any does (a cache written of it counts its space by them); nil for
// stencils.
func (t *TransferJob) kernel() *dataset.Kernel {
	var kernel *dataset.Kernel
	for _, f := range t.Files {
		if f.Kernel != nil && (kernel == nil || len(kernel.Constraints) == 0) {
			kernel = f.Kernel
		}
	}
	return kernel
}

// ChooseShots says which k settings to measure on the target first.
func (t *TransferJob) ChooseShots(k int) ([]transfer.Variant, error) {
	return transfer.ChooseShots(t.Sources, t.Target, k, t.Settings)
}

// ErrCacheOfStencils is the refusal to write a Kernel Tuner cache of stencils' predictions: its
// format holds one Kernel Tuner kernel's parameters, and a data set holds stencils.
var ErrCacheOfStencils = errors.New("a Kernel Tuner cache needs Kernel Tuner sources; write a data set instead")

// CacheCoverage is how much of the kernel's space a cache of p holds (transfer.Coverage, whose
// Note says where Kernel Tuner's simulation mode of the cache would meet a setting it lacks).
func (t *TransferJob) CacheCoverage(ctx context.Context, p *transfer.Prediction) (transfer.Coverage, error) {
	k := t.kernel()
	if k == nil {
		return transfer.Coverage{}, ErrCacheOfStencils
	}
	return p.CacheCoverage(ctx, *k)
}

// CheckWrite refuses, before anything is predicted, the outputs Write could not write: a cache
// (cache) without Kernel Tuner sources or over a file smart did not write (unless force), a data
// set directory (dir) that holds anything or is named "." or "..", and either where its directory
// is missing or takes no new files. An empty path writes nothing.
func (t *TransferJob) CheckWrite(cache, dir string, force bool) error {
	if cache != "" {
		if t.kernel() == nil {
			return &SettingError{Field: "Cache", Value: cache, Err: ErrCacheOfStencils, Wrong: true}
		}
		if err := checkReplace("Cache", cache, force, transfer.CacheKind()); err != nil {
			return err
		}
	}
	if dir != "" {
		if err := transfer.CheckDataSet(dir); err != nil {
			// A directory that holds something is a name to change, as a cache smart did not write is.
			return &SettingError{Field: "DataSet", Value: dir, Err: err, Wrong: errors.As(err, new(*transfer.TakenError))}
		}
	}
	return nil
}

// Write writes p as a new data set (dir) and as a Kernel Tuner cache (cache), where they are not
// empty (CheckWrite), both or neither: each is written whole or not at all, and where the cache
// fails after the data set was written, the data set is removed again, so that the same command
// can be run again. An existing cache is replaced only where smart wrote it, or with force.
func (t *TransferJob) Write(p *transfer.Prediction, cache, dir string, force bool) error {
	if err := t.CheckWrite(cache, dir, force); err != nil {
		return err
	}
	kernel := t.kernel()
	remove, err := t.writeDataSet(p, dir, kernel)
	if err != nil {
		return &SettingError{Field: "DataSet", Value: dir, Err: err}
	}
	if cache == "" {
		return nil
	}
	if err := transfer.WriteKernelTuner(cache, p, *kernel, p.Target, force); err != nil {
		if remove != nil {
			if rerr := remove(); rerr != nil {
				err = errors.Join(err, fmt.Errorf("the data set %s is left behind: %w", dir, rerr))
			} else {
				err = fmt.Errorf("%w (the data set %s, written before it, was removed again)", err, dir)
			}
		}
		return &SettingError{Field: "Cache", Value: cache, Err: err, Wrong: errors.As(err, new(*atomicfile.NotOursError))}
	}
	return nil
}

// writeDataSet writes p as a new data set in dir, where dir is not empty, and returns what
// removes it again (nil where dir is empty); kernel is the foreign kernel of the sources, nil
// for stencils.
func (t *TransferJob) writeDataSet(p *transfer.Prediction, dir string, kernel *dataset.Kernel) (remove func() error, err error) {
	switch {
	case dir == "":
		return nil, nil
	case kernel != nil:
		return transfer.WriteDataSet(dir, p, kernel.Names(), nil, []dataset.Kernel{*kernel})
	}
	stencils := stencilsOf(t.Files)
	var sts []*smart.Stencil
	for _, id := range predictedStencils(p) {
		st := stencils[id]
		if st == nil {
			return nil, fmt.Errorf("no source data set holds stencil %s's definition", id)
		}
		sts = append(sts, st)
	}
	return transfer.WriteDataSet(dir, p, dataset.StencilParams(), sts, nil)
}

// predictedStencils are the stencils of p's variants, in the order they first appear.
func predictedStencils(p *transfer.Prediction) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range p.Variants {
		if v.StencilID != "" && !seen[v.StencilID] {
			seen[v.StencilID] = true
			out = append(out, v.StencilID)
		}
	}
	return out
}
