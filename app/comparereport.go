package app

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/tuner"
)

// kernelTunerBest is Kernel Tuner 1.4's best strategy per file, replaying the same caches with
// default options (20 seeds, 10 for Bayesian optimization): the median evaluations to reach 95%
// of the optimum and how many runs got there. The figures were given to the project (its issue
// text), not run here: Kernel Tuner cannot be installed where smart is built, so they are labelled
// as quoted wherever they are printed. A case is the file only where its name, its settings and
// its optimum are the file's: a partial copy, another cache renamed, or smart's predictions saved
// under the name would get a figure of other data.
var kernelTunerBest = map[string]kernelTunerFile{
	"convolution_milo/A100":    {4362, 0.5536000076681376, KernelTunerBest{"genetic algorithm", 153, "17/20"}},
	"convolution_milo/A4000":   {4362, 1.021171996369958, KernelTunerBest{"basin hopping", 58, "20/20"}},
	"convolution_milo/A6000":   {4362, 0.6030377962291835, KernelTunerBest{"basin hopping", 97, "19/20"}},
	"convolution_milo/MI250X":  {4362, 0.6587962452322245, KernelTunerBest{"basin hopping", 81, "19/20"}},
	"convolution_milo/W6600":   {4362, 1.7276193872094154, KernelTunerBest{"basin hopping", 102, "16/20"}},
	"convolution_milo/W7800":   {4362, 0.8161421902477741, KernelTunerBest{"genetic algorithm", 136, "20/20"}},
	"dedispersion_milo/MI250X": {11130, 49.5724800825119, KernelTunerBest{"bayesian optimization", 57, "10/10"}},
	"dedispersion_milo/W6600":  {11130, 135.0808186531067, KernelTunerBest{"dual annealing", 36, "20/20"}},
	"dedispersion_milo/W7800":  {11130, 50.36081421375275, KernelTunerBest{"bayesian optimization", 23, "10/10"}},
}

// kernelTunerQuoted labels Kernel Tuner's figures with what they are and the conditions they
// were measured under, as far as their source states them.
const kernelTunerQuoted = "Kernel Tuner 1.4 (quoted): its best strategy on the file with default options, the median evaluations to 95% of the optimum over 20 runs (10 for Bayesian optimization) and the runs that got there, as given to this project, not rerun here; how runs that never got there count is not stated"

// kernelTunerFile is a benchmark_hub cache as smart replays it (its settings and optimum, ms)
// and Kernel Tuner's best strategy on it.
type kernelTunerFile struct {
	settings int
	optimum  float64
	best     KernelTunerBest
}

// kernelTunerFigure is Kernel Tuner's best strategy on case c, where c is a file it was
// measured on.
func kernelTunerFigure(c ComparedCase) (KernelTunerBest, bool) {
	f, ok := kernelTunerBest[c.Name]
	if !ok || c.Source != smart.Imported || c.Settings != f.settings || math.Abs(c.Optimum-f.optimum) > 1e-9*f.optimum {
		return KernelTunerBest{}, false
	}
	return f.best, true
}

// Comparison is a comparison of strategies on cases: the evaluations each needs to reach
// Share of the optimum, and IterML's standards where they were computed.
type Comparison struct {
	Share     float64           `json:"share"`
	Budget    int               `json:"budget"`
	Cases     []ComparedCase    `json:"cases"`
	Reach     []ComparedReach   `json:"reach"`
	Standards ComparedStandards `json:"standards,omitempty"`
	// KernelTunerNote says, where a case has Kernel Tuner's figure, that the figures are quoted
	// and under which conditions, and how this comparison's conditions differ from them.
	KernelTunerNote []string `json:"kernel_tuner_note,omitempty"`
}

// ComparedStandards are IterML's standards of a Comparison, written to JSON with snake_case
// keys like the rest (tuner.Standard has no tags).
type ComparedStandards []tuner.Standard

// MarshalJSON implements json.Marshaler.
func (s ComparedStandards) MarshalJSON() ([]byte, error) {
	type standard struct {
		Case   string  `json:"case"`
		Method string  `json:"method"`
		Ratio  float64 `json:"ratio"`
		Budget int     `json:"budget"`
		Median float64 `json:"median"`
		P5     float64 `json:"p5"`
	}
	out := make([]standard, len(s))
	for i, v := range s {
		out[i] = standard(v)
	}
	return json.Marshal(out)
}

// ComparedCase is a case of a Comparison: its size, optimum and where its times come from.
type ComparedCase struct {
	Name     string       `json:"name"`
	Settings int          `json:"settings"`
	Optimum  float64      `json:"optimum_ms"`
	Source   smart.Source `json:"source"`
	// KernelTuner is Kernel Tuner's best strategy on the case where known, to 95% of the
	// optimum (whatever Share the comparison asks), as quoted: Comparison.KernelTunerNote.
	KernelTuner *KernelTunerBest `json:"kernel_tuner_best_to_95,omitempty"`
}

// KernelTunerBest is Kernel Tuner's best strategy on a case, as quoted: its median evaluations to
// reach 95% of the optimum, and how many of its runs got there.
type KernelTunerBest struct {
	Strategy string `json:"strategy"`
	Median   int    `json:"median"`
	Reached  string `json:"reached"`
}

// ComparedReach is one strategy on one case, over its seeds.
type ComparedReach struct {
	Case        string          `json:"case"`
	Method      string          `json:"method"`
	Seeds       int             `json:"seeds"`
	FirstSeed   uint64          `json:"first_seed"`
	Reached     int             `json:"reached"`
	Median      *float64        `json:"median"` // null when fewer than half the seeds got there
	P95         *float64        `json:"p95"`
	Evaluations SeedEvaluations `json:"evaluations"`
}

