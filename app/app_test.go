package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/generator"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/tuner"
)

func TestParseEvaluator(t *testing.T) {
	for _, c := range []struct {
		name   string
		want   EvaluatorName
		noPath bool // the error says the path is missing
		bad    bool // the name names no evaluator
	}{
		{name: "sim", want: EvaluatorName{Kind: Sim}},
		{name: "sim:calibrated", want: EvaluatorName{Kind: Sim, Path: Calibrated}},
		{name: "sim:my-fit.json", want: EvaluatorName{Kind: Sim, Path: "my-fit.json"}},
		{name: "cuda", want: EvaluatorName{Kind: CUDA}},
		{name: "model:embedded", want: EvaluatorName{Kind: Model, Path: Embedded}},
		{name: "replay:a/b:c", want: EvaluatorName{Kind: Replay, Path: "a/b:c"}},
		{name: "transfer:a.json,b.json", want: EvaluatorName{Kind: Transfer, Path: "a.json,b.json"}},
		{name: "model:", noPath: true},
		{name: "replay", noPath: true},
		{name: "foo", bad: true},
		{name: "", bad: true},
		{name: "Sim", bad: true},
	} {
		got, err := ParseEvaluator(c.name)
		var ne *NameError
		switch {
		case !c.noPath && !c.bad && (err != nil || got != c.want):
			t.Errorf("ParseEvaluator(%q) = %+v, %v; want %+v", c.name, got, err, c.want)
		case (c.noPath || c.bad) && !errors.As(err, &ne):
			t.Errorf("ParseEvaluator(%q) = %+v, %v; want a *NameError", c.name, got, err)
		case c.noPath || c.bad:
			if ne.NoPath != c.noPath || ne.Name != c.name {
				t.Errorf("ParseEvaluator(%q): %+v, want NoPath %v", c.name, ne, c.noPath)
			}
			if !c.noPath && !strings.Contains(err.Error(), "cuda, sim, model:PATH") {
				t.Errorf("ParseEvaluator(%q): %v does not list the evaluators", c.name, err)
			}
		}
		if err == nil && got.String() != strings.TrimSuffix(c.name, ":") {
			t.Errorf("ParseEvaluator(%q).String() = %q", c.name, got)
		}
	}
}

// TestDeviceGPU: a name given names a device the catalogue does not know, and may not relabel
// one it knows as another GPU.
func TestDeviceGPU(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		given, device string
		want          string // the GPU, or a fragment of the error
		field         string // the SettingError's field; "" none
	}{
		{"", "NVIDIA H100 80GB HBM3", "H100-SXM", ""},
		{"h100-sxm", "NVIDIA H100 80GB HBM3", "H100-SXM", ""},
		{"a100", "NVIDIA H100 80GB HBM3", "the rows would name the wrong GPU", "GPU"},
		{"", "NVIDIA Prototype X", "reports itself as", ""},
		{"h100-sxm", "NVIDIA Prototype X", "H100-SXM", ""},
		{"nosuch", "NVIDIA Prototype X", "nosuch", "GPU"},
	} {
		g, err := DeviceGPU(cat, c.given, c.device, 0)
		var se *SettingError
		switch {
		case err == nil && g.Name != c.want:
			t.Errorf("given %q on %q: %s, want %s", c.given, c.device, g.Name, c.want)
		case err != nil && !strings.Contains(err.Error(), c.want):
			t.Errorf("given %q on %q: %v, want %q", c.given, c.device, err, c.want)
		case err != nil && errors.As(err, &se) != (c.field != ""):
			t.Errorf("given %q on %q: %v is a SettingError: %v", c.given, c.device, err, c.field == "")
		case se != nil && (se.Field != c.field || !se.Wrong):
			t.Errorf("given %q on %q: field %q (wrong %v), want %q", c.given, c.device, se.Field, se.Wrong, c.field)
		}
	}
	var unknown *UnknownDeviceError
	if _, err := DeviceGPU(cat, "", "NVIDIA Prototype X", 2); !errors.As(err, &unknown) || unknown.Index != 2 {
		t.Errorf("an unknown device: %v, want an *UnknownDeviceError of GPU 2", err)
	}
}

