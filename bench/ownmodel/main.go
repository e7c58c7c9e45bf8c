// Command ownmodel asks whether a second GPU's own measurements predict it better than the first
// GPU's model, trained on many more stencils and moved across by the analytic model's ratio of
// each setting's times on the two (what smart predict does for a GPU without a model of its
// own), the ratio with the literature's constants or the embedded calibration's. Both are
// cross-validated by stencil with the folds of data/measured/models.json's command, so each of
// the second GPU's stencils is predicted by models that never saw it on either GPU (a stencil's
// folds are drawn separately on each; the first GPU's model also never saw it when its own
// stencil is held out there, as every stencil both measured is).
//
// Usage:
//
//	go run ./bench/ownmodel [-from GLOBS] [-to GLOBS] [-folds 12]
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/train"
)

// score is one way of predicting the target's stencils: per stencil MAPE, Spearman and the
// share of the best measured time that the predicted fastest setting reaches.
type score struct{ mape, rho, share []float64 }

func (s *score) add(pred, meas []float64) {
	a := roofline.Score(pred, meas)
	s.mape, s.rho, s.share = append(s.mape, a.MAPE), append(s.rho, a.Spearman), append(s.share, a.BestShare)
}

func (s *score) String() string {
	med := append([]float64(nil), s.rho...)
	sort.Float64s(med)
	ls := make([]float64, len(s.share))
	for i, v := range s.share {
		ls[i] = math.Log(v)
	}
	return fmt.Sprintf("MAPE %5.1f%%  Spearman median %.2f  pick share %.3f", 100*stat.Mean(s.mape, nil), med[len(med)/2], math.Exp(stat.Mean(ls, nil)))
}

func key(id string, oc smart.Combination, s smart.Setting) string {
	return id + "|" + oc.String() + "|" + s.String()
}

func run(ctx context.Context, from, to []string, folds int) error {
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	dirsA, err := dataset.Glob(from)
	if err != nil {
		return err
	}
	dirsB, err := dataset.Glob(to)
	if err != nil {
		return err
	}
	cal, err := calibrate.Default()
	if err != nil {
		return err
	}
	params := map[string]string{"early_stop": "0"}
	for _, dims := range []int{2, 3} {
		opt := train.Options{Task: models.Runtime, Catalog: cat, Dims: dims}
		a, err := train.Load(ctx, dirsA, opt)
		if err != nil {
			return err
		}
		b, err := train.Load(ctx, dirsB, opt)
		if err != nil {
			return err
		}
		pa, err := train.CrossValidate(ctx, kinds.All(), "gbdt", a, folds, 0, params, nil)
		if err != nil {
			return err
		}
		pb, err := train.CrossValidate(ctx, kinds.All(), "gbdt", b, folds, 0, params, nil)
		if err != nil {
			return err
		}
		onA := map[string]int{}
		for i, s := range a.Samples {
			onA[key(s.Group, s.OC, s.Setting)] = i
		}
		type row struct{ own, moved, calMoved, meas float64 }
		byStencil := map[string][]row{}
		for i, s := range b.Samples {
			j, ok := onA[key(s.Group, s.OC, s.Setting)]
			if !ok {
				continue
			}
			st := b.Stencils[s.Group]
			t, err := smart.DecodeTuning(st.Dims, s.OC, s.Setting)
			if err != nil {
				return err
			}
			ea, errA := roofline.Model(st, t, a.GPUs[a.Samples[j].GPU])
			eb, errB := roofline.Model(st, t, b.GPUs[s.GPU])
			ca, errCA := roofline.ModelWith(st, t, a.GPUs[a.Samples[j].GPU], &cal.Calibration)
			cb, errCB := roofline.ModelWith(st, t, b.GPUs[s.GPU], &cal.Calibration)
			if errA != nil || errB != nil || errCA != nil || errCB != nil {
				continue
			}
			byStencil[s.Group] = append(byStencil[s.Group], row{own: math.Exp(pb.LnMs[i]), moved: math.Exp(pa.LnMs[j]) * eb.TimeMs / ea.TimeMs,
				calMoved: math.Exp(pa.LnMs[j]) * cb.TimeMs / ca.TimeMs, meas: s.TimeMs})
		}
		var own, moved, calMoved, blend score
		n, rows := 0, 0
		for _, id := range slices.Sorted(maps.Keys(byStencil)) {
			rs := byStencil[id]
			if len(rs) < 40 { // a stencil only begun on the target
				continue
			}
			po, pm, pc, pg, ms := make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs)), make([]float64, len(rs))
			for i, r := range rs {
				po[i], pm[i], pc[i], pg[i], ms[i] = r.own, r.moved, r.calMoved, math.Sqrt(r.own*r.calMoved), r.meas
			}
			own.add(po, ms)
			moved.add(pm, ms)
			calMoved.add(pc, ms)
			blend.add(pg, ms)
			n++
			rows += len(rs)
		}
		gpuA, gpuB := a.Samples[0].GPU, b.Samples[0].GPU
		fmt.Printf("%d-D: %d stencils of the %s (%d rows), %d-fold by stencil\n", dims, n, gpuB, rows, folds)
		fmt.Printf("  %-52s %s\n", fmt.Sprintf("its own model (%d stencils)", len(b.Stencils)), &own)
		fmt.Printf("  %-52s %s\n", fmt.Sprintf("the %s's model (%d stencils), literature ratio", gpuA, len(a.Stencils)), &moved)
		fmt.Printf("  %-52s %s\n", "the same, calibrated ratio", &calMoved)
		fmt.Printf("  %-52s %s\n", "geometric mean of its own and the calibrated one", &blend)
	}
	return nil
}

func main() {
	from := flag.String("from", "data/measured/h100-sxm/classic,data/measured/h100-sxm/more,data/measured/h100-sxm/random/*,data/measured/h100-sxm/campaign", "data sets of the GPU with many stencils (globs)")
	to := flag.String("to", "data/measured/h200/resample/*,data/measured/h200/random/*,data/measured/h200/campaign", "data sets of the second GPU, the same settings (globs)")
	folds := flag.Int("folds", 12, "folds by stencil")
	flag.Parse()
	if err := run(context.Background(), strings.Split(*from, ","), strings.Split(*to, ","), *folds); err != nil {
		fmt.Fprintln(os.Stderr, "ownmodel:", err)
		os.Exit(1)
	}
}
