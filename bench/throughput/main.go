// Command throughput replays measured data sets through smart's GPU measuring protocol, the full
// one the rows were measured with and the one that cuts slow variants short (dataset/cuda.Cut),
// and prints the GPU time each would take, the rows per device-minute that follow, and whether
// the labels learnt from the data (each stencil's best OC, each OC's best setting) stay the same.
//
// It is an estimate from recorded times, not a measurement: a row's runs are known by their
// median, fastest and slowest only. Labels are replayed adversarially: a variant is judged by its
// slowest run (so a good variant is cut if any run could have cut it) and a cut variant is
// recorded at its fastest (so it looks as good as it could). Times scale to the campaign's grids
// by their points (-scale). Compiling is not in the data: its cost per variant comes from the
// build logs of the full protocol's runs (-compile2d, -compile3d, core-seconds a variant) and
// bounds the throughput with -cores compilers; harness start-ups cost -start seconds each.
//
// Usage:
//
//	go run ./bench/throughput [-data 'GLOB,...'] [-order file|model|oracle] [-scale] [-json]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/models/roofline"
)

// variant is one ok row: its times per step and what decides its launches.
type variant struct {
	oc              smart.Combination
	key             string
	t, fastest, max float64 // median, fastest and slowest run, ms per step
	reps            int     // timed runs under the full protocol (after the checked run)
	tt              int     // steps fused per launch
	model           float64 // the analytic model's time, to order by
}

// stencil is one stencil's rows of one data set.
type stencil struct {
	set, name, id string
	st            *smart.Stencil
	dims          int
	gridBytes     float64 // one buffer
	copyGBs       float64
	rows          []variant
}

// protocol is the new protocol's settings.
type protocol struct {
	cut      cuda.Cut
	steps    int
	reps     int
	sampleMs float64
}

// replay is what one protocol costs on one stencil, in ms of GPU time, and the times it records.
type replay struct {
	gpuMs                     float64
	longestStop               float64 // ms of the longest launch a variant was stopped after
	runs                      int
	full, slow, stopped, near int
	recorded                  map[string]float64 // by variant key
}

// resetMs is the two device-to-device copies that restore the grid before every run.
func (s *stencil) resetMs(scale float64) float64 {
	return 2 * 2 * s.gridBytes * scale / (s.copyGBs * 1e9) * 1e3
}

// full replays the protocol the rows were measured with: a checked run, then reps timed runs
// (each after a reset).
func (s *stencil) full(steps int, scale float64) replay {
	r := replay{recorded: map[string]float64{}}
	reset := s.resetMs(scale)
	for _, v := range s.rows {
		n := 1 + v.reps
		r.gpuMs += float64(n) * (float64(steps)*v.t*scale + reset)
		r.runs += n
		r.full++
		r.recorded[v.key] = v.t
	}
	return r
}

// cutShort replays the protocol of dataset/cuda over the rows in the given order.
func (s *stencil) cutShort(p protocol, order []int, scale float64) replay {
	r := replay{recorded: map[string]float64{}}
	reset := s.resetMs(scale)
	best, bestOC := 0.0, map[smart.Combination]float64{}
	for _, i := range order {
		v := s.rows[i]
		t := v.t * scale
		stop, near := p.cut.Thresholds(best, bestOC[v.oc])
		launches := p.steps / v.tt
		if p.steps%v.tt != 0 {
			launches++
		}
		judged := v.max * scale // the slowest it ran
		if stop > 0 && launches > 1 && judged > stop {
			r.gpuMs += reset + float64(v.tt)*t
			r.longestStop = max(r.longestStop, float64(v.tt)*t)
			r.runs++
			r.stopped++
			r.recorded[v.key] = v.fastest
			continue
		}
		r.gpuMs += reset + float64(p.steps)*t // the checked run
		r.runs++
		if stop > 0 && judged > stop {
			r.slow++
			r.recorded[v.key] = v.fastest
			continue
		}
		per := 1
		if near == 0 || t <= near {
			per = max(1, int(math.Ceil(p.sampleMs/(float64(p.steps)*t))))
			r.near++
		}
		r.gpuMs += float64(p.reps*per) * (reset + float64(p.steps)*t)
		r.runs += p.reps * per
		r.full++
		r.recorded[v.key] = v.t
		if best == 0 || t < best {
			best = t
		}
		if b := bestOC[v.oc]; b == 0 || t < b {
			bestOC[v.oc] = t
		}
	}
	return r
}

