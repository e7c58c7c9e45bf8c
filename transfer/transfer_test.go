package transfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/internal/ktdata"
)

func gpu(name, vendor string, bw, fp32 float64) smart.GPU {
	return smart.GPU{Name: name, Vendor: vendor, BandwidthGBs: bw, FP32TFLOPS: fp32}
}

// kernelRows are a kernel's settings x=1..n, y=0..1, timed base(x,y) times scale, with effect
// multiplying the y=1 settings.
func kernelRows(g smart.GPU, n int, scale, effect float64) []smart.Measurement {
	var out []smart.Measurement
	for x := 1; x <= n; x++ {
		for y := 0; y <= 1; y++ {
			t := scale * (1 + float64(x*x%7)) * (1 + 0.5*float64(y))
			if y == 1 {
				t *= effect
			}
			out = append(out, smart.Measurement{Kernel: "k", GPU: g.Name, Setting: smart.Setting{"x": x, "y": y},
				Status: smart.StatusOK, TimeMs: t, Source: smart.Imported})
		}
	}
	return out
}

// hwScale is the hardware ratio's time scale of g at share.
func hwScale(g smart.GPU, share float64) float64 {
	return math.Pow(g.BandwidthGBs, -share) * math.Pow(g.FP32TFLOPS, -(1-share))
}

