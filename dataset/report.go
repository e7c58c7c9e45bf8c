package dataset

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/internal/english"
)

// WriteFileSummaries writes a table of what each imported file held.
func WriteFileSummaries(w io.Writer, sums []FileSummary) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\tdevice\tGPU\tkernel\trows\tok\tfailed\tduplicates")
	var notes []string
	for _, s := range sums {
		format := s.Format
		if s.Open {
			format += " (open)"
			notes = append(notes, openNote(s.Path, s.Torn))
		}
		if s.Source == smart.Predicted {
			notes = append(notes, s.Path+": smart's predictions (smart transfer -o), not measurements: its rows say predicted")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%d\n", s.Path, format, s.Device, cmp.Or(s.GPU, "-"), s.Kernel,
			s.Rows, s.ByStatus[smart.StatusOK], failures(s.ByStatus), s.Duplicates)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// failures writes the non-ok counts as "compile_error 6, launch_error 155", or 0.
func failures(by map[smart.Status]int) string {
	var parts []string
	for _, st := range smart.Statuses()[1:] {
		if n := by[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}

// WriteText says what the merge of inputs data sets into out wrote and left out.
func (s MergeSummary) WriteText(w io.Writer, out string, inputs int) error {
	for _, d := range s.Removed {
		fmt.Fprintf(w, "removed %s, left behind by a merge into %s that was killed\n", d, out)
	}
	fmt.Fprintf(w, "wrote %s: %d rows from %d data sets, %d duplicates left out\n", out, s.Rows, inputs, s.Duplicates)
	for _, d := range s.Torn {
		fmt.Fprintf(w, "%s ended in a torn line (a killed run), left out\n", d)
	}
	for _, u := range s.Unfinished {
		name := u.Dir
		if u.Shard != "" {
			name = fmt.Sprintf("shard %s (%s)", u.Shard, u.Dir)
		}
		var lacks []string
		if u.Variants > u.Rows {
			lacks = append(lacks, fmt.Sprintf("%d rows of the %d variants its run drew", u.Rows, u.Variants))
		}
		if u.Unmeasured > 0 {
			lacks = append(lacks, fmt.Sprintf("no row of %d of its plan's stencils and OCs", u.Unmeasured))
		}
		fmt.Fprintf(w, "%s is unfinished: %s; resume its run and merge again\n", name, strings.Join(lacks, ", "))
	}
	if len(s.MissingShards) > 0 {
		_, err := fmt.Fprintf(w, "shards %s of the plan are missing\n", strings.Join(s.MissingShards, ", "))
		return err
	}
	return nil
}

// Provenance says where a data set's numbers come from: its sources on its devices.
func (m Meta) Provenance() string {
	var devs []string
	for _, d := range m.Devices {
		s := d.Name
		if d.GPU != "" && d.GPU != d.Name {
			s = fmt.Sprintf("%s (%s)", d.GPU, d.Name)
		}
		if d.Driver != "" {
			s += fmt.Sprintf(", driver %s, CUDA %s", d.Driver, d.CUDA)
		}
		devs = append(devs, s)
	}
	var srcs []string
	for _, s := range m.Sources {
		srcs = append(srcs, string(s))
	}
	return fmt.Sprintf("%s on %s%s", strings.Join(srcs, "+"), strings.Join(devs, "; "), m.constantsText())
}

// constantsText says which constants of the analytic model simulated the data set's simulated
// devices, after a comma: the GPUs of each where they differ; "" where no device is simulated.
func (m Meta) constantsText() string {
	var kinds []Constants // distinct, in order
	gpus := map[int][]string{}
	for _, d := range m.Devices {
		if !m.simulated(d) {
			continue
		}
		i := slices.IndexFunc(kinds, d.Constants.Same)
		if i < 0 {
			i = len(kinds)
			kinds = append(kinds, d.Constants)
		}
		gpus[i] = append(gpus[i], cmp.Or(d.GPU, d.Name))
	}
	switch len(kinds) {
	case 0:
		return ""
	case 1:
		return ", with " + kinds[0].String()
	}
	parts := make([]string, len(kinds))
	for i, c := range kinds {
		parts[i] = fmt.Sprintf("%s on %s", c, strings.Join(gpus[i], ", "))
	}
	return ", with mixed constants: " + strings.Join(parts, "; ")
}

// WriteTables writes the statistics of the data set named name: rows by status, the best OCs,
// the gap between worst and best OC, and the fastest configuration of each kernel.
func (s *Stats) WriteTables(w io.Writer, name string) error {
	fmt.Fprintf(w, "%s: %d rows, %s\n", name, s.Rows, s.Meta.Provenance())
	if s.Repeated > 0 {
		fmt.Fprintf(w, "rows.csv gives %s again, %d of them with another status or time: a run writes each variant once, so they were edited or appended in; merge keeps the first, the best times below take the fastest\n",
			english.Plural(s.Repeated, "variant"), s.Conflicting)
	}
	if s.Torn != nil {
		fmt.Fprintf(w, "rows.csv %s; left out\n", s.Torn)
	}
	if s.Rows == 0 {
		_, err := fmt.Fprintln(w, "the data set holds no rows")
		return err
	}
	// A data set of several sources (merged with AllowMixed) may time one GPU by each: the rows
	// of such a GPU are told apart by source.
	sources := map[string][]smart.Source{}
	for _, c := range s.Counts {
		if !slices.Contains(sources[c.GPU], c.Source) {
			sources[c.GPU] = append(sources[c.GPU], c.Source)
		}
	}
	gpu := func(name string, src smart.Source) string {
		if len(sources[name]) > 1 {
			return fmt.Sprintf("%s (%s)", name, src)
		}
		return name
	}
	if err := s.writeCounts(w, gpu); err != nil {
		return err
	}
	for _, in := range s.Incomplete {
		fmt.Fprintf(w, "stencils on %s measured under only some of its %d OCs, left out of the best OCs and ratios below: %d\n",
			gpu(in.GPU, in.Source), in.OCs, in.Stencils)
	}
	if len(s.BestOC) > 0 {
		fmt.Fprintln(w, "\nBest OC: stencils for which it is the fastest (StencilMART Fig. 2)")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GPU\tOC\tstencils\t")
		for _, b := range s.BestOC {
			fmt.Fprintf(tw, "%s\t%s\t%d\t\n", gpu(b.GPU, b.Source), b.OC, b.Stencils)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(s.Gap) > 0 {
		fmt.Fprintln(w, "\nWorst OC over best OC per stencil (StencilMART Fig. 1)")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GPU\tstencils\tmin\tmedian\tmean\tmax\t")
		for _, g := range s.Gap {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t\n", gpu(g.GPU, g.Source), g.Stencils, ratio(g.Min, 2), ratio(g.Median, 2), ratio(g.Mean, 2), ratio(g.Max, 2))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, one := range s.singleOC() {
			fmt.Fprintf(w, "stencils on %s with a single OC that ran, and so no ratio: %d\n", gpu(one.GPU, one.Source), one.Stencils)
		}
	}
	if len(s.Kernels) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nFastest configuration per device and kernel (ms: the median of its runs, where given; Kernel Tuner's \"time\" is their mean)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "device\tkernel\trows\tok\tbest ms\tslowest/best\tsetting")
	for _, k := range s.Kernels {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4g\t%s\t%s\n", k.GPU, k.Kernel, k.Rows, k.OK, k.BestMs, ratio(k.Spread, 1), k.Setting)
	}
	return tw.Flush()
}

// ratio formats a ratio of times with prec decimals, or with 3 significant digits from 10,000 up,
// where decimals say nothing (a time of 1e300 ms made a ratio of 300 digits).
func ratio(x float64, prec int) string {
	if x >= 1e4 {
		return fmt.Sprintf("%.3gx", x)
	}
	return fmt.Sprintf("%.*fx", prec, x)
}

// writeCounts is the table of rows by GPU, OC (or kernel) and status, with the ok rows cut short
// by cut where there are any.
func (s *Stats) writeCounts(w io.Writer, gpu func(string, smart.Source) string) error {
	cuts := map[smart.Cut]int{}
	for _, c := range s.Counts {
		for k, n := range c.Cut {
			cuts[k] += n
		}
	}
	fmt.Fprintln(w, "\nRows by GPU, OC and status")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "GPU\tOC or kernel\trows\t")
	for _, st := range smart.Statuses() {
		fmt.Fprintf(tw, "%s\t", st)
	}
	if len(cuts) > 0 {
		fmt.Fprint(tw, "cut slow\tcut stopped\t")
	}
	fmt.Fprintln(tw)
	for _, c := range s.Counts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t", gpu(c.GPU, c.Source), cmp.Or(c.OC, c.Kernel), c.Rows)
		for _, st := range smart.Statuses() {
			fmt.Fprintf(tw, "%d\t", c.ByStatus[st])
		}
		if len(cuts) > 0 {
			fmt.Fprintf(tw, "%d\t%d\t", c.Cut[smart.CutSlow], c.Cut[smart.CutStopped])
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(cuts) > 0 {
		_, err := fmt.Fprintf(w, "%d of the ok rows were cut short by the measuring protocol, far slower than their stencil's fastest: "+
			"%d slow (timed by their checked run alone), %d stopped (timed over the first launch of their checked run, unchecked); dataset fastest leaves them out\n",
			cuts[smart.CutSlow]+cuts[smart.CutStopped], cuts[smart.CutSlow], cuts[smart.CutStopped])
		return err
	}
	return nil
}

// WriteTables writes the labelling of the data set named name: the instances labelled, the
// classes by wins, and the merges that made them.
func (l *Labels) WriteTables(w io.Writer, name string) error {
	fmt.Fprintf(w, "%s: %s (stencil and GPU) labelled from %d rows, %s", name, english.Plural(len(l.Instances), "instance"), l.Rows,
		Meta{Sources: l.Sources, Devices: l.Devices}.Provenance())
	if l.Unlabelled > 0 {
		fmt.Fprintf(w, "; %d had no ok time", l.Unlabelled)
	}
	if l.Incomplete > 0 {
		fmt.Fprintf(w, "; %d left out, measured under only some of the OCs", l.Incomplete)
	}
	how := fmt.Sprintf("merged into %d classes", len(l.Classes))
	switch {
	case len(l.Merges) == 0 && len(l.Classes) < len(l.OCs): // classes given (LabelOptions.Given)
		how = fmt.Sprintf("labelled with the given %d classes", len(l.Classes))
	case len(l.Merges) == 0:
		how = "each a class of its own"
	}
	fmt.Fprintf(w, "\n%d OCs ran, %s:\n", len(l.OCs), how)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "class\twins\tmembers")
	byWins := slices.Clone(l.Classes)
	slices.SortStableFunc(byWins, func(a, b Class) int { return b.Wins - a.Wins })
	for _, c := range byWins {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.Label, c.Wins, joinOCs(c.Members))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(l.Merges) > 0 {
		fmt.Fprintln(w, "\nMerges, most correlated first:")
		for _, m := range l.Merges {
			fmt.Fprintf(w, "  {%s} + {%s}  (mean PCC %.3f)\n", joinOCs(m.A), joinOCs(m.B), m.Similarity)
		}
	}
	return nil
}

// joinOCs writes the names of ocs separated by spaces.
func joinOCs(ocs []smart.Combination) string {
	names := make([]string, len(ocs))
	for i, oc := range ocs {
		names[i] = oc.String()
	}
	return strings.Join(names, " ")
}
