package transfer

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset"
)

// File is one GPU's measurements of kernels, read from a Kernel Tuner cache or T4 file or a
// smart data set.
type File struct {
	Path   string
	Device string              // as the file names it
	GPU    smart.GPU           // the catalogue's entry; a zero GPU where the catalogue lacks it
	Rows   []smart.Measurement // every row, of one GPU
	// Kernel describes a Kernel Tuner file's kernel (its parameters in the cache's key order);
	// nil for a data set.
	Kernel *dataset.Kernel
	// Stencils are a data set's stencils by ID (those its rows are of).
	Stencils map[string]*smart.Stencil
	// Named is the device the file names where the caller's device (Open) named another GPU,
	// which the file is then taken as; empty otherwise.
	Named string
	// Note is what a reader of a prediction from the file should know of it: that it is a
	// Kernel Tuner cache not closed, which may lack configurations (dataset's OpenNote); "" for
	// none.
	Note string
}

// ErrNoMeasured is the error of a file without measured or imported rows.
var ErrNoMeasured = errors.New("no measured or imported rows")

// ErrSeveralGPUs is the error of a data set holding several GPUs' rows.
var ErrSeveralGPUs = errors.New("the data set holds rows of several GPUs")

// Open reads path: a Kernel Tuner cache (.json, .json.gz) or T4 file, or a data set directory.
// device names the GPU of a file that does not (the MI250X caches of benchmark_hub) or renames
// it; the catalogue resolves the name, and a name it lacks leaves GPU zero.
func Open(path, device string, cat *catalog.Catalog) (*File, error) {
	return OpenKernel(path, device, "", cat)
}

// OpenKernel is Open, where kernel also names the kernel of a T4 file that names none and has
// no space.json beside it (Kernel Tuner's own T4 files, dataset.ErrNoKernel); empty, or
// AllKernels, names none.
func OpenKernel(path, device, kernel string, cat *catalog.Catalog) (*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path}
	if st.IsDir() {
		meta, rows, err := dataset.ReadAll(path)
		if err != nil {
			return nil, err
		}
		if len(meta.Devices) > 1 {
			return nil, fmt.Errorf("%s: %w (%d devices); give one GPU's data set each", path, ErrSeveralGPUs, len(meta.Devices))
		}
		f.Rows = rows
		if len(meta.Devices) == 1 {
			f.Device = meta.Devices[0].Name
			if f.Device == "" {
				f.Device = meta.Devices[0].GPU
			}
		}
	} else {
		kt, err := dataset.ReadKernelTuner(path, dataset.ImportOptions{Device: device})
		if errors.Is(err, dataset.ErrNoKernel) && kernel != "" && kernel != AllKernels {
			// Only then: ImportOptions.Kernel would also rename a kernel that a file names.
			kt, err = dataset.ReadKernelTuner(path, dataset.ImportOptions{Device: device, Kernel: kernel})
		}
		if err != nil {
			return nil, err
		}
		f.Rows, f.Device, f.Kernel, f.Note = kt.Rows, kt.Device.Name, &kt.Kernel, kt.OpenNote()
		if kt.DeviceGiven { // the file names none
			f.Device = ""
		}
	}
	own := f.Device // as the file names it
	if device != "" {
		f.Device = device
	}
	// Only what a GPU did can teach what another will do.
	predicted := slices.ContainsFunc(f.Rows, func(m smart.Measurement) bool { return m.Source == smart.Predicted })
	f.Rows = slices.DeleteFunc(f.Rows, func(m smart.Measurement) bool {
		return m.Source != smart.Measured && m.Source != smart.Imported
	})
	if len(f.Rows) == 0 && predicted {
		return nil, fmt.Errorf("%s: %w: it holds predictions; give the measurements they were predicted from", path, ErrNoMeasured)
	}
	if len(f.Rows) == 0 {
		return nil, fmt.Errorf("%s: %w", path, ErrNoMeasured)
	}
	if st.IsDir() {
		f.Stencils = map[string]*smart.Stencil{}
		for _, m := range f.Rows {
			if _, done := f.Stencils[m.StencilID]; m.StencilID != "" && !done {
				s, err := dataset.ReadStencil(path, m.StencilID)
				if err != nil {
					return nil, err
				}
				f.Stencils[m.StencilID] = s
			}
		}
	}
	name := f.Device
	if name == "" {
		name = f.Rows[0].GPU
	}
	if g, err := cat.Lookup(name); err == nil {
		f.GPU = g
	} else if g, err2 := cat.Lookup(f.Rows[0].GPU); f.Rows[0].GPU != "" && err2 == nil {
		f.GPU = g
	}
	if device != "" && own != "" && !strings.EqualFold(own, device) {
		if g, err := cat.Lookup(own); err != nil || g.Name != f.GPU.Name {
			f.Named = own // another GPU's measurements, taken as device's
		}
	}
	return f, nil
}

