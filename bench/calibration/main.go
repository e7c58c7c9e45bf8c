// Command calibration scores the analytic stencil model against measurements, with the
// literature's constants and with constants fitted to the H100's measurements
// (roofline.FitStencil): per H100 stencil leaving that stencil out of the fit, and on the H200
// with the fit of every H100 stencil (the H200's catalogue entry and measured copy bandwidth).
// For each: the median of modelled over measured, the mean absolute percentage error, Spearman's
// rank correlation and the share of the best measured time that the variant the model ranks
// fastest reaches.
//
// Usage:
//
//	go run ./bench/calibration [-fit 'GLOB,...'] [-test 'GLOB,...'] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models/roofline"
)

// stencilData is the ok, uncut rows of one stencil on one GPU.
type stencilData struct {
	name, id string
	gpu      string
	samples  []roofline.StencilSample
	ocs      []smart.Combination
}

func load(globs string, cat *catalog.Catalog, copyGBs map[string]float64) ([]*stencilData, error) {
	var out []*stencilData
	byKey := map[string]*stencilData{}
	for _, g := range strings.Split(globs, ",") {
		dirs, err := filepath.Glob(strings.TrimSpace(g))
		if err != nil {
			return nil, err
		}
		for _, dir := range dirs {
			meta, rows, err := dataset.ReadAll(dir)
			if err != nil {
				return nil, err
			}
			gpu, err := cat.Lookup(meta.Devices[0].GPU)
			if err != nil {
				return nil, err
			}
			if cs, err := dataset.CopyBandwidths(dir); err == nil {
				for _, c := range cs {
					copyGBs[gpu.Name] = max(copyGBs[gpu.Name], c.GBs)
				}
			}
			stencils := map[string]*smart.Stencil{}
			for _, m := range rows {
				if !m.OK() || m.Cut != smart.CutNone || m.StencilID == "" {
					continue
				}
				st := stencils[m.StencilID]
				if st == nil {
					if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
						return nil, err
					}
					stencils[m.StencilID] = st
				}
				t, err := smart.DecodeTuning(st.Dims, m.OC, m.Setting)
				if err != nil {
					continue
				}
				key := gpu.Name + "|" + m.StencilID
				d := byKey[key]
				if d == nil {
					d = &stencilData{name: st.Name, id: m.StencilID, gpu: gpu.Name}
					byKey[key] = d
					out = append(out, d)
				}
				d.samples = append(d.samples, roofline.StencilSample{Stencil: st, Tuning: t, GPU: gpu, TimeMs: m.TimeMs})
				d.ocs = append(d.ocs, m.OC)
			}
		}
	}
	return out, nil
}

// Residual is the median ln(modelled/measured) over a group of variants.
type Residual struct {
	Group  string
	N      int
	Median float64
}

