package tuner

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/transfer"
)

// FewShot is a prior that predicts the target GPU's time of every setting from the kernel's
// measurements on other GPUs (package transfer: zero-shot from the catalogue's description of
// the GPUs) and learns from a search's first runs on the target, each a shot that corrects the
// level and, from 8 on, how the target treats the parameters. Each search learns on its own
// (Learn), so one FewShot serves many.
type FewShot struct {
	What     string // the data behind it, for the user
	sources  []transfer.Source
	target   smart.GPU
	zero     map[string]float64 // the zero-shot times by setting; +Inf: failed on every source
	MaxShots int                // runs learnt from; 0 means 32, negative none
	settings transfer.Settings  // of its predictions: the caller's, at the sources' level without a target's
}

// NewFewShot predicts target (a zero GPU where the catalogue lacks it: the runs then set the
// level) from sources, whose rows hold the search's objective as their time.
func NewFewShot(sources []transfer.Source, target smart.GPU, what string, s transfer.Settings) (*FewShot, error) {
	s.SourceLevel = true // a prior ranks: without the target's level, the sources' will do
	f := &FewShot{What: what, sources: sources, target: target, settings: s}
	times, err := f.predict(nil)
	if err != nil {
		return nil, err
	}
	f.zero = times
	return f, nil
}

// FewShotFrom is the FewShot of Kernel Tuner files of one kernel on other GPUs for target,
// minimising Kernel Tuner's objective (the mean time); the catalogue describes the files' GPUs
// (one it lacks is a source without a description, and the runs set the level).
func FewShotFrom(files []*KernelTuner, target smart.GPU, cat *catalog.Catalog, s transfer.Settings) (*FewShot, error) {
	var srcs []transfer.Source
	var devs []string
	for _, k := range files {
		g, _ := cat.Lookup(k.Device)
		rows := make([]smart.Measurement, len(k.Rows))
		for i, m := range k.Rows {
			m.TimeMs = MeanTime(m)
			rows[i] = m
		}
		srcs = append(srcs, transfer.Source{GPU: g, Rows: rows})
		devs = append(devs, k.Device)
	}
	return NewFewShot(srcs, target, "imported measurements on "+strings.Join(devs, ", "), s)
}

func fewShotKey(oc smart.Combination, s smart.Setting) string { return oc.String() + "|" + s.String() }

func (f *FewShot) predict(shots []smart.Measurement) (map[string]float64, error) {
	p, err := transfer.Predict(f.sources, transfer.Target{GPU: f.target, Shots: shots}, f.settings)
	if err != nil {
		return nil, fmt.Errorf("fewshot prior: %w", err)
	}
	out := make(map[string]float64, len(p.Variants))
	for _, v := range p.Variants {
		t := v.TimeMs
		if v.Failed {
			t = math.Inf(1)
		}
		out[fewShotKey(v.OC, v.Setting)] = t
	}
	return out, nil
}

// Evaluate implements smart.Evaluator: the zero-shot prediction.
func (f *FewShot) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	return answer(f.zero, f.What, q)
}

func answer(times map[string]float64, what string, q smart.Query) (smart.Measurement, error) {
	t, ok := times[fewShotKey(q.OC, q.Setting)]
	if !ok {
		return smart.Measurement{}, fmt.Errorf("fewshot prior: %s %s: %w", q.OC, q.Setting, dataset.ErrNotMeasured)
	}
	m := smart.Measurement{OC: q.OC, Setting: q.Setting.Clone(), GPU: q.GPU, Source: smart.Predicted,
		Device: "transfer from " + what, Status: smart.StatusOK, TimeMs: t, MeanMs: t}
	if math.IsInf(t, 1) {
		m.Status, m.TimeMs, m.MeanMs, m.Error = smart.StatusLaunchError, 0, 0, "failed on every source GPU"
	}
	return m, nil
}

// Learn implements Learner.
func (f *FewShot) Learn() Learning {
	return &fewShotRun{f: f, times: f.zero, max: max(0, cmp.Or(f.MaxShots, 32))}
}

// fewShotRun is one search's FewShot: it refits when its successful shots reach 1, 2, 4, 8,
// ... up to the maximum, where a correction can change (a refit of a large space costs tens of
// milliseconds).
type fewShotRun struct {
	f     *FewShot
	shots []smart.Measurement
	ok    int
	times map[string]float64
	max   int
	err   error
}

func (r *fewShotRun) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if r.err != nil {
		return smart.Measurement{}, r.err
	}
	return answer(r.times, r.f.What, q)
}

// Observe implements Learning.
func (r *fewShotRun) Observe(m smart.Measurement, value float64) bool {
	if r.ok >= r.max || r.err != nil {
		return false
	}
	if value > 0 && !math.IsInf(value, 1) {
		m.TimeMs, m.Status = value, smart.StatusOK
		r.ok++
	}
	r.shots = append(r.shots, m)
	if r.ok == 0 || r.ok&(r.ok-1) != 0 || !m.OK() {
		return false // refit at powers of two
	}
	times, err := r.f.predict(r.shots)
	if err != nil {
		r.err = err
		return true
	}
	r.times = times
	return true
}
