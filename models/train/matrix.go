package train

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models"
	"smart/models/rows"
)

// Options say how data sets become a matrix.
type Options struct {
	Task models.Task
	// Tensor adds the stencil's binary tensor to the columns (for kinds that read it).
	Tensor bool
	// Catalog resolves GPU names to their features; nil means the embedded catalogue.
	Catalog *catalog.Catalog
	// NoAnalytic leaves out the analytic model's time. It is a column of runtime rows of
	// measured or imported data (stencils, and the convolution among foreign kernels); never of
	// simulated data, whose times are the analytic model's own.
	NoAnalytic bool
	// Inputs, when set, fixes the columns (a saved model's Header.Inputs) instead of deriving
	// them from the data; Classes, when set, are the classes the labels must have.
	Inputs  *models.Inputs
	Classes []models.Class
	// Labels are labels computed in memory for some of the data sets, by directory as given
	// (dataset.ComputeLabels), in place of their labels.json (select).
	Labels map[string]*dataset.Labels
	// Dims, when set, keeps only the rows of stencils of these dimensions, so a model of one
	// dimension is scored on data sets that mix 2-D and 3-D stencils; Set.Dropped counts the rest.
	Dims int
	// Target is what a runtime model learns: models.TargetLnMs ("" means it), or
	// models.TargetLnOverAnalytic, which needs rows that carry the analytic model's time.
	Target string
}

// ErrMixedDims is the error of Load on data sets of 2-D and 3-D stencils without Options.Dims:
// a stencil model's columns depend on the dimensions.
var ErrMixedDims = errors.New("data sets mix stencils of different dimensions")

// Sample is where one matrix row comes from.
type Sample struct {
	// Group keeps rows together in cross-validation: the stencil ID, or a foreign kernel's
	// configuration (so no configuration is both trained and tested on).
	Group   string
	GPU     string
	OC      smart.Combination // runtime: the row's OC; select: the best OC
	Setting smart.Setting     // runtime
	TimeMs  float64           // runtime: the measured time; select: the best time
	// Times is the best time of every OC that ran on this stencil and GPU (select).
	Times map[smart.Combination]float64
}

// Set is data sets turned into a model matrix, with each row's origin.
type Set struct {
	Data    *models.Data
	Samples []Sample
	Inputs  models.Inputs
	Classes []models.Class // select
	// Target is what Data.Y holds: models.TargetClass (select), TargetLnMs or
	// TargetLnOverAnalytic (runtime).
	Target string
	Refs   []models.DataRef
	// Stencils holds the stencils of the rows by ID (nil for foreign kernels).
	Stencils map[string]*smart.Stencil
	GPUs     map[string]smart.GPU
	// Dropped counts the rows Options.Dims left out.
	Dropped int
	// Torn names the data sets whose torn last line (a run stopped while writing it) was left
	// out, and the line.
	Torn []string
	// otherDims holds the stencils Options.Dims left out, whose labels a selection set skips.
	otherDims map[string]bool
}

// InstanceKeys names the instance of each sample (models.InstanceKey): its stencil, or the set's
// foreign kernel, on its GPU.
func (s *Set) InstanceKeys() []string {
	keys := make([]string, len(s.Samples))
	for i, sm := range s.Samples {
		id := sm.Group
		if s.Inputs.Kernel != "" { // the group is a configuration of the kernel
			id = s.Inputs.Kernel
		}
		keys[i] = models.InstanceKey(id, sm.GPU)
	}
	return keys
}

// source is one data set as read.
type source struct {
	dir  string
	meta dataset.Meta
	rows []smart.Measurement
	read int // rows in the data set, before Options.Dims drops any: what labels.json counts
}