// TestContenders: every compared name builds a contender of that name; NAME-transfer only for
// the strategies that read a prior; an unknown name is a NameError listing the known ones.
func TestContenders(t *testing.T) {
	names := ComparedNames()
	for _, want := range []string{"random", "bayes", "bayes-transfer", "pipeline-transfer"} {
		if !slices.Contains(names, want) {
			t.Errorf("ComparedNames() = %v, lacks %s", names, want)
		}
	}
	for _, no := range []string{"exhaustive", "random-transfer", "cstuner-transfer"} {
		if slices.Contains(names, no) {
			t.Errorf("ComparedNames() = %v, holds %s", names, no)
		}
	}
	cs, err := Contenders(names, 3, 7, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		wantSeeds := 3
		if c.Name == "random" {
			wantSeeds = 7
		}
		switch {
		case c.Name != names[i] || c.Seeds != wantSeeds || c.FirstSeed != 5:
			t.Errorf("contender %d: %s, %d seeds from %d; want %s, %d from 5", i, c.Name, c.Seeds, c.FirstSeed, names[i], wantSeeds)
		case strings.HasSuffix(c.Name, "-transfer") != (c.ForCase != nil):
			t.Errorf("contender %s: ForCase set %v", c.Name, c.ForCase != nil)
		}
	}
	var ne *NameError
	if _, err := Contenders([]string{"random", "nope"}, 1, 1, 0); !errors.As(err, &ne) || ne.Name != "nope" || !slices.Equal(ne.Known, names) {
		t.Errorf("Contenders(nope) = %v, want a NameError naming nope", err)
	}
}