// labels are a stencil's best OC and each OC's best variant under recorded times.
func (s *stencil) labels(recorded map[string]float64) (string, map[smart.Combination]string) {
	perOC := map[smart.Combination]string{}
	bestKey := ""
	for _, v := range s.rows {
		t := recorded[v.key]
		if k, ok := perOC[v.oc]; !ok || t < recorded[k] {
			perOC[v.oc] = v.key
		}
		if bestKey == "" || t < recorded[bestKey] {
			bestKey = v.key
		}
	}
	return s.rowOC(bestKey).String(), perOC
}

func (s *stencil) rowOC(key string) smart.Combination {
	for _, v := range s.rows {
		if v.key == key {
			return v.oc
		}
	}
	return 0
}

// orderOf returns the order the protocol meets the rows in.
func (s *stencil) orderOf(how string) []int {
	order := make([]int, len(s.rows))
	for i := range order {
		order[i] = i
	}
	switch how {
	case "model":
		sort.SliceStable(order, func(a, b int) bool { return s.rows[order[a]].model < s.rows[order[b]].model })
	case "oracle":
		sort.SliceStable(order, func(a, b int) bool { return s.rows[order[a]].t < s.rows[order[b]].t })
	}
	return order
}

// load reads the ok rows of every stencil of a data set.
func load(dir string, cat *catalog.Catalog) ([]*stencil, error) {
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		return nil, err
	}
	copyGBs := 3000.0
	if cs, err := dataset.CopyBandwidths(dir); err == nil && len(cs) > 0 {
		copyGBs = cs[len(cs)-1].GBs
	}
	gpu, err := cat.Lookup(meta.Devices[0].GPU)
	if err != nil {
		return nil, err
	}
	sim := roofline.Evaluator{Catalog: cat}
	byID := map[string]*stencil{}
	var out []*stencil
	for _, m := range rows {
		if !m.OK() || m.StencilID == "" {
			continue
		}
		s := byID[m.StencilID]
		if s == nil {
			st, err := dataset.ReadStencil(dir, m.StencilID)
			if err != nil {
				return nil, err
			}
			s = &stencil{set: dir, name: st.Name, id: m.StencilID, dims: st.Dims, copyGBs: copyGBs, st: st,
				gridBytes: float64(st.Grid[0]*st.Grid[1]*st.Grid[2]) * float64(st.Dtype.Size())}
			byID[m.StencilID] = s
			out = append(out, s)
		}
		v := variant{oc: m.OC, key: m.OC.String() + " " + m.Setting.String(), t: m.TimeMs, fastest: m.MinMs, max: m.MaxMs,
			reps: m.Reps, tt: max(1, m.Setting[smart.ParamTT])}
		if v.fastest == 0 {
			v.fastest, v.max = v.t, v.t
		}
		est, err := sim.Evaluate(context.Background(), smart.Query{Stencil: s.st, OC: m.OC, Setting: m.Setting, GPU: gpu.Name})
		if err == nil && est.OK() {
			v.model = est.TimeMs
		}
		s.rows = append(s.rows, v)
	}
	return out, nil
}

