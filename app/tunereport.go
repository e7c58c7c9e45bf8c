package app

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"smart"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/tuner"
)

// TuneReport is what a tuning found, in the form smart tune prints (as text or JSON).
type TuneReport struct {
	Method      string             `json:"method"`
	Seed        uint64             `json:"seed"`
	Kernel      string             `json:"kernel"` // stencil name or foreign kernel
	GPU         string             `json:"gpu"`
	BestOC      *smart.Combination `json:"best_oc"`      // null when nothing ran successfully, or a Kernel Tuner kernel (no OCs)
	BestSetting smart.Setting      `json:"best_setting"` // null when nothing ran successfully
	// BestValues are the best setting's values as Kernel Tuner holds them, where some of the
	// kernel's parameters hold booleans or labels (floats, strings) that the setting codes.
	BestValues  map[string]any `json:"best_values,omitempty"`
	BestTimeMs  *float64       `json:"best_time_ms"` // null when nothing ran successfully
	Objective   string         `json:"objective"`
	Source      smart.Source   `json:"source"`
	Device      string         `json:"device,omitempty"`
	Evaluations int            `json:"evaluations"`
	Failures    int            `json:"failures"`
	Stop        tuner.Stop     `json:"stop"`
	Seconds     float64        `json:"seconds"`
	// OverheadMs is the strategy's own time per evaluation: wall time outside the evaluator.
	OverheadMs float64  `json:"overhead_ms_per_evaluation"`
	OCs        []string `json:"ocs"` // the variants evaluated, in rank order; [] for a Kernel Tuner kernel
	// Classifier names the model that ranked the OCs, empty when none did.
	Classifier string `json:"classifier,omitempty"`
	// Prior names what ranked settings before any run, empty when nothing did.
	Prior string `json:"prior,omitempty"`
	// Record is the data set of Tune.Record; Recorded counts the evaluations answered from
	// what it held before this run (the rest ran now and were appended).
	Record   string `json:"record,omitempty"`
	Recorded int    `json:"recorded_evaluations,omitempty"`
	Trace    []any  `json:"trace"` // the best time after each evaluation; null before the first success

	elapsed time.Duration
	stencil bool
	params  []dataset.Param
}

// Report is the report of res, a result of tg's search.
func (tg *Tuning) Report(res tuner.Result) TuneReport {
	o := TuneReport{Method: res.Method, Seed: res.Seed, Kernel: tg.Kernel, GPU: tg.GPU.Name,
		BestSetting: res.Best.Setting, Objective: "time_ms (median of the runs)", Evaluations: res.Evaluations,
		Failures: len(res.Failures), Stop: res.Stop, Seconds: res.Elapsed.Seconds(), Prior: tg.Prior, Trace: []any{},
		elapsed: res.Elapsed, stencil: tg.Problem.Stencil != nil, params: tg.params}
	switch {
	case tg.ktt:
		o.Objective = "mean_ms (KTT's total duration)"
	case tg.MeanObjective:
		o.Objective = "mean_ms (Kernel Tuner's objective)"
	}
	if res.Evaluations > 0 {
		o.OverheadMs = float64((res.Elapsed - res.EvalTime).Microseconds()) / 1000 / float64(res.Evaluations)
	}
	// The OCs searched are those evaluated: a search stopped early (Ctrl-C, the budget) may not
	// have reached every OC it was given. A Kernel Tuner kernel's one space is no OC.
	o.OCs, o.Classifier = []string{}, tg.Ranker
	if o.stencil {
		evaluated := make([]bool, len(tg.Problem.Variants))
		for _, h := range res.History {
			evaluated[h.Variant] = true
		}
		for i, name := range tg.OCs()[:tg.Searched] {
			if evaluated[i] {
				o.OCs = append(o.OCs, name)
			}
		}
	}
	if tg.Recording() {
		o.Record, o.Recorded = tg.Record, tg.Recorded()
	}
	for _, v := range res.Trace {
		if math.IsInf(v, 1) {
			o.Trace = append(o.Trace, nil)
		} else {
			o.Trace = append(o.Trace, v)
		}
	}
	if res.Best.Setting != nil {
		v := res.Best.Value
		o.BestTimeMs = &v
		if o.stencil {
			oc := tg.Problem.Variants[res.Best.Variant].OC
			o.BestOC = &oc
		}
		o.Source, o.Device = res.Best.Measurement.Source, res.Best.Measurement.Device
		if o.Source == smart.Simulated && o.Device == "" && tg.Device.Constants.Origin != "" {
			o.Device = "with " + tg.Device.Constants.String() // sim: whose constants
		}
		o.BestValues = dataset.SettingValues(res.Best.Setting, tg.params)
	}
	return o
}