func TestZeroShotExactWhereTheHardwareRatioHolds(t *testing.T) {
	a, b, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("T", "NVIDIA", 2000, 20)
	src := []Source{{GPU: a, Rows: kernelRows(a, 20, hwScale(a, DefaultShare), 1)}, {GPU: b, Rows: kernelRows(b, 20, hwScale(b, DefaultShare), 1)}}
	p, err := Predict(src, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Share != DefaultShare || p.ShareFitted || p.Correction != CorrectNone || p.Shots != 0 {
		t.Errorf("share %g fitted %v correction %q shots %d", p.Share, p.ShareFitted, p.Correction, p.Shots)
	}
	s := Compare(p, kernelRows(tgt, 20, hwScale(tgt, DefaultShare), 1))
	if s.N != 40 || s.MAPE > 1e-9 || s.Top1 != 1 || s.Top5 != 1 || math.Abs(s.Spearman-1) > 1e-12 {
		t.Errorf("score %+v, want exact", s)
	}
	for i := 1; i < len(p.Variants); i++ {
		if p.Variants[i].TimeMs < p.Variants[i-1].TimeMs {
			t.Fatalf("variants not fastest first at %d", i)
		}
	}
}

func TestShareFittedOnThreeSources(t *testing.T) {
	const share = 0.8
	gs := []smart.GPU{gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("C", "NVIDIA", 3000, 15)}
	var src []Source
	for _, g := range gs {
		src = append(src, Source{GPU: g, Rows: kernelRows(g, 10, hwScale(g, share), 1)})
	}
	tgt := gpu("T", "NVIDIA", 2000, 60)
	p, err := Predict(src, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.ShareFitted || math.Abs(p.Share-share) > 1e-9 {
		t.Errorf("share %g fitted %v, want %g fitted", p.Share, p.ShareFitted, share)
	}
	if s := Compare(p, kernelRows(tgt, 10, hwScale(tgt, share), 1)); s.MAPE > 1e-6 {
		t.Errorf("MAPE %g, want 0", s.MAPE)
	}
	// Three sources are three errors of the zero-shot level: too few to bound the target's.
	if p.Interval != nil || !strings.Contains(p.NoInterval, "3 source GPUs") {
		t.Errorf("interval %+v (none because %q), want none from 3 sources", p.Interval, p.NoInterval)
	}
	// Four bound it; the interval of exact sources is a point.
	d := gpu("D", "NVIDIA", 800, 30)
	src = append(src, Source{GPU: d, Rows: kernelRows(d, 10, hwScale(d, share), 1)})
	if p, err = Predict(src, Target{GPU: tgt}, Settings{}); err != nil {
		t.Fatal(err)
	}
	if p.Interval == nil || p.Interval.Stencils != 4 || math.Abs(p.Interval.LogLo) > 1e-9 || math.Abs(p.Interval.LogHi) > 1e-9 {
		t.Errorf("interval %+v (none because %q), want [0, 0] from 4 sources", p.Interval, p.NoInterval)
	}
}

func TestShotsCorrectLevelThenParameters(t *testing.T) {
	a, b := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40)
	src := []Source{{GPU: a, Rows: kernelRows(a, 20, 1, 1)}, {GPU: b, Rows: kernelRows(b, 20, 2, 1)}}
	tgt := gpu("T", "NVIDIA", 2000, 20)
	for _, tc := range []struct {
		name   string
		effect float64 // of y=1 on the target alone
		k      int
		want   string
		mape   float64 // at most; the level alone errs by 23% on the second
	}{
		{"level from 4", 1, 4, CorrectLevel, 1e-9},
		{"parameter from 16", 1.6, 16, CorrectParams, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			truth := kernelRows(tgt, 20, 3.7, tc.effect)
			vs, err := ChooseShots(src, Target{GPU: tgt}, tc.k, Settings{})
			if err != nil || len(vs) != tc.k {
				t.Fatalf("%d shots, %v", len(vs), err)
			}
			shots := pick(truth, vs)
			p, err := Predict(src, Target{GPU: tgt, Shots: shots}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Correction != tc.want || p.Shots != tc.k {
				t.Errorf("correction %q from %d shots, want %q from %d", p.Correction, p.Shots, tc.want, tc.k)
			}
			if s := Compare(p, truth); s.MAPE > tc.mape || s.Top1 != 1 {
				t.Errorf("score %+v, want MAPE at most %g%% and the optimum", s, tc.mape)
			}
		})
	}
}

func pick(rows []smart.Measurement, vs []Variant) []smart.Measurement {
	var out []smart.Measurement
	for _, v := range vs {
		for _, m := range rows {
			if m.Setting.String() == v.Setting.String() {
				out = append(out, m)
			}
		}
	}
	return out
}

func TestOtherVendorLeftOutAndUnknownTarget(t *testing.T) {
	a, m := gpu("A", "NVIDIA", 1000, 10), gpu("M", "AMD", 1000, 10)
	amd := kernelRows(m, 5, 50, 3) // another program: slower, another ranking
	src := []Source{{GPU: a, Rows: kernelRows(a, 5, 1, 1)}, {GPU: m, Rows: amd}}
	p, err := Predict(src, Target{GPU: gpu("T", "NVIDIA", 1000, 10)}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sources) != 1 || p.Sources[0] != "A" || len(p.Ignored) != 1 || p.Ignored[0] != "M" {
		t.Errorf("sources %v ignored %v", p.Sources, p.Ignored)
	}
	if p.Interval != nil {
		t.Errorf("one source and no shots gave an interval %+v", p.Interval)
	}
	if _, err := Predict(src[:1], Target{Name: "mystery"}, Settings{}); !errors.Is(err, ErrNoLevel) {
		t.Errorf("unknown target without shots: %v, want ErrNoLevel", err)
	}
	truth := kernelRows(a, 5, 2.5, 1)
	p, err = Predict(src[:1], Target{Name: "mystery", Shots: truth[:3]}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if s := Compare(p, truth); s.MAPE > 1e-9 || p.Target != "mystery" {
		t.Errorf("shots alone: MAPE %g target %q", s.MAPE, p.Target)
	}
}

// TestFailedToCompile: a setting every source failed is predicted to fail, to compile where each
// source that failed it failed to compile it, and the cache and data set written say which.
func TestFailedToCompile(t *testing.T) {
	a, b := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 900, 10)
	for _, c := range []struct {
		name      string
		onA, onB  smart.Status
		toCompile bool
		cache     string
	}{
		{"both failed to compile", smart.StatusCompileError, smart.StatusCompileError, true, "CompilationFailedConfig"},
		{"one failed to compile, one to run", smart.StatusCompileError, smart.StatusLaunchError, false, "RuntimeFailedConfig"},
		{"both failed to run", smart.StatusTimeout, smart.StatusLaunchError, false, "RuntimeFailedConfig"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ra, rb := kernelRows(a, 6, 1, 1), kernelRows(b, 6, 1.2, 1)
			ra[2].Status, ra[2].TimeMs = c.onA, 0
			rb[2].Status, rb[2].TimeMs = c.onB, 0
			p, err := Predict([]Source{{GPU: a, Rows: ra}, {GPU: b, Rows: rb}}, Target{GPU: gpu("T", "NVIDIA", 800, 10)}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(p.Variants, func(v Variant) bool { return v.Setting.String() == ra[2].Setting.String() })
			if i < 0 || !p.Variants[i].Failed || p.Variants[i].FailedToCompile != c.toCompile {
				t.Fatalf("variant %d: %+v; want failed, to compile %v", i, p.Variants, c.toCompile)
			}
			b, err := p.KernelTunerCache(dataset.Kernel{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3, 4, 5, 6}}, {Name: "y", Values: []int{0, 1}}}}, "T", time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`"time": "`+c.cache+`"`)) {
				t.Errorf("the cache does not hold %s:\n%s", c.cache, b)
			}
		})
	}
}

