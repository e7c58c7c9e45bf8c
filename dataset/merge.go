package dataset

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/internal/atomicfile"
)

// MergeSummary says what Merge joined.
type MergeSummary struct {
	Rows       int      `json:"rows"`       // rows written
	Duplicates int      `json:"duplicates"` // rows left out because an earlier data set had the variant
	Torn       []string `json:"torn"`       // data sets whose torn last line was left out
	// MissingShards lists the shards of the plan that were not among the inputs.
	MissingShards []string `json:"missing_shards,omitempty"`
}

// MixedError is Merge's and Import's refusal to put data of different devices, sources or plans
// into one data set when mixing was not allowed (Merge's allowMixed, ImportOptions.AllowMixed).
type MixedError struct {
	Reason string // what differs, naming the inputs
}

func (e *MixedError) Error() string { return e.Reason }

// Merge joins data sets into a new one in out: shards of one plan, or, with allowMixed, data
// sets of different devices, sources or plans (recorded in meta.json). Without allowMixed it
// refuses inputs whose devices, sources, parameter columns or plans differ, so that no data set
// mixes them silently. A variant present in several inputs is kept once, from the first.
func Merge(ctx context.Context, out string, dirs []string, allowMixed bool) (MergeSummary, error) {
	var sum MergeSummary
	if len(dirs) == 0 {
		return sum, errors.New("no data sets to merge")
	}
	metas := make([]Meta, len(dirs))
	for i, d := range dirs {
		m, err := ReadMeta(d)
		if err != nil {
			return sum, err
		}
		metas[i] = m
	}
	meta, err := mergedMeta(dirs, metas, allowMixed)
	if err != nil {
		return sum, err
	}
	if p := meta.Plan; p != nil {
		seen := map[Shard]bool{}
		n := 0
		for _, m := range metas {
			if m.Shard == nil {
				n = 0
				break
			}
			seen[*m.Shard], n = true, m.Shard.N
		}
		for i := 1; i <= n; i++ {
			if !seen[Shard{I: i, N: n}] {
				sum.MissingShards = append(sum.MissingShards, Shard{I: i, N: n}.String())
			}
		}
	}
	// The merge is built beside out and renamed into place only when complete: a failure (a
	// damaged input, a cancel) must not leave a directory that looks like a whole data set.
	if err := atomicfile.CheckDir(filepath.Dir(out)); err != nil {
		return sum, err // in the user's words, not those of the temporary directory's mkdir
	}
	if err := checkMergeTarget(out); err != nil {
		return sum, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return sum, fmt.Errorf("creating the directory of %s: %w", out, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".merging-*")
	if err != nil {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	if err := mergeInto(ctx, tmp, dirs, meta, &sum); err != nil {
		return sum, err
	}
	// out may be an empty directory (checkMergeTarget); not every system renames over one.
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	return sum, nil
}

// checkMergeTarget refuses an out that exists and is not an empty directory, so that Merge never
// changes or mixes into what is there.
func checkMergeTarget(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s exists and is not a directory to merge into: %w", out, err)
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, MetaFile)); err == nil {
		return fmt.Errorf("%s already holds a data set (it has %s); choose another directory for the merge", out, MetaFile)
	}
	return fmt.Errorf("%s is not empty; choose a new directory for the merge", out)
}

