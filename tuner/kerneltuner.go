package tuner

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/space"
	"smart/transfer"
)

// KernelTuner is a Kernel Tuner cache (or T4 file) opened for tuning: the replaying Evaluator
// and the kernel's space, built from the parameters and the space.json constraints beside the
// file, so any kernel in such a file can be tuned. Without a space.json the constraints are
// unknown and the space is the configurations the file holds. A data set of imported caches
// (dataset.Import) opens alike, its constraints those its meta.json carries.
type KernelTuner struct {
	Replay *dataset.Replay
	Kernel dataset.Kernel
	Space  *space.Space
	Device string // the device that measured the file
	// DeviceGiven is true where the device given to OpenKernelTuner was used: a file that names
	// no device took it as its device, or a data set of several devices was tuned on the one it
	// names.
	DeviceGiven bool
	Format      string              // the file's form: "cache", "t4" or "ktt" (dataset.KernelTunerFile.Format), or "dataset"
	Rows        []smart.Measurement // the file's configurations, as read
	// Note, when not empty, says for the user, a sentence a line, how the space was made: that
	// the file is a cache Kernel Tuner had not closed, that no space.json was found, so the space
	// is the file's configurations, or that the file lacks some configurations of its
	// constrained space.
	Note string
	// Incomplete, when not empty, says that the file lacks configurations its constraints
	// allow, and what to do, for the error of a search that meets one (dataset.ErrNotMeasured).
	Incomplete string
}

// DeviceError is a data set of a kernel measured on several devices opened on none of them, or
// on a device it holds no rows of.
type DeviceError struct {
	Dir, Kernel string
	Device      string           // the device (or GPU) asked for; "" none
	Devices     []dataset.Device // those the data set holds the kernel's rows of
}

func (e *DeviceError) Error() string {
	var held []string
	for _, d := range e.Devices {
		name := fmt.Sprintf("%q", d.Name)
		if d.GPU != "" && d.GPU != d.Name {
			name += " (" + d.GPU + ")"
		}
		held = append(held, name)
	}
	if e.Device == "" {
		return fmt.Sprintf("%s holds kernel %s measured on %d devices (%s); name the one to tune on", e.Dir, e.Kernel, len(held), strings.Join(held, ", "))
	}
	return fmt.Sprintf("%s holds no rows of kernel %s on %q; it holds %s", e.Dir, e.Kernel, e.Device, strings.Join(held, ", "))
}

// OpenKernelTuner opens a Kernel Tuner file, or a data set directory of imported Kernel Tuner
// files holding one kernel, for tuning. device names the device of files that do not (the
// MI250X caches); empty, such a file takes its base name ("MI250X.json.gz" gives "MI250X"). Of
// a data set it names the device (or GPU) to tune on, which may be empty where the data set
// holds one.
func OpenKernelTuner(ctx context.Context, path, device string) (*KernelTuner, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return openDataSet(ctx, path, device)
	}
	if device == "" {
		device = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json")
	}
	f, err := dataset.ReadKernelTuner(path, dataset.ImportOptions{Device: device})
	if err != nil {
		return nil, err
	}
	k := &KernelTuner{Kernel: f.Kernel, Device: f.Device.Name, DeviceGiven: f.DeviceGiven, Format: f.Format, Rows: f.Rows}
	if f.SpaceFile == "" {
		k.Note = fmt.Sprintf("%s has no space.json beside it, so the constraints of %s are unknown and the space is the %d configurations the file holds; put the kernel's space.json in %s to tune its constrained space",
			path, f.Kernel.Name, len(f.Rows), filepath.Dir(path))
	}
	if err := k.build(ctx, path, f.SpaceFile); err != nil {
		return nil, err
	}
	if open := f.OpenNote(); open != "" {
		k.Note = strings.TrimSuffix(open+"\n"+k.Note, "\n")
	}
	return k, nil
}

// openDataSet opens the one Kernel Tuner kernel of data set dir on device (empty: its only one),
// a device name or the catalogue name of its GPU (any case); another device is a *DeviceError.
func openDataSet(ctx context.Context, dir, device string) (*KernelTuner, error) {
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return nil, err
	}
	switch len(meta.Kernels) {
	case 0:
		return nil, fmt.Errorf("%s holds no Kernel Tuner kernel (its rows are of stencils): tune them with the stencil's file", dir)
	case 1:
	default:
		return nil, fmt.Errorf("%s holds %d Kernel Tuner kernels (%s); tune one at a time: import each kernel's caches into a data set of its own", dir, len(meta.Kernels), kernelNames(meta.Kernels))
	}
	k := &KernelTuner{Kernel: meta.Kernels[0], Format: "dataset"}
	var devices []dataset.Device
	for _, m := range rows {
		if m.Kernel == k.Kernel.Name && !slices.ContainsFunc(devices, func(d dataset.Device) bool { return d.Name == m.Device }) {
			devices = append(devices, dataset.Device{GPU: m.GPU, Name: m.Device})
		}
	}
	switch {
	case device != "":
		i := slices.IndexFunc(devices, func(d dataset.Device) bool {
			return strings.EqualFold(d.Name, device) || strings.EqualFold(d.GPU, device)
		})
		if i < 0 {
			return nil, &DeviceError{Dir: dir, Kernel: k.Kernel.Name, Device: device, Devices: devices}
		}
		k.Device, k.DeviceGiven = devices[i].Name, true
	case len(devices) == 1:
		k.Device = devices[0].Name
	case len(devices) == 0:
		return nil, fmt.Errorf("%s holds no rows of kernel %s", dir, k.Kernel.Name)
	default:
		return nil, &DeviceError{Dir: dir, Kernel: k.Kernel.Name, Devices: devices}
	}
	for _, m := range rows {
		if m.Kernel == k.Kernel.Name && m.Device == k.Device {
			k.Rows = append(k.Rows, m)
		}
	}
	from := filepath.Join(dir, "meta.json")
	if len(k.Kernel.Constraints) == 0 {
		from = ""
		k.Note = fmt.Sprintf("%s holds no constraints of %s (no space.json was beside its caches when they were imported), so the space is the %d configurations it holds on %s",
			dir, k.Kernel.Name, len(k.Rows), k.Device)
	}
	if err := k.build(ctx, dir, from); err != nil {
		return nil, err
	}
	return k, nil
}

