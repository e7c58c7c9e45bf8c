package transfer

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/dataset"
)

// TestOtherVendorOnly: where no source is of the target's vendor, every one answers, and the
// text, the basis (the JSON's and the cache's) and the cache's "smart" object say so; the
// sources' errors on one another give no interval, the target's own shots still do (two
// sources of the target's vendor give none either: two errors of the zero-shot level bound
// nothing).
func TestOtherVendorOnly(t *testing.T) {
	a, b, amd := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("W", "AMD", 300, 10)
	src := []Source{{GPU: a, Rows: kernelRows(a, 10, 1, 1)}, {GPU: b, Rows: kernelRows(b, 10, 2, 1)}}
	truth := kernelRows(amd, 10, 3, 1.3)
	for _, tc := range []struct {
		name     string
		target   Target
		foreign  bool
		interval bool
	}{
		{"NVIDIA target", Target{GPU: gpu("T", "NVIDIA", 2000, 20)}, false, false},
		{"NVIDIA target, 12 shots", Target{GPU: gpu("T", "NVIDIA", 2000, 20), Shots: kernelRows(gpu("T", "NVIDIA", 2000, 20), 10, 3, 1.3)[:12]}, false, true},
		{"AMD target, zero-shot", Target{GPU: amd}, true, false},
		{"AMD target, 3 shots", Target{GPU: amd, Shots: truth[:3]}, true, false},
		{"AMD target, 12 shots", Target{GPU: amd, Shots: truth[:12]}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Predict(src, tc.target, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Sources) != 2 || p.OtherVendor != tc.foreign || strings.Contains(p.Basis, "another vendor's") != tc.foreign {
				t.Errorf("sources %v, other vendor %v, basis %q; want both sources, other vendor %v said in the basis", p.Sources, p.OtherVendor, p.Basis, tc.foreign)
			}
			if (p.Interval != nil) != tc.interval || (p.Interval == nil) == (p.NoInterval == "") {
				t.Errorf("interval %+v (none because %q); want one %v, and why where none", p.Interval, p.NoInterval, tc.interval)
			}
			if p.Interval != nil && tc.foreign && !strings.Contains(p.Interval.From, "shots on W") {
				t.Errorf("interval from %q; want the target's shots", p.Interval.From)
			}
			var text bytes.Buffer
			if err := p.WriteText(&text, 1); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text.String(), "every one of another vendor") != tc.foreign {
				t.Errorf("text:\n%s", text.String())
			}
			if !tc.interval && !strings.Contains(text.String(), "no interval: "+p.NoInterval) {
				t.Errorf("text without the reason for no interval:\n%s", text.String())
			}
			c := cacheNote(t, p)
			if c.OtherVendor != tc.foreign || c.Basis != p.Basis || (c.NoInterval != "") == tc.interval {
				t.Errorf(`cache's "smart" %+v; want other_vendor %v, the basis, and why there is no interval`, c, tc.foreign)
			}
		})
	}
}

