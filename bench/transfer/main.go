// Command transfer checks on real measurements what smart predict's Transfer assumes for a GPU
// without measurements of its own: that another GPU's ranking of a stencil's settings holds on
// it, and that the analytic model's ratio of a setting's times on the two GPUs turns the one's
// time into the other's. It joins data sets measured on GPU A (-from) with data sets of the same
// stencils' settings measured on GPU B (-to: bench/device/resample.sh, or smart bench with the
// same seed and samples on both) by stencil, OC and setting, and scores three estimates of B's
// times made from A's: A's time as it is; A's time over the ratio of the two GPUs' measured
// copy bandwidths (B over A); and A's time times the analytic model's ratio of the setting's
// times on B and on A, which is what Transfer does (here with a perfect model of A).
//
// Usage:
//
//	go run ./bench/transfer [-from DIR,...] [-to DIR,...] [-json]
//
// Each DIR may be a glob.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/rankcorr"
	"smart/models/roofline"
)

// Report is everything the command prints.
type Report struct {
	From     string  `json:"from"` // catalogue names of the GPUs
	To       string  `json:"to"`
	FromCopy float64 `json:"from_copy_gbs"` // best measured copy bandwidth, read plus written
	ToCopy   float64 `json:"to_copy_gbs"`
	Stencils []Row   `json:"stencils"`
	// Mean is the mean of the stencils' rows (N: their sum).
	Mean Row `json:"mean"`
	// Begun is the stencils left out: measured on both, but on fewer than minPaired settings
	// (a campaign's stencil only begun on one GPU), too few to rank.
	Begun []string `json:"begun,omitempty"`
}

// minPaired is the fewest settings measured on both GPUs that a stencil needs to be scored, as
// bench/fewshot asks of the target.
const minPaired = 40

// Row compares the two GPUs on one stencil's settings measured on both.
type Row struct {
	Stencil string `json:"stencil"`
	N       int    `json:"n"` // settings ok on both
	// Spearman is the rank correlation of the two GPUs' times: 1 when B orders the settings
	// as A does.
	Spearman float64 `json:"spearman"`
	// Ratio* summarise B's time over A's.
	RatioMedian float64 `json:"ratio_median"`
	RatioMin    float64 `json:"ratio_min"`
	RatioMax    float64 `json:"ratio_max"`
	// The estimates of B's times from A's.
	Same     Score `json:"same"`     // A's time
	Copy     Score `json:"copy"`     // over the ratio of copy bandwidths
	Analytic Score `json:"analytic"` // times the analytic model's ratio of the setting
}

// Score rates estimates of B's times.
type Score struct {
	MAPE     float64 `json:"mape_percent"`
	Spearman float64 `json:"spearman"`
	// PickShare is B's fastest time over B's time of the setting the estimate ranks fastest
	// (1: the estimate finds B's best of these settings).
	PickShare float64 `json:"pick_share"`
}

// pair is one setting measured on both GPUs, with the analytic model's ratio of its times.
type pair struct {
	a, b, ratio float64
}

func main() {
	from := flag.String("from", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*", "data sets measured on GPU A, comma-separated (globs allowed)")
	to := flag.String("to", "data/measured/h200/resample/*,data/measured/h200/random/*", "data sets of the same settings measured on GPU B")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "transfer:", err)
		os.Exit(1)
	}
	rep, err := run(strings.Split(*from, ","), strings.Split(*to, ","))
	if err != nil {
		fail(err)
	}
	if !*asJSON {
		printReport(rep)
		return
	}
	jsonout.Print("transfer:", rep)
}

func printReport(rep *Report) {
	fmt.Printf("%s (A, copy %.0f GB/s) -> %s (B, copy %.0f GB/s): estimates of B's times from A's\n", rep.From, rep.FromCopy, rep.To, rep.ToCopy)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stencil\tn\tA~B rank corr\tB/A median [min, max]\tMAPE %: A\tA/copy\tA*analytic\trank corr: A*analytic\tpick share: A\tA*analytic\t")
	for _, r := range append(rep.Stencils, rep.Mean) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f [%.3f, %.3f]\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t\n", r.Stencil, r.N, r.Spearman,
			r.RatioMedian, r.RatioMin, r.RatioMax, r.Same.MAPE, r.Copy.MAPE, r.Analytic.MAPE, r.Analytic.Spearman,
			r.Same.PickShare, r.Analytic.PickShare)
	}
	tw.Flush()
	if len(rep.Begun) > 0 {
		fmt.Printf("left out, fewer than %d settings measured on both: %s\n", minPaired, strings.Join(rep.Begun, ", "))
	}
}

// side is one GPU's measurements.
type side struct {
	gpu      string
	copyGBs  float64
	rows     map[string]smart.Measurement // stencil|OC|setting -> its first ok row
	stencils map[string]*smart.Stencil
}