// TestBenchResume: a bench on the analytic model writes every variant it draws; opened again
// with the same settings it finds the run, reads the same variants and has nothing left to do.
func TestBenchResume(t *testing.T) {
	sts, err := dataset.RandomStencils(2, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{Stencils: sts, OCs: []smart.Combination{0, smart.Combination(smart.ST)}, Samples: 3, Seed: 1,
		Backend: Sim, GPU: DefaultSimGPU, Out: filepath.Join(t.TempDir(), "runs")}
	drawn := 0
	b.Drawing = func(done, total int) { drawn = done }
	bg, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sum, err := bg.Run(context.Background(), nil)
	if err != nil || bg.Exists || drawn != 2 || sum.Written != len(bg.Items) || len(bg.Items) != 2*2*3 {
		t.Fatalf("first run: %+v, %v; exists %v, drew %d stencils, %d items", sum, err, bg.Exists, drawn, len(bg.Items))
	}
	// sim times with the literature's constants, and the data set says so.
	if meta, err := dataset.ReadMeta(b.Out); err != nil || len(meta.Devices) != 1 || meta.Devices[0].Constants != (dataset.Constants{Origin: dataset.ConstantsLiterature}) {
		t.Errorf("the simulated data set's devices %+v (%v); want the literature's constants", meta.Devices, err)
	}
	again, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done, torn, err := again.Done()
	if !again.Exists || err != nil || torn != nil || done != len(bg.Items) || !slices.EqualFunc(again.Items, bg.Items, func(a, b dataset.Item) bool {
		return a.OC == b.OC && a.Setting.String() == b.Setting.String() && a.Stencil.ID() == b.Stencil.ID()
	}) {
		t.Fatalf("resumed: exists %v, %d of %d done, torn %v, %v; or other items", again.Exists, done, len(bg.Items), torn, err)
	}
	sum2, err := again.Run(context.Background(), nil)
	if err != nil || sum2.Written != 0 || sum2.Skipped != len(bg.Items) {
		t.Errorf("resumed run: %+v, %v; want nothing written, all skipped", sum2, err)
	}
	// The first call drew the settings, and says how long that took; the resumed one read them.
	if r, r2 := bg.Report(sum), again.Report(sum2); !(r.DrawingSeconds > 0) || r2.DrawingSeconds != 0 {
		t.Errorf("drawing seconds %v then %v; want some, then none", r.DrawingSeconds, r2.DrawingSeconds)
	}
}

// TestBenchSimCalibrated: sim:calibrated times each variant with the embedded calibration's
// constants (as smart estimate does: the same time as roofline.ModelWith with them), the data
// set records them, and a run resumed with the literature's constants is refused.
func TestBenchSimCalibrated(t *testing.T) {
	sts, err := dataset.RandomStencils(1, 3, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{Stencils: sts, OCs: []smart.Combination{smart.Combination(smart.ST)}, Samples: 4, Seed: 1,
		Backend: Sim + ":" + Calibrated, GPU: "H100-SXM", Out: filepath.Join(t.TempDir(), "runs")}
	bg, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bg.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cal, origin, err := calibrate.DefaultOrigin()
	if err != nil {
		t.Fatal(err)
	}
	meta, rows, err := dataset.ReadAll(b.Out)
	if err != nil || len(rows) != 4 || len(meta.Devices) != 1 || !meta.Devices[0].Constants.Same(origin) || origin.Origin != dataset.ConstantsCalibration {
		t.Fatalf("%d rows, devices %+v (%v); want 4 rows simulated with %+v", len(rows), meta.Devices, err, origin)
	}
	g := bg.Backend.GPU
	for _, m := range rows {
		tu, err := smart.DecodeTuning(sts[0].Dims, m.OC, m.Setting)
		if err != nil {
			t.Fatal(err)
		}
		est, err := roofline.ModelWith(sts[0], tu, g, &cal.Calibration)
		lit, _ := roofline.Model(sts[0], tu, g)
		if err != nil || m.TimeMs != est.TimeMs || m.TimeMs == lit.TimeMs {
			t.Errorf("%s %s: %v ms; the calibrated model gives %v (%v), the literature's %v", m.OC, m.Setting, m.TimeMs, est.TimeMs, err, lit.TimeMs)
		}
	}
	b.Backend = Sim
	if _, err := b.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "now with the literature's constants") {
		t.Errorf("resuming with the literature's constants: %v; want a refusal", err)
	}
}

// TestTuneSimSaysItsConstants: a search on sim reports its best time as simulated with the
// literature's constants, on sim:calibrated with the embedded calibration's, and they differ.
func TestTuneSimSaysItsConstants(t *testing.T) {
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var reports []TuneReport
	for _, ev := range []string{Sim, Sim + ":" + Calibrated} {
		tg, err := Tune{Evaluator: ev, Stencil: st, GPU: "h100", OCs: []smart.Combination{0}, Strategy: "random",
			Budget: tuner.Budget{Evaluations: 5}, Seed: 1}.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res, err := tg.Search(context.Background())
		tg.Close()
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, tg.Report(res))
	}
	lit, cal := reports[0], reports[1]
	if lit.Device != "with the literature's constants" || !strings.Contains(cal.Device, "with the constants of calibration "+calibrate.EmbeddedName) ||
		lit.BestTimeMs == nil || cal.BestTimeMs == nil || *lit.BestTimeMs == *cal.BestTimeMs {
		t.Errorf("sim: %q, %v ms; sim:calibrated: %q, %v ms", lit.Device, lit.BestTimeMs, cal.Device, cal.BestTimeMs)
	}
}

// TestNoteOlderFormat: a GPU's rows appended to a data set of an older format are said to
// leave out the compiler's facts; a data set of this format gets no note.
func TestNoteOlderFormat(t *testing.T) {
	for _, c := range []struct {
		format string
		note   bool
	}{{dataset.FormatV1, true}, {dataset.FormatV2, true}, {dataset.Format, false}} {
		var b strings.Builder
		noteOlderFormat(&b, "runs", c.format)
		if got := strings.Contains(b.String(), "runs is a data set of format "+c.format+": the rows added to it leave out the kernels' registers and local memory"); got != c.note || (b.Len() > 0) != c.note {
			t.Errorf("format %s: note %q; want one: %v", c.format, b.String(), c.note)
		}
	}
}