// cacheNote is the "smart" object of p's Kernel Tuner cache of kernelRows' kernel.
func cacheNote(t *testing.T, p *Prediction) ktNote {
	t.Helper()
	k := dataset.Kernel{Name: "k", Params: []dataset.Param{{Name: "x", Values: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, {Name: "y", Values: []int{0, 1}}}}
	b, err := p.KernelTunerCache(k, p.Target, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Smart ktNote
		Cache map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Cache) != len(p.Variants) {
		t.Errorf("cache of %d settings; want the %d predicted", len(c.Cache), len(p.Variants))
	}
	// Every setting's values are among those the cache lists (tune_params), as a replay of it
	// reads them.
	for key, rec := range c.Cache {
		var r map[string]any
		json.Unmarshal(rec, &r)
		for _, prm := range k.Params {
			if x, ok := r[prm.Name].(float64); !ok || !slices.Contains(prm.Values, int(x)) {
				t.Errorf("setting %s: %s=%v is not among the values listed, %v", key, prm.Name, r[prm.Name], prm.Values)
			}
		}
	}
	return c.Smart
}

// TestShotsAtSettingsTheSourcesLack: a shot at a setting no source holds is left out of the
// prediction, named with its number, and of the cache, whose parameters' values the sources
// give; the others teach as before.
func TestShotsAtSettingsTheSourcesLack(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 20)
	src := []Source{{GPU: a, Rows: kernelRows(a, 10, 1, 1)}}
	truth := kernelRows(tgt, 10, 3, 1)
	stray := smart.Measurement{Kernel: "k", Setting: smart.Setting{"x": 17, "y": 0}, Status: smart.StatusOK, TimeMs: 5}
	for _, tc := range []struct {
		name          string
		shots         []smart.Measurement
		taught, stray int
	}{
		{"all known", truth[:4], 4, 0},
		{"one unknown", append(truth[:4:4], stray), 4, 1},
		{"the same unknown twice", append(truth[:4:4], stray, stray), 4, 1},
		{"only unknown", []smart.Measurement{stray}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Predict(src, Target{GPU: tgt, Shots: tc.shots}, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Shots != tc.taught || p.ShotsLeftOut != tc.stray || len(p.LeftOut) != tc.stray || len(p.Variants) != 20 {
				t.Errorf("%d shots taught, %d left out (%v), %d variants; want %d, %d, the sources' 20", p.Shots, p.ShotsLeftOut, p.LeftOut, len(p.Variants), tc.taught, tc.stray)
			}
			var notes bytes.Buffer
			if err := p.WriteNotes(&notes); err != nil {
				t.Fatal(err)
			}
			if got := notes.String(); (got != "") != (tc.stray > 0) || tc.stray > 0 && !strings.Contains(got, "1 shots left out: no source holds their settings") || !strings.Contains(got, "x=17") && tc.stray > 0 {
				t.Errorf("notes %q", got)
			}
			cacheNote(t, p) // x=17 would be a setting whose value tune_params lacks
		})
	}
}