func TestFailuresAndShotChoice(t *testing.T) {
	a := gpu("A", "NVIDIA", 1000, 10)
	rows := kernelRows(a, 10, 1, 1)
	rows[3].Status, rows[3].TimeMs = smart.StatusLaunchError, 0
	src := []Source{{GPU: a, Rows: rows}}
	tgt := Target{GPU: gpu("T", "NVIDIA", 800, 10), Shots: rows[5:6]}
	p, err := Predict(src, tgt, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	last := p.Variants[len(p.Variants)-1]
	if !last.Failed || last.Setting.String() != rows[3].Setting.String() {
		t.Errorf("last variant %+v, want the failed one", last)
	}
	vs, err := ChooseShots(src, tgt, 100, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// 20 settings, one failed everywhere, one already a shot.
	seen := map[string]bool{}
	for _, v := range vs {
		k := v.Setting.String()
		if seen[k] || k == rows[3].Setting.String() || k == rows[5].Setting.String() {
			t.Errorf("shot %s repeated, failed or already measured", k)
		}
		seen[k] = true
	}
	if len(vs) != 18 {
		t.Errorf("%d shots, want the 18 left", len(vs))
	}
	best, _ := ChooseShots(src, tgt, 1, Settings{})
	if best[0].Setting.String() != p.Variants[0].Setting.String() && !p.Variants[0].Shot {
		t.Errorf("first shot %s, want the predicted fastest %s", best[0].Setting, p.Variants[0].Setting)
	}
}

// TestShotsOfOneKernelTeachAnother: predicted together, kernels share the target's level, so
// shots of one kernel correct the other, which the target never ran.
func TestShotsOfOneKernelTeachAnother(t *testing.T) {
	a := gpu("A", "NVIDIA", 1000, 10)
	k1, k2 := kernelRows(a, 6, 1, 1), kernelRows(a, 6, 10, 1)
	for i := range k2 {
		k2[i].Kernel = "k2"
	}
	truth1, truth2 := kernelRows(a, 6, 2.5, 1), kernelRows(a, 6, 25, 1)
	for i := range truth2 {
		truth2[i].Kernel = "k2"
	}
	p, err := Predict([]Source{{GPU: a, Rows: append(k1, k2...)}}, Target{Name: "mystery", Shots: truth1[:4]}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if s := Compare(p, append(truth1, truth2...)); s.N != 20 || s.MAPE > 1e-9 || s.Top1 != 1 {
		t.Errorf("score %+v, want both kernels exact", s)
	}
	if !strings.Contains(p.Basis, "2 kernels") {
		t.Errorf("basis %q", p.Basis)
	}
}

// TestKernelTunerRoundTrip: the cache written reads back through the importer with the
// predicted times, and the convolution's zero-shot prediction is close to the A4000's own.
func TestKernelTunerRoundTrip(t *testing.T) {
	dir := filepath.Join(ktdata.Require(t, "convolution_milo"), "convolution_milo")
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var files []*File
	for _, n := range []string{"A100", "A6000", "A4000"} {
		f, err := Open(filepath.Join(dir, n+".json.gz"), "", cat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	src, err := Select(files[:2], "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(src, Target{GPU: files[2].GPU}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if s := Compare(p, files[2].Rows); s.MAPE > 30 || s.Spearman < 0.9 || s.Top5 < 0.95 {
		t.Errorf("A4000 from A100 and A6000: %+v", s)
	}
	out := filepath.Join(t.TempDir(), "pred.json")
	if err := WriteKernelTuner(out, p, *files[0].Kernel, "RTX-A4000", false); err != nil {
		t.Fatal(err)
	}
	if err := WriteKernelTuner(out, p, *files[0].Kernel, "RTX-A4000", false); err != nil {
		t.Errorf("replacing its own cache: %v", err)
	}
	notes := filepath.Join(t.TempDir(), "notes.json")
	os.WriteFile(notes, []byte(`{"cache": {}}`), 0o644)
	if err := WriteKernelTuner(notes, p, *files[0].Kernel, "RTX-A4000", false); !errors.As(err, new(*atomicfile.NotOursError)) {
		t.Errorf("writing over a cache smart did not write: %v, want *atomicfile.NotOursError", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != `{"cache": {}}` {
		t.Errorf("the foreign cache was changed: %q", b)
	}
	checkKernelTunerSchema(t, out)
	at := time.Date(2026, 11, 27, 7, 8, 9, 123456789, time.FixedZone("CET", 3600))
	if b, err := p.KernelTunerCache(*files[0].Kernel, "RTX-A4000", at); err != nil || !strings.Contains(string(b), `"2026-11-27 06:08:09.123456+00:00"`) {
		t.Errorf("a cache written at %v: %v; want its time stamp in UTC, as Kernel Tuner writes it", at, err)
	}
	back, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Source != smart.Predicted || back.Rows[0].Source != smart.Predicted {
		t.Errorf("the cache of predictions read back as %s rows (%s), want predicted", back.Rows[0].Source, back.Source)
	}
	if _, err := Open(out, "", cat); !errors.Is(err, ErrNoMeasured) || !strings.Contains(err.Error(), "holds predictions") {
		t.Errorf("a cache of predictions as a source: %v, want ErrNoMeasured saying it holds predictions", err)
	}
	want := map[string]float64{}
	for _, v := range p.Variants {
		want[v.Setting.String()] = v.TimeMs
	}
	ok := 0
	for _, m := range back.Rows {
		if m.Status == smart.StatusOK {
			ok++
			if math.Abs(m.TimeMs-want[m.Setting.String()]) > 1e-9*want[m.Setting.String()] {
				t.Fatalf("%s: read back %g, wrote %g", m.Setting, m.TimeMs, want[m.Setting.String()])
			}
		}
	}
	if ok == 0 || len(back.Rows) != len(p.Variants) {
		t.Errorf("read back %d rows (%d ok), wrote %d", len(back.Rows), ok, len(p.Variants))
	}
	ds := filepath.Join(t.TempDir(), "ds")
	if _, err := WriteDataSet(ds, p, files[0].Kernel.Names(), nil, []dataset.Kernel{*files[0].Kernel}); err != nil {
		t.Fatal(err)
	}
	_, rows, err := dataset.ReadAll(ds)
	if err != nil || len(rows) != len(p.Variants) {
		t.Fatalf("data set read back %d rows (%v), wrote %d", len(rows), err, len(p.Variants))
	}
	for _, m := range rows {
		if m.Source != smart.Predicted || m.GPU != "RTX-A4000" || (m.Status == smart.StatusOK && m.TimeMs != want[m.Setting.String()]) {
			t.Fatalf("row %+v: want predicted on the RTX-A4000 at %g", m, want[m.Setting.String()])
		}
	}
}

// TestRatioScalesEachSetting: a ratio of each setting's own replaces the hardware ratio, and a
// setting the ratio cannot scale is predicted to fail.
func TestRatioScalesEachSetting(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 3000, 10)
	ratio := func(v Variant, from, to smart.GPU) (float64, bool) {
		if from.Name != "A" || to.Name != "T" {
			t.Errorf("ratio asked from %s to %s", from.Name, to.Name)
		}
		return 1 + float64(v.Setting["x"])/10, v.Setting["x"] != 3
	}
	rows := kernelRows(a, 5, 1, 1)
	p, err := Predict([]Source{{GPU: a, Rows: rows}}, Target{GPU: tgt}, Settings{Ratio: ratio})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Variants {
		x := v.Setting["x"]
		if x == 3 {
			if !v.Failed {
				t.Errorf("x=3 unscaled but predicted %g", v.TimeMs)
			}
			continue
		}
		for _, m := range rows {
			if m.Setting.String() == v.Setting.String() {
				if want := m.TimeMs * (1 + float64(x)/10); math.Abs(v.TimeMs-want) > 1e-12*want {
					t.Errorf("%s: %g, want %g", v.Setting, v.TimeMs, want)
				}
			}
		}
	}
}

// TestFloorRaisesWhatFallsBelow: a prediction below Settings.Floor becomes the floor and says
// so, with its interval raised to it; one above keeps its time.
func TestFloorRaisesWhatFallsBelow(t *testing.T) {
	a, b, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("T", "NVIDIA", 2000, 20)
	src := []Source{{GPU: a, Rows: kernelRows(a, 20, hwScale(a, DefaultShare), 1)}, {GPU: b, Rows: kernelRows(b, 20, hwScale(b, DefaultShare), 1)}}
	free, err := Predict(src, Target{GPU: tgt}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	times := map[string]float64{}
	for _, v := range free.Variants {
		times[v.Key()] = v.TimeMs
	}
	floor := free.Variants[len(free.Variants)/2].TimeMs // half the settings lie below it
	p, err := Predict(src, Target{GPU: tgt}, Settings{Floor: func(v Variant, to smart.GPU) float64 {
		if to.Name != "T" {
			t.Errorf("floor asked on %s", to.Name)
		}
		return floor
	}})
	if err != nil {
		t.Fatal(err)
	}
	raised := 0
	for _, v := range p.Variants {
		was := times[v.Key()]
		switch {
		case was < floor && (v.TimeMs != floor || !v.Floored):
			t.Errorf("%s: %g ms (floored %v); want the floor %g from %g", v.Setting, v.TimeMs, v.Floored, floor, was)
		case was >= floor && (v.TimeMs != was || v.Floored):
			t.Errorf("%s: %g ms (floored %v); want %g as it was", v.Setting, v.TimeMs, v.Floored, was)
		case v.HiMs > 0 && v.LoMs < floor:
			t.Errorf("%s: interval %g-%g reaches below the floor %g", v.Setting, v.LoMs, v.HiMs, floor)
		}
		if v.Floored {
			raised++
		}
	}
	if raised == 0 || raised == len(p.Variants) || !strings.Contains(p.Basis, "floor") {
		t.Errorf("%d of %d raised; basis %q", raised, len(p.Variants), p.Basis)
	}
}

// TestHardwareOfOneDie: a kernel runs on one die of a board a program sees as two devices, so
// the hardware ratio compares that die's bandwidth and FLOPS, not the board's.
func TestHardwareOfOneDie(t *testing.T) {
	board := smart.GPU{Name: "MI250X", BandwidthGBs: 3276.8, FP32TFLOPS: 47.9, FP64TFLOPS: 47.9, Dies: 2}
	die := smart.GPU{Name: "one GCD", BandwidthGBs: 1638.4, FP32TFLOPS: 23.95, FP64TFLOPS: 23.95}
	for _, fp64 := range []bool{false, true} {
		if a, b := hardware(board, 0.3, fp64), hardware(die, 0.3, fp64); math.Abs(a-b) > 1e-12 {
			t.Errorf("fp64 %v: board %g, one die %g; want the same", fp64, a, b)
		}
	}
	src := gpu("A", "AMD", 800, 20)
	p, err := Predict([]Source{{GPU: src, Rows: kernelRows(src, 10, 1, 1)}}, Target{GPU: board}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Basis, "the MI250X as one of its 2 dies") {
		t.Errorf("basis %q does not say the MI250X counts as one die", p.Basis)
	}
	want := 2 * math.Exp(hardware(die, DefaultShare, false)-hardware(src, DefaultShare, false)) // x=1, y=0 runs 2 ms on A
	for _, v := range p.Variants {
		if v.Setting["x"] == 1 && v.Setting["y"] == 0 && math.Abs(v.TimeMs-want) > 1e-9*want {
			t.Errorf("a 2 ms setting predicted %g ms on the MI250X; want %g, its die's ratio", v.TimeMs, want)
		}
	}
}

// checkKernelTunerSchema checks the cache at path against what Kernel Tuner's cache schema 1.0.0
// (kernel_tuner/schema/cache/1.0.0/schema.json) requires of a file and of each configuration,
// and what its simulation mode reads: the compile, verification and benchmark times.
func checkKernelTunerSchema(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema_version", "device_name", "kernel_name", "problem_size", "tune_params_keys", "tune_params", "objective", "cache"} {
		if _, ok := c[k]; !ok {
			t.Errorf("the cache lacks %q", k)
		}
	}
	checkKernelTunerAppends(t, b)
	if v := string(c["schema_version"]); v != `"1.0.0"` {
		t.Errorf("schema_version %s, want \"1.0.0\"", v)
	}
	var ps []int
	if err := json.Unmarshal(c["problem_size"], &ps); err != nil || ps == nil {
		t.Errorf("problem_size %s: want an array of integers", c["problem_size"])
	}
	var entries map[string]map[string]any
	if err := json.Unmarshal(c["cache"], &entries); err != nil || len(entries) == 0 {
		t.Fatalf("cache: %v (%d configurations)", err, len(entries))
	}
	key := regexp.MustCompile(`^\d+(,\d+)*$`)
	stamp := regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00:00$`)
	for k, e := range entries {
		if !key.MatchString(k) {
			t.Fatalf("key %q does not match %s", k, key)
		}
		for _, f := range []string{"compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time"} {
			if _, ok := e[f].(float64); !ok {
				t.Fatalf("configuration %s: %s is %v, want a number", k, f, e[f])
			}
		}
		if s, ok := e["timestamp"].(string); !ok || !stamp.MatchString(s) {
			t.Fatalf("configuration %s: timestamp %v, want Kernel Tuner's form", k, e["timestamp"])
		}
		switch e["time"].(type) {
		case float64, string:
		default:
			t.Fatalf("configuration %s: time %v, want a number or a failure's name", k, e["time"])
		}
	}
}

// checkKernelTunerAppends continues a tuning run from the cache b as Kernel Tuner does
// (kernel_tuner/util.py: correct_open_cache, store_cache, close_cache): a closed cache loses its
// last three characters, "}\n}", and each new configuration is appended after a comma. The
// configuration must land in "cache", so that must be the file's last object.
func checkKernelTunerAppends(t *testing.T, b []byte) {
	t.Helper()
	s := strings.TrimSpace(string(b))
	if !strings.HasSuffix(s, "}\n}") && !strings.HasSuffix(s, "}}}") {
		t.Fatalf("the cache ends in %q; Kernel Tuner takes a file that does not end in }\\n} for one it had not closed", s[max(0, len(s)-10):])
	}
	s = s[:len(s)-3] + "," + "\n" + `"999,999": {"time": 1.5}` + ","
	s = s[:len(s)-1] + "}\n}"
	var c struct {
		Cache map[string]json.RawMessage `json:"cache"`
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("the cache after Kernel Tuner appended a configuration: %v", err)
	}
	if _, ok := c.Cache["999,999"]; !ok {
		t.Error(`a configuration Kernel Tuner appended is not in "cache": "cache" is not the file's last object`)
	}
}

// TestKernelTunerBooleanRoundTrip: a kernel with a boolean parameter, predicted and written as a
// Kernel Tuner cache, keeps Kernel Tuner's form of it (booleans in tune_params and in each
// configuration, True and False in the keys), and reads back as the same settings.
func TestKernelTunerBooleanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var files []*File
	for _, dev := range []string{"NVIDIA A100-PCIE-40GB", "NVIDIA RTX A6000"} {
		var entries []string
		for i, bx := range []int{16, 32, 64} {
			for _, sh := range []string{"False", "True"} {
				ms := float64(1+i) * map[string]float64{"False": 1, "True": 0.8}[sh]
				entries = append(entries, fmt.Sprintf(`"%d,%s":{"bx":%d,"shmem":%s,"time":%g}`, bx, sh, bx, strings.ToLower(sh), ms))
			}
		}
		path := filepath.Join(dir, strings.ReplaceAll(dev, " ", "_")+".json")
		os.WriteFile(path, []byte(`{"device_name":"`+dev+`","kernel_name":"k","tune_params_keys":["bx","shmem"],"tune_params":{"bx":[16,32,64],"shmem":[false,true]},"cache":{`+strings.Join(entries, ",")+`}}`), 0o644)
		f, err := Open(path, "", cat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	src, err := Select(files, "")
	if err != nil {
		t.Fatal(err)
	}
	a4000, _ := cat.Lookup("rtx-a4000")
	p, err := Predict(src, Target{GPU: a4000}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pred.json")
	if err := WriteKernelTuner(out, p, *files[0].Kernel, "RTX-A4000", false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{`"shmem": [`, `"64,True": {`, `"16,False": {`, `"shmem": true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the cache lacks %s", want)
		}
	}
	if strings.Contains(string(b), `"64,1"`) {
		t.Error("a boolean written as 1 in a key")
	}
	// Kernel Tuner refuses a cache whose problem_size is not the size it runs ([] included).
	if strings.Contains(string(b), `"problem_size"`) {
		t.Error("a problem size the sources did not record is written")
	}
	back, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != 6 || !back.Kernel.Params[1].Bool {
		t.Fatalf("read back %d rows, params %+v; want 6 and shmem boolean", len(back.Rows), back.Kernel.Params)
	}
	for _, m := range back.Rows {
		if s := m.Setting["shmem"]; s != 0 && s != 1 {
			t.Fatalf("shmem %d read back", s)
		}
	}
}

// A kernel tuned over a float and a string parameter: each value gets the same code in every
// file whatever the order of its tune_params (the sources list them differently here), the
// prediction covers every setting, and the cache written back holds the values as Kernel
// Tuner does (numbers and strings, keys as Python prints them), which reads back to the same
// settings.
func TestKernelTunerLabelRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	alphas := []string{"0.5", "1.0", "2.5"}
	methods := []string{"fast", "exact"}
	var files []*File
	for j, dev := range []string{"NVIDIA A100-PCIE-40GB", "NVIDIA RTX A6000"} {
		var entries []string
		for i, a := range alphas {
			for k, m := range methods {
				ms := float64(1+i) * float64(1+k) * float64(1+j)
				entries = append(entries, fmt.Sprintf(`"%s,%s":{"alpha":%s,"method":%q,"time":%g}`, a, m, a, m, ms))
			}
		}
		order := `"alpha":[0.5,1.0,2.5],"method":["fast","exact"]`
		if j == 1 {
			order = `"alpha":[2.5,0.5,1.0],"method":["exact","fast"]`
		}
		path := filepath.Join(dir, fmt.Sprintf("gpu%d.json", j))
		os.WriteFile(path, []byte(`{"device_name":"`+dev+`","kernel_name":"k","tune_params_keys":["alpha","method"],"tune_params":{`+order+`},"cache":{`+strings.Join(entries, ",")+`}}`), 0o644)
		f, err := Open(path, "", cat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	settings := func(rows []smart.Measurement) []string {
		var out []string
		for _, m := range rows {
			out = append(out, m.Setting.String())
		}
		slices.Sort(out)
		return out
	}
	if a, b := settings(files[0].Rows), settings(files[1].Rows); !slices.Equal(a, b) || len(a) != 6 {
		t.Fatalf("the two files' settings differ: %v and %v", a, b)
	}
	if alpha := files[0].Kernel.Params[0]; !slices.Equal(alpha.Values, []int{500000, 1000000, 2500000}) || alpha.Text(2500000) != "2.5" {
		t.Errorf("alpha held as %v (2.5 as %q); want millionths", alpha.Values, alpha.Text(2500000))
	}
	src, err := Select(files, "")
	if err != nil {
		t.Fatal(err)
	}
	a4000, _ := cat.Lookup("rtx-a4000")
	p, err := Predict(src, Target{GPU: a4000}, Settings{})
	if err != nil || len(p.Variants) != 6 {
		t.Fatalf("prediction %v, %v; want 6 settings", p, err)
	}
	out := filepath.Join(dir, "pred.json")
	if err := WriteKernelTuner(out, p, *files[0].Kernel, "RTX-A4000", false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{`"2.5,exact": {`, `"0.5,fast": {`, `"method": "exact"`, `"alpha": 2.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the cache lacks %s:\n%s", want, b)
		}
	}
	back, err := dataset.ReadKernelTuner(out, dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := settings(back.Rows); !slices.Equal(got, settings(files[0].Rows)) {
		t.Errorf("read back %v; want %v", got, settings(files[0].Rows))
	}
}