// mergeInto writes the merge of dirs, described by meta, into the new data set directory out and
// adds to sum what it joined.
func mergeInto(ctx context.Context, out string, dirs []string, meta Meta, sum *MergeSummary) error {
	w, err := Create(out, meta)
	if err != nil {
		return err
	}
	defer w.Close()
	for _, d := range dirs {
		if err := copyStencils(d, out); err != nil {
			return err
		}
		copies, err := CopyBandwidths(d)
		if err != nil {
			return err
		}
		for _, c := range copies {
			if err := AppendCopyBandwidth(out, c); err != nil {
				return err
			}
		}
		var chunk []smart.Measurement
		pending := map[string]bool{} // keys of chunk, not yet in w
		flush := func() error {
			err := w.Append(chunk...)
			sum.Rows += len(chunk)
			chunk = chunk[:0]
			clear(pending)
			return err
		}
		_, torn, err := Scan(d, func(m smart.Measurement) error {
			k := Key(m)
			if _, done := w.done[k]; done || pending[k] {
				sum.Duplicates++
				return nil
			}
			pending[k] = true
			chunk = append(chunk, m)
			if len(chunk) == 1024 {
				if err := ctx.Err(); err != nil {
					return err
				}
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return err
		}
		if torn != nil {
			sum.Torn = append(sum.Torn, d)
		}
	}
	return w.Close()
}

// mergedMeta checks that the inputs may be merged and describes the result.
func mergedMeta(dirs []string, metas []Meta, allowMixed bool) (Meta, error) {
	first := metas[0]
	out := Meta{Sources: slices.Clone(first.Sources), Devices: slices.Clone(first.Devices), Params: slices.Clone(first.Params),
		Plan: first.Plan, Kernels: slices.Clone(first.Kernels), AllowMixed: allowMixed || first.AllowMixed}
	out.MergedFrom = make([]string, len(dirs))
	for i, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		out.MergedFrom[i] = d
	}
	shards := map[Shard]string{}
	for i, m := range metas {
		if m.Shard != nil {
			if prev, dup := shards[*m.Shard]; dup {
				return Meta{}, fmt.Errorf("%s and %s are both shard %s", prev, dirs[i], m.Shard)
			}
			shards[*m.Shard] = dirs[i]
		}
		if i == 0 {
			continue
		}
		refuse := func(what string, a, b any) error {
			return &MixedError{fmt.Sprintf("%s and %s differ in %s (%v and %v)", dirs[0], dirs[i], what, a, b)}
		}
		for _, s := range m.Sources {
			if !slices.Contains(out.Sources, s) {
				if !allowMixed {
					return Meta{}, refuse("source", first.Sources, m.Sources)
				}
				out.Sources = append(out.Sources, s)
			}
		}
		for _, d := range m.Devices {
			// Rows simulated with other constants (or with constants not recorded) hold other
			// times: the device is another.
			if !slices.ContainsFunc(out.Devices, func(o Device) bool { return o.GPU == d.GPU && o.Name == d.Name && o.Constants.Same(d.Constants) }) {
				other := slices.IndexFunc(out.Devices, func(o Device) bool { return o.GPU == d.GPU && o.Name == d.Name })
				switch {
				case allowMixed:
				case other >= 0:
					return Meta{}, &MixedError{fmt.Sprintf("%s and %s were simulated on %s with different constants of the analytic model (%s and %s)",
						dirs[0], dirs[i], cmp.Or(d.GPU, d.Name), out.Devices[other].Constants, d.Constants)}
				default:
					return Meta{}, refuse("device", deviceList(first.Devices), deviceList(m.Devices))
				}
				out.Devices = append(out.Devices, d)
			}
		}
		if !slices.Equal(m.Params, out.Params) {
			if !allowMixed {
				return Meta{}, refuse("parameter columns", strings.Join(first.Params, ","), strings.Join(m.Params, ","))
			}
			for _, p := range m.Params {
				if !slices.Contains(out.Params, p) {
					out.Params = append(out.Params, p)
				}
			}
		}
		switch {
		case out.Plan == nil && m.Plan == nil:
		case out.Plan == nil || m.Plan == nil:
			if !allowMixed {
				return Meta{}, refuse("plan", "one with a sampling plan", "one without")
			}
			out.Plan = nil
		default:
			if d := out.Plan.diff(*m.Plan); d != nil {
				if !allowMixed {
					return Meta{}, &MixedError{fmt.Sprintf("%s and %s were planned differently, not as shards of one plan (%s: %s and %s)", dirs[0], dirs[i], d.what, d.a, d.b)}
				}
				out.Plan = nil
			}
		}
		for _, k := range m.Kernels {
			if err := addKernel(&out, k); err != nil {
				return Meta{}, err
			}
		}
	}
	return out, nil
}

func deviceList(ds []Device) string {
	var names []string
	for _, d := range ds {
		// The GPU and the constants tell simulated devices apart: their names are all the
		// analytic model's.
		about := cmp.Or(d.GPU, "no GPU")
		if d.Constants.Origin != "" {
			about += ", " + d.Constants.String()
		}
		names = append(names, fmt.Sprintf("%q (%s)", d.Name, about))
	}
	return strings.Join(names, ",")
}

// copyStencils copies the stencil files of one data set into another.
func copyStencils(from, to string) error {
	entries, err := os.ReadDir(filepath.Join(from, StencilsDir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(to, StencilsDir), 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		dst := filepath.Join(to, StencilsDir, e.Name())
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if _, err := ReadStencil(from, strings.TrimSuffix(e.Name(), ".json")); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(from, StencilsDir, e.Name()))
		if err != nil {
			return err
		}
		if err := atomicfile.Write(dst, data); err != nil {
			return err
		}
	}
	return nil
}
