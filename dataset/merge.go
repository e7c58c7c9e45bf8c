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
	Rows int `json:"rows"` // rows written
	// Duplicates are the rows left out because an earlier data set had the same row: the
	// variant from the same source on the same device.
	Duplicates int      `json:"duplicates"`
	Torn       []string `json:"torn"` // data sets whose torn last line was left out
	// MissingShards lists the shards of the plan that were not among the inputs.
	MissingShards []string `json:"missing_shards,omitempty"`
	// Unfinished are the inputs measured to a plan that lack some of its variants: a run
	// stopped before its end (a time limit, an interrupt) and not resumed.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
	// Removed are the temporary directories of earlier merges into the same directory, killed
	// before they were done, that this merge removed.
	Removed []string `json:"removed,omitempty"`
}

// Unfinished is an input of a merge that holds fewer variants than its plan has.
type Unfinished struct {
	Dir   string `json:"dir"`
	Shard string `json:"shard,omitempty"` // which shard of the plan it is
	Rows  int    `json:"rows"`            // the rows it holds
	// Variants are the variants its run drew (its items file); 0 where it has no such file,
	// and then Unmeasured says what is missing.
	Variants int `json:"variants,omitempty"`
	// Unmeasured counts the plan's stencils and OCs (of its shard) without a row.
	Unmeasured int `json:"unmeasured,omitempty"`
}

// MixedError is Merge's and Import's refusal to put data of different devices, sources or plans
// into one data set when mixing was not allowed (Merge's allowMixed, ImportOptions.AllowMixed).
type MixedError struct {
	Reason string // what differs, naming the inputs
	// Always is set where allowing a mix would not join them either: data sets simulated on
	// one GPU with different constants, whose rows do not say which constants gave them.
	Always bool
}

func (e *MixedError) Error() string { return e.Reason }