// TestConformalBounds: the bounds at split-conformal ranks are the ceil((n+1)(1+level)/2)-th and the
// floor((n+1)(1-level)/2)-th of n residuals, none where n is too few for either.
func TestConformalBounds(t *testing.T) {
	seq := func(n int) []float64 {
		r := make([]float64, n)
		for i := range r {
			r[i] = float64(n - i) // in reverse: the bounds sort them
		}
		return r
	}
	for _, tc := range []struct {
		n      int
		level  float64
		ok     bool
		lo, hi float64
	}{
		{0, 0.8, false, 0, 0},
		{4, 0.8, false, 0, 0},
		{8, 0.8, false, 0, 0},
		{9, 0.8, true, 1, 9},   // (10)(0.9) = 9 exactly, (10)(0.1) = 1
		{16, 0.8, true, 1, 16}, // ceil(15.3), floor(1.7)
		{19, 0.8, true, 2, 18},
		{18, 0.9, false, 0, 0},
		{19, 0.9, true, 1, 19},
		{3, 0.5, true, 1, 3},
	} {
		lo, hi, ok := conformalBounds(seq(tc.n), tc.level)
		if ok != tc.ok || lo != tc.lo || hi != tc.hi {
			t.Errorf("n %d at %g: [%g, %g] %v; want [%g, %g] %v", tc.n, tc.level, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
	if n := minShotsForInterval(0.999999999); n < 1.9e9 || n > 2.1e9 { // computed, not counted up to
		t.Errorf("minShotsForInterval(0.999999999) = %d; want about 2e9", n)
	}
	for level, want := range map[float64]int{0.8: 9, 0.9: 19, 0.5: 3, 0.95: 39} {
		if got := minShotsForInterval(level); got != want {
			t.Errorf("minShotsForInterval(%g) = %d, want %d", level, got, want)
		}
	}
	// The closed form agrees with the ranks: the fewest n for which conformalBounds gives bounds.
	for _, level := range []float64{0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95} {
		n := 1
		for _, _, ok := conformalBounds(seq(n), level); !ok; _, _, ok = conformalBounds(seq(n), level) {
			n++
		}
		if got := minShotsForInterval(level); got != n {
			t.Errorf("minShotsForInterval(%g) = %d; conformalBounds first bounds at %d", level, got, n)
		}
	}
}

// TestShotIntervalLevel: shots enough for the level asked bound it at split-conformal ranks (9 at
// 80%: their range); fewer, from four on, bound their range at the level it holds,
// (n-1)/(n+1), and say so; fewer still leave it to the sources.
func TestShotIntervalLevel(t *testing.T) {
	a, b, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("B", "NVIDIA", 500, 40), gpu("T", "NVIDIA", 2000, 20)
	src := []Source{{GPU: a, Rows: kernelRows(a, 20, 1, 1)}, {GPU: b, Rows: kernelRows(b, 20, 2, 1)}}
	truth := kernelRows(tgt, 20, 3, 1)
	for i := range truth { // a noise of the target's own, so that the shots' errors differ
		truth[i].TimeMs *= 1 + 0.1*math.Sin(float64(7*i))
	}
	for _, tc := range []struct {
		shots int
		level float64
		from  string
	}{
		{2, 0.8, "source GPUs"},
		{4, 0.6, "4 shots bound no more than this level; 9 bound 80%"},
		{8, 7.0 / 9, "8 shots bound no more"},
		{9, 0.8, "9 shots on T, each predicted without it"},
		{12, 0.8, "12 shots on T, each predicted without it"},
	} {
		p, err := Predict(src, Target{GPU: tgt, Shots: truth[:tc.shots]}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		iv := p.Interval
		if iv == nil || math.Abs(iv.Level-tc.level) > 1e-12 || !strings.Contains(iv.From, tc.from) {
			t.Errorf("%d shots: interval %+v; want level %g from %q", tc.shots, iv, tc.level, tc.from)
			continue
		}
		if tc.shots < 4 {
			continue
		}
		// Up to 16 shots at 80%, the bounds are the range of the shots' left-out errors.
		st, err := newState(src, Target{GPU: tgt, Shots: truth[:tc.shots]}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		loo := st.corrected().loo
		if iv.LogLo != slices.Min(loo) || iv.LogHi != slices.Max(loo) || iv.LogHi <= iv.LogLo {
			t.Errorf("%d shots: interval [%g, %g]; want the range of the left-out errors %v", tc.shots, iv.LogLo, iv.LogHi, loo)
		}
	}
}

// TestBasisSaysWhatMovedTheTimes: the basis names double-precision FLOPS where they moved the
// times, and a source whose file names another device than the GPU it was taken as.
func TestBasisSaysWhatMovedTheTimes(t *testing.T) {
	a, tgt := gpu("A", "NVIDIA", 1000, 10), gpu("T", "NVIDIA", 2000, 20)
	a.FP64TFLOPS, tgt.FP64TFLOPS = 0.5, 10
	for _, tc := range []struct {
		name  string
		named string
		set   Settings
		want  []string
		not   []string
	}{
		{"single precision", "", Settings{}, []string{"bandwidth and FLOPS"}, []string{"double-precision", "name their device"}},
		{"double precision", "", Settings{FP64: true}, []string{"bandwidth and double-precision FLOPS"}, nil},
		{"renamed file", "NVIDIA A100-PCIE-40GB", Settings{}, []string{"the measurements taken as the A's name their device NVIDIA A100-PCIE-40GB"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Predict([]Source{{GPU: a, Rows: kernelRows(a, 5, 1, 1), Named: tc.named}}, Target{GPU: tgt}, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Basis, w) {
					t.Errorf("basis %q lacks %q", p.Basis, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(p.Basis, w) {
					t.Errorf("basis %q says %q", p.Basis, w)
				}
			}
		})
	}
}

// TestSameMeasurements: the same rows in another order, under another device's name, are the
// same measurements; another time, status or setting, or a row more, are not.
func TestSameMeasurements(t *testing.T) {
	g := gpu("A", "NVIDIA", 1000, 10)
	rows := kernelRows(g, 3, 1, 1)
	twin := make([]smart.Measurement, len(rows))
	for i, m := range rows {
		m.Device, m.GPU = "A100_T4", "A100-80GB"
		twin[len(rows)-1-i] = m
	}
	slower := kernelRows(g, 3, 1, 1)
	slower[2].TimeMs *= 1.01
	failed := kernelRows(g, 3, 1, 1)
	failed[1].Status = smart.StatusLaunchError
	for _, tc := range []struct {
		name string
		b    []smart.Measurement
		same bool
	}{
		{"itself", rows, true},
		{"a twin, reversed and renamed", twin, true},
		{"one time differs", slower, false},
		{"one status differs", failed, false},
		{"one row more", kernelRows(g, 4, 1, 1)[:len(rows)+1], false},
		{"another setting", kernelRows(g, 4, 1, 1)[2:], false},
	} {
		if got := SameMeasurements(rows, tc.b); got != tc.same {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.same)
		}
	}
}
