package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"smart"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/space"
)

// ktCache is Kernel Tuner's cache format (schema 1.0.0, every field it requires but a problem
// size the sources did not record), with smart's note of what the times are. "cache" is the
// last object, as Kernel Tuner writes it: a run that continues from the file drops its last
// "}\n}" and appends configurations there.
type ktCache struct {
	SchemaVersion  string                     `json:"schema_version"`
	DeviceName     string                     `json:"device_name"`
	KernelName     string                     `json:"kernel_name"`
	ProblemSize    []int                      `json:"problem_size,omitempty"` // left out where unknown: Kernel Tuner compares any it finds with the size it runs
	TuneParamsKeys []string                   `json:"tune_params_keys"`
	TuneParams     map[string][]any           `json:"tune_params"`
	Objective      string                     `json:"objective"`
	Smart          ktNote                     `json:"smart"`
	Cache          map[string]json.RawMessage `json:"cache"`
}

type ktNote struct {
	Source  smart.Source `json:"source"` // always predicted
	Time    string       `json:"time"`   // which statistic of a setting's runs "time" is: medianOfRuns
	Basis   string       `json:"basis"`
	Sources []string     `json:"sources"`
	// OtherVendor says no source is of the target's vendor (Prediction.OtherVendor).
	OtherVendor bool `json:"other_vendor,omitempty"`
	Shots       int  `json:"shots"`
	// ShotsLeftOut counts the shots at settings no source holds, which the cache leaves out.
	ShotsLeftOut int    `json:"shots_left_out,omitempty"`
	Interval     any    `json:"interval,omitempty"`
	NoInterval   string `json:"no_interval,omitempty"` // why there is none
	// Settings counts the settings the cache holds, those some source holds; SpaceSettings those
	// of the kernel's space, where a space.json's conditions make it (Coverage).
	Settings      int      `json:"settings"`
	SpaceSettings *big.Int `json:"space_settings,omitempty"`
}

// CacheKind recognises a Kernel Tuner cache of predictions that WriteKernelTuner wrote, by its
// "smart" object, for the rule on replacing files (atomicfile.CheckReplace).
func CacheKind() atomicfile.Kind {
	return atomicfile.Kind{What: "a Kernel Tuner cache of predictions", Ours: func(path string) (bool, error) {
		if _, err := os.Stat(path); err != nil {
			return false, err
		}
		data, err := dataset.ReadMaybeGzip(path)
		if err != nil {
			return false, nil // unreadable, or cut short: not a cache smart wrote whole
		}
		var c struct {
			Smart *ktNote `json:"smart"`
		}
		return json.Unmarshal(data, &c) == nil && c.Smart != nil && c.Smart.Source == smart.Predicted, nil
	}}
}

// medianOfRuns is what the "smart" object says "time" is. The times smart reads are the median
// of a setting's runs where a file holds the runs (its time, a Kernel Tuner mean, where it holds
// none): one slow run (a clock ramping up, a context switch) moves a mean, not a median, and the
// prediction moves and corrects the times it reads, so its times are medians too.
const medianOfRuns = "the median of the setting's runs where the files measured hold them; Kernel Tuner's own \"time\" is their mean"

// ktSchema is the version of Kernel Tuner's cache format KernelTunerCache writes.
const ktSchema = "1.0.0"

