package dataset

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"smart"
	"smart/internal/atomicfile"
)

// FastestFormat is the format of a file of fastest measured variants.
const FastestFormat = "smart-fastest/1"

// Fastest is the fastest variant of one stencil measured in full on one GPU (an ok row the
// measuring protocol did not cut short) over a set of data sets: what a prediction for that very
// stencil and GPU can be set against.
type Fastest struct {
	GPU       string            `json:"gpu"`
	StencilID string            `json:"stencil_id"`
	Stencil   string            `json:"stencil"` // its name
	OC        smart.Combination `json:"oc"`
	Setting   smart.Setting     `json:"setting"`
	TimeMs    float64           `json:"time_ms"` // median per step
	Device    string            `json:"device"`  // as the fastest row's device named itself
	// Variants is how many distinct variants (OC and setting) of the stencil were measured in
	// full on the GPU: one measured in several data sets counts once.
	Variants int `json:"variants"`
	// From and To are when the data sets holding them were created.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// DataSets are the directories that hold the stencil's rows on the GPU.
	DataSets []string `json:"data_sets"`
}

// FastestFile is a file of fastest measured variants, with the data sets they came from.
type FastestFile struct {
	Format   string    `json:"format"`
	DataSets []string  `json:"data_sets"`
	Fastest  []Fastest `json:"fastest"`
}

// FastestMeasured finds, in the data sets dirs, the fastest variant of each stencil measured in
// full on each GPU, sorted by GPU and stencil name. Rows that were not measured on a GPU
// (imported, simulated or predicted) and foreign kernels are left out. Once ctx is done it stops
// reading, with an error that wraps ctx.Err().
func FastestMeasured(ctx context.Context, dirs []string) (*FastestFile, error) {
	type key struct{ gpu, id string }
	byKey := map[key]*Fastest{}
	variants := map[string]bool{} // Key of every variant counted
	for _, dir := range dirs {
		meta, rows, err := ReadAllContext(ctx, dir)
		if err != nil {
			return nil, err
		}
		names := map[string]string{}
		for _, m := range rows {
			if m.Source != smart.Measured || !m.OK() || m.Cut != "" || m.StencilID == "" || !(m.TimeMs > 0) {
				continue
			}
			if _, ok := names[m.StencilID]; !ok {
				st, err := ReadStencil(dir, m.StencilID)
				if err != nil {
					return nil, err
				}
				names[m.StencilID] = st.Name
			}
			k := key{m.GPU, m.StencilID}
			f := byKey[k]
			if f == nil {
				f = &Fastest{GPU: m.GPU, StencilID: m.StencilID, Stencil: names[m.StencilID], From: meta.Created, To: meta.Created}
				byKey[k] = f
			}
			if k := Key(m); !variants[k] {
				variants[k] = true
				f.Variants++
			}
			if !slices.Contains(f.DataSets, dir) {
				f.DataSets = append(f.DataSets, dir)
				f.From, f.To = minTime(f.From, meta.Created), maxTime(f.To, meta.Created)
			}
			if f.TimeMs == 0 || m.TimeMs < f.TimeMs {
				f.OC, f.Setting, f.TimeMs, f.Device = m.OC, m.Setting, m.TimeMs, m.Device
			}
		}
	}
	// Fastest is never null in JSON: a reader can range over it as over any file's.
	out := &FastestFile{Format: FastestFormat, DataSets: dirs, Fastest: []Fastest{}}
	for _, f := range byKey {
		out.Fastest = append(out.Fastest, *f)
	}
	slices.SortFunc(out.Fastest, func(a, b Fastest) int {
		return cmp.Or(cmp.Compare(a.GPU, b.GPU), cmp.Compare(a.Stencil, b.Stencil), cmp.Compare(a.StencilID, b.StencilID))
	})
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// OfStencil is every GPU's fastest measured variant of the stencil id, in the file's order.
func (f *FastestFile) OfStencil(id string) []Fastest {
	var out []Fastest
	for _, v := range f.Fastest {
		if v.StencilID == id {
			out = append(out, v)
		}
	}
	return out
}

// ParseFastest decodes a file of fastest measured variants; name is for errors.
func ParseFastest(b []byte, name string) (*FastestFile, error) {
	var f FastestFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if f.Format != FastestFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", name, f.Format, FastestFormat)
	}
	for i, v := range f.Fastest {
		if v.GPU == "" || v.StencilID == "" || !(v.TimeMs > 0) {
			return nil, fmt.Errorf("%s: entry %d needs a gpu, a stencil_id and a positive time_ms", name, i+1)
		}
	}
	return &f, nil
}

// FastestKind recognises a file of fastest measured variants, for the rule on replacing files
// (atomicfile.CheckReplace): WriteFastest replaces only one of these unless told to.
func FastestKind() atomicfile.Kind {
	return atomicfile.Kind{What: "a file of fastest measured variants", Ours: func(path string) (bool, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err
		}
		_, err = ParseFastest(b, path)
		return err == nil, nil
	}}
}

// WriteFastest writes f to path atomically; replace lets it replace a file of another kind.
func WriteFastest(path string, f *FastestFile, replace bool) error {
	if err := atomicfile.CheckReplace(path, replace, FastestKind()); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// WriteText prints the fastest variants, one line each.
func (f *FastestFile) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if len(f.Fastest) == 0 {
		fmt.Fprintln(bw, "no stencil was measured in full on a GPU in these data sets (imported, simulated and predicted rows do not count)")
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%-10s %-24s %10s %8s  %-16s %s\n", "GPU", "stencil", "ms/step", "variants", "OC", "setting")
	for _, v := range f.Fastest {
		fmt.Fprintf(bw, "%-10s %-24s %10.4g %8d  %-16s %s\n", v.GPU, v.Stencil, v.TimeMs, v.Variants, v.OC, v.Setting)
	}
	fmt.Fprintln(bw, "variants: the distinct OCs and settings measured in full (ok, not cut short), each counted once however many data sets hold it")
	return bw.Flush()
}
