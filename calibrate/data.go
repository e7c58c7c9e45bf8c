package calibrate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models/roofline"
)

// Group is the usable rows of one stencil on one GPU: measured and ok, cut short or not. A row
// the measuring protocol cut short has one timing (of its first launch, or of one checked run),
// noisier than a full one, but leaving it out would leave out the slow variants because they are
// slow, and fit the model to the fast ones alone.
type Group struct {
	GPU      string                   `json:"gpu"`
	Stencil  string                   `json:"stencil"` // its name
	ID       string                   `json:"stencil_id"`
	Samples  []roofline.StencilSample `json:"-"`
	OCs      []smart.Combination      `json:"-"` // of each sample
	Settings []smart.Setting          `json:"-"` // of each sample
}

// Source is one data set read, as the calibration file records it.
type Source struct {
	Dir      string  `json:"dir"`
	GPU      string  `json:"gpu"`
	Stencils int     `json:"stencils"`
	Rows     int     `json:"rows"` // measured and ok, cut short or not
	CopyGBs  float64 `json:"copy_gbs,omitempty"`
	// Unmodelled is how many of Rows the model gives no time, settings it takes not to run as
	// measured (to spill heavily, say): the fit and the scores leave them out. UnmodelledWhy is
	// the first one's stencil and reason.
	Unmodelled    int    `json:"unmodelled,omitempty"`
	UnmodelledWhy string `json:"unmodelled_why,omitempty"`
}

// Data is the measurements a fit or a test reads, by stencil and GPU.
type Data struct {
	Groups  []*Group
	Sources []Source
	// CopyGBs is the highest device-to-device copy bandwidth measured beside the data sets, by
	// catalogue GPU.
	CopyGBs map[string]float64
}

// Load reads the data sets in dirs. Only rows measured on a GPU count: imported and simulated
// rows are refused, since a calibration fitted to the model's own output would be circular. A
// data set holds one GPU's rows, and at least one ok. Once ctx is done it stops, between data
// sets or every few thousand rows, with an error that wraps ctx.Err().
func Load(ctx context.Context, dirs []string, cat *catalog.Catalog) (*Data, error) {
	d := &Data{CopyGBs: map[string]float64{}}
	byKey := map[string]*Group{}
	metas := make([]dataset.Meta, len(dirs))
	for i, dir := range dirs {
		var err error
		if metas[i], err = dataset.ReadMeta(dir); err != nil {
			return nil, err
		}
	}
	// A copy given beside its original, or a merge beside its input, would count rows twice.
	if err := dataset.Distinct(dirs, metas); err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		meta, rows, err := dataset.ReadAllContext(ctx, dir)
		if err != nil {
			return nil, err
		}
		if len(meta.Devices) == 0 {
			return nil, fmt.Errorf("data set %s: its meta.json names no device", dir)
		}
		gpu, err := cat.Lookup(meta.Devices[0].GPU)
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", dir, err)
		}
		for _, dev := range meta.Devices[1:] {
			if g, err := cat.Lookup(dev.GPU); err != nil || g.Name != gpu.Name {
				return nil, fmt.Errorf("data set %s holds the rows of %s and %s (a mixed merge): %s", dir, gpu.Name, dev.GPU, oneGPU)
			}
		}
		src := Source{Dir: dir, GPU: gpu.Name}
		cs, err := dataset.CopyBandwidths(dir) // none measured: nil, no error
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			src.CopyGBs = max(src.CopyGBs, c.GBs)
		}
		if src.CopyGBs > 0 {
			d.CopyGBs[gpu.Name] = max(d.CopyGBs[gpu.Name], src.CopyGBs)
		}
		// Of each stencil: its points, and a Modeler to tell the settings the model refuses.
		type stencil struct {
			*smart.Stencil
			mod *roofline.Modeler
		}
		stencils := map[string]stencil{}
		for i, m := range rows {
			if i%rowsCheck == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("data set %s: stopped after %d of %d rows: %w", dir, i, len(rows), err)
				}
			}
			if m.Source != smart.Measured {
				return nil, fmt.Errorf("data set %s, row %d: source %q; a calibration fits measured rows only", dir, i+1, m.Source)
			}
			if !m.OK() || m.StencilID == "" {
				continue
			}
			if g, err := cat.Lookup(m.GPU); err != nil || g.Name != gpu.Name {
				return nil, fmt.Errorf("data set %s, row %d: GPU %q is not the data set's %s: %s", dir, i+1, m.GPU, gpu.Name, oneGPU)
			}
			st, ok := stencils[m.StencilID]
			if !ok {
				read, err := dataset.ReadStencil(dir, m.StencilID)
				if err != nil {
					return nil, err
				}
				st = stencil{read, roofline.NewModeler(read, gpu, nil)}
				stencils[m.StencilID] = st
			}
			t, err := smart.DecodeTuning(st.Dims, m.OC, m.Setting)
			if err != nil {
				return nil, fmt.Errorf("data set %s, row %d: %w", dir, i+1, err)
			}
			// What the model refuses it refuses under any constants (they scale what it
			// counts): counted here, once, for the note that says why rows are missing.
			if _, err := st.mod.Model(t); err != nil {
				if src.Unmodelled == 0 {
					src.UnmodelledWhy = st.Name + ": " + err.Error()
				}
				src.Unmodelled++
			}
			key := gpu.Name + "|" + m.StencilID
			grp := byKey[key]
			if grp == nil {
				grp = &Group{GPU: gpu.Name, Stencil: st.Name, ID: m.StencilID}
				byKey[key] = grp
				d.Groups = append(d.Groups, grp)
			}
			grp.Samples = append(grp.Samples, roofline.StencilSample{Stencil: st.Stencil, Tuning: t, GPU: gpu, TimeMs: m.TimeMs})
			grp.OCs = append(grp.OCs, m.OC)
			grp.Settings = append(grp.Settings, m.Setting)
			src.Rows++
		}
		switch {
		case src.Rows == 0:
			return nil, fmt.Errorf("data set %s: no row measured ok; nothing to fit or score", dir)
		case src.Unmodelled == src.Rows: // an AMD GPU's: a table of zeros otherwise
			return nil, fmt.Errorf("data set %s: the model gives none of its %d rows measured ok a time (the first, %s); nothing to fit or score", dir, src.Rows, src.UnmodelledWhy)
		}
		src.Stencils = len(stencils)
		d.Sources = append(d.Sources, src)
	}
	return d, nil
}

// rowsCheck is how many rows Load reads (each timed by the analytic model) between two looks at
// its context.
const rowsCheck = 4096

// oneGPU is the advice of an error of a data set of several GPUs.
const oneGPU = "a calibration reads one GPU per data set; give each GPU's data set separately"

// names says which stencils (on which GPUs) the groups at idx are, for an error.
func (d *Data) names(idx []int) string {
	var s []string
	for _, i := range idx {
		s = append(s, d.Groups[i].Stencil+" on "+d.Groups[i].GPU)
	}
	return strings.Join(s, ", ")
}

// gpus lists the GPUs of the groups, sorted.
func gpus(groups []*Group) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range groups {
		if !seen[g.GPU] {
			seen[g.GPU] = true
			out = append(out, g.GPU)
		}
	}
	sort.Strings(out)
	return out
}
