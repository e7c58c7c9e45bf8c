// Command picks scores `smart predict` on a real GPU: bench/device/picks.sh measures the settings
// predict recommends (each OC it searched in depth) into one data set per stencil, beside the
// predictions (NAME-LABEL.json, the output of smart predict --json, one per set of models); this
// command sets each prediction against the measured time of its setting and against the best
// of the settings measured at random for the same stencil on the same GPU (the reference data
// sets of smart bench).
//
// Usage:
//
//	go run ./bench/picks [-picks DIR] [-ref DIR,...] [-weights W,...] [-json]
//
// Each row also gives the pick a guard against local memory would have made: the first
// candidate, in predict's order, whose measured kernel keeps at most 64 bytes of local memory a
// thread by the compiler's report (rows without the report count as keeping none), which is what
// leaving the variants a perfect detector flags out of the candidates would do.
//
// The H200's picks, against the settings re-measured there (bench/device/resample.sh) and the
// random settings of the stencils the H100 models never saw:
//
//	go run ./bench/picks -picks data/measured/h200/picks -ref 'data/measured/h200/resample/*,data/measured/h200/random/*'
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/dataset"
	"smart/predict"
)

// Row is one prediction of one stencil, measured.
type Row struct {
	Stencil string `json:"stencil"`
	Models  string `json:"models"` // LABEL of NAME-LABEL.json: which models predicted
	Basis   string `json:"basis"`  // what the runtime model was trained on, as predict says
	// RandomBestMs is the fastest of the reference data sets' ok rows for the stencil.
	RandomBestMs float64 `json:"random_best_ms"`
	RandomBestOC string  `json:"random_best_oc"`
	PickOC       string  `json:"pick_oc"` // the OC and setting predict recommends
	PredictedMs  float64 `json:"predicted_ms"`
	MeasuredMs   float64 `json:"measured_ms"`
	// PickOverBest is MeasuredMs over RandomBestMs (1: as fast as the best random setting).
	PickOverBest float64 `json:"pick_over_best"`
	// CandidatesOverBest is the same for the fastest measured of all the OCs predict searched in
	// depth (its candidates), which a user could time before choosing.
	CandidatesOverBest float64 `json:"candidates_over_best"`
	Candidates         int     `json:"candidates"`
	// GuardedOverBest is PickOverBest for the first candidate that keeps at most predict.LocalLimit bytes of
	// local memory a thread (the first candidate where none does or none says).
	GuardedOverBest float64 `json:"guarded_over_best"`
	// Reranked holds, for each weight of -weights, the measured time of the candidate ranked
	// first with that predict.Predictor.AnalyticWeight over the fastest measured candidate (1:
	// the ranking found the fastest of them).
	Reranked []float64 `json:"reranked,omitempty"`
}

// prediction is the part of smart predict's --json output this command reads.
type prediction struct {
	Stencil struct {
		Name string `json:"name"`
		ID   string `json:"id"`
	} `json:"stencil"`
	Best       predict.Choice   `json:"best"`
	Candidates []predict.Choice `json:"candidates"`
}