// Load reads data set directories and builds the matrix of opt.Task: a row per stencil and GPU
// labelled with its best OC class (select; the data sets need labels.json, from smart dataset
// label), or a row per measured variant with its ln time (runtime). Once ctx is done it stops,
// between data sets or every few thousand rows, with an error that wraps ctx.Err().
func Load(ctx context.Context, dirs []string, opt Options) (*Set, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no data set given")
	}
	cat := opt.Catalog
	if cat == nil {
		var err error
		if cat, err = catalog.Default(); err != nil {
			return nil, err
		}
	}
	var srcs []source
	var metas []dataset.Meta
	var torn []string
	for _, dir := range dirs {
		var rows []smart.Measurement
		meta, t, err := dataset.ScanContext(ctx, dir, func(m smart.Measurement) error {
			rows = append(rows, m)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading data set %s: %w", dir, err)
		}
		if t != nil {
			torn = append(torn, fmt.Sprintf("%s/rows.csv: %s", dir, t))
		}
		srcs = append(srcs, source{dir: dir, meta: meta, rows: rows, read: len(rows)})
		metas = append(metas, meta)
	}
	// The same data set twice (a copy, or a path written otherwise), or a merge beside its input,
	// would count rows twice.
	if err := dataset.Distinct(dirs, metas); err != nil {
		return nil, err
	}
	read := 0
	for _, src := range srcs {
		read += src.read
	}
	if read == 0 {
		// Said before the checks of dimensions and status, whose errors would count rows of none.
		return nil, fmt.Errorf("%s: no rows; there is nothing to learn from or score", strings.Join(dirs, ", "))
	}
	s := &Set{Stencils: map[string]*smart.Stencil{}, GPUs: map[string]smart.GPU{}, Torn: torn}
	kernel, err := kernelOf(srcs)
	if err != nil {
		return nil, err
	}
	if opt.Dims != 0 && opt.Dims != 2 && opt.Dims != 3 {
		return nil, fmt.Errorf("dimensions %d: stencils are 2-D or 3-D", opt.Dims)
	}
	if kernel == nil && opt.Dims != 0 {
		if s.Dropped, s.otherDims, err = keepDims(srcs, opt.Dims); err != nil {
			return nil, err
		}
		left := 0
		for _, src := range srcs {
			left += len(src.rows)
		}
		if left == 0 {
			return nil, fmt.Errorf("the data sets hold no rows of %d-D stencils, only %d rows of stencils of other dimensions: give data sets of %d-D stencils (a model reads the dimensions it was trained on)", opt.Dims, s.Dropped, opt.Dims)
		}
	}
	if kernel != nil && opt.Task == models.Select {
		return nil, fmt.Errorf("data set %s holds the foreign kernel %s; OC selection needs stencil data sets", dirs[0], kernel.Name)
	}
	in := models.Inputs{Stencil: kernel == nil, Tensor: opt.Tensor && kernel == nil, Setting: opt.Task == models.Runtime}
	simulated := false
	for _, src := range srcs {
		simulated = simulated || slices.Contains(src.meta.Sources, smart.Simulated)
	}
	analytic := !opt.NoAnalytic && !simulated && opt.Task == models.Runtime
	if kernel != nil {
		in.Kernel, in.ProblemSize = kernel.Name, kernel.ProblemSize
		for _, p := range kernel.Params {
			in.KernelParams = append(in.KernelParams, p.Name)
		}
		if analytic && rows.IsConvolution(in.KernelParams) {
			in.Analytic = rows.AnalyticConv
		}
	} else if analytic {
		// Measured stencils: the analytic model's time, and what the variant is estimated to
		// ask of a thread (registers, spills), which its times depend on most where the
		// simulated data's model is wrong (docs/results/calibration.md).
		in.Analytic, in.Usage = rows.AnalyticStencil, true
	}
	gpus := map[string]bool{}
	for _, src := range srcs {
		for _, m := range src.rows {
			if m.OK() {
				gpus[m.GPUName()] = true
			}
		}
	}
	if len(gpus) == 0 {
		var dirs []string
		for _, src := range srcs {
			dirs = append(dirs, src.dir)
		}
		return nil, fmt.Errorf("%s: no row ran successfully (every variant failed or was invalid); there is nothing to learn from or score", strings.Join(dirs, ", "))
	}
	in.GPU = opt.Task == models.Runtime || len(gpus) > 1
	for g := range gpus {
		gpu, err := cat.Lookup(g)
		if err != nil {
			return nil, fmt.Errorf("a GPU of the data: %w", err)
		}
		s.GPUs[g] = gpu
	}
	if kernel == nil {
		if err := s.readStencils(srcs, &in); err != nil {
			return nil, err
		}
	}
	if in.Analytic != "" {
		in.GPU = true
	}
	if opt.Inputs != nil {
		if err := compatible(*opt.Inputs, in); err != nil {
			return nil, err
		}
		in = *opt.Inputs
	}
	s.Classes = opt.Classes
	switch {
	case opt.Task == models.Select:
		s.Target = models.TargetClass
	case opt.Target == "" || opt.Target == models.TargetLnMs:
		s.Target = models.TargetLnMs
	case opt.Target != models.TargetLnOverAnalytic:
		return nil, fmt.Errorf("unknown target %q (known: %s, %s)", opt.Target, models.TargetLnMs, models.TargetLnOverAnalytic)
	case in.Analytic == "":
		return nil, fmt.Errorf("target %s needs rows that carry the analytic model's time: these data sets' rows do not (simulated data, or a kernel it does not model)", opt.Target)
	default:
		s.Target = opt.Target
	}
	f, err := rows.New(in)
	if err != nil {
		return nil, err
	}
	s.Inputs = in
	s.Data = &models.Data{Task: opt.Task, Features: f.Names()}
	switch opt.Task {
	case models.Runtime:
		err = s.runtimeRows(ctx, srcs, f)
	case models.Select:
		err = s.selectRows(srcs, f, opt.Labels)
	default:
		err = fmt.Errorf("unknown task %q", opt.Task)
	}
	if err != nil {
		return nil, err
	}
	if s.Data.Rows() == 0 {
		return nil, fmt.Errorf("data sets %v hold no usable rows (no ok measurements)", dirs)
	}
	return s, nil
}

