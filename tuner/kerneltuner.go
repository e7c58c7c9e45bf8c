package tuner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"smart/dataset"
	"smart/tuner/space"
)

// KernelTuner is a Kernel Tuner cache (or T4 file) opened for tuning: the replaying Evaluator
// and the kernel's space, built from the parameters and the space.json constraints beside the
// file, so any kernel in such a file can be tuned.
type KernelTuner struct {
	Replay *dataset.Replay
	Kernel dataset.Kernel
	Space  *space.Space
	Device string // the device that measured the file
}

// OpenKernelTuner opens a Kernel Tuner file for tuning. device names the device of files that
// do not (the MI250X caches); empty, such a file takes its base name ("MI250X.json.gz" gives
// "MI250X").
func OpenKernelTuner(ctx context.Context, path, device string) (*KernelTuner, error) {
	if device == "" {
		device = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json")
	}
	f, err := dataset.ReadKernelTuner(path, dataset.ImportOptions{Device: device})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(f.Kernel.Params))
	values := make([][]int, len(f.Kernel.Params))
	for i, p := range f.Kernel.Params {
		names[i], values[i] = p.Name, p.Values
	}
	sp, err := space.KernelTuner(ctx, names, values, f.Kernel.Constraints)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A cache holds every configuration of the constrained space, so a setting of the space that
	// the cache lacks is an error of the replay (dataset.ErrNotMeasured), not a failed variant.
	rep := dataset.NewReplay(f.Rows, []dataset.Kernel{f.Kernel})
	return &KernelTuner{Replay: rep, Kernel: f.Kernel, Space: sp, Device: f.Device.Name}, nil
}

// Problem returns the tuning problem of the file: its one space, replayed, minimising Kernel
// Tuner's objective (the mean time).
func (k *KernelTuner) Problem() Problem {
	return Problem{Variants: []Variant{{Space: k.Space}}, Evaluator: k.Replay, Objective: MeanTime}
}
