// Command usagecols scores the runtime models of a GPU's measured stencils with and without the
// columns of each variant's estimated usage (registers, fused partial sums, local-memory values
// per thread: features.Usage), cross-validated with folds grouped by stencil, over several fold
// seeds: MAPE and pick share (the best measured time over the measured time of the setting the
// model ranks fastest, averaged over stencils) on every row, on the named stencils alone (whose
// settings were drawn uniformly) and on the campaign's uniformly drawn settings alone (the
// manifest's "uniform" items, which no model chose). With -compiled it also scores the columns
// taken from the compiler's registers and local memory (the rows' own, or -facts') in place of
// the estimates, and from a register model learned from them (gbdt on the rows' columns, held
// out by stencil as the runtime model is): what knowing the compiler's facts would give, and
// what learning them does.
//
// Usage:
//
//	go run ./bench/usagecols [-gpu h100-sxm] [-manifest data/campaign] [-folds 12] [-seeds 1,2,3] [-compiled [-facts data/measured/compiled.csv]]
//
// The data sets are those of the GPU's embedded models (data/measured/models.json): classic,
// more, random/* and campaign of data/measured/GPU, each model reading the rows of its
// dimensions; the campaign's stencils and uniform draws are the manifest's.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/features"
	"smart/models"
	"smart/models/kinds"
	"smart/models/train"
)

func main() {
	gpu := flag.String("gpu", "h100-sxm", "the GPU's directory under data/measured")
	manifest := flag.String("manifest", "data/campaign", "the campaign's manifest directory")
	folds := flag.Int("folds", 12, "cross-validation folds")
	seedList := flag.String("seeds", "1,2,3", "fold seeds")
	compiled := flag.Bool("compiled", false, "also score the columns from the compiler's facts and from a register model learned from them")
	factsFile := flag.String("facts", "data/measured/compiled.csv", "compiler facts of the rows measured without them (with -compiled)")
	flag.Parse()
	facts := ""
	if *compiled {
		facts = *factsFile
	}
	if err := run(os.Stdout, *gpu, *manifest, *folds, *seedList, facts); err != nil {
		fmt.Fprintln(os.Stderr, "usagecols:", err)
		os.Exit(1)
	}
}

// columns are a named choice of the rows' columns.
type columns struct {
	name string
	set  *train.Set
}

// run scores the columns; factsFile, where not empty, adds the compiler's facts (with the rows'
// own) and the columns learned from them.
func run(w io.Writer, gpu, manifest string, folds int, seedList, factsFile string) error {
	var seeds []uint64
	for _, f := range strings.Split(seedList, ",") {
		s, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return fmt.Errorf("-seeds: %q is no seed", f)
		}
		seeds = append(seeds, s)
	}
	m, err := campaign.Load(manifest)
	if err != nil {
		return err
	}
	inCampaign, uniform := map[string]bool{}, map[string]bool{}
	for _, it := range m.Items() {
		id := it.Stencil.ID()
		inCampaign[id] = true
		if it.Origin == "uniform" {
			uniform[item(id, it.OC, it.Setting)] = true
		}
	}
	base := filepath.Join("data", "measured", gpu)
	named, err := filepath.Glob(filepath.Join(base, "random", "*"))
	if err != nil {
		return err
	}
	dirs := slices.Concat([]string{filepath.Join(base, "classic"), filepath.Join(base, "more")}, named, []string{filepath.Join(base, "campaign")})
	fmt.Fprintf(w, "%-5s %4s %-8s  %-22s %-22s %-22s\n", "dims", "seed", "columns", "all: MAPE, pick", "named: MAPE, pick", "campaign uniform: MAPE, pick")
	for _, dims := range []int{2, 3} {
		set, err := train.Load(context.Background(), dirs, train.Options{Task: models.Runtime, Dims: dims})
		if err != nil {
			return err
		}
		if !set.Inputs.Usage {
			return fmt.Errorf("%v: the rows carry no usage columns", dirs)
		}
		variants := []columns{{"setting", dropUsage(set)}, {"+usage", set}}
		if factsFile != "" {
			facts, err := compiledOf(set, dirs, factsFile)
			if err != nil {
				return err
			}
			learned, err := learnedUsage(set, facts, folds)
			if err != nil {
				return err
			}
			variants = append(variants, columns{"+compiled", withUsage(set, facts)}, columns{"+learned", withUsage(set, learned)})
		}
		var namedRows, uniformRows []int
		for i, s := range set.Samples {
			switch {
			case !inCampaign[s.Group]:
				namedRows = append(namedRows, i)
			case uniform[item(s.Group, s.OC, s.Setting)]:
				uniformRows = append(uniformRows, i)
			}
		}
		for _, seed := range seeds {
			for _, c := range variants {
				p, err := train.CrossValidate(context.Background(), kinds.All(), "gbdt", c.set, folds, seed, map[string]string{"early_stop": "0"}, nil)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%-5d %4d %-8s  %-22s %-22s %-22s\n", dims, seed, c.name,
					scores(c.set, p, nil), scores(c.set, p, namedRows), scores(c.set, p, uniformRows))
			}
		}
	}
	return nil
}

