// Command regs holds the register estimate that bounds the setting spaces (smart.Tuning.Usage:
// the values a thread keeps live, plus the partial sums of fused steps) against what the
// compiler allocated, as the GPU harness reports it in every measured row since data set format
// smart-dataset/3 (the regs and local_bytes columns), and says what local memory costs: the
// question of the calibration issue about spilled registers, to answer as soon as a lent GPU
// has measured rows with these columns.
//
// Rows measured before the harness reported them take their facts from -facts, which -nvcc
// fills by compiling each such variant again as the harness does (cubin, -O3, for the GPU's
// architecture), where nvcc is at hand but no GPU need be; the compiler's release goes with each
// fact, since another release may allocate otherwise.
//
// Usage:
//
//	go run ./bench/regs [-data 'GLOB,...'] [-facts FILE] [-nvcc 'nvcc -ccbin clang-14' [-sample N]] [-catalog FILE] [-json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/internal/bit"
	"smart/internal/rankcorr"
	"smart/internal/stats"
	"smart/predict"
)

func main() {
	data := flag.String("data", "data/measured/*/*/rows.csv,data/measured/*/*/*/rows.csv", "measured data sets (globs, comma-separated; a pattern may name their rows.csv)")
	catFile := flag.String("catalog", "", "GPU catalogue file merged over the built-in one")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	factsFile := flag.String("facts", "data/measured/compiled.csv", "compiler facts of variants measured without them (read, and appended to with -nvcc)")
	nvcc := flag.String("nvcc", "", "compile the variants that have no facts with this nvcc command first, e.g. 'nvcc -ccbin clang-14'")
	arch := flag.String("arch", "sm_90", "architecture -nvcc compiles for: that of the GPUs measured")
	sample := flag.Int("sample", 0, "with -nvcc, compile at most this many variants, spread over the data sets (0: all)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *data, *catFile, *factsFile, *nvcc, *arch, *sample, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "regs:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, data, catFile, factsFile, nvcc, arch string, sample int, asJSON bool) error {
	dirs, err := dataset.Glob(strings.Split(data, ","))
	if err != nil {
		return err
	}
	cat, err := catalog.Load(catFile)
	if err != nil {
		return err
	}
	f, err := dataset.ReadCompiledFacts(factsFile)
	if err != nil {
		return err
	}
	if nvcc != "" {
		scratch, err := os.MkdirTemp("", "smart-regs")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		c, err := newCompiler(nvcc, arch, scratch)
		if err != nil {
			return err
		}
		if err := compileMissing(ctx, dirs, f, c, factsFile, sample, runtime.GOMAXPROCS(0), os.Stderr); err != nil {
			return err
		}
	}
	r, err := analyse(dirs, cat, f)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	return r.write(w)
}

// Agreement is how the estimate of a group of rows compares with the compiler's registers.
type Agreement struct {
	Group       string  `json:"group"`
	N           int     `json:"n"`
	Spearman    float64 `json:"spearman"`     // of the estimate and the registers; 0 where either is constant
	MedianRatio float64 `json:"median_ratio"` // registers over the estimate
	MAPE        float64 `json:"mape_percent"` // |estimate - registers| over the registers
	Under       float64 `json:"under_share"`  // share of rows whose estimate is below the registers
}

// Report is the whole comparison.
type Report struct {
	DataSets  int `json:"data_sets"`
	OKRows    int `json:"ok_rows"`
	WithFacts int `json:"rows_with_facts"` // ok rows whose compiler facts are known
	// FromFile counts the rows among them whose facts come from the facts file, not from the
	// harness on the GPU, by the compiler that gave them.
	FromFile map[string]int `json:"rows_from_facts_file,omitempty"`
	All      Agreement      `json:"all"`
	ByOC     []Agreement    `json:"by_oc"`
	// Spill counts the rows by whether the estimate exceeds what a thread of the block can have
	// (first index) and whether the kernel uses local memory (second): [no][no], [no][yes], ...
	Spill [2][2]int `json:"spill"`
	// Slowdown is the median time over the fastest of its stencil on its GPU, of the rows with
	// local memory and of those without (0 for none).
	SlowdownLocal float64 `json:"slowdown_local"`
	SlowdownNone  float64 `json:"slowdown_none"`
	// Local counts the rows by whether the estimate puts arrays in local memory
	// (smart.Usage.LocalRegs, first index) and whether the compiler gave the kernel more than
	// predict.LocalLimit bytes of it (second); LocalRatio is the median of the compiler's bytes
	// over the estimate's where both have some.
	Local      [2][2]int `json:"local"`
	LocalRatio float64   `json:"local_ratio"`
}

// row is one ok measurement with its compiler facts and the estimate of its kernel.
type row struct {
	oc          string
	estimate    int // registers per thread: the live values and the fused steps' partial sums
	estLocal    int // bytes per thread of local memory the estimate expects (LocalRegs)
	avail       int // what a thread of the block can have on the GPU
	regs, local int
	slowdown    float64 // time over the stencil's fastest on the GPU
}

func analyse(dirs []string, cat *catalog.Catalog, f *dataset.CompiledFacts) (*Report, error) {
	r := &Report{DataSets: len(dirs), FromFile: map[string]int{}}
	var rows []row
	for _, dir := range dirs {
		rs, ok, err := readRows(dir, cat, f, r.FromFile)
		if err != nil {
			return nil, err
		}
		r.OKRows += ok
		rows = append(rows, rs...)
	}
	r.WithFacts = len(rows)
	if len(rows) == 0 {
		return r, nil
	}
	r.All = agreement("all", rows)
	byOC := map[string][]row{}
	for _, x := range rows {
		byOC[x.oc] = append(byOC[x.oc], x)
		r.Spill[bit.Of(x.estimate > x.avail)][bit.Of(x.local > 0)]++
	}
	for _, oc := range smart.Combinations() {
		if g := byOC[oc.String()]; len(g) > 0 {
			r.ByOC = append(r.ByOC, agreement(oc.String(), g))
		}
	}
	var localRatio []float64
	for _, x := range rows {
		r.Local[bit.Of(x.estLocal > 0)][bit.Of(x.local > predict.LocalLimit)]++
		if x.estLocal > 0 && x.local > predict.LocalLimit {
			localRatio = append(localRatio, float64(x.local)/float64(x.estLocal))
		}
	}
	r.LocalRatio = stats.Median(localRatio)
	var local, none []float64
	for _, x := range rows {
		if x.local > 0 {
			local = append(local, x.slowdown)
		} else {
			none = append(none, x.slowdown)
		}
	}
	r.SlowdownLocal, r.SlowdownNone = stats.Median(local), stats.Median(none)
	return r, nil
}

// readRows returns the ok rows of the data set in dir that carry compiler facts (their own, else
// f's for their GPU's architecture, counted in fromFile by compiler), and how many ok rows it has.
func readRows(dir string, cat *catalog.Catalog, f *dataset.CompiledFacts, fromFile map[string]int) ([]row, int, error) {
	_, ms, err := dataset.ReadAll(dir)
	if err != nil {
		return nil, 0, err
	}
	best := map[string]float64{} // by stencil and GPU
	ok := 0
	for _, m := range ms {
		if m.OK() && m.StencilID != "" {
			ok++
			if k := m.StencilID + "|" + m.GPU; best[k] == 0 || m.TimeMs < best[k] {
				best[k] = m.TimeMs
			}
		}
	}
	stencils := map[string]*smart.Stencil{}
	var rows []row
	for _, m := range ms {
		if !m.OK() || m.StencilID == "" {
			continue
		}
		gpu, err := cat.Lookup(m.GPU)
		if err != nil {
			return nil, 0, fmt.Errorf("data set %s: %w", dir, err)
		}
		compiled := m.Compiled
		if arch, err := cuda.ArchOf(gpu.ComputeCapability); compiled == nil && err == nil {
			var file bool
			if compiled, file = f.Of(m, arch); file {
				fromFile[f.Compiler[dataset.CompiledKey{StencilID: m.StencilID, OC: m.OC.String(), Setting: m.Setting.String(), Arch: arch}]]++
			}
		}
		if compiled == nil {
			continue
		}
		st := stencils[m.StencilID]
		if st == nil {
			if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
				return nil, 0, err
			}
			stencils[m.StencilID] = st
		}
		t, err := smart.DecodeTuning(st.Dims, m.OC, m.Setting)
		if err != nil {
			return nil, 0, fmt.Errorf("data set %s, %s %s: %w", dir, m.OC, m.Setting, err)
		}
		u := t.Usage(st)
		rows = append(rows, row{oc: m.OC.String(), estimate: u.RegsPerThread + u.FusedRegs, estLocal: 4 * u.LocalRegs, avail: u.RegsAvailable(gpu),
			regs: compiled.RegsPerThread, local: compiled.LocalBytesPerThread, slowdown: m.TimeMs / best[m.StencilID+"|"+m.GPU]})
	}
	return rows, ok, nil
}

