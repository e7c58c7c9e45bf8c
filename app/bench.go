package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"smart"
	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
	"smart/generator"
	"smart/internal/atomicfile"
	"smart/internal/english"
	"smart/space"
)

// Bench measures stencils under OCs into a data set (StencilMART section V-A): for every
// stencil and OC, Samples settings drawn at random from the valid ones on the GPU, or the
// Settings given, each evaluated once and appended as it finishes. A run stopped and started
// again with the same settings skips what is done.
type Bench struct {
	// Stencils are measured; where nil, they are read from Files, or drawn (Random).
	Stencils []*smart.Stencil
	Files    []string  // stencil files, or directories of them (every *.json); "-" reads Stdin
	Stdin    io.Reader // nil: "-" reads nothing
	// Random, when over 0, draws this many stencils (StencilMART Algorithm 1) of Dims
	// dimensions and orders 1 to MaxOrder in turn, seeded by Seed.
	Random   int
	Dims     int
	MaxOrder int
	OCs      []smart.Combination // nil: all
	Samples  int                 // settings drawn per stencil and OC
	Seed     uint64              // of the settings and the random stencils drawn
	Settings []dataset.Variant   // measured instead of random ones, on every stencil
	Shard    *dataset.Shard      // nil: every stencil
	Backend  string              // the evaluator: cuda or sim
	GPU      string              // catalogue name ("": cuda finds it through NVML, sim takes DefaultSimGPU)
	Catalog  *catalog.Catalog    // nil: CatalogFile merged over the built-in catalogue
	// CatalogFile is a GPU catalogue file merged over the built-in one where Catalog is nil.
	CatalogFile string
	CUDA        CUDAOptions
	Out         string        // the data set directory
	Batch       int           // variants handed to the evaluator at once (0: its own)
	Time        time.Duration // stop cleanly after this long (MinTime or more), drawing the settings included (0: never)
	Notes       io.Writer
	// Drawing, when set, gets the stencils whose settings are drawn, of total.
	Drawing func(done, total int)
}

// Benching is an opened Bench: its plan and the variants it measures.
type Benching struct {
	Backend *Backend
	Plan    *dataset.Plan
	Items   []dataset.Item // the variants of the shard, done or not
	Exists  bool           // the data set holds this run already: Run resumes it
	bench   Bench
	drawn   bool          // Items were drawn now, not read from the data set
	drawing time.Duration // how long drawing them took
	start   time.Time
}

// Check refuses, before any file is read, settings that cannot be used.
func (b Bench) Check() error {
	switch {
	case b.Out == "":
		return wrong("Out", "", "required: the data set directory")
	case b.Samples < 1:
		return wrong("Samples", fmt.Sprint(b.Samples), "draw at least 1 setting per OC")
	case b.Batch < 0:
		return wrong("Batch", fmt.Sprint(b.Batch), "use 1 or more, or 0 for the backend's own")
	case b.Stencils == nil && len(b.Files) == 0 && b.Random <= 0:
		return wrong("Files", "", "no stencils: give stencil files, or a number of random stencils to draw")
	case b.Random > 0 && len(b.Files) > 0:
		return wrong("Random", fmt.Sprint(b.Random), "draws the stencils instead of reading files; give one or the other")
	case b.Random > 0 && b.Dims != 2 && b.Dims != 3:
		return wrong("Dims", fmt.Sprint(b.Dims), "use 2 or 3")
	case b.Random > 0 && (b.MaxOrder < 1 || b.MaxOrder > smart.MaxMaxOrder):
		return wrong("MaxOrder", fmt.Sprint(b.MaxOrder), "use 1 to %d", smart.MaxMaxOrder)
	}
	if err := cmp.Or(b.CUDA.Check(), checkTime(b.Time)); err != nil {
		return err
	}
	if name, err := ParseEvaluator(b.Backend); err != nil || (name.Kind != CUDA && name.Kind != Sim) {
		return wrong("Backend", fmt.Sprintf("%q", b.Backend), "use cuda, sim, sim:calibrated or sim:FILE (a calibration file)")
	}
	if err := atomicfile.CheckDir(b.Out); err != nil {
		return &SettingError{Field: "Out", Err: err} // before drawing the settings, which can take minutes
	}
	return nil
}