// WriteText writes the report for a reader: the best setting, its time and where it comes
// from, and what the search spent. A search with no evaluation writes nothing.
func (r TuneReport) WriteText(w io.Writer) error {
	if r.BestTimeMs == nil {
		if r.Evaluations > 0 {
			_, err := fmt.Fprintf(w, "%s found no setting that runs: all %d evaluations failed\n", r.Method, r.Evaluations)
			return err
		}
		return nil
	}
	var b strings.Builder
	what := r.Kernel
	if r.stencil {
		what += " under " + r.BestOC.String()
	}
	fmt.Fprintf(&b, "best setting of %s: %s\n", what, dataset.SettingText(r.BestSetting, r.params))
	unit := "ms per step" // a stencil's time step; a Kernel Tuner kernel's time is its run's
	if !r.stencil {
		unit = "ms"
	}
	fmt.Fprintf(&b, "time: %.4g %s, %s", *r.BestTimeMs, unit, r.Source)
	if r.Device != "" {
		fmt.Fprintf(&b, " (%s)", r.Device)
	}
	fmt.Fprintf(&b, "; objective %s\n", r.Objective)
	fmt.Fprintf(&b, "%s, seed %d: %d evaluations (%d failed), stopped: %s, %s (strategy %.3g ms per evaluation)\n",
		r.Method, r.Seed, r.Evaluations, r.Failures, r.Stop, r.elapsed.Round(time.Millisecond), r.OverheadMs)
	if len(r.OCs) > 1 {
		fmt.Fprintf(&b, "OCs searched, in rank order: %s\n", strings.Join(r.OCs, ","))
	}
	for _, line := range [][2]string{{"OCs ranked by %s\n", r.Classifier}, {"settings ranked before any run by %s\n", r.Prior}} {
		if line[1] != "" {
			fmt.Fprintf(&b, line[0], line[1])
		}
	}
	if r.Record != "" {
		fmt.Fprintf(&b, "evaluations recorded in %s: %d answered from earlier runs, %d run now\n", r.Record, r.Recorded, r.Evaluations-r.Recorded)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// TraceHeader starts every trace: what tells a trace smart wrote from another file.
const TraceHeader = "evaluation,best_ms,time_ms,status,oc,setting\n"

// TraceCSV is the trace of res for plots: one line per evaluation, with the best time so far,
// each setting's values of params (a Kernel Tuner kernel's booleans and labels, which the
// setting codes; nil: none) as Kernel Tuner prints them (dataset.SettingText).
func TraceCSV(p tuner.Problem, res tuner.Result, params []dataset.Param) []byte {
	var b bytes.Buffer
	b.WriteString(TraceHeader)
	for i, o := range res.History {
		best, t := "", ""
		if !math.IsInf(res.Trace[i], 1) {
			best = strconv.FormatFloat(res.Trace[i], 'g', 8, 64)
		}
		if o.OK() {
			t = strconv.FormatFloat(o.Value, 'g', 8, 64)
		}
		oc := ""
		if p.Stencil != nil {
			oc = p.Variants[o.Variant].OC.String()
		}
		set := strings.ReplaceAll(dataset.SettingText(o.Setting, params), `"`, `""`) // a label may hold quotes
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s,\"%s\"\n", o.N, best, t, o.Measurement.Status, oc, set)
	}
	return b.Bytes()
}

// EmitBest writes the CUDA source of the best setting of res, a stencil's, to path.
func EmitBest(path string, p tuner.Problem, res tuner.Result) error {
	oc := p.Variants[res.Best.Variant].OC
	tu, err := smart.DecodeTuning(p.Stencil.Dims, oc, res.Best.Setting)
	if err != nil {
		return err
	}
	k, err := cuda.Generate(p.Stencil, tu)
	if err != nil {
		return err
	}
	return writeKernel(path, k)
}