func agreement(group string, rows []row) Agreement {
	a := Agreement{Group: group, N: len(rows)}
	est, regs, ratio := make([]float64, len(rows)), make([]float64, len(rows)), make([]float64, len(rows))
	under := 0
	for i, x := range rows {
		est[i], regs[i], ratio[i] = float64(x.estimate), float64(x.regs), float64(x.regs)/float64(x.estimate)
		a.MAPE += math.Abs(est[i]-regs[i]) / regs[i]
		under += bit.Of(x.estimate < x.regs)
	}
	a.MAPE *= 100 / float64(len(rows))
	a.Under = float64(under) / float64(len(rows))
	a.MedianRatio = stats.Median(ratio)
	if s := rankcorr.Spearman(est, regs); !math.IsNaN(s) { // NaN where either is constant
		a.Spearman = s
	}
	return a
}

func (r *Report) write(w io.Writer) error {
	fmt.Fprintf(w, "%d data sets, %d ok rows, %d with the compiler's registers and local memory\n", r.DataSets, r.OKRows, r.WithFacts)
	for _, c := range slices.Sorted(maps.Keys(r.FromFile)) {
		fmt.Fprintf(w, "  %d of them compiled again without a GPU by %s (the facts file), not reported by the harness\n", r.FromFile[c], c)
	}
	if r.WithFacts == 0 {
		_, err := fmt.Fprintln(w, "no row has them: measure with a harness that reports them (data set format smart-dataset/3)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\trows\tSpearman\tregs/estimate (median)\tMAPE %\testimate below\t")
	for _, a := range append([]Agreement{r.All}, r.ByOC...) {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.2f\t%.1f\t%.0f%%\t\n", a.Group, a.N, a.Spearman, a.MedianRatio, a.MAPE, 100*a.Under)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nestimated to exceed the block's registers, against local memory used:\n")
	fmt.Fprintf(w, "  estimate fits:   %d without local memory, %d with\n", r.Spill[0][0], r.Spill[0][1])
	fmt.Fprintf(w, "  estimate exceeds: %d without local memory, %d with\n", r.Spill[1][0], r.Spill[1][1])
	fmt.Fprintf(w, "median time over the stencil's fastest: %s with local memory, %s without\n", times(r.SlowdownLocal), times(r.SlowdownNone))
	fmt.Fprintf(w, "\nlocal arrays (a merged loop not unrolled in full) against over %d bytes of local memory:\n", predict.LocalLimit)
	fmt.Fprintf(w, "  estimate none:   %d without, %d with\n", r.Local[0][0], r.Local[0][1])
	_, err := fmt.Fprintf(w, "  estimate some:   %d without, %d with (the compiler's bytes over the estimate's: %.2f, median)\n", r.Local[1][0], r.Local[1][1], r.LocalRatio)
	return err
}

// times prints a ratio, or "-" for none.
func times(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}
