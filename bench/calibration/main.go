// Command calibration is smart calibrate with the analyses behind its model terms: besides the
// held-out scores of the fit (package calibrate), the Spearman within each OC before and after,
// and the fit's median log error by group of variants (block width, shared or global loads,
// streaming axis, fused steps, bound, registers, waves): where the model's structure, not its
// constants, is wrong.
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
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/stats"
	"smart/models/roofline"
)

// Residual is the median ln(modelled/measured) over a group of variants.
type Residual struct {
	Group  string  `json:"group"`
	N      int     `json:"n"`
	Median float64 `json:"median"`
}

// residuals groups the fit's log errors by what the model's terms depend on.
func residuals(fit []*calibrate.Group, cal *roofline.Calibration) []Residual {
	groups := map[string][]float64{}
	for _, d := range fit {
		for _, s := range d.Samples {
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
		out = append(out, Residual{Group: k, N: len(v), Median: stats.Median(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// spearmanByOC is the Spearman within each OC of g's samples (OCs of at least 4), with cal.
func spearmanByOC(g *calibrate.Group, cal *roofline.Calibration) map[smart.Combination]float64 {
	mod, meas := map[smart.Combination][]float64{}, map[smart.Combination][]float64{}
	for i, s := range g.Samples {
		e, err := roofline.ModelWith(s.Stencil, s.Tuning, s.GPU, cal)
		if err != nil {
			continue
		}
		mod[g.OCs[i]] = append(mod[g.OCs[i]], e.TimeMs)
		meas[g.OCs[i]] = append(meas[g.OCs[i]], s.TimeMs)
	}
	out := map[smart.Combination]float64{}
	for oc, m := range mod {
		if len(m) >= 4 {
			out[oc] = roofline.Score(m, meas[oc]).Spearman
		}
	}
	return out
}

// Report is what the command prints.
type Report struct {
	Calibration *calibrate.File `json:"calibration"`
	// PerOC is the median over fit stencils of the Spearman within each OC, before and after
	// (each stencil with the constants fitted without it).
	PerOC     map[string][2]float64 `json:"per_oc"`
	Residuals []Residual            `json:"residuals"` // of the fit of every fit stencil
}

func run(ctx context.Context, fitGlobs, testGlobs string) (*Report, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	fitDirs, err := dataset.Glob(strings.Split(fitGlobs, ","))
	if err != nil {
		return nil, err
	}
	testDirs, err := dataset.Glob(strings.Split(testGlobs, ","))
	if err != nil {
		return nil, err
	}
	fit, err := calibrate.Load(ctx, fitDirs, cat)
	if err != nil {
		return nil, err
	}
	test, err := calibrate.Load(ctx, testDirs, cat)
	if err != nil {
		return nil, err
	}
	folds := make([]*roofline.Calibration, len(fit.Groups))
	var mu sync.Mutex
	f, err := calibrate.Fit(ctx, fit, test, calibrate.Settings{Level: 0.8, Fold: func(i int, cal *roofline.Calibration) {
		mu.Lock()
		folds[i] = cal
		mu.Unlock()
	}})
	if err != nil {
		return nil, err
	}
	rep := &Report{Calibration: f, PerOC: map[string][2]float64{}, Residuals: residuals(fit.Groups, &f.Calibration)}
	perOC := map[string][2][]float64{}
	for i, g := range fit.Groups {
		before, after := spearmanByOC(g, nil), spearmanByOC(g, folds[i])
		for oc, b := range before {
			if a, ok := after[oc]; ok {
				p := perOC[oc.String()]
				p[0], p[1] = append(p[0], b), append(p[1], a)
				perOC[oc.String()] = p
			}
		}
	}
	for oc, p := range perOC {
		rep.PerOC[oc] = [2]float64{stats.Median(p[0]), stats.Median(p[1])}
	}
	return rep, nil
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
		jsonout.Print("calibration:", rep)
		return
	}
	if err := rep.Calibration.WriteTables(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "calibration:", err)
		os.Exit(1)
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
	b, _ := json.Marshal(rep.Calibration.Calibration)
	fmt.Printf("fitted on every fit stencil: %s\n", b)
}