// TestBenchRefuses: the wrong backend, an unknown GPU and settings that fit no stencil are
// SettingErrors of their fields, and write nothing.
func TestBenchRefuses(t *testing.T) {
	sts, err := dataset.RandomStencils(1, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	huge, _ := smart.ParseSetting("bx=4096,by=1,bz=1,shared=0,const=0")
	for _, c := range []struct {
		bench Bench
		field string
	}{
		{Bench{Backend: "model:x.model", GPU: DefaultSimGPU}, "Backend"},
		{Bench{Backend: Sim, GPU: "nosuch"}, "GPU"},
		{Bench{Backend: Sim, GPU: DefaultSimGPU, Settings: []dataset.Variant{{OC: 0, Setting: huge}}}, "Settings"},
	} {
		b := c.bench
		b.Stencils, b.Samples, b.Out = sts, 2, filepath.Join(t.TempDir(), "runs")
		_, err := b.Open(context.Background())
		var se *SettingError
		if !errors.As(err, &se) || se.Field != c.field || !se.Wrong {
			t.Errorf("%s %s: %v, want a SettingError of %s", b.Backend, b.GPU, err, c.field)
		}
		if _, serr := os.Stat(b.Out); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%s %s: the refused bench wrote %s", b.Backend, b.GPU, b.Out)
		}
	}
}

// TestTrain: a runtime model trained with cross-validation on a simulated bench is saved with
// its scores, loads, and has the data set in its header; without Out nothing is written.
func TestTrain(t *testing.T) {
	sts, err := dataset.RandomStencils(4, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "runs")
	b := Bench{Stencils: sts, OCs: []smart.Combination{0, smart.Combination(smart.ST)}, Samples: 4, Seed: 1, Backend: Sim, GPU: DefaultSimGPU, Out: data}
	bg, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bg.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	folds := 0
	tr := Train{Data: []string{data}, Task: models.Runtime, Kind: "forest", Params: map[string]string{"trees": "5"}, CV: 2, Seed: 1,
		Out: filepath.Join(dir, "rt.model"), CrossValidation: func(done, total int) { folds = max(folds, done) }}
	set, err := tr.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := tr.Fit(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(tr.Out, kinds.All())
	switch {
	case err != nil:
		t.Fatal(err)
	case got.CV == nil || got.CV.Folds != 2 || folds != 2 || m.Header.CV == nil:
		t.Errorf("cross-validation: report %+v, %d folds reported, saved scores %v", got.CV, folds, m.Header.CV)
	case len(m.Header.Data) != 1 || m.Header.Data[0].Path != data || m.Header.Kind != "forest":
		t.Errorf("saved header: kind %s, data %+v", m.Header.Kind, m.Header.Data)
	}
	testEval(t, tr.Out, data)
	tr.Out, tr.CV = "", 0
	if _, err := tr.Fit(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("a fit without Out wrote files: %v", entries)
	}
	var se *SettingError
	if _, err := (Train{Data: []string{data}, Task: models.Runtime, Kind: "nope"}).Load(context.Background()); !errors.As(err, &se) || se.Field != "Kind" {
		t.Errorf("an unknown kind: %v, want a SettingError of Kind", err)
	}
}

// testEval scores the model saved at path on the data it was trained on: in-sample, said so
// in the notes, and out of fold with progress; a model that is no model file is refused.
func testEval(t *testing.T, path, data string) {
	var notes strings.Builder
	r, err := Eval{Model: path, Data: []string{data}}.Run(context.Background(), &notes)
	switch {
	case err != nil:
		t.Fatal(err)
	case r.Model.Header.Kind != "forest" || len(r.Reports) != 1:
		t.Errorf("in-sample: model %s, %d reports; want forest, 1", r.Model.Header.Kind, len(r.Reports))
	case !strings.Contains(notes.String(), "in-sample"):
		t.Errorf("in-sample scores are not said to be: notes %q", notes.String())
	case r.Reports[0].InSample == "":
		t.Error("in-sample scores are not said to be in the report (--json)")
	}
	// A copy of the data elsewhere is the same data: still in-sample.
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(data)); err != nil {
		t.Fatal(err)
	}
	notes.Reset()
	if r, err := (Eval{Model: path, Data: []string{cp}}).Run(context.Background(), &notes); err != nil || r.Reports[0].InSample == "" || !strings.Contains(notes.String(), "in-sample") {
		t.Errorf("a copy of the training data: %v, notes %q; want it called in-sample", err, notes.String())
	}
	// The same rows written again as another data set (another ID and path, as a re-import or a
	// merge makes them): in-sample by the instances the model's header records.
	meta, rows, err := dataset.ReadAll(data)
	if err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(t.TempDir(), "again")
	redone := meta
	redone.Created = meta.Created.Add(time.Hour)
	w, err := dataset.Create(again, redone)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(rows...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(again, "stencils"), os.DirFS(filepath.Join(data, "stencils"))); err != nil {
		t.Fatal(err)
	}
	if m, _ := dataset.ReadMeta(again); m.ID() == meta.ID() {
		t.Fatal("the data set written again has its original's ID")
	}
	notes.Reset()
	if r, err := (Eval{Model: path, Data: []string{again}}).Run(context.Background(), &notes); err != nil || !strings.Contains(r.Reports[0].InSample, "instance") ||
		!strings.Contains(notes.String(), "(a stencil or kernel on a GPU) these rows are of: these scores are in-sample") {
		t.Errorf("the training rows as another data set: %v, notes %q; want them called in-sample by their instances", err, notes.String())
	}
	notes.Reset()
	folds := 0
	v := Eval{Model: path, Data: []string{data}, Folds: 2, Seed: 1, Progress: func(done, total int) { folds = total }}
	if r, err = v.Run(context.Background(), &notes); err != nil || len(r.Reports) != 1 || folds != 2 {
		t.Errorf("2 folds: %v, progress of %d", err, folds)
	}
	if strings.Contains(notes.String(), "in-sample") || r.Reports[0].InSample != "" {
		t.Errorf("cross-validated scores are said to be in-sample: %q, %q", notes.String(), r.Reports[0].InSample)
	}
	if _, err := (Eval{Model: filepath.Join(data, dataset.MetaFile), Data: []string{data}}).Run(context.Background(), &notes); err == nil {
		t.Error("a data set's meta.json as the model: no error")
	}
}