// KernelTunerCache is p as a Kernel Tuner cache of kernel k on device, written at the time
// written: "time" is the predicted time (a shot's measured one), the median of a setting's runs
// as every time smart reads and predicts is ("times" holds it alone, so that "time" is still
// their mean, as Kernel Tuner has it), "time_lo" and "time_hi" the interval, "predicted" false only for shots; a setting every source failed is a
// "CompilationFailedConfig" where each source that failed it failed to compile it, else a
// "RuntimeFailedConfig". The compile, verification, benchmark, strategy and framework times the
// format requires are 0, since nothing was compiled or run: Kernel Tuner's simulation mode adds
// a replayed configuration's compile, verification and benchmark times to the simulated time
// its time_limit counts, so a replay of this cache spends none per evaluation and is budgeted by
// max_fevals. The top-level "smart" object says what the times rest on, and how many settings
// the cache holds (CacheCoverage).
func (p *Prediction) KernelTunerCache(k dataset.Kernel, device string, written time.Time) ([]byte, error) {
	c := ktCache{SchemaVersion: ktSchema, DeviceName: device, KernelName: k.Name, ProblemSize: k.ProblemSize, TuneParams: map[string][]any{},
		Objective: "time", Cache: map[string]json.RawMessage{},
		Smart: ktNote{Source: smart.Predicted, Time: medianOfRuns, Basis: p.Basis, Sources: p.Sources, OtherVendor: p.OtherVendor,
			Shots: p.Shots, ShotsLeftOut: p.ShotsLeftOut, NoInterval: p.NoInterval}}
	if p.Interval != nil {
		c.Smart.Interval = p.Interval
	}
	// The caller may have built the space for a note already (CacheCoverage): building it
	// again costs what each search of the kernel by a tuner does.
	cov, err := p.CacheCoverage(context.Background(), k)
	if err != nil {
		return nil, err
	}
	c.Smart.Settings, c.Smart.SpaceSettings = cov.Settings, cov.Space
	// Kernel Tuner's own form of a time stamp, that of Python's str(datetime) in UTC.
	stamp := written.UTC().Format("2006-01-02 15:04:05.000000+00:00")
	for _, prm := range k.Params {
		c.TuneParamsKeys = append(c.TuneParamsKeys, prm.Name)
		for _, v := range prm.Values {
			c.TuneParams[prm.Name] = append(c.TuneParams[prm.Name], prm.JSON(v))
		}
	}
	for _, v := range p.Variants {
		key, rec, err := ktRecord(k, v, stamp)
		if err != nil {
			return nil, err
		}
		c.Cache[key] = rec
	}
	return json.MarshalIndent(c, "", " ")
}

func ktRecord(k dataset.Kernel, v Variant, stamp string) (string, json.RawMessage, error) {
	vals := make([]string, len(k.Params))
	rec := map[string]any{"compile_time": 0, "verification_time": 0, "benchmark_time": 0, "strategy_time": 0,
		"framework_time": 0, "timestamp": stamp}
	for i, prm := range k.Params {
		x, ok := v.Setting[prm.Name]
		if !ok {
			return "", nil, fmt.Errorf("setting %s lacks the kernel's parameter %s", v.Setting, prm.Name)
		}
		vals[i], rec[prm.Name] = prm.Text(x), prm.JSON(x) // Kernel Tuner's keys print values as Python does
	}
	switch {
	case v.FailedToCompile:
		rec["time"] = "CompilationFailedConfig"
	case v.Failed:
		rec["time"] = "RuntimeFailedConfig"
	default:
		rec["time"], rec["times"] = v.TimeMs, []float64{v.TimeMs}
		if v.HiMs > 0 {
			rec["time_lo"], rec["time_hi"] = v.LoMs, v.HiMs
		}
	}
	rec["predicted"] = !v.Shot
	b, err := json.Marshal(rec)
	return strings.Join(vals, ","), b, err
}

// Coverage is how much of its kernel's space a cache of predictions holds. smart predicts the
// settings some source holds and no others, and Kernel Tuner's simulation mode stops at the
// first setting of its space that the cache lacks: sources that each hold part of the space (a
// search's caches) make a cache of part of it.
type Coverage struct {
	Kernel   string
	Settings int // the settings the cache holds
	// Space counts the settings of the kernel's space that the conditions of a space.json
	// beside a source make (dataset.Kernel.Constraints), InSpace those of them the cache holds;
	// Space is nil where no conditions are known.
	Space   *big.Int
	InSpace int
	// Product counts the settings that tune_params combine, which hold the space.
	Product *big.Int
}