// Kernels splits the file's rows by kernel or stencil, in the order they first appear.
func (f *File) Kernels() (ids []string, rows map[string][]smart.Measurement) {
	rows = map[string][]smart.Measurement{}
	for _, m := range f.Rows {
		id := rowID(m)
		if _, ok := rows[id]; !ok {
			ids = append(ids, id)
		}
		rows[id] = append(rows[id], m)
	}
	return ids, rows
}

// ErrSeveralKernels is the error of files that hold several kernels where none was named.
var ErrSeveralKernels = errors.New("the files hold several kernels")

// AllKernels selects every kernel of the files: one prediction for them all, whose shots teach
// each kernel what the target does to the others.
const AllKernels = "all"

// Select picks the rows of one kernel from each file: kernel names it (a stencil's ID or name,
// a Kernel Tuner kernel's name, or AllKernels); empty takes the only one the files hold. A file
// without the kernel gives no source.
func Select(files []*File, kernel string) ([]Source, error) {
	ids := map[string]bool{}
	var order []string
	for _, f := range files {
		got, _ := f.Kernels()
		for _, id := range got {
			if !ids[id] {
				ids[id] = true
				order = append(order, id)
			}
		}
	}
	byID := StencilNames(files)
	name := func(id string) string {
		if sid, ok := strings.CutPrefix(id, "stencil "); ok {
			return byID[sid]
		}
		return ""
	}
	var held []string // the kernels, each with its stencil's name where it has one
	for _, id := range order {
		if n := name(id); n != "" {
			id += " (" + n + ")"
		}
		held = append(held, id)
	}
	want := ""
	switch {
	case kernel == AllKernels:
		var out []Source
		for _, f := range files {
			out = append(out, Source{GPU: f.GPU, Rows: f.Rows, Named: f.Named})
		}
		return out, nil
	case kernel != "":
		var named []string // the stencils of that name
		for _, id := range order {
			if id == "stencil "+kernel || id == "kernel "+kernel {
				want = id
			}
			if name(id) == kernel {
				named = append(named, id)
			}
		}
		if want == "" && len(named) > 1 {
			return nil, fmt.Errorf("%d stencils are named %s (%s): name one by its ID", len(named), kernel, strings.Join(named, ", "))
		}
		if want == "" && len(named) == 1 {
			want = named[0]
		}
		if want == "" {
			return nil, fmt.Errorf("no file holds kernel %q (they hold %s)", kernel, strings.Join(held, ", "))
		}
	case len(order) == 1:
		want = order[0]
	default:
		return nil, fmt.Errorf("%w (%s): name one", ErrSeveralKernels, strings.Join(held, ", "))
	}
	var out []Source
	for _, f := range files {
		_, rows := f.Kernels()
		if len(rows[want]) > 0 {
			out = append(out, Source{GPU: f.GPU, Rows: rows[want], Named: f.Named})
		}
	}
	return out, nil
}

// StencilNames are the names of the files' stencils by ID, for Prediction.Names.
func StencilNames(files []*File) map[string]string {
	names := map[string]string{}
	for _, f := range files {
		for id, st := range f.Stencils {
			names[id] = st.Name
		}
	}
	return names
}