// TestTuneRefuses: what a tuning cannot do is a SettingError (or NameError) of the field to
// change, found before anything is written.
func TestTuneRefuses(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cache := "../data/kernel-tuner/convolution_milo/A100.json.gz"
	record := filepath.Join(t.TempDir(), "runs")
	st5 := Tune{Evaluator: Sim, Stencil: st, GPU: DefaultSimGPU, OCs: []smart.Combination{0}, Strategy: "random", Budget: tuner.Budget{Evaluations: 5}}
	with := func(f func(*Tune)) Tune { c := st5; f(&c); return c }
	for _, c := range []struct {
		name  string
		tune  Tune
		field string // "": a NameError
	}{
		{"unknown strategy", with(func(t *Tune) { t.Strategy = "nope" }), "Strategy"},
		{"unknown evaluator", with(func(t *Tune) { t.Evaluator = "foo" }), "Evaluator"},
		{"no evaluator", with(func(t *Tune) { t.Evaluator = "" }), "Evaluator"},
		{"evaluator without its path", with(func(t *Tune) { t.Evaluator = Model + ":" }), "Evaluator"},
		{"record of a replay", with(func(t *Tune) { t.Evaluator, t.Record = Replay+":"+cache, record }), "Record"},
		{"no stencil on sim", with(func(t *Tune) { t.Stencil = nil }), "Evaluator"},
		{"unknown GPU", with(func(t *Tune) { t.GPU = "nosuch" }), "GPU"},
		{"AMD GPU", with(func(t *Tune) { t.GPU = "mi250x" }), "GPU"},
		{"transfer as a stencil's evaluator", with(func(t *Tune) { t.Evaluator = Transfer + ":" + cache }), "Evaluator"},
		{"prior of random", with(func(t *Tune) { t.Prior, t.Record = Sim, record }), "Prior"},
		{"transfer prior of a stencil", with(func(t *Tune) { t.Strategy, t.Prior, t.Record = "bayes", Transfer+":"+cache, record }), "Prior"},
		{"classifier of a cache", Tune{Evaluator: Replay + ":" + cache, Strategy: "random", Classifier: Embedded}, "Classifier"},
		{"sim prior of a cache", Tune{Evaluator: Replay + ":" + cache, Strategy: "bayes", Prior: Sim}, "Prior"},
		{"sim of a calibration file that is none", with(func(t *Tune) { t.Evaluator = Sim + ":" + cache }), "Evaluator"},
	} {
		_, err := func() (tuner.Result, error) {
			tg, err := c.tune.Open(context.Background())
			if err != nil {
				return tuner.Result{}, err
			}
			defer tg.Close()
			return tg.Search(context.Background())
		}()
		var se *SettingError
		var ne *NameError
		switch {
		case c.field == "" && !errors.As(err, &ne):
			t.Errorf("%s: %v, want a NameError", c.name, err)
		case c.field != "" && (!errors.As(err, &se) || se.Field != c.field):
			t.Errorf("%s: %v, want a SettingError of %s", c.name, err, c.field)
		}
		if _, serr := os.Stat(record); !errors.Is(serr, os.ErrNotExist) {
			t.Fatalf("%s: the refused tuning wrote %s", c.name, record)
		}
	}
}