// kernelOf returns the foreign kernel of the data sets, or nil for stencil data; mixing the two,
// or two kernels, is an error.
func kernelOf(srcs []source) (*dataset.Kernel, error) {
	var k *dataset.Kernel
	for i, src := range srcs {
		var this *dataset.Kernel
		switch len(src.meta.Kernels) {
		case 0:
		case 1:
			this = &src.meta.Kernels[0]
		default:
			return nil, fmt.Errorf("data set %s holds %d foreign kernels; train on one at a time", src.dir, len(src.meta.Kernels))
		}
		if i == 0 {
			k = this
			continue
		}
		switch {
		case (k == nil) != (this == nil):
			return nil, fmt.Errorf("data sets %s and %s mix stencils with a foreign kernel", srcs[0].dir, src.dir)
		case k != nil && k.Name != this.Name:
			return nil, fmt.Errorf("data sets %s and %s hold different kernels (%s, %s)", srcs[0].dir, src.dir, k.Name, this.Name)
		}
	}
	return k, nil
}

// keepDims removes from srcs the rows of stencils not of dims dimensions and returns how many,
// and which stencils they were.
func keepDims(srcs []source, dims int) (int, map[string]bool, error) {
	dimsOf := map[string]int{}
	dropped, others := 0, map[string]bool{}
	for i := range srcs {
		src := &srcs[i]
		kept := src.rows[:0]
		for _, m := range src.rows {
			d, ok := dimsOf[m.StencilID]
			if !ok && m.StencilID != "" {
				st, err := dataset.ReadStencil(src.dir, m.StencilID)
				if err != nil {
					return 0, nil, err
				}
				d = st.Dims
				dimsOf[m.StencilID] = d
			}
			if d == dims {
				kept = append(kept, m)
			} else {
				dropped++
				others[m.StencilID] = true
			}
		}
		src.rows = kept
	}
	return dropped, others, nil
}

// readStencils reads the stencils the rows name and sets the dimensions and order of in.
func (s *Set) readStencils(srcs []source, in *models.Inputs) error {
	in.MaxOrder = smart.DefaultMaxOrder
	for _, src := range srcs {
		for _, m := range src.rows {
			if _, ok := s.Stencils[m.StencilID]; ok || !m.OK() {
				continue
			}
			if m.StencilID == "" {
				return fmt.Errorf("data set %s: a row names no stencil", src.dir)
			}
			st, err := dataset.ReadStencil(src.dir, m.StencilID)
			if err != nil {
				return err
			}
			s.Stencils[m.StencilID] = st
			switch {
			case in.Dims == 0:
				in.Dims = st.Dims
			case in.Dims != st.Dims:
				return fmt.Errorf("%w: %d-D and %d-D (%s of %s); train a model for each", ErrMixedDims, in.Dims, st.Dims, m.StencilID, src.dir)
			}
			in.MaxOrder = max(in.MaxOrder, st.Order())
		}
	}
	return nil
}