// CacheCoverage is how much of kernel k's space the cache of p (KernelTunerCache) holds.
func (p *Prediction) CacheCoverage(ctx context.Context, k dataset.Kernel) (Coverage, error) {
	c := Coverage{Kernel: k.Name, Settings: len(p.Variants), Product: big.NewInt(1)}
	bps := make([]space.BenchmarkParam, len(k.Params))
	for i, prm := range k.Params {
		c.Product.Mul(c.Product, big.NewInt(int64(len(prm.Values))))
		bps[i] = space.BenchmarkParam{Name: prm.Name, Values: prm.Values, Bool: prm.Bool, Labels: prm.Labels}
	}
	if len(k.Constraints) == 0 {
		return c, nil
	}
	s, err := space.KernelTuner(ctx, bps, k.Constraints)
	if err != nil {
		return c, fmt.Errorf("counting the settings of kernel %s's space: %w", k.Name, err)
	}
	c.Space = s.Count()
	for _, v := range p.Variants {
		if s.Check(v.Setting) == nil {
			c.InSpace++
		}
	}
	return c, nil
}

// Note says how many settings of the kernel's space the cache holds, where it may lack some;
// "" where it holds every one, or every setting that tune_params combine.
func (c Coverage) Note() string {
	switch {
	case c.Space != nil && c.Space.Cmp(big.NewInt(int64(c.InSpace))) > 0:
		return fmt.Sprintf("the cache holds %d of the %s settings of kernel %s's space (by its space.json's conditions), those some source holds: Kernel Tuner's simulation mode stops at the first setting it lacks",
			c.InSpace, c.Space, c.Kernel)
	case c.Space == nil && c.Product.Cmp(big.NewInt(int64(c.Settings))) > 0:
		return fmt.Sprintf("the cache holds the %d settings some source holds, of the %s that kernel %s's tune_params combine: without a space.json beside the sources, how many of the others its space holds is unknown, and Kernel Tuner's simulation mode stops at the first setting of its space that the cache lacks",
			c.Settings, c.Product, c.Kernel)
	}
	return ""
}

// WriteKernelTuner writes p as a Kernel Tuner cache (KernelTunerCache) to path, atomically; an
// existing file is replaced only where it is a cache of predictions itself (CacheKind), or with
// force. A path ending in .gz is written gzip-compressed.
func WriteKernelTuner(path string, p *Prediction, k dataset.Kernel, device string, force bool) error {
	if err := atomicfile.CheckReplace(path, force, CacheKind()); err != nil {
		return err
	}
	b, err := p.KernelTunerCache(k, device, time.Now())
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return atomicfile.WriteMaybeGzip(path, append(b, '\n'))
}

// WriteDataSet writes p's settings as a new data set in dir: rows whose source is predicted and
// whose device says what from, on the target's catalogue name (shots keep their measured time
// and also say predicted: the file holds one source). stencils are the stencils the rows are
// of (none for a foreign kernel), kernels the foreign kernels; params the columns.
//
// The data set is built in a hidden directory beside dir and renamed into place once whole:
// a failure leaves no part of it, which the next run would refuse as a data set already there.
// remove takes it away again, with the directories above it that this call created (an empty
// dir that was there is left empty), for a caller whose other output then failed.
func WriteDataSet(dir string, p *Prediction, params []string, stencils []*smart.Stencil, kernels []dataset.Kernel) (remove func() error, err error) {
	if err := CheckDataSet(dir); err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	_, statErr := os.Stat(dir)
	existed := statErr == nil // as an empty directory (CheckNew)
	parent := filepath.Dir(dir)
	top := topMissing(parent)
	removeParents := func() error {
		for d := parent; top != ""; d = filepath.Dir(d) {
			if err := os.Remove(d); err != nil {
				return fmt.Errorf("removing %s: %w", d, err)
			}
			if d == top {
				break
			}
		}
		return nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", dir, err)
	}
	if err := writeBeside(dir, existed, p, params, stencils, kernels); err != nil {
		return nil, errors.Join(fmt.Errorf("writing data set %s: %w", dir, err), removeParents())
	}
	return func() error {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("removing %s: %w", dir, err)
		}
		if existed {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return fmt.Errorf("leaving %s empty as it was: %w", dir, err)
			}
			return nil
		}
		return removeParents()
	}, nil
}

