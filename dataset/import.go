package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"smart"
	"smart/space"
)

// FileSummary says what one imported file held.
type FileSummary struct {
	Path   string `json:"path"`
	Format string `json:"format"` // "cache" or "t4"
	// Open and Torn are KernelTunerFile's: a cache Kernel Tuner had not closed, and one whose
	// last line, cut in the middle, was left out.
	Open       bool                 `json:"open,omitempty"`
	Torn       bool                 `json:"torn,omitempty"`
	Source     smart.Source         `json:"source"` // imported, or predicted (a cache smart transfer wrote)
	Device     string               `json:"device"`
	GPU        string               `json:"gpu,omitempty"`
	Kernel     string               `json:"kernel"`
	Rows       int                  `json:"rows"`
	ByStatus   map[smart.Status]int `json:"by_status"`
	Duplicates int                  `json:"duplicates"` // configurations another file had already given
}

// Import reads Kernel Tuner cache and T4 files (ReadKernelTuner) into a new data set in dir.
// Files of several devices need opt.AllowMixed; kernels of different parameters get the union of
// their parameter columns. A configuration given twice for the same device and kernel, from the
// same source (a cache and its T4 twin), is kept once, from the first file. One kernel tuned on
// two problem sizes is refused (a *SizeError).
func Import(ctx context.Context, dir string, paths []string, opt ImportOptions) ([]FileSummary, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no files to import")
	}
	if err := checkNew(dir); err != nil { // before the minutes of reading, not after
		return nil, err
	}
	var files []*KernelTunerFile
	meta := Meta{AllowMixed: opt.AllowMixed}
	for i, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := ReadKernelTuner(p, opt)
		if err != nil {
			return nil, err
		}
		if err := checkConditions(f); err != nil {
			return nil, err
		}
		files = append(files, f)
		if !slices.Contains(meta.Sources, f.Source) {
			meta.Sources = append(meta.Sources, f.Source)
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(paths))
		}
		if !slices.ContainsFunc(meta.Devices, func(d Device) bool { return d.Name == f.Device.Name && d.GPU == f.Device.GPU }) {
			meta.Devices = append(meta.Devices, f.Device)
		}
		if err := addKernel(&meta, f.Kernel); err != nil {
			if se := (*SizeError)(nil); errors.As(err, &se) {
				se.Import = true
			}
			return nil, err
		}
	}
	var nameless []string
	for _, f := range files {
		if f.DeviceGiven {
			nameless = append(nameless, f.Path)
		}
	}
	if len(nameless) > 1 {
		return nil, fmt.Errorf("%d files do not name their device (%s); one device name cannot be right for all of them: import them one at a time, each with its device", len(nameless), strings.Join(nameless, ", "))
	}
	if len(meta.Devices) > 1 && !opt.AllowMixed {
		var names []string
		for _, d := range meta.Devices {
			names = append(names, fmt.Sprintf("%q", d.Name))
		}
		return nil, &MixedError{Reason: fmt.Sprintf("the files were measured on %d devices (%s)", len(names), strings.Join(names, ", "))}
	}
	if len(meta.Sources) > 1 && !opt.AllowMixed {
		var predicted []string
		for _, f := range files {
			if f.Source == smart.Predicted {
				predicted = append(predicted, f.Path)
			}
		}
		return nil, &MixedError{Reason: fmt.Sprintf("the files mix measurements with smart's predictions (%s)", strings.Join(predicted, ", "))}
	}
	w, err := Create(dir, meta)
	if err != nil {
		return nil, err
	}
	var sums []FileSummary
	for _, f := range files {
		s := FileSummary{Path: f.Path, Format: f.Format, Open: f.Open, Torn: f.Torn, Source: f.Source, Device: f.Device.Name, GPU: f.Device.GPU, Kernel: f.Kernel.Name, ByStatus: map[smart.Status]int{}}
		fresh := make([]smart.Measurement, 0, len(f.Rows))
		inFile := make(map[string]bool, len(f.Rows))
		for _, m := range f.Rows {
			k := Key(m)
			if w.holds(k, m) || inFile[k] { // a file's rows are all of one source and device
				s.Duplicates++
				continue
			}
			inFile[k] = true
			fresh = append(fresh, m)
			s.Rows++
			s.ByStatus[m.Status]++
		}
		for chunk := range slices.Chunk(fresh, 1024) {
			if err := w.Append(chunk...); err != nil {
				w.Close()
				return nil, err
			}
		}
		sums = append(sums, s)
	}
	return sums, w.Close()
}