// Open reads or draws the stencils, opens the backend (sim: on DefaultSimGPU where no GPU is
// named), draws the settings (or reads those of the run being resumed) and checks that the data
// set directory holds no other run. Close it.
func (b Bench) Open(ctx context.Context) (*Benching, error) {
	start := time.Now()
	name, err := ParseEvaluator(b.Backend)
	if err == nil && name.Kind != CUDA && name.Kind != Sim {
		err = wrong("Backend", b.Backend, "a bench runs on cuda, sim, sim:calibrated or sim:FILE")
	}
	if err == nil && b.Stencils == nil {
		b.Stencils, err = b.readStencils()
	}
	if err == nil && name.Kind == Sim && b.GPU == "" {
		b.GPU = DefaultSimGPU
		notef(b.Notes, "simulating the %s, as no GPU is named\n", DefaultSimGPU)
	}
	bg := &Benching{bench: b, start: start}
	cat := b.Catalog
	if err == nil && cat == nil {
		cat, err = catalog.Load(b.CatalogFile)
	}
	if err != nil {
		return nil, err
	}
	if bg.Backend, err = Open(name, nil, b.GPU, cat, b.CUDA, b.Notes); err != nil {
		return nil, err
	}
	if err := bg.open(ctx); err != nil {
		return nil, errors.Join(err, bg.Close())
	}
	return bg, nil
}

// readStencils draws the Random stencils, or reads Files.
func (b Bench) readStencils() ([]*smart.Stencil, error) {
	if b.Random > 0 {
		return dataset.RandomStencils(b.Random, b.Dims, b.MaxOrder, b.Seed)
	}
	files, err := generator.LoadAll(b.Files, b.Stdin, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, err
	}
	sts := make([]*smart.Stencil, 0, len(files))
	seen := map[string]string{}
	for _, f := range files {
		if prev, dup := seen[f.Stencil.ID()]; dup {
			return nil, fmt.Errorf("stencil files %s and %s hold the same stencil", prev, f.File)
		}
		seen[f.Stencil.ID()] = f.File
		sts = append(sts, f.Stencil)
	}
	return sts, nil
}

// Close ends the backend's processes.
func (bg *Benching) Close() error { return bg.Backend.Close() }

