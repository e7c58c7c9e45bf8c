// Command usagecols scores the runtime models of a GPU's measured stencils with and without the
// columns of each variant's estimated usage (registers, fused partial sums, local-memory values
// per thread: features.Usage), cross-validated with folds grouped by stencil, over several fold
// seeds: MAPE and pick share (the best measured time over the measured time of the setting the
// model ranks fastest, averaged over stencils) on every row, on the named stencils alone (whose
// settings were drawn uniformly) and on the campaign's uniformly drawn settings alone (the
// manifest's "uniform" items, which no model chose).
//
// Usage:
//
//	go run ./bench/usagecols [-gpu h100-sxm] [-manifest data/campaign] [-folds 12] [-seeds 1,2,3]
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
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/campaign"
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
	flag.Parse()
	if err := run(os.Stdout, *gpu, *manifest, *folds, *seedList); err != nil {
		fmt.Fprintln(os.Stderr, "usagecols:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, gpu, manifest string, folds int, seedList string) error {
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
		set, err := train.Load(dirs, train.Options{Task: models.Runtime, Dims: dims})
		if err != nil {
			return err
		}
		if !set.Inputs.Usage {
			return fmt.Errorf("%v: the rows carry no usage columns", dirs)
		}
		without := dropUsage(set)
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
			for _, c := range []struct {
				name string
				set  *train.Set
			}{{"setting", without}, {"+usage", set}} {
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