func run(from, to []string) (*Report, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	a, err := load(from)
	if err != nil {
		return nil, err
	}
	b, err := load(to)
	if err != nil {
		return nil, err
	}
	ga, err := cat.Lookup(a.gpu)
	if err != nil {
		return nil, err
	}
	gb, err := cat.Lookup(b.gpu)
	if err != nil {
		return nil, err
	}
	pairs := map[string][]pair{} // stencil ID -> its settings on both
	for k, mb := range b.rows {
		ma, ok := a.rows[k]
		if !ok {
			continue
		}
		st := b.stencils[mb.StencilID]
		t, err := smart.DecodeTuning(st.Dims, mb.OC, mb.Setting)
		if err != nil {
			return nil, fmt.Errorf("stencil %s, %s %s: %w", st.Name, mb.OC, mb.Setting, err)
		}
		ea, errA := roofline.Model(st, t, ga)
		eb, errB := roofline.Model(st, t, gb)
		if errA != nil || errB != nil {
			continue // the model cannot say (a setting outside its space now): no ratio
		}
		pairs[mb.StencilID] = append(pairs[mb.StencilID], pair{a: ma.TimeMs, b: mb.TimeMs, ratio: eb.TimeMs / ea.TimeMs})
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("no setting is measured ok on both the %s (%s) and the %s (%s)", a.gpu, strings.Join(from, ","), b.gpu, strings.Join(to, ","))
	}
	rep := &Report{From: a.gpu, To: b.gpu, FromCopy: a.copyGBs, ToCopy: b.copyGBs}
	ids := make([]string, 0, len(pairs))
	for id, ps := range pairs {
		if len(ps) < minPaired {
			rep.Begun = append(rep.Begun, b.stencils[id].Name)
			continue
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no stencil has %d settings measured ok on both the %s and the %s", minPaired, a.gpu, b.gpu)
	}
	slices.Sort(rep.Begun)
	slices.SortFunc(ids, func(x, y string) int { return strings.Compare(b.stencils[x].Name, b.stencils[y].Name) })
	for _, id := range ids {
		r := compare(pairs[id], a.copyGBs/b.copyGBs)
		r.Stencil = b.stencils[id].Name
		rep.Stencils = append(rep.Stencils, r)
	}
	rep.Mean = average(rep.Stencils)
	return rep, nil
}

// load reads the data sets the patterns name, all measured on one GPU.
func load(patterns []string) (*side, error) {
	s := &side{rows: map[string]smart.Measurement{}, stencils: map[string]*smart.Stencil{}}
	for _, p := range patterns {
		dirs, err := filepath.Glob(p)
		if err != nil || len(dirs) == 0 {
			return nil, fmt.Errorf("%s names no data set", p)
		}
		for _, dir := range dirs {
			_, rows, err := dataset.ReadAll(dir)
			if err != nil {
				return nil, err
			}
			for _, m := range rows {
				if m.Source != smart.Measured {
					return nil, fmt.Errorf("data set %s: a row is %s, not measured; this command compares GPUs' measurements", dir, m.Source)
				}
				if s.gpu == "" {
					s.gpu = m.GPU
				}
				if m.GPU != s.gpu {
					return nil, fmt.Errorf("data set %s: a row is of the %s, another of the %s; give each GPU's data sets on their own side", dir, m.GPU, s.gpu)
				}
				if !m.OK() {
					continue
				}
				if s.stencils[m.StencilID] == nil {
					if s.stencils[m.StencilID], err = dataset.ReadStencil(dir, m.StencilID); err != nil {
						return nil, err
					}
				}
				k := m.StencilID + "|" + m.OC.String() + "|" + m.Setting.String()
				if _, dup := s.rows[k]; !dup {
					s.rows[k] = m
				}
			}
			copies, err := dataset.CopyBandwidths(dir)
			if err != nil {
				return nil, err
			}
			for _, c := range copies {
				s.copyGBs = max(s.copyGBs, c.GBs)
			}
		}
	}
	if !(s.copyGBs > 0) {
		return nil, fmt.Errorf("the data sets %s record no copy bandwidth of the %s (%s)", strings.Join(patterns, ","), s.gpu, dataset.CopyFile)
	}
	return s, nil
}

// compare scores the three estimates of B's times on one stencil's settings; copyRatio is A's
// copy bandwidth over B's.
func compare(ps []pair, copyRatio float64) Row {
	a := make([]float64, len(ps))
	b := make([]float64, len(ps))
	ratios := make([]float64, len(ps))
	for i, p := range ps {
		a[i], b[i], ratios[i] = p.a, p.b, p.b/p.a
	}
	slices.Sort(ratios)
	scaled := func(f func(p pair) float64) []float64 {
		out := make([]float64, len(ps))
		for i, p := range ps {
			out[i] = f(p)
		}
		return out
	}
	return Row{
		N:           len(ps),
		Spearman:    rankcorr.Spearman(a, b),
		RatioMedian: stat.Quantile(0.5, stat.Empirical, ratios, nil),
		RatioMin:    ratios[0],
		RatioMax:    ratios[len(ratios)-1],
		Same:        score(a, b),
		Copy:        score(scaled(func(p pair) float64 { return p.a * copyRatio }), b),
		Analytic:    score(scaled(func(p pair) float64 { return p.a * p.ratio }), b),
	}
}

// score rates estimates est of the measured times b.
func score(est, b []float64) Score {
	var ape float64
	pick := 0
	for i := range est {
		ape += math.Abs(est[i]-b[i]) / b[i]
		if est[i] < est[pick] {
			pick = i
		}
	}
	return Score{MAPE: 100 * ape / float64(len(b)), Spearman: rankcorr.Spearman(est, b), PickShare: slices.Min(b) / b[pick]}
}

// average is the mean of rows, N their sum.
func average(rows []Row) Row {
	n := float64(len(rows))
	out := Row{Stencil: "mean"}
	for _, r := range rows {
		out.N += r.N
		out.Spearman += r.Spearman / n
		out.RatioMedian += r.RatioMedian / n
		out.RatioMin += r.RatioMin / n
		out.RatioMax += r.RatioMax / n
		for _, s := range []struct{ to, from *Score }{{&out.Same, &r.Same}, {&out.Copy, &r.Copy}, {&out.Analytic, &r.Analytic}} {
			s.to.MAPE += s.from.MAPE / n
			s.to.Spearman += s.from.Spearman / n
			s.to.PickShare += s.from.PickShare / n
		}
	}
	return out
}