// TestTuneKernelTuner: a Kernel Tuner cache is tuned on its own parameters with the same
// kernel's caches of other GPUs as the prior, on Kernel Tuner's objective.
func TestTuneKernelTuner(t *testing.T) {
	dir := "../data/kernel-tuner/convolution_milo/"
	tg, err := Tune{Evaluator: Replay + ":" + dir + "A100.json.gz", Strategy: "bayes", Prior: Transfer + ":" + dir + "A4000.json.gz",
		Budget: tuner.Budget{Evaluations: 20}, Seed: 1}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	res, err := tg.Search(context.Background())
	switch {
	case err != nil:
		t.Fatal(err)
	case tg.Kernel != "convolution_kernel" || !tg.MeanObjective || tg.Source != smart.Imported || tg.Problem.Stencil != nil:
		t.Errorf("opened %s (mean objective %v, %s)", tg.Kernel, tg.MeanObjective, tg.Source)
	case tg.Prior == "" || res.Evaluations != 20 || res.Best.Setting == nil:
		t.Errorf("prior %q, %d evaluations, best %v", tg.Prior, res.Evaluations, res.Best.Setting)
	}
}

// TestOpenTransferRefuses: each refusal names the setting to change.
func TestOpenTransferRefuses(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	conv := "../data/kernel-tuner/convolution_milo/"
	for _, c := range []struct {
		name  string
		s     TransferSettings
		field string
	}{
		{"a file without its GPU", TransferSettings{From: []string{conv + "MI250X.json.gz"}, To: "a100"}, "From"},
		{"an unknown GPU without shots", TransferSettings{From: []string{conv + "A100.json.gz"}, To: "quantum-9000"}, "To"},
		{"the analytic ratio for a Kernel Tuner kernel", TransferSettings{From: []string{conv + "A100.json.gz"}, To: "a6000", Ratio: "analytic"}, "Ratio"},
		{"an unknown ratio", TransferSettings{From: []string{conv + "A100.json.gz"}, To: "a6000", Ratio: "magic"}, "Ratio"},
		{"a kernel the files lack", TransferSettings{From: []string{conv + "A100.json.gz"}, To: "a6000", Kernel: "gemm"}, "Kernel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.s.Catalog = cat
			_, err := OpenTransfer(c.s)
			var se *SettingError
			if !errors.As(err, &se) || se.Field != c.field {
				t.Errorf("error %v, want a SettingError of %s", err, c.field)
			}
		})
	}
	job, err := OpenTransfer(TransferSettings{From: []string{conv + "A100.json.gz", conv + "MI250X.json.gz@MI250X"}, To: "a6000", Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	p, err := job.Predict()
	if err != nil || len(p.Sources) != 1 || p.Sources[0] != "A100-40GB" || len(p.Ignored) != 1 {
		t.Errorf("sources %v ignored %v (%v): want the A100 alone", p.Sources, p.Ignored, err)
	}
	if err := job.Write(p, "", "", false); err != nil {
		t.Errorf("writing nothing: %v", err)
	}
}

// TestTransferStencilOnFewFP64Lanes: a float64 stencil measured on the H100 and moved to a T4
// (0.25 TFLOPS of FP64, 1/32 of its FP32) compares double-precision FLOPS without being told,
// and no setting lands below what its FMAs take at that peak, by either ratio.
func TestTransferStencilOnFewFP64Lanes(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	t4, err := cat.Lookup("t4")
	if err != nil {
		t.Fatal(err)
	}
	for _, ratio := range []string{"hardware", "analytic"} {
		job, err := OpenTransfer(TransferSettings{From: []string{"../data/measured/h100-sxm/random/j3d19pt"}, To: "t4", Ratio: ratio, Catalog: cat})
		if err != nil {
			t.Fatal(err)
		}
		if !job.Settings.FP64 || job.Settings.Floor == nil {
			t.Errorf("%s: FP64 %v, floor set %v; want both for a float64 stencil", ratio, job.Settings.FP64, job.Settings.Floor != nil)
		}
		p, err := job.Predict()
		if err != nil {
			t.Fatal(err)
		}
		var st *smart.Stencil
		for _, f := range job.Files {
			for _, s := range f.Stencils {
				st = s
			}
		}
		fmaMs := float64(st.GridPoints()) * float64(st.NNZ()) / (t4.FP64TFLOPS * 1e12 / 2) * 1e3
		for _, v := range p.Variants {
			if !v.Failed && v.TimeMs < fmaMs*(1-1e-12) {
				t.Fatalf("%s: %s at %g ms, below the %g ms of its FMAs at the T4's FP64 peak", ratio, v.Label(nil), v.TimeMs, fmaMs)
			}
		}
	}
}

// An AMD GPU named for the cuda backend is refused before any driver is looked for, so a
// machine without one says what is wrong first.
func TestOpenCUDARefusesAMDFirst(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(EvaluatorName{Kind: CUDA}, nil, "mi250x", cat, CUDAOptions{}, io.Discard)
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "GPU" || !strings.Contains(err.Error(), "smart's kernels are CUDA") {
		t.Errorf("cuda on the MI250X: %v; want a SettingError of GPU", err)
	}
}

// TestTuneRefusesGridsTheGPUCannotHold: as codegen, estimate and predict, no search of a stencil
// whose two grids outgrow the GPU's memory (90000^2 float64 points twice: 129.6 GB; a K80 has 12).
func TestTuneRefusesGridsTheGPUCannotHold(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.Grid = [3]int{90000, 90000, 1}
	tu := Tune{Evaluator: Sim, Stencil: st, GPU: "k80", OCs: []smart.Combination{0}, Strategy: "random", Budget: tuner.Budget{Evaluations: 5}}
	if tg, err := tu.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "its two grids need 120.7 GiB; the K80 has 12 GiB") {
		if tg != nil {
			tg.Close()
		}
		t.Errorf("tuning a 90000^2 grid on a K80: %v; want the grids refused", err)
	}
}

