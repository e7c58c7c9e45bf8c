package app

import (
	"errors"
	"math"
	"testing"
	"time"

	"smart"
	"smart/tuner"
)

// refusedField is the field a Check refused, "" for none; it fails the test on an error that
// is no SettingError or one that is not marked as a value to change.
func refusedField(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var se *SettingError
	if !errors.As(err, &se) || !se.Wrong {
		t.Fatalf("error %v is not a SettingError of a value to change", err)
	}
	return se.Field
}

func TestTuneCheck(t *testing.T) {
	base := func(f func(*Tune)) Tune {
		tu := Tune{Evaluator: "sim", Strategy: "iterml", Budget: tuner.Budget{Evaluations: 10},
			Options: tuner.Options{Model: tuner.Forest, PickRatio: 0.01, CutRatio: 0.5, Initial: 1, Variants: 1}}
		f(&tu)
		return tu
	}
	for _, tc := range []struct {
		name  string
		tune  Tune
		field string
	}{
		{"valid", base(func(*Tune) {}), ""},
		{"no budget is no limit", base(func(t *Tune) { t.Budget = tuner.Budget{} }), ""},
		{"negative budget", base(func(t *Tune) { t.Budget.Evaluations = -1 }), "Budget"},
		{"negative time", base(func(t *Tune) { t.Budget.Time = -time.Second }), "Time"},
		{"record of a replay", base(func(t *Tune) { t.Evaluator, t.Record = "replay:x.json", "dir" }), "Record"},
		{"record of sim", base(func(t *Tune) { t.Record = "dir" }), ""},
		{"unknown strategy", base(func(t *Tune) { t.Strategy = "nope" }), "Strategy"},
		{"negative batch", base(func(t *Tune) { t.Options.Batch = -1 }), "Batch"},
		{"batch of iterml", base(func(t *Tune) { t.Options.Batch = 2 }), "Batch"},
		{"batch of random", base(func(t *Tune) { t.Strategy, t.Options.Batch = "random", 2 }), ""},
		{"unknown model", base(func(t *Tune) { t.Options.Model = "zzz" }), "Model"},
		{"model unread", base(func(t *Tune) { t.Strategy, t.Options.Model = "random", "zzz" }), ""},
		{"pick ratio 0", base(func(t *Tune) { t.Options.PickRatio = 0 }), "PickRatio"},
		{"pick ratio NaN", base(func(t *Tune) { t.Options.PickRatio = math.NaN() }), "PickRatio"},
		{"cut ratio 1", base(func(t *Tune) { t.Options.CutRatio = 1 }), "CutRatio"},
		{"initial -1 of cstuner", base(func(t *Tune) { t.Strategy, t.Options.Initial = "cstuner", -1 }), "Initial"},
		{"prior of random", base(func(t *Tune) { t.Strategy, t.Prior = "random", "sim" }), "Prior"},
		{"prior of bayes", base(func(t *Tune) { t.Strategy, t.Prior = "bayes", "sim" }), ""},
		{"variants 0 of pipeline", base(func(t *Tune) { t.Strategy, t.Options.Variants = "pipeline", 0 }), "Variants"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.tune.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}

func TestBenchAndCampaignCheck(t *testing.T) {
	out := t.TempDir()
	// base is a valid bench of a stencil file on sim, changed by f.
	base := func(f func(*Bench)) Bench {
		b := Bench{Files: []string{"j2d5pt"}, Out: out, Samples: 1, Backend: "sim", GPU: "a100"}
		f(&b)
		return b
	}
	for _, tc := range []struct {
		name                string
		bench               Bench
		benchField, cfField string // cfField: Campaign.Check of the same backend, GPU, time and CUDA
	}{
		{"valid", base(func(*Bench) {}), "", ""},
		{"no out", base(func(b *Bench) { b.Out = "" }), "Out", ""},
		{"no samples", base(func(b *Bench) { b.Samples = 0 }), "Samples", ""},
		{"negative batch", base(func(b *Bench) { b.Batch = -1 }), "Batch", ""},
		{"no stencils", base(func(b *Bench) { b.Files = nil }), "Files", ""},
		{"stencils given", base(func(b *Bench) { b.Files, b.Stencils = nil, []*smart.Stencil{} }), "", ""},
		{"random", base(func(b *Bench) { b.Files, b.Random, b.Dims, b.MaxOrder = nil, 2, 3, smart.MaxMaxOrder }), "", ""},
		{"random and files", base(func(b *Bench) { b.Random, b.Dims, b.MaxOrder = 2, 3, 1 }), "Random", ""},
		{"random of 4 dimensions", base(func(b *Bench) { b.Files, b.Random, b.Dims, b.MaxOrder = nil, 2, 4, 1 }), "Dims", ""},
		{"random of order 0", base(func(b *Bench) { b.Files, b.Random, b.Dims = nil, 2, 2 }), "MaxOrder", ""},
		{"random of too high an order", base(func(b *Bench) { b.Files, b.Random, b.Dims, b.MaxOrder = nil, 2, 2, smart.MaxMaxOrder+1 }), "MaxOrder", ""},
		{"cut 1.2", base(func(b *Bench) { b.Backend, b.GPU, b.CUDA.Cut = "cuda", "", 1.2 }), "Cut", "Cut"},
		{"cut never", base(func(b *Bench) { b.Backend, b.GPU, b.CUDA.Cut = "cuda", "", -1 }), "", ""},
		{"negative time", base(func(b *Bench) { b.Time = -time.Second }), "Time", "Time"},
		{"a millisecond", base(func(b *Bench) { b.Time = time.Millisecond }), "Time", "Time"}, // a call that measures nothing
		{"a second", base(func(b *Bench) { b.Time = time.Second }), "", ""},
		{"unknown backend", base(func(b *Bench) { b.Backend, b.GPU = "zz", "" }), "Backend", "Backend"},
		{"replay backend", base(func(b *Bench) { b.Backend, b.GPU = "replay:x", "" }), "Backend", "Backend"},
		{"sim without GPU", base(func(b *Bench) { b.GPU = "" }), "", "GPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.bench.Check()); got != tc.benchField {
				t.Errorf("Bench.Check refused %q, want %q", got, tc.benchField)
			}
			c := Campaign{Backend: tc.bench.Backend, GPU: tc.bench.GPU, Time: tc.bench.Time, CUDA: tc.bench.CUDA}
			if got := refusedField(t, c.Check()); got != tc.cfField {
				t.Errorf("Campaign.Check refused %q, want %q", got, tc.cfField)
			}
		})
	}
}