// scores are the MAPE and pick share of the rows idx (nil: all) as "MAPE%, pick".
func scores(set *train.Set, p *train.Predictions, idx []int) string {
	if idx != nil {
		sub := &train.Predictions{Fold: make([]int, len(idx)), LnMs: make([]float64, len(idx))}
		for j, i := range idx {
			sub.LnMs[j] = p.LnMs[i]
		}
		set, p = set.Subset(idx), sub
	}
	rs := train.Score(set, p).Overall.RuntimeScores
	return fmt.Sprintf("%5.1f%%, %.3f", rs.MAPE, rs.PickShare)
}

// dropUsage is set without its usage columns.
func dropUsage(set *train.Set) *train.Set {
	at := slices.Index(set.Data.Features, features.UsageNames()[0])
	n := len(features.UsageNames())
	d := *set.Data
	d.Features = slices.Concat(d.Features[:at], d.Features[at+n:])
	d.X = make([][]float64, len(set.Data.X))
	for i, r := range set.Data.X {
		d.X[i] = slices.Concat(r[:at], r[at+n:])
	}
	out := *set
	out.Data = &d
	out.Inputs.Usage = false
	return &out
}

func item(id string, oc smart.Combination, s smart.Setting) string {
	return id + " " + oc.String() + " " + s.String()
}

// compiledOf is the usage columns' values from the compiler's facts of each row of set: ln(1+x)
// of its registers, no fused registers (the compiler's count holds them), and its local memory
// in 32-bit values. A row without facts is an error.
func compiledOf(set *train.Set, dirs []string, factsFile string) ([][3]float64, error) {
	f, err := dataset.ReadCompiledFacts(factsFile)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	byItem := map[string]*smart.Compiled{}
	for _, dir := range dirs {
		_, rows, err := dataset.ReadAll(dir)
		if err != nil {
			return nil, err
		}
		for _, m := range rows {
			g, err := cat.Lookup(m.GPU)
			if err != nil {
				return nil, fmt.Errorf("data set %s: %w", dir, err)
			}
			arch, err := cuda.ArchOf(g.ComputeCapability)
			if err != nil {
				return nil, fmt.Errorf("data set %s: %w", dir, err)
			}
			if c, _ := f.Of(m, arch); c != nil {
				byItem[item(m.StencilID, m.OC, m.Setting)] = c
			}
		}
	}
	out := make([][3]float64, len(set.Samples))
	for i, s := range set.Samples {
		c := byItem[item(s.Group, s.OC, s.Setting)]
		if c == nil {
			return nil, fmt.Errorf("%s %s %s: no compiler facts in the rows or %s (go run ./bench/regs -nvcc adds them)", s.Group, s.OC, s.Setting, factsFile)
		}
		out[i] = [3]float64{math.Log1p(float64(c.RegsPerThread)), 0, math.Log1p(float64(c.LocalBytesPerThread) / 4)}
	}
	return out, nil
}

// learnedUsage predicts each row's compiler columns (facts) from its other columns with a gbdt
// cross-validated by stencil: no row's value comes from a model that saw its stencil's facts.
func learnedUsage(set *train.Set, facts [][3]float64, folds int) ([][3]float64, error) {
	out := make([][3]float64, len(facts))
	for _, col := range []int{0, 2} {
		d := *set.Data
		d.Y = make([]float64, len(facts))
		for i := range facts {
			d.Y[i] = facts[i][col]
		}
		p, err := train.CrossValidate(context.Background(), kinds.All(), "gbdt", &train.Set{Data: &d, Samples: set.Samples}, folds, 1, map[string]string{"early_stop": "0"}, nil)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i][col] = p.LnMs[i]
		}
	}
	return out, nil
}

// withUsage is set with its usage columns replaced by cols.
func withUsage(set *train.Set, cols [][3]float64) *train.Set {
	at := slices.Index(set.Data.Features, features.UsageNames()[0])
	d := *set.Data
	d.X = make([][]float64, len(set.Data.X))
	for i, r := range set.Data.X {
		d.X[i] = slices.Clone(r)
		copy(d.X[i][at:], cols[i][:])
	}
	out := *set
	out.Data = &d
	return &out
}
