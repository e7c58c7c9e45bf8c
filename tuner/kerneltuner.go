package tuner

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/space"
)

// KernelTuner is a Kernel Tuner cache (or T4 file) opened for tuning: the replaying Evaluator
// and the kernel's space, built from the parameters and the space.json constraints beside the
// file, so any kernel in such a file can be tuned. Without a space.json the constraints are
// unknown and the space is the configurations the file holds.
type KernelTuner struct {
	Replay *dataset.Replay
	Kernel dataset.Kernel
	Space  *space.Space
	Device string              // the device that measured the file
	Format string              // the file's form: "cache", "t4" or "ktt" (dataset.KernelTunerFile.Format)
	Rows   []smart.Measurement // the file's configurations, as read
	// Note, when not empty, says in a sentence for the user how the space was made: that no
	// space.json was found, so the space is the file's configurations.
	Note string
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
	params := make([]space.Param, len(f.Kernel.Params))
	for i, p := range f.Kernel.Params {
		params[i] = space.Param{Name: p.Name, Values: p.Values}
	}
	var sp *space.Space
	var note string
	if f.SpaceFile == "" {
		// Without the constraints the space would be the whole product of the values, most of
		// it missing from the file: the configurations the file holds are the space it knows.
		sp, err = space.New(ctx, heldOnly(params, f.Rows))
		note = fmt.Sprintf("%s has no space.json beside it, so the constraints of %s are unknown and the space is the %d configurations the file holds; put the kernel's space.json in %s to tune its constrained space",
			path, f.Kernel.Name, len(f.Rows), filepath.Dir(path))
	} else {
		bps := make([]space.BenchmarkParam, len(f.Kernel.Params))
		for i, p := range f.Kernel.Params {
			bps[i] = space.BenchmarkParam{Name: p.Name, Values: p.Values, Bool: p.Bool, Labels: p.Labels}
		}
		sp, err = space.KernelTuner(ctx, bps, f.Kernel.Constraints)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Either way the file holds every setting of the space (a cache holds every configuration of
	// its constrained space), so a setting it lacks is an error of the replay
	// (dataset.ErrNotMeasured), not a failed variant.
	rep := dataset.NewReplay(f.Rows, []dataset.Kernel{f.Kernel})
	return &KernelTuner{Replay: rep, Kernel: f.Kernel, Space: sp, Device: f.Device.Name, Format: f.Format, Rows: f.Rows, Note: note}, nil
}

// heldOnly constrains params (in the file's order) to the settings of rows. Parameter k gets
// the constraint that the values of parameters 0..k begin some row's setting, so generation
// prunes a prefix no row has as soon as it is bound and visits at most len(params) * len(rows)
// * (values of a parameter) nodes, not the whole product.
func heldOnly(params []space.Param, rows []smart.Measurement) []space.Param {
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
		out[k].Constraints = []space.Constraint{{
			Name:  "held by the file",
			Reads: slices.Clone(reads),
			Fn:    func(v []int) bool { return held[fmt.Sprint(v)] },
			Explain: func([]int) string {
				return "no configuration of the file has these values (without space.json only those are known)"
			},
		}}
	}
	return out
}

// Problem returns the tuning problem of the file: its one space, replayed, minimising Kernel
// Tuner's objective (the mean time).
func (k *KernelTuner) Problem() Problem {
	return Problem{Variants: []Variant{{Space: k.Space}}, Evaluator: k.Replay, Objective: MeanTime}
}