func main() {
	data := flag.String("data", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*,data/measured/h200/random/*",
		"data sets measured by the full protocol, comma-separated globs")
	order := flag.String("order", "file", "order the protocol meets the variants in: file (as measured: random draws), model (the analytic model's fastest first) or oracle (the fastest first)")
	scale := flag.Bool("scale", true, "scale times to the campaign's grids (4096^2, 256^3) by their points")
	compile2d := flag.Float64("compile2d", 0.75, "core-seconds of nvcc per 2-D variant")
	compile3d := flag.Float64("compile3d", 2.8, "core-seconds of nvcc per 3-D variant")
	cores := flag.Int("cores", 16, "compilers in parallel")
	start := flag.Float64("start", 0.5, "seconds per harness start-up (context, grids, reference)")
	perTU := flag.Int("per-tu", 24, "variants per translation unit under the full protocol (a process each)")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	rep, err := run(strings.Split(*data, ","), *order, *scale, *compile2d, *compile3d, *cores, *start, *perTU)
	if err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
	jsonout.Report("throughput:", *asJSON, rep, rep.print)
}

// row of the report: one stencil, or a total.
type row struct {
	Set            string  `json:"set"`
	Name           string  `json:"name"`
	Dims           int     `json:"dims"`
	Rows           int     `json:"rows"`
	Scale          float64 `json:"scale"`  // time factor to the campaign grid
	FullS          float64 `json:"full_s"` // GPU seconds, kernels and resets; CutS under the cut protocol
	CutS           float64 `json:"cut_s"`
	Stopped        int     `json:"stopped"`
	Slow           int     `json:"slow"`
	Full           int     `json:"full"`
	Near           int     `json:"near"`
	BestOC         string  `json:"best_oc"` // the stencil's best OC; BestOCCut under the cut protocol
	BestOCCut      string  `json:"best_oc_cut"`
	LabelsSame     bool    `json:"labels_same"`
	OCLabelChanges int     `json:"oc_label_changes"`
}

type report struct {
	Order    string `json:"order"`
	Stencils []row  `json:"stencils"`
	// Spread is the 50th, 95th and 99th percentile of (max-min)/median over the timed runs of
	// the variants within 1.5x of their stencil's best, measured in full (5 runs or more).
	Spread [3]float64 `json:"spread"`
	// LongestStopMs is the longest first launch a variant is stopped after: what a cap on a
	// run's time, which costs a harness restart, could save at most per variant.
	LongestStopMs float64 `json:"longest_stop_ms"`
	// Per dimensionality (2, 3) and both (0): estimated rows per device-minute.
	Rate map[int]rate `json:"rate"`
}

// rate holds each figure under the full protocol and under the cut one (Cut...).
type rate struct {
	Rows       int     `json:"rows"`
	FullGPU    float64 `json:"full_gpu"` // rows a minute of GPU time (kernels, resets, start-ups)
	CutGPU     float64 `json:"cut_gpu"`
	Compile    float64 `json:"compile"`   // rows a minute the compilers can build
	FullRate   float64 `json:"full_rate"` // the lower of GPU and compilers
	CutRate    float64 `json:"cut_rate"`
	FullStart  float64 `json:"full_start"` // seconds of start-ups
	CutStart   float64 `json:"cut_start"`
	FullKernel float64 `json:"full_kernel"`
	CutKernel  float64 `json:"cut_kernel"`
}

func run(globs []string, order string, scale bool, c2, c3 float64, cores int, start float64, perTU int) (*report, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	sets, err := dataset.Glob(globs)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no data set matches %v", globs)
	}
	p := protocol{steps: 8, reps: 5, sampleMs: 10}
	rep := &report{Order: order, Rate: map[int]rate{}}
	var spreads []float64
	for _, dir := range sets {
		sts, err := load(dir, cat)
		if err != nil {
			return nil, err
		}
		for _, s := range sts {
			f := 1.0
			if scale {
				st := s.st
				campaign := map[int]float64{2: 4096 * 4096, 3: 256 * 256 * 256}[s.dims]
				f = campaign / float64(st.Grid[0]*st.Grid[1]*st.Grid[2])
			}
			best := math.Inf(1)
			for _, v := range s.rows {
				best = min(best, v.t)
			}
			for _, v := range s.rows {
				if v.t <= 1.5*best && v.reps >= 5 {
					spreads = append(spreads, (v.max-v.fastest)/v.t)
				}
			}
			old := s.full(p.steps, f)
			cut := s.cutShort(p, s.orderOf(order), f)
			oc0, per0 := s.labels(old.recorded)
			oc1, per1 := s.labels(cut.recorded)
			changes := 0
			for oc, k := range per0 {
				if per1[oc] != k {
					changes++
				}
			}
			rep.LongestStopMs = max(rep.LongestStopMs, cut.longestStop)
			r := row{Set: filepath.Base(dir), Name: s.name, Dims: s.dims, Rows: len(s.rows), Scale: f, FullS: old.gpuMs / 1e3, CutS: cut.gpuMs / 1e3,
				Stopped: cut.stopped, Slow: cut.slow, Full: cut.full, Near: cut.near, BestOC: oc0, BestOCCut: oc1,
				LabelsSame: oc0 == oc1 && changes == 0, OCLabelChanges: changes}
			rep.Stencils = append(rep.Stencils, r)
			units := math.Ceil(float64(len(s.rows)) / float64(perTU))
			for _, d := range []int{0, s.dims} {
				a := rep.Rate[d]
				a.Rows += r.Rows
				a.FullKernel += r.FullS
				a.CutKernel += r.CutS
				a.FullStart += units * start
				a.CutStart += start
				compile := c2
				if s.dims == 3 {
					compile = c3
				}
				a.Compile += compile * float64(r.Rows) // core-seconds, turned into a rate below
				rep.Rate[d] = a
			}
		}
	}
	sort.Float64s(spreads)
	for i, q := range []float64{0.5, 0.95, 0.99} {
		if len(spreads) > 0 {
			rep.Spread[i] = spreads[int(q*float64(len(spreads)-1))]
		}
	}
	for d, a := range rep.Rate {
		perMin := func(s float64) float64 { return float64(a.Rows) / (s / 60) }
		a.FullGPU, a.CutGPU = perMin(a.FullKernel+a.FullStart), perMin(a.CutKernel+a.CutStart)
		a.Compile = perMin(a.Compile / float64(cores))
		a.FullRate, a.CutRate = min(a.FullGPU, a.Compile), min(a.CutGPU, a.Compile)
		rep.Rate[d] = a
	}
	return rep, nil
}

func (r *report) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "data set\tstencil\trows\tfull s\tcut s\tratio\tstopped\tslow\tfull\tnear\tbest OC: full\tcut\tOCs' best settings\t\n")
	for _, s := range r.Stencils {
		same := "same"
		if s.OCLabelChanges > 0 {
			same = fmt.Sprintf("%d differ", s.OCLabelChanges)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.3f\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", s.Set, s.Name, s.Rows, s.FullS, s.CutS, s.CutS/s.FullS,
			s.Stopped, s.Slow, s.Full, s.Near, s.BestOC, s.BestOCCut, same)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nspread (max-min)/median of the runs within 1.5x of the best, as measured: %.2f%% median, %.2f%% 95th percentile, %.2f%% 99th\n",
		100*r.Spread[0], 100*r.Spread[1], 100*r.Spread[2])
	fmt.Fprintf(w, "longest launch a variant is stopped after: %.0f ms\n", r.LongestStopMs)
	fmt.Fprintf(w, "order %s; rows per device-minute (estimates):\n", r.Order)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\trows\tfull: GPU\tcut: GPU\tcompilers\tfull\tcut\t\n")
	for _, d := range []int{2, 3, 0} {
		a, ok := r.Rate[d]
		if !ok {
			continue
		}
		name := map[int]string{0: "all", 2: "2-D", 3: "3-D"}[d]
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", name, a.Rows, a.FullGPU, a.CutGPU, a.Compile, a.FullRate, a.CutRate)
	}
	tw.Flush()
}