// SeedEvaluations are the evaluations each seed needed; 0, null in JSON, where it did not get
// there within the budget.
type SeedEvaluations []int

// MarshalJSON implements json.Marshaler.
func (e SeedEvaluations) MarshalJSON() ([]byte, error) {
	out := make([]*int, len(e))
	for i := range e {
		if e[i] > 0 {
			out[i] = &e[i]
		}
	}
	return json.Marshal(out)
}

// NewComparison is the comparison of reach, tuner.Compare's result on cases with budget and
// share.
func NewComparison(share float64, budget int, cases []Case, reach []tuner.Reach) Comparison {
	out := Comparison{Share: share, Budget: budget}
	for _, c := range cases {
		cc := ComparedCase{Name: c.Name, Settings: c.Size, Optimum: c.Optimum, Source: c.Source}
		if b, ok := kernelTunerFigure(cc); ok {
			cc.KernelTuner = &b
		}
		out.Cases = append(out.Cases, cc)
	}
	for _, r := range reach {
		row := ComparedReach{Case: r.Case, Method: r.Method, Seeds: len(r.Evaluations), FirstSeed: r.FirstSeed, Reached: r.Reached(), Evaluations: r.Evaluations}
		row.Median, row.P95 = finite(r.Quantile(0.5)), finite(r.Quantile(0.95))
		out.Reach = append(out.Reach, row)
	}
	out.KernelTunerNote = out.kernelTunerNote()
	return out
}

// kernelTunerNote is the label of Kernel Tuner's figures where a case has one and, where they
// are printed, the conditions of smart's rows beside them, which are never Kernel Tuner's: its
// runs had default options, no --budget, and 20 seeds (10 for Bayesian optimization) where
// random sampling alone has 100 by default here.
func (o Comparison) kernelTunerNote() []string {
	quoted := map[string]bool{}
	for _, c := range o.Cases {
		quoted[c.Name] = c.KernelTuner != nil
	}
	var counts []int // seeds of the methods beside a figure, in the order met, and their methods
	methods := map[int][]string{}
	for _, r := range o.Reach {
		if !quoted[r.Case] || slices.Contains(methods[r.Seeds], r.Method) {
			continue
		}
		if methods[r.Seeds] == nil {
			counts = append(counts, r.Seeds)
		}
		methods[r.Seeds] = append(methods[r.Seeds], r.Method)
	}
	switch {
	case len(counts) == 0:
		return nil
	case o.Share != 0.95:
		return []string{kernelTunerQuoted}
	}
	seeds := make([]string, len(counts))
	for i, n := range counts {
		seeds[i] = fmt.Sprintf("%d seeds of %s", n, strings.Join(methods[n], ", "))
	}
	return []string{kernelTunerQuoted, fmt.Sprintf("Not the same conditions as this run's: %s; each search stopped at %d evaluations", strings.Join(seeds, "; "), o.Budget)}
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// WriteTables writes the evaluations each strategy needs per case, beside Kernel Tuner's best
// where it is known, then the standards.
func (o Comparison) WriteTables(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "Evaluations to reach %.0f%% of the optimum (median, 95th percentile over seeds; '-': not within %d)\n\n", 100*o.Share, o.Budget)
	fmt.Fprintln(tw, "data set\tsettings\tmethod\tmedian\tp95\treached\tKernel Tuner 1.4 (quoted)\t")
	num := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.Itoa(int(*v))
	}
	sizes := map[string]int{}
	best := map[string]*KernelTunerBest{}
	for _, c := range o.Cases {
		sizes[c.Name], best[c.Name] = c.Settings, c.KernelTuner
	}
	last := ""
	for _, r := range o.Reach {
		name, kt, size := r.Case, "", ""
		if b := best[r.Case]; name == last {
			name = ""
		} else if b != nil && o.Share == 0.95 {
			kt = fmt.Sprintf("%d (%s, %s)", b.Median, b.Strategy, b.Reached)
		} else if b != nil {
			kt = "(to 95% only)" // its figure answers another goal
		}
		if name != "" {
			size = strconv.Itoa(sizes[r.Case])
		}
		last = r.Case
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t\n", name, size, r.Method, num(r.Median), num(r.P95), r.Reached, r.Seeds, kt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(o.KernelTunerNote) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(o.KernelTunerNote, ".\n")+".")
	}
	return o.writeStandards(w)
}

// writeStandards writes random sampling's and IterML's standards side by side per case and
// share.
func (o Comparison) writeStandards(w io.Writer) error {
	if len(o.Standards) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nIterML's standards: optimum/best, median and 5th percentile over seeds, by share of the space sampled\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "data set\tshare\tevaluations\trandom median\trandom p5\titerml median\titerml p5\t")
	byKey := map[string]tuner.Standard{}
	var order []string
	for _, s := range o.Standards {
		k := s.Case + "|" + strconv.FormatFloat(s.Ratio, 'g', -1, 64)
		if _, ok := byKey[k+"|random"]; !ok && s.Method == "random" {
			order = append(order, k)
		}
		byKey[k+"|"+s.Method] = s
	}
	last := ""
	for _, k := range order {
		r, it := byKey[k+"|random"], byKey[k+"|iterml"]
		name := r.Case
		if name == last {
			name = ""
		}
		last = r.Case
		fmt.Fprintf(tw, "%s\t%.2f%%\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", name, 100*r.Ratio, r.Budget, r.Median, r.P5, it.Median, it.P5)
	}
	return tw.Flush()
}
