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
// more and random/* of data/measured/GPU whose stencils are of the dimensions, and the campaign.
package main

import (
	"compress/gzip"
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/dataset"
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
	uniform, err := uniformItems(filepath.Join(manifest, "items.csv.gz"))
	if err != nil {
		return err
	}
	base := filepath.Join("data", "measured", gpu)
	named, err := filepath.Glob(filepath.Join(base, "random", "*"))
	if err != nil {
		return err
	}
	named = append([]string{filepath.Join(base, "classic"), filepath.Join(base, "more")}, named...)
	fmt.Fprintf(w, "%-5s %4s %-8s  %-22s %-22s %-22s\n", "dims", "seed", "columns", "all: MAPE, pick", "named: MAPE, pick", "campaign uniform: MAPE, pick")
	for _, dims := range []int{2, 3} {
		dirs, err := ofDims(named, dims)
		if err != nil {
			return err
		}
		dirs = append(dirs, filepath.Join(base, "campaign"))
		set, err := train.Load(dirs, train.Options{Task: models.Runtime, Dims: dims})
		if err != nil {
			return err
		}
		if !set.Inputs.Usage {
			return fmt.Errorf("%v: the rows carry no usage columns", dirs)
		}
		without := dropUsage(set)
		campaign, err := stencilsOf(filepath.Join(base, "campaign"))
		if err != nil {
			return err
		}
		var namedRows, uniformRows []int
		for i, s := range set.Samples {
			switch {
			case !campaign[s.Group]:
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

func ofDims(dirs []string, dims int) ([]string, error) {
	var out []string
	for _, d := range dirs {
		ids, err := stencilsOf(d)
		if err != nil {
			return nil, err
		}
		for id := range ids {
			st, err := dataset.ReadStencil(d, id)
			if err != nil {
				return nil, err
			}
			if st.Dims == dims {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}

// stencilsOf is the IDs of the stencils of a data set.
func stencilsOf(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "stencils"))
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, e := range entries {
		ids[strings.TrimSuffix(e.Name(), ".json")] = true
	}
	return ids, nil
}

func item(id string, oc smart.Combination, s smart.Setting) string {
	return id + " " + oc.String() + " " + s.String()
}

// uniformItems reads the manifest's uniformly drawn items.
func uniformItems(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := csv.NewReader(zr)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	out := map[string]bool{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if rec[col["origin"]] != "uniform" {
			continue
		}
		oc, err := smart.ParseCombination(rec[col["oc"]])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s, err := smart.ParseSetting(rec[col["setting"]])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[item(rec[col["stencil_id"]], oc, s)] = true
	}
}
