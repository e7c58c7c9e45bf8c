package dataset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"smart"
)

// ErrNotMeasured is wrapped by Replay's error for a variant its data does not hold.
var ErrNotMeasured = errors.New("the variant is not in the replayed data")

// Replay answers queries from recorded rows: a data set or a Kernel Tuner cache replayed as an
// Evaluator, which Kernel Tuner calls simulation mode. A replayed failure is answered as the
// failing measurement it was (no error), so a tuner counts it as an evaluation, as Kernel Tuner
// does. Answers keep the rows' source and device: replaying measured data yields "measured"
// (or "imported") rows of the device that measured them.
type Replay struct {
	// Missing, when set (e.g. smart.StatusInvalid), is the status answered for a variant the data
	// does not hold. When empty such a query is an error wrapping ErrNotMeasured: a tuner that
	// searches the same constrained space never asks for one, so asking is a mistake.
	Missing smart.Status
	// Kernel picks the foreign kernel queries with no stencil are about, when the data holds
	// several.
	Kernel string
	// Note is OpenReplay's word on the file for the user: a Kernel Tuner cache not closed
	// (KernelTunerFile.OpenNote); "" for none.
	Note string

	devices []Device
	sources []smart.Source // of each device's first row
	kernels []Kernel
	rows    map[replayKey]smart.Measurement
}

type replayKey struct {
	device  int
	id      string // stencil ID or "kernel:" + name
	oc      smart.Combination
	setting string
}

// NewReplay indexes rows for replay. kernels describe the foreign kernels (may be nil). A
// variant recorded twice is answered from its first row.
func NewReplay(rows []smart.Measurement, kernels []Kernel) *Replay {
	r := &Replay{kernels: kernels, rows: make(map[replayKey]smart.Measurement, len(rows))}
	for _, m := range rows {
		k := replayKey{device: r.device(m.GPU, m.Device, m.Source), id: rowID(m), oc: m.OC, setting: m.Setting.String()}
		if _, dup := r.rows[k]; !dup {
			r.rows[k] = m
		}
	}
	return r
}

// OpenReplay replays a data set directory or a Kernel Tuner cache or T4 file (read with
// ReadKernelTuner and opt).
func OpenReplay(path string, opt ImportOptions) (*Replay, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		meta, rows, err := ReadAll(path)
		if err != nil {
			return nil, err
		}
		return NewReplay(rows, meta.Kernels), nil
	}
	f, err := ReadKernelTuner(path, opt)
	if err != nil {
		return nil, err
	}
	r := NewReplay(f.Rows, []Kernel{f.Kernel})
	r.Note = f.OpenNote()
	return r, nil
}

func rowID(m smart.Measurement) string {
	if m.StencilID != "" {
		return m.StencilID
	}
	return "kernel:" + m.Kernel
}

func (r *Replay) device(gpu, name string, src smart.Source) int {
	for i, d := range r.devices {
		if d.GPU == gpu && d.Name == name {
			return i
		}
	}
	r.devices = append(r.devices, Device{GPU: gpu, Name: name})
	r.sources = append(r.sources, src)
	return len(r.devices) - 1
}

// Devices lists the devices the replayed rows come from.
func (r *Replay) Devices() []Device { return r.devices }

// Kernels describes the foreign kernels of the data: parameters, their values and constraints,
// for a tuner to build the space it searches.
func (r *Replay) Kernels() []Kernel { return r.kernels }

// Len is the number of variants the replay can answer.
func (r *Replay) Len() int { return len(r.rows) }

// Evaluate returns the recorded measurement of the queried variant. q.GPU picks the device by
// catalogue or device name (any case) and may be empty when the data holds one device; a query
// with no stencil is about the foreign kernel (see the Kernel field).
func (r *Replay) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return smart.Measurement{}, err
	}
	dev, err := r.pickDevice(q.GPU)
	if err != nil {
		return smart.Measurement{}, err
	}
	k := replayKey{device: dev, oc: q.OC, setting: q.Setting.String()}
	if q.Stencil != nil {
		k.id = q.Stencil.ID()
	} else {
		name, err := r.pickKernel()
		if err != nil {
			return smart.Measurement{}, err
		}
		k.id = "kernel:" + name
	}
	m, ok := r.rows[k]
	if !ok {
		if r.Missing == "" {
			return smart.Measurement{}, fmt.Errorf("%s on %s: %w", r.variant(k.id, q), r.devices[dev].Name, ErrNotMeasured)
		}
		m = smart.Measurement{GPU: r.devices[dev].GPU, Device: r.devices[dev].Name, OC: q.OC, Status: r.Missing,
			Error: "not in the replayed data", Source: r.sources[dev]}
		if q.Stencil != nil {
			m.StencilID = k.id
		} else {
			m.Kernel = strings.TrimPrefix(k.id, "kernel:")
		}
	}
	m.Setting = q.Setting.Clone()
	if m.Readings != nil {
		rd := *m.Readings
		m.Readings = &rd
	}
	return m, nil
}

// variant names the variant of q as a user knows it: a stencil's ID, OC and setting, or a
// foreign kernel's name and setting, its values as the kernel's parameters print them (a
// foreign kernel has no OC).
func (r *Replay) variant(id string, q smart.Query) string {
	name, foreign := strings.CutPrefix(id, "kernel:")
	if !foreign {
		return fmt.Sprintf("%s %s %s", id, q.OC, q.Setting)
	}
	var params []Param
	if i := slices.IndexFunc(r.kernels, func(k Kernel) bool { return k.Name == name }); i >= 0 {
		params = r.kernels[i].Params
	}
	return name + " " + SettingText(q.Setting, params)
}

func (r *Replay) pickDevice(gpu string) (int, error) {
	if gpu == "" {
		if len(r.devices) == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("the replayed data holds %d devices (%s); name one in the query", len(r.devices), r.deviceNames())
	}
	var of []int // the devices of GPU gpu
	for i, d := range r.devices {
		if strings.EqualFold(d.Name, gpu) {
			return i, nil
		}
		if strings.EqualFold(d.GPU, gpu) {
			of = append(of, i)
		}
	}
	switch len(of) {
	case 0:
		return 0, fmt.Errorf("the replayed data has no rows of GPU %q; it holds %s", gpu, r.deviceNames())
	case 1:
		return of[0], nil
	}
	// A data set merged with AllowMixed: the GPU measured, and simulated, say; one answered for
	// the other would pass simulated times for measured ones.
	var which []string
	for _, i := range of {
		which = append(which, fmt.Sprintf("%q (%s)", r.devices[i].Name, r.sources[i]))
	}
	return 0, fmt.Errorf("the replayed data holds rows of GPU %s from %d devices or sources (%s); replay a data set of one", gpu, len(of), strings.Join(which, ", "))
}

func (r *Replay) deviceNames() string {
	var names []string
	for _, d := range r.devices {
		names = append(names, fmt.Sprintf("%q", cmp.Or(d.GPU, d.Name)))
	}
	return strings.Join(names, ", ")
}

func (r *Replay) pickKernel() (string, error) {
	if r.Kernel != "" {
		return r.Kernel, nil
	}
	if len(r.kernels) == 1 {
		return r.kernels[0].Name, nil
	}
	var names []string
	for _, k := range r.kernels {
		names = append(names, k.Name)
	}
	return "", fmt.Errorf("the query names no stencil and the replayed data holds %d kernels (%s); pick one", len(names), strings.Join(names, ", "))
}