func newRef(src source) models.DataRef {
	ref := models.DataRef{Path: src.dir, ID: src.meta.ID(), Sources: map[string]int{}}
	for _, d := range src.meta.Devices {
		if d.GPU != "" && !slices.Contains(ref.GPUs, d.GPU) {
			ref.GPUs = append(ref.GPUs, d.GPU)
		}
		ref.Devices = append(ref.Devices, d.Name)
		if d.Constants.Origin != "" && !slices.Contains(ref.Constants, d.Constants.String()) {
			ref.Constants = append(ref.Constants, d.Constants.String())
		}
	}
	return ref
}

// rowsCheck is how many rows runtimeRows builds (each with the analytic model's time) between
// two looks at its context.
const rowsCheck = 4096

func (s *Set) runtimeRows(ctx context.Context, srcs []source, f *rows.Featurizer) error {
	for _, src := range srcs {
		ref := newRef(src)
		for i, m := range src.rows {
			if i%rowsCheck == 0 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("data set %s: stopped building rows after %d of %d: %w", src.dir, i, len(src.rows), err)
				}
			}
			if !m.OK() || !(m.TimeMs > 0) || math.IsInf(m.TimeMs, 0) {
				continue
			}
			g := m.GPUName()
			var st *smart.Stencil
			group := m.StencilID
			if s.Inputs.Kernel != "" {
				group = m.Setting.String()
			} else {
				st = s.Stencils[m.StencilID]
			}
			row, err := f.Row(st, m.OC, m.Setting, s.GPUs[g])
			if err != nil {
				return fmt.Errorf("data set %s: row of %s %s %s on %s: %w", src.dir, cmp.Or(m.StencilID, m.Kernel), m.OC, m.Setting, g, err)
			}
			y := math.Log(m.TimeMs)
			if s.Target == models.TargetLnOverAnalytic {
				y -= models.AnalyticAnchor(row)
			}
			s.Data.X = append(s.Data.X, row)
			s.Data.Y = append(s.Data.Y, y)
			s.Data.Groups = append(s.Data.Groups, group)
			s.Samples = append(s.Samples, Sample{Group: group, GPU: g, OC: m.OC, Setting: m.Setting, TimeMs: m.TimeMs})
			ref.Rows++
			ref.Sources[string(m.Source)]++
		}
		if ref.Rows > 0 { // a data set with no row of these dimensions trains nothing
			s.Refs = append(s.Refs, ref)
		}
	}
	return nil
}

// LabelsError is a selection matrix's error for a data set whose labels cannot be used: Err
// when they cannot be read (none written yet), else they were computed from Labelled rows and
// the data set now holds Rows (rows appended since, by a tuning record or a resumed run). Either
// way the data set needs labelling (dataset.Label).
type LabelsError struct {
	Dir            string
	Err            error
	Labelled, Rows int
}

func (e *LabelsError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s: %s was computed from %d rows, but the data set now holds %d", e.Dir, dataset.LabelsFile, e.Labelled, e.Rows)
}

func (e *LabelsError) Unwrap() error { return e.Err }

type instanceKey struct{ stencil, gpu string }