// SizeError is the refusal to put one kernel tuned on two problem sizes into one data set: a
// row names the kernel, device and configuration, not the size, so the rows of one size would
// be taken for (or left out as duplicates of) the other's.
type SizeError struct {
	Kernel string
	Sizes  [2][]int
	Files  [2]string // a file of each size
	Import bool      // the files are imported together (else data sets are merged)
}

func (e *SizeError) Error() string {
	fix := "keep them in separate data sets"
	if e.Import {
		fix = "import them into separate data sets"
	}
	return fmt.Sprintf("kernel %s was tuned on problem size %v in %s but %v in %s; a data set holds one size of a kernel (its rows do not say which): %s",
		e.Kernel, e.Sizes[0], e.Files[0], e.Sizes[1], e.Files[1], fix)
}

// firstFile is the first file a kernel was imported from, or "?" where none is recorded.
func firstFile(k Kernel) string {
	if len(k.Files) == 0 {
		return "?"
	}
	return k.Files[0]
}

// addKernel records a kernel in meta, and its parameters as columns. The same kernel from
// several files (one per device) must have the same parameters, and the same problem size where
// both give one (a *SizeError).
func addKernel(meta *Meta, k Kernel) error {
	for i, old := range meta.Kernels {
		if old.Name != k.Name {
			continue
		}
		if !slices.EqualFunc(old.Params, k.Params, func(a, b Param) bool { return a.Name == b.Name }) {
			return fmt.Errorf("kernel %s has parameters %s in %s but %s in %s", k.Name, paramNames(old.Params), old.Files[0], paramNames(k.Params), k.Files[0])
		}
		switch {
		case len(k.ProblemSize) == 0:
		case len(old.ProblemSize) == 0:
			meta.Kernels[i].ProblemSize = slices.Clone(k.ProblemSize)
		case !slices.Equal(old.ProblemSize, k.ProblemSize):
			return &SizeError{Kernel: k.Name, Sizes: [2][]int{old.ProblemSize, k.ProblemSize}, Files: [2]string{firstFile(old), firstFile(k)}}
		}
		for j, p := range k.Params {
			for _, v := range p.Values {
				if !slices.Contains(old.Params[j].Values, v) {
					meta.Kernels[i].Params[j].Values = append(meta.Kernels[i].Params[j].Values, v)
				}
			}
			slices.Sort(meta.Kernels[i].Params[j].Values)
		}
		if len(old.Constraints) == 0 {
			meta.Kernels[i].Constraints = k.Constraints
		}
		meta.Kernels[i].Files = append(meta.Kernels[i].Files, k.Files...)
		return nil
	}
	k.Params = slices.Clone(k.Params)
	for j := range k.Params {
		k.Params[j].Values = slices.Clone(k.Params[j].Values)
	}
	meta.Kernels = append(meta.Kernels, k)
	for _, p := range k.Params {
		if !slices.Contains(meta.Params, p.Name) {
			meta.Params = append(meta.Params, p.Name)
		}
	}
	return nil
}

// checkConditions parses the space.json conditions f carries, so that a data set never holds
// one a tuner cannot read.
func checkConditions(f *KernelTunerFile) error {
	names := f.Kernel.Names()
	for _, expr := range f.Kernel.Constraints {
		c, err := space.ParseConstraint(expr)
		if err != nil {
			return fmt.Errorf("%s: %w", f.SpaceFile, err)
		}
		for _, n := range c.Reads {
			if !slices.Contains(names, n) {
				return fmt.Errorf("%s: condition %q reads %s, which is not a parameter of kernel %s (%s)", f.SpaceFile, expr, n, f.Kernel.Name, strings.Join(names, ","))
			}
		}
	}
	return nil
}

func paramNames(ps []Param) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return strings.Join(names, ",")
}