func TestTuneBenchCheck(t *testing.T) {
	base := func(f func(*TuneBench)) TuneBench {
		b := TuneBench{Methods: []string{"random", "bayes-transfer"}, Seeds: 2, RandomSeeds: 3, Budget: 10, Share: 0.95, Ratios: []float64{0.5, 1}}
		f(&b)
		return b
	}
	for _, tc := range []struct {
		name  string
		bench TuneBench
		field string
	}{
		{"valid", base(func(*TuneBench) {}), ""},
		{"no seeds", base(func(b *TuneBench) { b.Seeds = 0 }), "Seeds"},
		{"no random seeds", base(func(b *TuneBench) { b.RandomSeeds = 0 }), "RandomSeeds"},
		{"no budget", base(func(b *TuneBench) { b.Budget = 0 }), "Budget"},
		{"negative parallel", base(func(b *TuneBench) { b.Parallel = -1 }), "Parallel"},
		{"share 0", base(func(b *TuneBench) { b.Share = 0 }), "Share"},
		{"share NaN", base(func(b *TuneBench) { b.Share = math.NaN() }), "Share"},
		{"ratio 2", base(func(b *TuneBench) { b.Ratios = []float64{0.5, 2} }), "Ratios"},
		{"unknown method", base(func(b *TuneBench) { b.Methods = []string{"random", "exhaustive"} }), "Methods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			contenders, err := tc.bench.Check()
			if got := refusedField(t, err); got != tc.field {
				t.Fatalf("Check refused %q, want %q", got, tc.field)
			}
			if err == nil && len(contenders) != len(tc.bench.Methods) {
				t.Errorf("Check built %d contenders of %d methods", len(contenders), len(tc.bench.Methods))
			}
		})
	}
}