// build makes the kernel's space and replay from k's rows: constrained by the conditions of
// constraintsFrom (the space.json, or a data set's meta.json, that holds Kernel.Constraints),
// or, where it is empty, the configurations the rows hold.
func (k *KernelTuner) build(ctx context.Context, path, constraintsFrom string) error {
	params := make([]space.Param, len(k.Kernel.Params))
	for i, p := range k.Kernel.Params {
		params[i] = space.Param{Name: p.Name, Values: p.Values}
	}
	var err error
	if constraintsFrom == "" {
		// Without the constraints the space would be the whole product of the values, most of
		// it missing from the file: the configurations the file holds are the space it knows.
		if k.Space, err = space.New(ctx, HeldOnly(params, k.Rows)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else {
		bps := make([]space.BenchmarkParam, len(k.Kernel.Params))
		for i, p := range k.Kernel.Params {
			bps[i] = space.BenchmarkParam{Name: p.Name, Values: p.Values, Bool: p.Bool, Labels: p.Labels}
		}
		// The conditions are the space.json's, not the cache's: its errors are the space.json's.
		if k.Space, err = space.KernelTuner(ctx, bps, k.Kernel.Constraints); err != nil {
			return fmt.Errorf("%s: %w", constraintsFrom, err)
		}
		if k.Space.Count().Sign() == 0 {
			return fmt.Errorf("%s: its conditions (%s) leave kernel %s no configuration",
				constraintsFrom, strings.Join(k.Kernel.Constraints, "; "), k.Kernel.Name)
		}
		k.checkHeld(path, constraintsFrom)
	}
	// A setting of the space the file lacks is an error of the replay (dataset.ErrNotMeasured),
	// not a failed variant: Kernel Tuner's simulation mode stops at one too, rather than search
	// a space other than the kernel's.
	k.Replay = dataset.NewReplay(k.Rows, []dataset.Kernel{k.Kernel})
	return nil
}

// checkHeld sets Note and Incomplete where the rows lack configurations of the space that the
// constraints of constraintsFrom make: a cache written by a search that did not try them all.
func (k *KernelTuner) checkHeld(path, constraintsFrom string) {
	held := map[string]bool{}
	for _, m := range k.Rows {
		if k.Space.Check(m.Setting) == nil {
			held[m.Setting.String()] = true
		}
	}
	all := k.Space.Count()
	if all.Cmp(big.NewInt(int64(len(held)))) == 0 {
		return
	}
	k.Note = fmt.Sprintf("%s holds %d of the %s configurations of %s that %s allows: a search that meets one of the others stops, as Kernel Tuner's simulation mode does",
		path, len(held), all, k.Kernel.Name, constraintsFrom)
	if k.Format == "dataset" {
		k.Incomplete = fmt.Sprintf("%s lacks configurations that the constraints in %s allow (those of the space.json its caches were imported with), and the search met one: to tune the configurations it holds, import the caches again without the space.json beside them; or complete the caches",
			path, constraintsFrom)
		return
	}
	k.Incomplete = fmt.Sprintf("%s lacks configurations that %s allows, and the search met one: to tune the configurations the file holds, move %s away; or complete the cache",
		path, constraintsFrom, constraintsFrom)
}

// SameMeasurements reports whether k and o hold the same kernel's same configurations with the
// same statuses and times: one GPU's measurements in two files (a cache and its T4 twin), which
// may name different devices (a T4 file that names none takes its file's name).
func (k *KernelTuner) SameMeasurements(o *KernelTuner) bool {
	return k.Kernel.Name == o.Kernel.Name && transfer.SameMeasurements(k.Rows, o.Rows)
}

func kernelNames(ks []dataset.Kernel) string {
	var names []string
	for _, k := range ks {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// HeldOnly constrains params (in their order) to the settings of rows, besides their own
// constraints: a replay of rows answers only those. Parameter k gets the constraint that the
// values of parameters 0..k begin some row's setting, checked first, so generation prunes a
// prefix no row has as soon as it is bound and visits at most len(params) * len(rows) * (values
// of a parameter) nodes, not the whole product.
func HeldOnly(params []space.Param, rows []smart.Measurement) []space.Param {
	out := slices.Clone(params)
	var reads []string
	for k := range out {
		reads = append(reads, out[k].Name)
		held := map[string]bool{}
		for _, m := range rows {
			key := make([]int, k+1)
			for j, name := range reads {
				key[j] = m.Setting[name]
			}
			held[fmt.Sprint(key)] = true
		}
		out[k].Constraints = append([]space.Constraint{{
			Name:  "held by the replayed data",
			Reads: slices.Clone(reads),
			Fn:    func(v []int) bool { return held[fmt.Sprint(v)] },
			Explain: func([]int) string {
				return "no configuration of the replayed data has these values (only those it holds can be replayed)"
			},
		}}, out[k].Constraints...)
	}
	return out
}

// Problem returns the tuning problem of the file: its one space, replayed, minimising Kernel
// Tuner's objective (the mean time).
func (k *KernelTuner) Problem() Problem {
	return Problem{Variants: []Variant{{Space: k.Space}}, Evaluator: k.Replay, Objective: MeanTime}
}
