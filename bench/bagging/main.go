// Command bagging scores, for sets of gbdt hyper-parameters, how well the H100's runtime model
// picks among the measured settings of stencils it never saw: for each stencil, the measured time
// of the setting the model predicts fastest over the fastest measured (1: it found the best). A
// model that searches thousands of settings picks the one it most underestimates (the winner's
// curse); averaging models trained on bags of the stencils (gbdt's bags) smooths that noise.
//
// Two scores per set of parameters and dimensionality:
//
//   - cv: the data sets the embedded models learn (data/measured/models.json), cross-validated in
//     folds grouped by stencil (smart train --cv's folds), each stencil's measured rows its pool;
//   - named: each of the twelve named stencils left out of that training in turn, its pool its
//     random rows and every setting the picks directories measured for it (bench/device/picks.sh:
//     earlier models' favourites, the settings a model is most likely to overrate).
//
// With -weights, each stencil's pick is also ranked as smart predict ranks its candidates,
// t^(1-w) a^w with a the calibrated analytic model's time, to see whether that ranking would
// serve inside the search too.
//
// Usage:
//
//	go run ./bench/bagging [-params 'early_stop=0;early_stop=0,bags=4'] [-folds 12] [-weights 0,0.3]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/train"
)

var (
	named    = []string{"data/measured/h100-sxm/classic", "data/measured/h100-sxm/more", "data/measured/h100-sxm/random/*"}
	campaign = "data/measured/h100-sxm/campaign"
	picks    = "data/measured/h100-sxm/picks*/*/rows.csv"
)

// score is the picks of one model over the stencils it never saw.
type score struct {
	weight float64   // of the analytic model's time in the ranking of a stencil's settings
	ratios []float64 // per stencil: measured time of the pick over the fastest measured
	apes   []float64 // absolute percentage error of every row
}

// add scores one stencil: its rows' measured times, the model's ln times and the analytic
// model's (NaN where it has none: the model's time alone ranks the row).
func (s *score) add(times, lnPred, lnAnalytic []float64) {
	rank := func(i int) float64 {
		if math.IsNaN(lnAnalytic[i]) {
			return lnPred[i]
		}
		return (1-s.weight)*lnPred[i] + s.weight*lnAnalytic[i]
	}
	pick, best := 0, math.Inf(1)
	for i, t := range times {
		best = min(best, t)
		if rank(i) < rank(pick) {
			pick = i
		}
		s.apes = append(s.apes, math.Abs(math.Exp(lnPred[i])-t)/t)
	}
	s.ratios = append(s.ratios, times[pick]/best)
}

func (s *score) String() string {
	logSum, w10, w25 := 0.0, 0, 0
	for _, r := range s.ratios {
		logSum += math.Log(r)
		if r <= 1.10 {
			w10++
		}
		if r <= 1.25 {
			w25++
		}
	}
	mape := 0.0
	for _, a := range s.apes {
		mape += a
	}
	return fmt.Sprintf("%.3fx\t%d\t%d\t%d\t%.1f%%", math.Exp(logSum/float64(len(s.ratios))), w10, w25, len(s.ratios), 100*mape/float64(len(s.apes)))
}