// Merge joins data sets into a new one in out: shards of one plan, or, with allowMixed, data
// sets of different devices, sources or plans (recorded in meta.json). Without allowMixed it
// refuses inputs whose devices, sources, parameter columns or plans differ, so that no data set
// mixes them silently. A row present in several inputs (a variant from the same source and
// device) is kept once, from the first; rows of one variant from different sources or devices
// are all kept. The summary names the inputs that lack some of their plan's variants (an
// unfinished run), and the shards of the plan missing.
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
	sum.Removed = removeStaleMerges(out)
	tmp, err := os.MkdirTemp(filepath.Dir(out), mergingPrefix(out)+"*")
	if err != nil {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	// Locked while the merge runs (and through the rename): another merge into out tells a
	// temporary in use from one a killed merge left behind.
	inUse, err := os.Open(tmp)
	if err == nil {
		defer inUse.Close()
		err = lockFile(inUse)
	}
	if err == nil {
		err = os.Chmod(tmp, 0o755)
	}
	if err != nil {
		return sum, fmt.Errorf("creating %s: %w", out, err)
	}
	if err := mergeInto(ctx, tmp, dirs, metas, meta, &sum); err != nil {
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

// mergingPrefix begins the name of the temporary directory a merge into out is built in.
func mergingPrefix(out string) string { return "." + filepath.Base(out) + ".merging-" }

// removeStaleMerges removes the temporary directories that merges into out left behind when they
// were killed, and returns them: those named as Merge names them, holding only what a merge
// writes, and not locked by a merge that runs. Where files cannot be locked (lockFile), none
// can be told from one in use, and none is removed.
func removeStaleMerges(out string) []string {
	if !locks {
		return nil
	}
	parent, prefix := filepath.Dir(out), mergingPrefix(out)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || rest == "" || strings.Trim(rest, "0123456789") != "" || !e.IsDir() {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if !mergeTemporary(path) {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if lockFile(f) == nil && os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
		f.Close()
	}
	return removed
}

// mergeTemporary reports whether the directory dir holds only what Merge writes into its
// temporary directory: a data set merged (or the start of one) and the files being written.
func mergeTemporary(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	ours := []string{MetaFile, RowsFile, StencilsDir, CopyFile}
	for _, e := range entries {
		name := e.Name()
		if tmp, ok := strings.CutPrefix(name, "."); ok { // atomicfile.Write's temporary
			name, _, _ = strings.Cut(tmp, ".tmp")
		}
		if !slices.Contains(ours, name) {
			return false
		}
		if e.Name() == MetaFile {
			if m, err := ReadMeta(dir); err != nil || len(m.MergedFrom) == 0 {
				return false
			}
		}
	}
	return true
}

// mergeInto writes the merge of dirs, described by meta (metas: theirs), into the new data set
// directory out and adds to sum what it joined.
func mergeInto(ctx context.Context, out string, dirs []string, metas []Meta, meta Meta, sum *MergeSummary) error {
	w, err := Create(out, meta)
	if err != nil {
		return err
	}
	defer w.Close()
	for i, d := range dirs {
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
		pending := map[string]bool{} // keys and origins of chunk, not yet in w
		read := 0
		measured := map[planned]bool{}
		flush := func() error {
			err := w.Append(chunk...)
			sum.Rows += len(chunk)
			chunk = chunk[:0]
			clear(pending)
			return err
		}
		_, torn, err := Scan(d, func(m smart.Measurement) error {
			read++
			measured[planned{m.StencilID, m.OC}] = true
			k := Key(m)
			if w.holds(k, m) || pending[k+"|"+origin(m)] {
				sum.Duplicates++
				return nil
			}
			pending[k+"|"+origin(m)] = true
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
		u, err := unfinished(d, metas[i], read, measured)
		if err != nil {
			return err
		}
		if u != nil {
			sum.Unfinished = append(sum.Unfinished, *u)
		}
	}
	return w.Close()
}

// planned is a stencil and an OC of a plan.
type planned struct {
	stencil string
	oc      smart.Combination
}

// unfinished says how the data set dir, of meta, holding rows rows of the stencils and OCs
// measured, falls short of its plan: fewer rows than the variants its run drew (its items file),
// or none at all of some stencil and OC of the plan. nil: it does not, or it has no plan of
// stencils and OCs to tell (a campaign's manifest lies elsewhere).
func unfinished(dir string, meta Meta, rows int, measured map[planned]bool) (*Unfinished, error) {
	p := meta.Plan
	if p == nil || p.Manifest != "" {
		return nil, nil
	}
	u := &Unfinished{Dir: dir, Rows: rows}
	if meta.Shard != nil {
		u.Shard = meta.Shard.String()
	}
	ocs := p.combinations()
	for _, id := range p.Stencils {
		for _, oc := range ocs {
			if p.InShard(id, meta.Shard) && !measured[planned{id, oc}] {
				u.Unmeasured++
			}
		}
	}
	n, err := countItems(dir)
	if err != nil {
		return nil, err
	}
	u.Variants = n
	if n <= rows && u.Unmeasured == 0 {
		return nil, nil
	}
	return u, nil
}

// mergedMeta checks that the inputs may be merged and describes the result.
func mergedMeta(dirs []string, metas []Meta, allowMixed bool) (Meta, error) {
	first := metas[0]
	out := Meta{Sources: slices.Clone(first.Sources), Devices: slices.Clone(first.Devices), Params: slices.Clone(first.Params),
		Plan: first.Plan, Kernels: slices.Clone(first.Kernels), AllowMixed: allowMixed || first.AllowMixed}
	deviceDir := make([]string, len(out.Devices)) // the input each of out.Devices came from
	for i := range deviceDir {
		deviceDir[i] = dirs[0]
	}
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
			return &MixedError{Reason: fmt.Sprintf("%s and %s differ in %s (%v and %v)", dirs[0], dirs[i], what, a, b)}
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
			// times, and name the same device: no row could say which constants gave it, so
			// not even a mixed merge joins them.
			if !slices.ContainsFunc(out.Devices, func(o Device) bool { return o.GPU == d.GPU && o.Name == d.Name && o.Constants.Same(d.Constants) }) {
				other := slices.IndexFunc(out.Devices, func(o Device) bool { return o.GPU == d.GPU && o.Name == d.Name })
				switch {
				case other >= 0:
					return Meta{}, &MixedError{Reason: fmt.Sprintf("%s and %s were simulated on %s with different constants of the analytic model (%s and %s); their rows do not say which constants gave them, so one data set cannot hold both",
						deviceDir[other], dirs[i], cmp.Or(d.GPU, d.Name), out.Devices[other].Constants, d.Constants), Always: true}
				case allowMixed:
				default:
					return Meta{}, refuse("device", deviceList(first.Devices), deviceList(m.Devices))
				}
				out.Devices = append(out.Devices, d)
				deviceDir = append(deviceDir, dirs[i])
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
					return Meta{}, &MixedError{Reason: fmt.Sprintf("%s and %s were planned differently, not as shards of one plan (%s: %s and %s)", dirs[0], dirs[i], d.what, d.a, d.b)}
				}
				out.Plan = nil
			}
		}
		for _, k := range m.Kernels {
			if err := addKernel(&out, k); err != nil {
				return Meta{}, fmt.Errorf("merging %s: %w", dirs[i], err)
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
