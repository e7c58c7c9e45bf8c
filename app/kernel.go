package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset/cuda"
	"smart/internal/atomicfile"
	"smart/models/roofline"
	"smart/space"
)

// LimitsGPU is the GPU whose limits bound a stencil's settings: the catalogue's entry named name,
// or sm_80, the A100's limits, when name is empty. catalogFile ("" for none) is read whenever it
// is given, so that a bad file is reported. An unknown name, or a GPU that does not run CUDA, is
// a SettingError of GPU.
func LimitsGPU(catalogFile, name string) (smart.GPU, error) {
	if name == "" && catalogFile == "" {
		return smart.SM80(), nil
	}
	cat, err := catalog.Load(catalogFile)
	if err != nil {
		return smart.GPU{}, err
	}
	if name == "" {
		return smart.SM80(), nil
	}
	g, err := cat.Lookup(name)
	if err != nil {
		return smart.GPU{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	if err := g.RunsCUDA(); err != nil { // the limits of a GPU smart's CUDA cannot run on
		return smart.GPU{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	return g, nil
}

// ParseOC reads an optimization combination; a name that is none is a SettingError of OC.
func ParseOC(name string) (smart.Combination, error) {
	oc, err := smart.ParseCombination(name)
	if err != nil {
		return 0, &SettingError{Field: "OC", Err: err, Wrong: true}
	}
	return oc, nil
}

// KernelSettings are the kernel that Generate writes.
type KernelSettings struct {
	OC      string // optimization combination, e.g. ST_BM_TB or BASE
	Setting string // the OC's parameters as k=v,...
	GPU     string // catalogue name whose limits the setting must meet; "" for sm_80
	Catalog string // GPU catalogue file merged over the embedded one; "" for none
	// Out is the file GenerateKernel writes the kernel's source to ("" for none); one that
	// holds something other than a kernel smart generated is refused unless Replace.
	Out     string
	Replace bool
}

// GenerateKernel makes the CUDA kernel of st, read from file, under the OC and setting of s,
// which must be in the search space of the stencil and OC on the GPU, and writes it to s.Out; an
// OC, GPU, setting or file that cannot be used is a SettingError of its field.
func GenerateKernel(ctx context.Context, st *smart.Stencil, file string, s KernelSettings) (*cuda.Kernel, error) {
	if err := checkReplace("Out", s.Out, s.Replace, kernelFile()); err != nil {
		return nil, err
	}
	oc, err := ParseOC(s.OC)
	if err != nil {
		return nil, err
	}
	gpu, err := LimitsGPU(s.Catalog, s.GPU)
	if err != nil {
		return nil, err
	}
	if s.GPU != "" { // a kernel for a GPU that cannot hold its grids would fail at its first allocation
		if err := checkMemory(st, file, gpu); err != nil {
			return nil, err
		}
	}
	set, err := smart.ParseSetting(s.Setting)
	if err != nil {
		return nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	if err := space.CheckStencilSetting(ctx, st, oc, gpu, set); err != nil {
		return nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	t, err := smart.DecodeTuning(st.Dims, oc, set)
	if err != nil {
		return nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	k, err := cuda.Generate(st, t)
	if err == nil && s.Out != "" {
		err = writeKernel(s.Out, k)
	}
	return k, err
}

// kernelSeal begins the last line of a kernel file smart writes: the sha256 of the source above
// it, so that a file edited since is not replaced without Replace.
const kernelSeal = "// smart:"

// writeKernel writes k's source to path, sealed (kernelFile).
func writeKernel(path string, k *cuda.Kernel) error {
	return atomicfile.Write(path, []byte(atomicfile.Seal(k.File(), kernelSeal)))
}

// kernelFile recognises the CUDA sources smart writes by their first line and their seal: one
// edited since smart wrote it holds the user's work.
func kernelFile() atomicfile.Kind {
	line, _, _ := strings.Cut(cuda.Preamble, "\n")
	return atomicfile.Sealed("an unedited CUDA source", line, kernelSeal)
}

// EstimateSettings are the kernel and GPU that EstimateStencil times.
type EstimateSettings struct {
	GPU     string // catalogue name or alias of an NVIDIA GPU
	OC      string // optimization combination, e.g. ST_TB or BASE
	Setting string // parameter setting k=v,...; "" for roofline.DefaultSetting
	Catalog string // GPU catalogue file merged over the embedded one; "" for none
	// Literature uses the architecture literature's constants, not the calibrated ones.
	Literature bool
	// Calibration is a smart calibrate file whose constants to use; "" for the embedded
	// data/calibration/stencil.json.
	Calibration string
}

// DefaultSettingError is a stencil that the default setting of an OC does not fit.
type DefaultSettingError struct {
	Setting smart.Setting
	Err     error
}

func (e *DefaultSettingError) Error() string {
	return fmt.Sprintf("the default setting %s: %v", e.Setting, e.Err)
}

func (e *DefaultSettingError) Unwrap() error { return e.Err }

// EmptySpaceError is an optimization combination without a valid setting for a stencil on a
// GPU: no setting of it can be estimated, generated or drawn there.
type EmptySpaceError struct {
	OC      smart.Combination
	Stencil string
	GPU     string
	// Why names the constraint that alone empties the space and what it rejects; "" where no
	// single constraint does.
	Why string
	// Grid is set where the grid has no room for any OC's block (space.BlockRoom's error, which
	// is Why then): no other OC or GPU helps, a larger grid does.
	Grid bool
}

func (e *EmptySpaceError) Error() string {
	msg := fmt.Sprintf("%s has no valid setting for %s on the %s", e.OC, e.Stencil, e.GPU)
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}

// CheckSpace returns nil where sp, the space of st under oc on gpu, holds a setting, and an
// *EmptySpaceError otherwise.
func CheckSpace(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, sp *space.Space) error {
	if sp.Count().Sign() > 0 {
		return nil
	}
	if err := space.BlockRoom(st, gpu); err != nil {
		return &EmptySpaceError{OC: oc, Stencil: st.Name, GPU: gpu.Name, Why: err.Error(), Grid: true}
	}
	return &EmptySpaceError{OC: oc, Stencil: st.Name, GPU: gpu.Name, Why: emptiedBy(ctx, st, oc, gpu)}
}

// emptiedBy says why the space of st under oc on gpu is empty: it builds the space without
// each constraint in turn, and those without which it holds settings are to blame. It names the
// last of them (the resource limits come last) with why it rejects the first setting the others
// allow, and the others; "" where no constraint alone empties the space, or a build fails or is
// stopped. Only an empty space, quick to build, costs the rebuilds.
func emptiedBy(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) string {
	params, err := space.StencilParams(st, oc, gpu)
	if err != nil {
		return ""
	}
	var blamed []string
	var last space.Constraint
	var first smart.Setting
	for i, p := range params {
		for j, c := range p.Constraints {
			without := slices.Clone(params)
			without[i].Constraints = slices.Delete(slices.Clone(p.Constraints), j, j+1)
			sp, err := space.New(ctx, without)
			if err != nil {
				return ""
			}
			if sp.Count().Sign() == 0 {
				continue
			}
			if first, err = sp.At64(0); err != nil {
				return ""
			}
			blamed, last = append(blamed, fmt.Sprintf("%q", c.Name)), c
		}
	}
	if len(blamed) == 0 {
		return ""
	}
	others := "the other constraints"
	if n := len(blamed) - 1; n > 0 {
		others = strings.Join(blamed[:n], ", ") + " and " + others
	}
	why := fmt.Sprintf("the constraint %s rejects every setting %s allow", blamed[len(blamed)-1], others)
	if last.Explain == nil {
		return why
	}
	vals := make([]int, len(last.Reads))
	for k, r := range last.Reads {
		vals[k] = first[r]
	}
	return fmt.Sprintf("%s; the first of them, %s: %s", why, first, last.Explain(vals))
}

// EstimateStencil is the analytic model's estimate of st, read from file, under s: an OC, GPU
// or given setting that cannot be used is a SettingError of its field, a default setting that
// does not fit a DefaultSettingError, an OC without a valid setting an EmptySpaceError.
func EstimateStencil(ctx context.Context, st *smart.Stencil, file string, s EstimateSettings) (*Estimate, error) {
	oc, g, err := s.estimateGPU(st, file)
	if err != nil {
		return nil, err
	}
	setting := roofline.DefaultSetting(st, oc)
	if s.Setting != "" {
		if setting, err = smart.ParseSetting(s.Setting); err != nil {
			return nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
		}
	}
	var cal *calibrate.File
	calFile := calibrate.EmbeddedName
	switch {
	case s.Literature && s.Calibration != "":
		return nil, &SettingError{Field: "Calibration", Value: s.Calibration, Wrong: true,
			Err: errors.New("a calibration's constants and the literature's exclude each other: give one")}
	case s.Calibration != "":
		if cal, err = calibrate.Read(s.Calibration); err != nil {
			return nil, &SettingError{Field: "Calibration", Err: err}
		}
		calFile = s.Calibration
	case !s.Literature:
		if cal, err = calibrate.Default(); err != nil {
			return nil, err
		}
	}
	est, err := EstimateSetting(ctx, st, oc, setting, g, cal)
	switch {
	case err != nil && s.Setting == "":
		// No other setting fits either where the space is empty: say so, not "give another".
		if sp, serr := space.ForStencilContext(ctx, st, oc, g); serr == nil {
			if serr = CheckSpace(ctx, st, oc, g, sp); serr != nil {
				return nil, serr
			}
		}
		return nil, &DefaultSettingError{Setting: setting, Err: err}
	case err != nil: // as Generate: the setting given is the mistake
		return nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	est.DefaultSetting = s.Setting == ""
	if cal != nil {
		est.ConstantsFile = calFile
	}
	return est, nil
}

// estimateGPU reads the OC and the GPU, and checks that the GPU can hold the stencil.
func (s EstimateSettings) estimateGPU(st *smart.Stencil, file string) (smart.Combination, smart.GPU, error) {
	oc, err := ParseOC(s.OC)
	if err != nil {
		return 0, smart.GPU{}, err
	}
	cat, err := catalog.Load(s.Catalog)
	if err != nil {
		return 0, smart.GPU{}, err
	}
	g, err := cat.Lookup(s.GPU)
	if err != nil {
		return 0, smart.GPU{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	// Before the space: an AMD GPU has a space too, but no estimate.
	if err := roofline.CheckGPU(g); err != nil {
		return 0, smart.GPU{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	if err := checkMemory(st, file, g); err != nil { // predict's check: no time for a run that cannot be
		return 0, smart.GPU{}, err
	}
	return oc, g, nil
}

// checkMemory refuses st, read from file, where g cannot hold its two grids, naming the file
// and its field "grid".
func checkMemory(st *smart.Stencil, file string, g smart.GPU) error {
	if err := g.CheckMemory(st); err != nil {
		return fmt.Errorf("stencil file %s: field \"grid\" %s: %w; give a smaller grid, or a GPU with more memory", file, st.GridText(), err)
	}
	return nil
}