// residuals groups the fit's log errors by what the model's terms depend on.
func residuals(fit []*stencilData, cal *roofline.Calibration) []Residual {
	groups := map[string][]float64{}
	for _, d := range fit {
		for _, s := range d.samples {
			e, err := roofline.ModelWith(s.Stencil, s.Tuning, s.GPU, cal)
			if err != nil {
				continue
			}
			r := math.Log(e.TimeMs / s.TimeMs)
			shared := "global"
			if s.Tuning.Shared {
				shared = "shared"
			}
			waves := "waves >= 1"
			if e.Waves < 1 {
				waves = "waves < 1"
			}
			for _, k := range []string{fmt.Sprintf("%d-D", s.Stencil.Dims), "bound " + e.Bound, waves,
				fmt.Sprintf("%s, block x %d", shared, min(s.Tuning.Block[0], 64)), fmt.Sprintf("fused steps %d", s.Tuning.TT),
				fmt.Sprintf("registers %3d-%d", e.Usage.RegsPerThread/64*64, e.Usage.RegsPerThread/64*64+63),
				fmt.Sprintf("streaming along %s", map[int]string{-1: "none", 0: "x", 1: "y", 2: "z"}[s.Tuning.StreamAxis])} {
				groups[k] = append(groups[k], r)
			}
		}
	}
	var out []Residual
	for k, v := range groups {
		out = append(out, Residual{Group: k, N: len(v), Median: median(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// Row is one stencil's scores, before and after calibration.
type Row struct {
	GPU, Stencil  string
	Before, After roofline.Accuracy
}

// Report is what the command prints.
type Report struct {
	LeaveOneOut []Row // H100, each stencil out of its fit
	// Residuals are the median ln(modelled/measured) of the fit of every fit stencil, by group of
	// variants: where the model's structure, not its constants, is wrong.
	Residuals []Residual
	PerOC     map[string][2]float64 // median per-stencil Spearman within each OC, before and after (leave one out)
	Test      []Row                 // other GPUs, fitted on every fit stencil
	Fitted    *roofline.Calibration
}

func score(d *stencilData, cal *roofline.Calibration) (roofline.Accuracy, []float64, []float64) {
	var mod, meas []float64
	for _, s := range d.samples {
		e, err := roofline.ModelWith(s.Stencil, s.Tuning, s.GPU, cal)
		if err != nil {
			continue
		}
		mod = append(mod, e.TimeMs)
		meas = append(meas, s.TimeMs)
	}
	return roofline.Score(mod, meas), mod, meas
}

func run(ctx context.Context, fitGlobs, testGlobs string) (*Report, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	copyGBs := map[string]float64{}
	fit, err := load(fitGlobs, cat, copyGBs)
	if err != nil {
		return nil, err
	}
	test, err := load(testGlobs, cat, copyGBs)
	if err != nil {
		return nil, err
	}
	rep := &Report{PerOC: map[string][2]float64{}}
	perOC := map[string][2][]float64{}
	for i, d := range fit {
		var train []roofline.StencilSample
		for j, o := range fit {
			if j != i {
				train = append(train, o.samples...)
			}
		}
		cal, err := roofline.FitStencil(ctx, train, copyGBs)
		if err != nil {
			return nil, fmt.Errorf("leaving %s out: %w", d.name, err)
		}
		before, mb, yb := score(d, nil)
		after, ma, _ := score(d, cal)
		rep.LeaveOneOut = append(rep.LeaveOneOut, Row{GPU: d.gpu, Stencil: d.name, Before: before, After: after})
		byOC := map[smart.Combination][3][]float64{}
		for k, oc := range d.ocs[:len(mb)] {
			v := byOC[oc]
			v[0], v[1], v[2] = append(v[0], mb[k]), append(v[1], ma[k]), append(v[2], yb[k])
			byOC[oc] = v
		}
		for oc, v := range byOC {
			if len(v[2]) < 4 {
				continue
			}
			p := perOC[oc.String()]
			p[0] = append(p[0], roofline.Score(v[0], v[2]).Spearman)
			p[1] = append(p[1], roofline.Score(v[1], v[2]).Spearman)
			perOC[oc.String()] = p
		}
	}
	for oc, p := range perOC {
		rep.PerOC[oc] = [2]float64{median(p[0]), median(p[1])}
	}
	var all []roofline.StencilSample
	for _, d := range fit {
		all = append(all, d.samples...)
	}
	if rep.Fitted, err = roofline.FitStencil(ctx, all, copyGBs); err != nil {
		return nil, err
	}
	rep.Residuals = residuals(fit, rep.Fitted)
	for _, d := range test {
		before, _, _ := score(d, nil)
		after, _, _ := score(d, rep.Fitted)
		rep.Test = append(rep.Test, Row{GPU: d.gpu, Stencil: d.name, Before: before, After: after})
	}
	return rep, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	return s[len(s)/2]
}

func main() {
	fitGlobs := flag.String("fit", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*", "data sets to fit on (one stencil left out at a time)")
	testGlobs := flag.String("test", "data/measured/h200/random/*,data/measured/h200/resample/*", "data sets of other GPUs to test the fit of every fit stencil on")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	rep, err := run(context.Background(), *fitGlobs, *testGlobs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return
	}
	for _, part := range []struct {
		title string
		rows  []Row
	}{{"leave one stencil out (fit on the others); measured rows against the simulated model, literature -> fitted", rep.LeaveOneOut},
		{"other GPUs (fit on every fit stencil); measured rows against the simulated model, literature -> fitted", rep.Test}} {
		fmt.Println(part.title + ":")
		tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "gpu\tstencil\tn\tratio\tMAPE\tSpearman\tbest share\t\tratio\tMAPE\tSpearman\tbest share\t")
		for _, r := range part.rows {
			b, a := r.Before, r.After
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.0f%%\t%.2f\t%.2f\t->\t%.2f\t%.0f%%\t%.2f\t%.2f\t\n", r.GPU, r.Stencil, b.N,
				b.MedianRatio, 100*b.MAPE, b.Spearman, b.BestShare, a.MedianRatio, 100*a.MAPE, a.Spearman, a.BestShare)
		}
		tw.Flush()
	}
	fmt.Println("per OC, median over stencils of the Spearman within the OC (leave one out):")
	ocs := make([]string, 0, len(rep.PerOC))
	for oc := range rep.PerOC {
		ocs = append(ocs, oc)
	}
	sort.Strings(ocs)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, oc := range ocs {
		fmt.Fprintf(tw, "%s\t%.2f\t->\t%.2f\t\n", oc, rep.PerOC[oc][0], rep.PerOC[oc][1])
	}
	tw.Flush()
	fmt.Println("median ln(modelled/measured) of the fit of every fit stencil, by group:")
	tw = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, r := range rep.Residuals {
		fmt.Fprintf(tw, "%s\t%d\t%+.2f\t\n", r.Group, r.N, r.Median)
	}
	tw.Flush()
	b, _ := json.Marshal(rep.Fitted)
	fmt.Printf("fitted on every fit stencil: %s\n", b)
}