func main() {
	dir := flag.String("picks", "data/measured/h100-sxm/picks", "directory of bench/device/picks.sh's output")
	refs := flag.String("ref", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more", "data sets of random settings measured on the same GPU, comma-separated; each may be a glob (data/measured/h200/random/*)")
	asJSON := flag.Bool("json", false, "print the rows as JSON")
	weightList := flag.String("weights", "", "analytic weights to rank each prediction's candidates by again (predict.Predictor.AnalyticWeight), comma-separated: prints, for each, the geometric mean of its first candidate's measured time over the fastest candidate's")
	flag.Parse()
	var weights []float64
	for _, f := range strings.FieldsFunc(*weightList, func(r rune) bool { return r == ',' }) {
		w, err := strconv.ParseFloat(f, 64)
		if err != nil || w < 0 || w > 1 {
			fmt.Fprintf(os.Stderr, "picks: -weights: %q is not a weight in [0, 1]\n", f)
			os.Exit(2)
		}
		weights = append(weights, w)
	}
	rows, err := run(*dir, strings.Split(*refs, ","), weights)
	if err != nil {
		fmt.Fprintln(os.Stderr, "picks:", err)
		os.Exit(1)
	}
	if *asJSON {
		jsonout.Print("picks:", rows)
		return
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stencil\tmodels\tbasis\tbest reference ms\tpick OC\tpredicted ms\tmeasured ms\tpick/best\tbest of candidates/best\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%s\t%.4f\t%.4f\t%.2f\t%.2f (%d)\t\n", r.Stencil, r.Models, r.Basis, r.RandomBestMs,
			r.PickOC, r.PredictedMs, r.MeasuredMs, r.PickOverBest, r.CandidatesOverBest, r.Candidates)
	}
	tw.Flush()
	for _, s := range summarize(rows) {
		fmt.Printf("models %s: pick %.3fx the best setting of the references (geometric mean of %d), within 1.25x on %d; best of the candidates %.3fx; guarded against local memory %.3fx, within 1.25x on %d\n",
			s.models, s.pick, s.n, s.within, s.candidates, s.guarded, s.guardedWithin)
	}
	for i, w := range weights {
		logSum, over := 0.0, 0
		for _, r := range rows {
			logSum += math.Log(r.Reranked[i])
			if r.Reranked[i] > 1.25 {
				over++
			}
		}
		fmt.Printf("analytic weight %.2f: first candidate %.3fx the fastest measured candidate (geometric mean of %d), over 1.25x on %d\n",
			w, math.Exp(logSum/float64(len(rows))), len(rows), over)
	}
}

// run scores the predictions in dir against the reference data sets refs names (dataset.Glob's
// patterns: picks*/*/rows.csv names the data sets beside the predictions).
func run(dir string, refs []string, weights []float64) ([]Row, error) {
	dirs, err := dataset.Glob(refs)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	best := map[string]smart.Measurement{} // stencil ID -> fastest ok row of the references
	var device string
	for _, ref := range dirs {
		meta, rows, err := dataset.ReadAll(ref)
		if err != nil {
			return nil, err
		}
		if device, err = oneDevice(ref, meta, device); err != nil {
			return nil, err
		}
		for _, m := range rows {
			if b, ok := best[m.StencilID]; m.OK() && (!ok || m.TimeMs < b.TimeMs) {
				best[m.StencilID] = m
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*-*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s holds no predictions (NAME-LABEL.json): run bench/device/picks.sh", dir)
	}
	var out []Row
	for _, f := range files {
		// The label is after the last dash: stencil names may hold dashes (j2d9pt-gol).
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		i := strings.LastIndex(base, "-")
		name, label := base[:i], base[i+1:]
		var p prediction
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &p)
		}
		if err != nil {
			return nil, fmt.Errorf("prediction %s: %w", f, err)
		}
		meta, measured, err := dataset.ReadAll(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if _, err := oneDevice(filepath.Join(dir, name), meta, device); err != nil {
			return nil, err
		}
		ref, ok := best[p.Stencil.ID]
		if !ok {
			return nil, fmt.Errorf("prediction %s: stencil %s (%s) has no ok row in %s", f, p.Stencil.Name, p.Stencil.ID, strings.Join(refs, ", "))
		}
		rowOf := func(c predict.Choice) (smart.Measurement, error) {
			for _, m := range measured {
				if m.StencilID == p.Stencil.ID && m.OC == c.OC && maps.Equal(m.Setting, c.Setting) {
					if !m.OK() {
						return m, fmt.Errorf("prediction %s: %s %s was measured %s: %s", f, c.OC, c.Setting, m.Status, m.Error)
					}
					return m, nil
				}
			}
			return smart.Measurement{}, fmt.Errorf("prediction %s: %s %s is not in the data set %s", f, c.OC, c.Setting, filepath.Join(dir, name))
		}
		timeOf := func(c predict.Choice) (float64, error) {
			m, err := rowOf(c)
			return m.TimeMs, err
		}
		pick, err := timeOf(p.Best)
		if err != nil {
			return nil, err
		}
		fastest, guarded := pick, 0.0
		for _, c := range p.Candidates {
			m, err := rowOf(c)
			if err != nil {
				return nil, err
			}
			fastest = min(fastest, m.TimeMs)
			if guarded == 0 && (m.Compiled == nil || m.Compiled.LocalBytesPerThread <= predict.LocalLimit) {
				guarded = m.TimeMs
			}
		}
		if guarded == 0 {
			guarded = pick
		}
		row := Row{Stencil: p.Stencil.Name, Models: label, Basis: string(p.Best.Source.Basis),
			RandomBestMs: ref.TimeMs, RandomBestOC: ref.OC.String(), PickOC: p.Best.OC.String(), PredictedMs: p.Best.TimeMs,
			MeasuredMs: pick, PickOverBest: pick / ref.TimeMs, CandidatesOverBest: fastest / ref.TimeMs, Candidates: len(p.Candidates),
			GuardedOverBest: guarded / ref.TimeMs}
		for _, w := range weights {
			ranked := slices.Clone(p.Candidates)
			predict.SortChoices(ranked, w)
			t, err := timeOf(ranked[0])
			if err != nil {
				return nil, err
			}
			row.Reranked = append(row.Reranked, t/fastest)
		}
		out = append(out, row)
	}
	slices.SortStableFunc(out, func(a, b Row) int {
		return strings.Compare(a.Stencil+" "+a.Models, b.Stencil+" "+b.Models)
	})
	return out, nil
}

// summary is the picks of one set of models over all stencils.
type summary struct {
	models                    string
	n, within, guardedWithin  int     // predictions; picks (and guarded picks) within 1.25x of the best random setting
	pick, candidates, guarded float64 // geometric means of PickOverBest, CandidatesOverBest and GuardedOverBest
}

// summarize sums the rows up by models, in the order they first appear.
func summarize(rows []Row) []summary {
	var out []summary
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Models]
		if !ok {
			i = len(out)
			at[r.Models] = i
			out = append(out, summary{models: r.Models})
		}
		s := &out[i]
		s.n++
		s.pick += math.Log(r.PickOverBest)
		s.candidates += math.Log(r.CandidatesOverBest)
		s.guarded += math.Log(r.GuardedOverBest)
		if r.PickOverBest <= 1.25 {
			s.within++
		}
		if r.GuardedOverBest <= 1.25 {
			s.guardedWithin++
		}
	}
	for i := range out {
		out[i].pick = math.Exp(out[i].pick / float64(out[i].n))
		out[i].candidates = math.Exp(out[i].candidates / float64(out[i].n))
		out[i].guarded = math.Exp(out[i].guarded / float64(out[i].n))
	}
	return out
}

// oneDevice checks that a data set was measured on one device, of the same model as the others'
// (want, empty for the first), and returns the model's name. The cards may differ (lent machines
// come and go), as they may within a resumed data set.
func oneDevice(dir string, meta dataset.Meta, want string) (string, error) {
	if !slices.Contains(meta.Sources, smart.Measured) || len(meta.Devices) != 1 {
		return "", fmt.Errorf("data set %s is not measured on one GPU (sources %v, %d devices)", dir, meta.Sources, len(meta.Devices))
	}
	got := meta.Devices[0].String()
	if want != "" && got != want {
		return "", fmt.Errorf("data set %s was measured on %s, the others on %s", dir, got, want)
	}
	return got, nil
}
