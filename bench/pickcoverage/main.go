// Command pickcoverage measures, on the campaign's measured stencils, how
// often the 80% interval smart predict attaches to a runtime model's time holds the measured
// time: for the settings the model itself picked as its fastest (the campaign's "predicted"
// items, two per OC) and for settings drawn at random (its "uniform" items). A search's pick is
// the lowest of many predictions, so it is biased low (the winner's curse): the gap between the
// two coverages, and the median ln(measured/predicted) of each, say by how much.
//
// Each row is predicted again by the model smart predict would use for the stencil now (the
// GPU's own model of its measurements where the stencil lies in its range, else the simulated
// default), with the band of data/calibration/intervals.json for it; the picks are also scored
// against the time the manifest recorded when it chose them.
//
// Usage:
//
//	go run ./bench/pickcoverage [-manifest data/campaign] [-data data/measured/h100-sxm/campaign] [-json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"

	"smart"
	"smart/calibrate"
	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
	"smart/predict"
)

// Tally is the coverage of one kind of row.
type Tally struct {
	Kind     string   `json:"kind"` // "picked", "random", "picked, as predicted then"
	Rows     int      `json:"rows"`
	Stencils int      `json:"stencils"`
	Coverage float64  `json:"coverage"`  // share of rows inside the band
	Below    float64  `json:"below"`     // share measured below the band (the model too slow)
	Above    float64  `json:"above"`     // share measured above it (the model too fast)
	MedianLn float64  `json:"median_ln"` // median ln(measured/predicted)
	Models   []string `json:"models"`    // the bands used
}

type residual struct {
	stencil string
	ln      float64
	band    *calibrate.Band
}

// tally scores residuals against their bands.
func tally(kind string, rs []residual) Tally {
	t := Tally{Kind: kind, Rows: len(rs)}
	if len(rs) == 0 {
		return t
	}
	stencils := map[string]bool{}
	var lns []float64
	for _, r := range rs {
		stencils[r.stencil] = true
		lns = append(lns, r.ln)
		switch {
		case r.ln < r.band.LogLo:
			t.Below++
		case r.ln > r.band.LogHi:
			t.Above++
		default:
			t.Coverage++
		}
		if !slices.Contains(t.Models, r.band.Model) {
			t.Models = append(t.Models, r.band.Model)
		}
	}
	n := float64(len(rs))
	t.Coverage, t.Below, t.Above = t.Coverage/n, t.Below/n, t.Above/n
	t.Stencils = len(stencils)
	sort.Float64s(lns)
	t.MedianLn = lns[len(lns)/2]
	if len(lns)%2 == 0 {
		t.MedianLn = (lns[len(lns)/2-1] + lns[len(lns)/2]) / 2
	}
	slices.Sort(t.Models)
	return t
}

func itemKey(id string, oc smart.Combination, s smart.Setting) string {
	return id + "|" + oc.String() + "|" + s.String()
}

func run(manifestDir, dataDir string) ([]Tally, error) {
	m, err := campaign.Load(manifestDir)
	if err != nil {
		return nil, err
	}
	items := map[string]campaign.Item{}
	for _, it := range m.Items() {
		items[itemKey(it.Stencil.ID(), it.OC, it.Setting)] = it
	}
	meta, rows, err := dataset.ReadAll(dataDir)
	if err != nil {
		return nil, err
	}
	if len(meta.Devices) == 0 {
		return nil, fmt.Errorf("data set %s names no device", dataDir)
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	gpu, err := cat.Lookup(meta.Devices[0].GPU)
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", dataDir, err)
	}
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	bands, err := calibrate.DefaultBands()
	if err != nil {
		return nil, err
	}
	type scorer struct {
		score predict.Scorer
		band  *calibrate.Band
	}
	scorers := map[string]*scorer{}
	scorerOf := func(st *smart.Stencil) (*scorer, error) {
		if s, ok := scorers[st.ID()]; ok {
			return s, nil
		}
		model, _, err := ms.Own(st, gpu.Name)
		if err != nil {
			return nil, err
		}
		basis := predict.BasisMeasured
		if model == nil {
			if _, model, err = ms.For(st); err != nil {
				return nil, err
			}
			basis = predict.BasisSimulated
		}
		band := bands.Lookup(model.Name, string(basis))
		if band == nil {
			return nil, fmt.Errorf("no band for %s (%s) in the embedded intervals", model.Name, basis)
		}
		score, err := predict.ModelScorer(model, st, gpu)
		if err != nil {
			return nil, err
		}
		s := &scorer{score: score, band: band}
		scorers[st.ID()] = s
		return s, nil
	}
	stencils := map[string]*smart.Stencil{}
	var picked, random, then []residual
	for _, r := range rows {
		if r.Source != smart.Measured || !r.OK() || r.Cut != smart.CutNone || !(r.TimeMs > 0) {
			continue
		}
		it, ok := items[itemKey(r.StencilID, r.OC, r.Setting)]
		if !ok {
			continue
		}
		st := stencils[r.StencilID]
		if st == nil {
			if st, err = dataset.ReadStencil(dataDir, r.StencilID); err != nil {
				return nil, err
			}
			stencils[r.StencilID] = st
		}
		s, err := scorerOf(st)
		if err != nil {
			return nil, fmt.Errorf("stencil %s: %w", st.Name, err)
		}
		ts, err := s.score(r.OC, []smart.Setting{r.Setting})
		if err != nil {
			return nil, fmt.Errorf("stencil %s, %s: %w", st.Name, r.OC, err)
		}
		res := residual{stencil: r.StencilID, ln: math.Log(r.TimeMs / ts[0]), band: s.band}
		if it.Origin == "predicted" {
			picked = append(picked, res)
			if it.PredictedMs > 0 {
				then = append(then, residual{stencil: r.StencilID, ln: math.Log(r.TimeMs / it.PredictedMs), band: s.band})
			}
		} else {
			random = append(random, res)
		}
	}
	if len(picked)+len(random) == 0 {
		return nil, fmt.Errorf("%s holds no measured ok row of the manifest in %s", dataDir, manifestDir)
	}
	return []Tally{tally("picked", picked), tally("random", random), tally("picked, as predicted then", then)}, nil
}

func main() {
	manifest := flag.String("manifest", "data/campaign", "the campaign's manifest directory")
	data := flag.String("data", "data/measured/h100-sxm/campaign", "the campaign's measured data set")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	ts, err := run(*manifest, *data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pickcoverage:", err)
		os.Exit(1)
	}
	if *asJSON {
		if err := json.NewEncoder(os.Stdout).Encode(ts); err != nil {
			fmt.Fprintln(os.Stderr, "pickcoverage:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Printf("%-26s %7s %8s %9s %7s %7s %10s\n", "rows", "n", "stencils", "coverage", "below", "above", "median ln")
	var bands []string
	for _, t := range ts {
		fmt.Printf("%-26s %7d %8d %8.1f%% %6.1f%% %6.1f%% %10.3f\n", t.Kind, t.Rows, t.Stencils, 100*t.Coverage, 100*t.Below, 100*t.Above, t.MedianLn)
		for _, b := range t.Models {
			if !slices.Contains(bands, b) {
				bands = append(bands, b)
			}
		}
	}
	fmt.Println("coverage: measured times inside the 80% band around the runtime model's time; below: faster than the band, above: slower;")
	fmt.Println("median ln: of measured over predicted (above 0: the model too fast, as a search's pick is expected to be)")
	fmt.Printf("bands (data/calibration/intervals.json) of: %v\n", bands)
}
