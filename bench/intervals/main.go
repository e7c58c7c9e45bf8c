// Command intervals measures the errors of the embedded runtime models on measured stencils they
// were not trained on and writes the prediction intervals smart predict attaches to their times
// (data/calibration/intervals.json, format smart-intervals/1):
//
//   - the defaults (trained on the analytic model's simulations, never on a measurement): their
//     errors on every measured H100 stencil; tested on the H200's;
//   - a GPU's own model (trained on its measurements): its errors in cross-validation grouped by
//     stencil, so that each stencil is predicted by a model that never saw it (the folds of the
//     command that trained it, data/measured/models.json);
//   - that model transferred to another GPU (its time scaled by the analytic model's ratio of the
//     setting on the two, as smart predict does: with the literature's constants across
//     architectures, the calibration's within one, a band each): the cross-validated
//     predictions of the H100's settings, scaled to the H200, against the same settings measured
//     there.
//
// Where the embedded defaults learned from the measured rows too (bench/defaults -measured), their
// errors on those rows are no held-out figure: -defaults-from DIR measures them with the same
// recipe trained without the measured rows (bench/defaults -measured "" -out DIR), and records them
// under the embedded models' names; the From of each band says so.
//
// Usage:
//
//	go run ./bench/intervals [-level 0.8] [-defaults-from DIR] [-folds K] [-o data/calibration/intervals.json]
//
// -folds K deals the H100's stencils into K folds instead of one a stencil (the embedded
// file's), each fold trained without them: coarser, and K trainings instead of one a stencil.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/data"
	"smart/dataset"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/train"
	"smart/predict"
)

// The measured data sets: those the H100's own models were trained on, and the H200's.
var (
	h100 = []string{"data/measured/h100-sxm/classic", "data/measured/h100-sxm/more", "data/measured/h100-sxm/random/*", "data/measured/h100-sxm/campaign"}
	h200 = []string{"data/measured/h200/random/*", "data/measured/h200/resample/*", "data/measured/h200/campaign"}
)

// key identifies a variant across GPUs.
func key(id string, oc smart.Combination, s smart.Setting) string {
	return id + "|" + oc.String() + "|" + s.String()
}

// byStencil holds residuals ln(measured/predicted) per stencil, in a fixed order.
type byStencil struct {
	order []string
	r     map[string][]float64
}

func (b *byStencil) add(id string, r float64) {
	if b.r == nil {
		b.r = map[string][]float64{}
	}
	if _, ok := b.r[id]; !ok {
		b.order = append(b.order, id)
	}
	b.r[id] = append(b.r[id], r)
}

func (b *byStencil) groups() [][]float64 {
	out := make([][]float64, len(b.order))
	for i, id := range b.order {
		out[i] = b.r[id]
	}
	return out
}

// band builds the band of the residuals and its leave-one-stencil-out coverage.
func band(model, basis string, b *byStencil, level float64, from string) calibrate.Band {
	gs := b.groups()
	out := calibrate.Band{Model: model, Basis: basis, Interval: models.NewInterval(gs, level, from)}
	for i := range gs {
		others := append(append([][]float64(nil), gs[:i]...), gs[i+1:]...)
		out.Coverage += models.Coverage(models.NewInterval(others, level, ""), gs[i]) / float64(len(gs))
	}
	return out
}

// test sets the band's coverage on held-out residuals, the mean over their stencils.
func test(bd *calibrate.Band, b *byStencil, what string) {
	c := 0.0
	for _, g := range b.groups() {
		c += models.Coverage(bd.Interval, g) / float64(len(b.order))
	}
	bd.TestCoverage, bd.Test = &c, what
}