// CheckDataSet refuses, before anything is predicted, a directory WriteDataSet cannot write the
// data set in: one dataset.CheckNew refuses, and one named "." or ".." (the current directory or
// its parent), which no directory can be renamed over. Where the directory takes new files but
// not as named (it holds something, or is "." or ".."), the error is a *TakenError.
func CheckDataSet(dir string) error {
	if err := atomicfile.CheckDir(dir); err != nil {
		return fmt.Errorf("creating data set: %w", err)
	}
	if err := dataset.CheckNew(dir); err != nil {
		return &TakenError{Err: err}
	}
	if base := filepath.Base(filepath.Clean(dir)); base == "." || base == ".." {
		name := dir
		if abs, err := filepath.Abs(dir); err == nil {
			name = abs
		}
		return &TakenError{Err: fmt.Errorf("%s names the directory as %q, but the data set is built beside it and renamed into place; name it from outside, as %s", dir, base, name)}
	}
	return nil
}

// TakenError is a directory a new data set cannot be written in as named, though it takes new
// files: it holds a data set or other files already, or is named "." or "..". Another name
// must be given, as for a file smart did not write (atomicfile.NotOursError).
type TakenError struct{ Err error }

func (e *TakenError) Error() string { return e.Err.Error() }
func (e *TakenError) Unwrap() error { return e.Err }

// topMissing is the outermost directory of dir's path that does not exist yet, dir itself or
// one above it; "" where dir exists.
func topMissing(dir string) string {
	top := ""
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			return top
		}
		top = d
	}
}

// writeBeside writes the data set in a new hidden directory beside dir and renames it to dir,
// which exists only where existed (an empty directory then).
func writeBeside(dir string, existed bool, p *Prediction, params []string, stencils []*smart.Stencil, kernels []dataset.Kernel) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".writing-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := writeRows(tmp, p, params, stencils, kernels); err != nil {
		return err
	}
	// Not every system renames over an empty directory.
	if existed {
		if err := os.Remove(dir); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dir)
}

// writeRows writes p as a data set in the new directory dir (WriteDataSet).
func writeRows(dir string, p *Prediction, params []string, stencils []*smart.Stencil, kernels []dataset.Kernel) error {
	device := "transfer from " + strings.Join(p.Sources, ", ")
	meta := dataset.Meta{Sources: []smart.Source{smart.Predicted}, Params: params, Kernels: kernels,
		Devices: []dataset.Device{{GPU: p.GPU, Name: device}}}
	w, err := dataset.Create(dir, meta)
	if err != nil {
		return err
	}
	for _, st := range stencils {
		if err := w.AddStencil(st); err != nil {
			w.Close()
			return err
		}
	}
	rows := make([]smart.Measurement, 0, len(p.Variants))
	for _, v := range p.Variants {
		m := smart.Measurement{StencilID: v.StencilID, Kernel: v.Kernel, GPU: p.GPU, OC: v.OC,
			Setting: v.Setting, Source: smart.Predicted, Device: device, Status: smart.StatusOK, TimeMs: v.TimeMs}
		switch {
		case v.FailedToCompile:
			m.Status, m.TimeMs, m.Error = smart.StatusCompileError, 0, "failed to compile on every source GPU that failed it"
		case v.Failed:
			m.Status, m.TimeMs, m.Error = smart.StatusLaunchError, 0, "failed on every source GPU"
		}
		rows = append(rows, m)
	}
	if err := w.Append(rows...); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