// TestBenchReportStoppedBy: a run an interrupt or a failure ended with variants left says it
// stopped, and why ("interrupted" for a cancelled one, as campaign run's report says), so that a
// script reading --json does not take it for a finished run.
func TestBenchReportStoppedBy(t *testing.T) {
	for _, c := range []struct {
		name    string
		written int
		err     error
		stopped bool
		why     string
	}{
		{"finished", 10, nil, false, ""},
		{"interrupted", 3, fmt.Errorf("running: %w", context.Canceled), true, "interrupted"},
		{"failed", 3, errors.New("the GPU fell off the bus"), true, "the GPU fell off the bus"},
		{"failed after the last variant", 10, errors.New("closing rows.csv: disk full"), false, "closing rows.csv: disk full"},
	} {
		r := BenchReport{Variants: 12, Skipped: 2, Written: c.written}
		r.StoppedBy(c.err)
		if r.Stopped != c.stopped || r.Error != c.why {
			t.Errorf("%s: stopped %v, error %q; want %v, %q", c.name, r.Stopped, r.Error, c.stopped, c.why)
		}
	}
}

// TestBenchEmptyShard: a shard holding none of the stencils (a job array sized for more) is no
// error, and says it has nothing to measure.
func TestBenchEmptyShard(t *testing.T) {
	sts, err := dataset.RandomStencils(2, 2, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	b := Bench{Stencils: sts, OCs: []smart.Combination{0}, Samples: 2, Seed: 1, Backend: Sim, GPU: DefaultSimGPU,
		Out: filepath.Join(t.TempDir(), "runs"), Shard: &dataset.Shard{I: 5, N: 8}, Notes: &notes}
	bg, err := b.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := bg.Run(context.Background(), nil); err != nil || sum.Total != 0 {
		t.Errorf("run: %+v, %v; want nothing to do", sum, err)
	}
	if want := "shard 5/8 holds none of the 2 stencils: it has nothing to measure"; !strings.Contains(notes.String(), want) {
		t.Errorf("notes %q; want %q", notes.String(), want)
	}
}