func (bg *Benching) open(ctx context.Context) error {
	b, gpu := bg.bench, bg.Backend.GPU
	if err := gpu.RunsCUDA(); err != nil {
		return &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	var err error
	if b.Settings != nil {
		if bg.Plan, err = dataset.NewExplicitPlan(b.Stencils, b.Settings); err != nil {
			return &SettingError{Field: "Settings", Err: err, Wrong: true}
		}
	} else {
		ocs := b.OCs
		if ocs == nil {
			ocs = smart.Combinations()
		}
		if bg.Plan, err = dataset.NewPlan(b.Stencils, ocs, b.Samples, b.Seed); err != nil {
			return err
		}
	}
	if sh := b.Shard; sh != nil && !slices.ContainsFunc(b.Stencils, func(st *smart.Stencil) bool { return bg.Plan.InShard(st.ID(), sh) }) {
		// More shards than stencils, as a job array sized for another run: not an error.
		notef(b.Notes, "shard %s holds none of the %s: it has nothing to measure\n", sh, english.Plural(len(b.Stencils), "stencil"))
	}
	// Before the minutes of drawing the settings: a directory that holds something else, another
	// run's data set, one being written or one damaged is refused now, not after them.
	if bg.Exists, err = dataset.CheckOpen(b.Out, bg.meta()); err != nil {
		return &SettingError{Field: "Out", Err: err}
	}
	if r := bg.Backend.Runner; r != nil && bg.Exists {
		if old, err := dataset.ReadMeta(b.Out); err == nil {
			noteOlderFormat(b.Notes, b.Out, old.Format)
			if old.Format == dataset.FormatV1 && r.Cut.Stencil >= 0 {
				// Its rows.csv has no column to mark a cut row.
				notef(b.Notes, "%s is a data set of format %s: its variants are measured in full, none cut short\n", b.Out, dataset.FormatV1)
				r.Cut.Stencil = -1
			}
		}
	}
	if bg.Exists {
		// A resumed run measures the settings it drew when it started.
		if bg.Items, err = dataset.LoadItems(b.Out, b.Stencils, bg.Plan, b.Shard); err != nil {
			return err
		}
	}
	if bg.drawn = bg.Items == nil; bg.drawn {
		began := time.Now()
		defer func() { bg.drawing = time.Since(began) }()
		if err := bg.draw(ctx); err != nil {
			if ctx.Err() != nil {
				// The settings are saved once all are drawn, with the data set: a stop within
				// the drawing loses it, where --time lets it finish.
				return fmt.Errorf("%w; nothing was written, and the next call draws the settings again (a time limit lets the drawing finish and saves it)", err)
			}
			return err
		}
	}
	return nil
}

// noteOlderFormat tells that the GPU's rows appended to the data set dir, of an older format,
// leave out the compiler's facts: its rows.csv keeps its header, which has no columns for them.
func noteOlderFormat(w io.Writer, dir, format string) {
	if format != dataset.Format {
		notef(w, "%s is a data set of format %s: the rows added to it leave out the kernels' registers and local memory (a new data set records them)\n", dir, format)
	}
}

func (bg *Benching) meta() dataset.Meta {
	be := bg.Backend
	return dataset.Meta{Sources: []smart.Source{be.Source}, Devices: []dataset.Device{be.Device},
		Params: dataset.StencilParams(), Plan: bg.Plan, Shard: bg.bench.Shard}
}

// draw draws the plan's settings stencil by stencil, so that Drawing moves while the search
// spaces are generated (the slow part).
func (bg *Benching) draw(ctx context.Context) error {
	b, plan := bg.bench, bg.Plan
	total := 0
	for _, st := range b.Stencils {
		if plan.InShard(st.ID(), b.Shard) {
			total++
		}
	}
	drawing := b.Drawing
	if drawing == nil {
		drawing = func(int, int) {}
	}
	built, perStencil := 0, max(len(plan.OCs), len(plan.Settings))
	spaces := func(ctx context.Context, st *smart.Stencil, oc smart.Combination, g smart.GPU) (*space.Space, error) {
		// Called before the stencil's space is built: report the stencils finished so far.
		drawing(built/perStencil, total)
		built++
		return space.ForStencilContext(ctx, st, oc, g)
	}
	items, err := plan.Items(ctx, b.Stencils, bg.Backend.GPU, spaces, b.Shard)
	if err != nil {
		return err
	}
	drawing(total, total)
	if b.Settings != nil && len(items) > 0 && !slices.ContainsFunc(items, func(it dataset.Item) bool { return it.Invalid == "" }) {
		it := items[0]
		return wrong("Settings", "", "%s %s fits no stencil: %s: %s", it.OC, it.Setting, it.Stencil.Name, it.Invalid)
	}
	bg.Items = items
	return nil
}

// Done counts the variants the data set holds already, and says where its last row was cut
// off (nil: nowhere).
func (bg *Benching) Done() (int, *dataset.Torn, error) {
	if !bg.Exists {
		return 0, nil, nil
	}
	return dataset.CountDone(bg.bench.Out, bg.Backend.GPU.Name, bg.Items)
}

// Run measures the variants the data set lacks; progress (nil: none) gets the variants done.
// With a copy bandwidth measured by the GPU runner, it is appended to the data set too.
func (bg *Benching) Run(ctx context.Context, progress func(done, total int)) (dataset.Summary, error) {
	b, be := bg.bench, bg.Backend
	w, torn, err := dataset.OpenWriter(b.Out, bg.meta())
	if err != nil { // changed since Open checked it: nothing was measured, nothing is to resume
		return dataset.Summary{}, &SettingError{Field: "Out", Err: err}
	}
	defer w.Close()
	if torn != nil {
		notef(b.Notes, "resuming %s: %s; it was cut off and will be measured again\n", b.Out, torn)
	}
	if bg.drawn {
		if err := dataset.SaveItems(b.Out, bg.Items); err != nil {
			return dataset.Summary{}, err
		}
	}
	for _, st := range b.Stencils {
		if bg.Plan.InShard(st.ID(), b.Shard) {
			if err := w.AddStencil(st); err != nil {
				return dataset.Summary{}, err
			}
		}
	}
	batch := b.Batch
	if be.Runner != nil && batch == 0 {
		batch = be.Runner.BatchSize()
	}
	r := &dataset.Runner{Evaluator: be.Evaluator, GPU: be.GPU.Name, Batch: batch, Observer: be.Observer, Progress: progress}
	if b.Time > 0 {
		r.Deadline = bg.start.Add(b.Time) // counted from Open: drawing the settings included
	}
	sum, runErr := r.Run(ctx, w, bg.Items)
	if runErr == nil && sum.Stopped && sum.Written == 0 && !bg.drawn {
		// Nothing measured and no settings drawn to save: the time is the setting to change.
		runErr = tooShort(b.Time, campaign.ErrTooShort)
	}
	if err := AppendCopyBandwidth(b.Out, be, w.Len(), b.Notes); err != nil && runErr == nil {
		runErr = err
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// AppendCopyBandwidth appends the device-to-device copy bandwidth the GPU runner measured
// (none: nothing) to the data set dir of rows rows, and notes it.
func AppendCopyBandwidth(dir string, be *Backend, rows int, notes io.Writer) error {
	if be.Runner == nil || be.Runner.CopyBandwidth() <= 0 {
		return nil
	}
	gbs := be.Runner.CopyBandwidth()
	notef(notes, "device-to-device copy on %s: %.0f GB/s (bytes read plus written)\n", be.Device.Name, gbs)
	return dataset.AppendCopyBandwidth(dir, dataset.CopyMeasurement{At: time.Now(), Device: be.Device.Name, GBs: gbs, UUID: be.Device.UUID, Rows: rows})
}