func (s *Set) selectRows(srcs []source, f *rows.Featurizer, given map[string]*dataset.Labels) error {
	var first string
	for _, src := range srcs {
		labels := given[src.dir]
		if labels == nil {
			var err error
			if labels, err = dataset.ReadLabels(src.dir); err != nil {
				return &LabelsError{Dir: src.dir, Err: err}
			}
		}
		// Rows appended since the labelling (smart tune --record, a resumed smart bench) would
		// be left out of the labels without a word: the best OCs may have changed.
		if labels.Rows != src.read {
			return &LabelsError{Dir: src.dir, Labelled: labels.Rows, Rows: src.read}
		}
		classes := make([]models.Class, len(labels.Classes))
		for i, c := range labels.Classes {
			classes[i] = models.Class{OC: c.Label, Members: c.Members}
		}
		switch {
		case s.Classes == nil:
			s.Classes, first = classes, src.dir
		case first == "" && !sameClasses(s.Classes, classes):
			return fmt.Errorf("data set %s is labelled with OC classes %s; the model predicts %s", src.dir, classNames(classes), classNames(s.Classes))
		case !sameClasses(s.Classes, classes):
			return fmt.Errorf("data sets %s and %s are labelled with different OC classes; merge them and label the merged set", first, src.dir)
		}
		if first == "" {
			first = src.dir
		}
		s.Data.Classes = len(s.Classes)
		ref := newRef(src)
		best := map[instanceKey]map[smart.Combination]float64{}
		for _, m := range src.rows {
			if !m.OK() || !(m.TimeMs > 0) {
				continue
			}
			ref.Sources[string(m.Source)]++ // the measurements behind the labels
			k := instanceKey{m.StencilID, m.GPUName()}
			if best[k] == nil {
				best[k] = map[smart.Combination]float64{}
			}
			if t, ok := best[k][m.OC]; !ok || m.TimeMs < t {
				best[k][m.OC] = m.TimeMs
			}
		}
		insts := append([]dataset.Instance(nil), labels.Instances...)
		sort.SliceStable(insts, func(i, j int) bool {
			return insts[i].StencilID < insts[j].StencilID || insts[i].StencilID == insts[j].StencilID && insts[i].GPU < insts[j].GPU
		})
		for _, inst := range insts {
			if s.otherDims[inst.StencilID] {
				continue
			}
			st, ok := s.Stencils[inst.StencilID]
			if !ok {
				return fmt.Errorf("%s: labels.json names stencil %s, which has no ok rows; relabel the data set", src.dir, inst.StencilID)
			}
			class := slices.IndexFunc(s.Classes, func(c models.Class) bool { return c.OC == inst.Class })
			if class < 0 {
				return fmt.Errorf("%s: instance %s on %s has class %s, which labels.json does not list", src.dir, inst.StencilID, inst.GPU, inst.Class)
			}
			gpu, ok := s.GPUs[inst.GPU]
			if !ok {
				return fmt.Errorf("%s: labels.json names GPU %s, which has no ok rows; relabel the data set", src.dir, inst.GPU)
			}
			row, err := f.Row(st, 0, nil, gpu)
			if err != nil {
				return fmt.Errorf("%s: stencil %s: %w", src.dir, inst.StencilID, err)
			}
			s.Data.X = append(s.Data.X, row)
			s.Data.Y = append(s.Data.Y, float64(class))
			s.Data.Groups = append(s.Data.Groups, inst.StencilID)
			s.Samples = append(s.Samples, Sample{Group: inst.StencilID, GPU: inst.GPU, OC: inst.Best, TimeMs: inst.BestMs,
				Times: best[instanceKey{inst.StencilID, inst.GPU}]})
			ref.Rows++
		}
		s.Refs = append(s.Refs, ref)
	}
	return nil
}

func classNames(cs []models.Class) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.OC.String())
	}
	return "[" + strings.Join(names, " ") + "]"
}

// compatible reports why data whose derived inputs are got cannot feed a model built on want.
func compatible(want, got models.Inputs) error {
	switch {
	case want.Kernel != got.Kernel:
		return fmt.Errorf("the model was trained on %s; the data holds %s", orStencils(want.Kernel), orStencils(got.Kernel))
	case want.Kernel == "" && want.Dims != got.Dims:
		return fmt.Errorf("the model was trained on %d-D stencils; the data holds %d-D ones", want.Dims, got.Dims)
	case want.Kernel == "" && got.MaxOrder > want.MaxOrder:
		return fmt.Errorf("the data holds stencils of order %d; the model reads up to order %d", got.MaxOrder, want.MaxOrder)
	case !slices.Equal(want.KernelParams, got.KernelParams):
		return fmt.Errorf("the model reads kernel parameters %v; the data has %v", want.KernelParams, got.KernelParams)
	}
	return nil
}

func orStencils(kernel string) string {
	if kernel == "" {
		return "stencils"
	}
	return "kernel " + kernel
}

func sameClasses(a, b []models.Class) bool {
	return slices.EqualFunc(a, b, func(x, y models.Class) bool { return x.OC == y.OC && slices.Equal(x.Members, y.Members) })
}

// Subset returns the rows at idx as a new set sharing stencils, GPUs and inputs.
func (s *Set) Subset(idx []int) *Set {
	sub := *s
	sub.Data = s.Data.Subset(idx)
	sub.Samples = make([]Sample, len(idx))
	for i, j := range idx {
		sub.Samples[i] = s.Samples[j]
	}
	return &sub
}

// GPUNames lists the GPUs of the rows, sorted.
func (s *Set) GPUNames() []string {
	var out []string
	for _, smp := range s.Samples {
		if !slices.Contains(out, smp.GPU) {
			out = append(out, smp.GPU)
		}
	}
	sort.Strings(out)
	return out
}