func run(ctx context.Context, level float64, defaultsFrom string, folds int) (*calibrate.Bands, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	dirs100, err := dataset.Glob(h100)
	if err != nil {
		return nil, err
	}
	dirs200, err := dataset.Glob(h200)
	if err != nil {
		return nil, err
	}
	d100, err := calibrate.Load(ctx, dirs100, cat)
	if err != nil {
		return nil, err
	}
	d200, err := calibrate.Load(ctx, dirs200, cat)
	if err != nil {
		return nil, err
	}
	ms, err := predict.Defaults()
	if err != nil {
		return nil, err
	}
	cal, err := calibrate.Default() // the constants of smart predict's ratio between GPUs
	if err != nil {
		return nil, err
	}
	out := &calibrate.Bands{Format: calibrate.BandsFormat, Command: "go run ./bench/intervals -level " + fmt.Sprint(level)}
	if folds > 0 {
		out.Command += fmt.Sprintf(" -folds %d", folds)
	}
	scoring, trainedOn := ms, "none of them trained on"
	if defaultsFrom != "" {
		if scoring, err = predict.Defaults(); err != nil {
			return nil, err
		}
		if err := scoring.UseDir(defaultsFrom, kinds.All()); err != nil {
			return nil, err
		}
		out.Command += " -defaults-from " + defaultsFrom
		trainedOn = "by the same recipe trained without any measured row"
	}

	// The defaults, on every measured row.
	def := map[string]*[2]byStencil{} // model name -> H100, H200 residuals
	var defOrder []string
	for gi, d := range [2]*calibrate.Data{d100, d200} {
		for _, g := range d.Groups {
			st := g.Samples[0].Stencil
			_, emb, err := ms.For(st)
			if err != nil {
				return nil, err
			}
			_, rt, err := scoring.For(st)
			if err != nil {
				return nil, err
			}
			score, err := predict.ModelScorer(rt, st, g.Samples[0].GPU)
			if err != nil {
				return nil, err
			}
			if def[emb.Name] == nil {
				def[emb.Name] = &[2]byStencil{}
				defOrder = append(defOrder, emb.Name)
			}
			for i, s := range g.Samples {
				ts, err := score(g.OCs[i], []smart.Setting{g.Settings[i]})
				if err != nil {
					return nil, err
				}
				def[emb.Name][gi].add(g.ID, math.Log(s.TimeMs/ts[0]))
			}
		}
	}
	for _, name := range defOrder {
		r := def[name]
		bd := band(name, string(predict.BasisSimulated), &r[0], level,
			fmt.Sprintf("errors of the default on %d stencils measured on the H100-SXM, %s", len(r[0].order), trainedOn))
		test(&bd, &r[1], fmt.Sprintf("%d stencils measured on the H200", len(r[1].order)))
		out.Bands = append(out.Bands, bd)
	}

	// The H100's own models, cross-validated as they were trained, and transferred to the H200.
	h200 := map[string]float64{} // variant -> measured time on the H200
	h200GPU := smart.GPU{}
	for _, g := range d200.Groups {
		for i, s := range g.Samples {
			h200[key(g.ID, g.OCs[i], g.Settings[i])] = s.TimeMs
			h200GPU = s.GPU
		}
	}
	for _, dims := range []int{2, 3} {
		set, err := train.Load(ctx, dirs100, train.Options{Task: models.Runtime, Catalog: cat, Dims: dims})
		if err != nil {
			return nil, err
		}
		stencils := map[string]bool{}
		for _, s := range set.Samples {
			stencils[s.Group] = true
		}
		params, err := ownParams(dims)
		if err != nil {
			return nil, err
		}
		k := len(stencils)
		if folds > 0 {
			k = min(folds, k)
		}
		p, err := train.CrossValidate(ctx, kinds.All(), "gbdt", set, k, 0, params, nil)
		if err != nil {
			return nil, err
		}
		var own, moved, calMoved byStencil
		for i, s := range set.Samples {
			pred := math.Exp(p.LnMs[i])
			own.add(s.Group, math.Log(s.TimeMs/pred))
			there, ok := h200[key(s.Group, s.OC, s.Setting)]
			if !ok {
				continue
			}
			st := set.Stencils[s.Group]
			t, err := smart.DecodeTuning(st.Dims, s.OC, s.Setting)
			if err != nil {
				return nil, err
			}
			a, errA := roofline.Model(st, t, set.GPUs[s.GPU])
			b, errB := roofline.Model(st, t, h200GPU)
			ca, errCA := roofline.ModelWith(st, t, set.GPUs[s.GPU], &cal.Calibration)
			cb, errCB := roofline.ModelWith(st, t, h200GPU, &cal.Calibration)
			if errA != nil || errB != nil || errCA != nil || errCB != nil {
				continue
			}
			moved.add(s.Group, math.Log(there/(pred*b.TimeMs/a.TimeMs)))
			calMoved.add(s.Group, math.Log(there/(pred*cb.TimeMs/ca.TimeMs)))
		}
		name := fmt.Sprintf("embedded measured/h100-sxm/models/runtime-%dd.smartmodel", dims)
		out.Bands = append(out.Bands, band(name, string(predict.BasisMeasured), &own, level,
			fmt.Sprintf("errors of the H100-SXM's own model on its %d measured %d-D stencils, each predicted by a fold that never saw it", len(own.order), dims)))
		if len(moved.order) > 0 {
			out.Bands = append(out.Bands,
				band(name, string(predict.BasisTransfer), &moved, level,
					fmt.Sprintf("errors of the H100-SXM's own model scaled by the literature's analytic ratio to the H200 on %d %d-D stencils measured on both, each predicted by a fold that never saw it", len(moved.order), dims)),
				band(name, predict.BandCalibratedTransfer, &calMoved, level,
					fmt.Sprintf("errors of the H100-SXM's own model scaled by the calibrated analytic ratio to the H200 on %d %d-D stencils measured on both, each predicted by a fold that never saw it", len(calMoved.order), dims)))
		}
	}
	return out, nil
}

// ownParams are the hyper-parameters the embedded H100 model of dims was trained with (its
// header), so that its folds are trained as it was.
func ownParams(dims int) (map[string]string, error) {
	b, err := data.MeasuredModelFile(fmt.Sprintf("h100-sxm/models/runtime-%dd.smartmodel", dims))
	if err != nil {
		return nil, err
	}
	h, _, err := models.Read(b)
	if err != nil {
		return nil, err
	}
	return h.Params, nil
}

func main() {
	level := flag.Float64("level", 0.8, "coverage the intervals aim at")
	outPath := flag.String("o", "data/calibration/intervals.json", "file to write")
	defaultsFrom := flag.String("defaults-from", "", "directory of the defaults trained without the measured rows, to measure the defaults' errors with")
	folds := flag.Int("folds", 0, "folds of the H100's stencils for its own models' errors (0: one a stencil)")
	flag.Parse()
	if *folds < 0 {
		fmt.Fprintln(os.Stderr, "intervals: -folds must be 0 (one a stencil) or more")
		os.Exit(2)
	}
	b, err := run(context.Background(), *level, *defaultsFrom, *folds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "intervals:", err)
		os.Exit(1)
	}
	for _, bd := range b.Bands {
		lo, hi := math.Exp(bd.LogLo), math.Exp(bd.LogHi)
		t := ""
		if bd.TestCoverage != nil {
			t = fmt.Sprintf("; %.0f%% on %s", 100**bd.TestCoverage, bd.Test)
		}
		fmt.Printf("%-58s %-9s %.2fx-%.2fx  coverage %.0f%% leaving each stencil out%s\n  (%s)\n", bd.Model, bd.Basis, lo, hi, 100*bd.Coverage, t, bd.From)
	}
	if err := calibrate.WriteBands(*outPath, b); err != nil {
		fmt.Fprintln(os.Stderr, "intervals:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", *outPath)
}