// CheckFiles refuses what would make shots teach nothing without a word: a shots file none of
// whose kernels is the sources' (kernel as Select takes it), or whose Kernel Tuner parameters
// differ from theirs, or with no successful run of it; files of one kernel measured at
// different problem sizes, whose times no ratio of GPUs relates; and two sources of one kernel
// on one GPU (a cache and its T4 twin, say), or with the same measurements under two GPUs'
// names (SameMeasurements), which would count as two GPUs that predict each other exactly: an
// interval of no width.
func CheckFiles(sources, shots []*File, kernel string) error {
	var want []string // the kernels the sources give, as rowID names them
	for i, f := range sources {
		ids, _ := f.Kernels()
		for _, id := range ids {
			if (kernel == "" || kernel == AllKernels || id == "stencil "+kernel || id == "kernel "+kernel) && !slices.Contains(want, id) {
				want = append(want, id)
			}
		}
		for _, g := range sources[:i] {
			if f.GPU.Name == "" || f.GPU.Name != g.GPU.Name {
				continue
			}
			other, _ := g.Kernels()
			if j := slices.IndexFunc(want, func(id string) bool { return slices.Contains(ids, id) && slices.Contains(other, id) }); j >= 0 {
				return fmt.Errorf("%s and %s both hold %s measured on %s: one GPU's measurements would count as two source GPUs; give one of them", g.Path, f.Path, want[j], f.GPU.Name)
			}
		}
		for _, g := range sources[:i] {
			if SameMeasurements(g.Rows, f.Rows) {
				return fmt.Errorf("%s and %s hold the same settings and times: they are one GPU's measurements (named %s and %s), which would count as two source GPUs; give one of them",
					g.Path, f.Path, cmp.Or(g.Device, g.GPU.Name, "no device"), cmp.Or(f.Device, f.GPU.Name, "no device"))
			}
		}
	}
	var ref *File // the first file with a Kernel Tuner kernel, whose parameters and size count
	for _, f := range append(slices.Clone(sources), shots...) {
		switch {
		case f.Kernel == nil:
		case ref == nil:
			ref = f
		case !slices.Equal(slices.Sorted(slices.Values(f.Kernel.Names())), slices.Sorted(slices.Values(ref.Kernel.Names()))):
			return fmt.Errorf("%s tunes %s; %s tunes %s: they are not one kernel", f.Path, strings.Join(f.Kernel.Names(), ","), ref.Path, strings.Join(ref.Kernel.Names(), ","))
		case len(f.Kernel.ProblemSize) > 0 && len(ref.Kernel.ProblemSize) > 0 && !slices.Equal(f.Kernel.ProblemSize, ref.Kernel.ProblemSize):
			return fmt.Errorf("%s measured problem size %v; %s %v: times of different sizes do not move from GPU to GPU by a ratio", f.Path, f.Kernel.ProblemSize, ref.Path, ref.Kernel.ProblemSize)
		}
		if f.Kernel == nil || f == ref {
			continue
		}
		// A value's code depends on how the file writes it (1 an integer, 1.0 a label): a
		// parameter written two ways would make one setting two.
		for _, p := range f.Kernel.Params {
			i := slices.IndexFunc(ref.Kernel.Params, func(q dataset.Param) bool { return q.Name == p.Name })
			if i >= 0 && paramKind(p) != paramKind(ref.Kernel.Params[i]) {
				return fmt.Errorf("%s writes parameter %s as %s; %s as %s: one value written two ways (1 and 1.0, say) would be two settings; give files that write it alike", f.Path, p.Name, paramKind(p), ref.Path, paramKind(ref.Kernel.Params[i]))
			}
		}
	}
	for _, f := range shots {
		ids, rows := f.Kernels()
		ok := 0
		for _, id := range want {
			for _, m := range rows[id] {
				if m.OK() {
					ok++
				}
			}
		}
		switch {
		case !slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(want, id) }):
			return fmt.Errorf("%s holds %s, not the sources' %s: shots are settings of the kernel predicted", f.Path, strings.Join(ids, ", "), strings.Join(want, ", "))
		case ok == 0:
			return fmt.Errorf("%s holds no successful run of %s: a shot that failed says nothing of the target's times", f.Path, strings.Join(want, ", "))
		}
	}
	return nil
}

// paramKind names how a file writes a parameter's values.
func paramKind(p dataset.Param) string {
	switch {
	case p.Bool:
		return "booleans"
	case len(p.Labels) > 0:
		return "labels (floats such as 1.0, or strings)"
	}
	return "integers"
}

// SameMeasurements reports whether a and b hold the same settings of the same kernels with the
// same statuses and times, in any order: one GPU's measurements in two files (a Kernel Tuner
// cache and its T4 twin), whatever devices they name.
func SameMeasurements(a, b []smart.Measurement) bool {
	if len(a) != len(b) {
		return false
	}
	held := make(map[string]int, len(a))
	key := func(m smart.Measurement) string {
		return fmt.Sprintf("%s|%s|%v|%v", Key(m), m.Status, m.TimeMs, m.MeanMs)
	}
	for _, m := range a {
		held[key(m)]++
	}
	for _, m := range b {
		k := key(m)
		if held[k] == 0 {
			return false
		}
		held[k]--
	}
	return true
}