func main() {
	paramList := flag.String("params", "early_stop=0;early_stop=0,bags=4", "sets of hyper-parameters (smart train --param), separated by ';'")
	folds := flag.Int("folds", 12, "cross-validation folds")
	weightList := flag.String("weights", "0", "weights of the analytic model in the ranking of each stencil's settings, comma-separated")
	flag.Parse()
	var weights []float64
	for _, f := range strings.Split(*weightList, ",") {
		w, err := strconv.ParseFloat(f, 64)
		if err != nil || w < 0 || w > 1 {
			fmt.Fprintf(os.Stderr, "bagging: -weights: %q is not a weight in [0, 1]\n", f)
			os.Exit(2)
		}
		weights = append(weights, w)
	}
	if err := run(context.Background(), strings.Split(*paramList, ";"), *folds, weights); err != nil {
		fmt.Fprintln(os.Stderr, "bagging:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, paramSets []string, folds int, weights []float64) error {
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	namedDirs, err := dataset.Glob(named)
	if err != nil {
		return err
	}
	picksDirs, err := dataset.Glob([]string{picks})
	if err != nil {
		return err
	}
	kind, err := kinds.All().Lookup("gbdt", models.Runtime)
	if err != nil {
		return err
	}
	cal, err := calibrate.Default()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "params\tD\tscore\tanalytic weight\tpick/best\twithin 1.10x\twithin 1.25x\tstencils\tMAPE\t")
	for _, dims := range []int{2, 3} {
		set, err := train.Load(ctx, append(slices.Clone(namedDirs), campaign), train.Options{Task: models.Runtime, Catalog: cat, Dims: dims})
		if err != nil {
			return err
		}
		if set.Target != models.TargetLnMs {
			return fmt.Errorf("the runtime rows learn %s, not ln ms", set.Target)
		}
		pool, err := train.Load(ctx, append(slices.Clone(namedDirs), picksDirs...), train.Options{Task: models.Runtime, Catalog: cat, Dims: dims, Inputs: &set.Inputs})
		if err != nil {
			return err
		}
		isNamed := map[string]bool{}
		for _, s := range pool.Samples {
			isNamed[s.Group] = true
		}
		for _, ps := range paramSets {
			params, err := models.ParseParams(ps)
			if err != nil {
				return err
			}
			p, err := train.CrossValidate(ctx, kinds.All(), "gbdt", set, folds, 1, params, nil)
			if err != nil {
				return err
			}
			// One score per weight of each kind: cv of the campaign's stencils, of the named
			// ones, and the named ones left out with their picks.
			cvCampaign, cvNamed, left := scores(weights), scores(weights), scores(weights)
			lnA := analytic(set, &cal.Calibration)
			for _, idx := range groups(set.Data.Groups) {
				times, pred, an := rowsOf(idx, set, p.LnMs, lnA)
				to := cvCampaign
				if isNamed[set.Data.Groups[idx[0]]] {
					to = cvNamed
				}
				for _, sc := range to {
					sc.add(times, pred, an)
				}
			}
			poolA := analytic(pool, &cal.Calibration)
			poolOf := groups(pool.Data.Groups)
			for _, idx := range groups(set.Data.Groups) {
				id := set.Data.Groups[idx[0]]
				if !isNamed[id] {
					continue
				}
				var keep []int
				for i, g := range set.Data.Groups {
					if g != id {
						keep = append(keep, i)
					}
				}
				fitted, err := kind.Train(ctx, set.Data.Subset(keep), nil, params, nil)
				if err != nil {
					return fmt.Errorf("without %s: %w", set.Stencils[id].Name, err)
				}
				rows := pool.Data.Subset(poolOf[id])
				lnPred, err := fitted.(models.Regressor).PredictBatch(rows.X)
				if err != nil {
					return err
				}
				all := make([]float64, pool.Data.Rows())
				for j, i := range poolOf[id] {
					all[i] = lnPred[j]
				}
				times, pred, an := rowsOf(poolOf[id], pool, all, poolA)
				for _, sc := range left {
					sc.add(times, pred, an)
				}
			}
			for i, w := range weights {
				fmt.Fprintf(tw, "%s\t%d\tcv, campaign\t%.2g\t%s\t\n", ps, dims, w, cvCampaign[i])
				fmt.Fprintf(tw, "%s\t%d\tcv, named\t%.2g\t%s\t\n", ps, dims, w, cvNamed[i])
				fmt.Fprintf(tw, "%s\t%d\tnamed left out, with picks\t%.2g\t%s\t\n", ps, dims, w, left[i])
			}
			tw.Flush()
		}
	}
	return tw.Flush()
}

// scores returns an empty score for each weight.
func scores(weights []float64) []*score {
	out := make([]*score, len(weights))
	for i, w := range weights {
		out[i] = &score{weight: w}
	}
	return out
}

// rowsOf gathers the measured times, predicted ln times and analytic ln times of rows idx of set.
func rowsOf(idx []int, set *train.Set, lnPred, lnAnalytic []float64) (times, pred, an []float64) {
	for _, i := range idx {
		times = append(times, set.Samples[i].TimeMs)
		pred = append(pred, lnPred[i])
		an = append(an, lnAnalytic[i])
	}
	return times, pred, an
}

// analytic is the calibrated analytic model's ln time of each row of set, NaN where it has none.
func analytic(set *train.Set, cal *roofline.Calibration) []float64 {
	out := make([]float64, len(set.Samples))
	for i, s := range set.Samples {
		out[i] = math.NaN()
		st := set.Stencils[s.Group]
		t, err := smart.DecodeTuning(st.Dims, s.OC, s.Setting)
		if err != nil {
			continue
		}
		if e, err := roofline.ModelWith(st, t, set.GPUs[s.GPU], cal); err == nil && e.TimeMs > 0 {
			out[i] = math.Log(e.TimeMs)
		}
	}
	return out
}

// groups returns the rows of each group, keyed by group.
func groups(g []string) map[string][]int {
	out := map[string][]int{}
	for i, id := range g {
		out[id] = append(out[id], i)
	}
	return out
}
