package rows_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
	"smart/features"
	"smart/generator"
	"smart/models"
	"smart/models/roofline"
	"smart/models/rows"
)

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   models.Inputs
		want string
	}{
		{"dims", models.Inputs{Dims: 4, Stencil: true}, "dims is 4"},
		{"foreign stencil", models.Inputs{Kernel: "conv", Stencil: true}, "no stencil features"},
		{"unknown analytic", models.Inputs{Dims: 2, Setting: true, GPU: true, Analytic: "magic"}, `unknown analytic model "magic"`},
		{"analytic without setting", models.Inputs{Dims: 2, Stencil: true, GPU: true, Analytic: rows.AnalyticStencil}, "needs a stencil, its OC and setting"},
		{"analytic without GPU", models.Inputs{Dims: 2, Setting: true, Analytic: rows.AnalyticStencil}, "needs the GPU"},
		{"usage without setting", models.Inputs{Dims: 2, Stencil: true, Usage: true}, "estimated usage needs a stencil, its OC and setting"},
		{"usage of a foreign kernel", models.Inputs{Kernel: "conv", KernelParams: []string{"a"}, Setting: true, Usage: true}, "estimated usage needs a stencil"},
		{"no columns", models.Inputs{Dims: 2}, "no columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rows.New(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%+v) = %v, want an error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

// TestStencilRow holds a row to its parts: the features package's vectors in the documented
// column order (models.Inputs), then the analytic model's ln time and whether it answered.
func TestStencilRow(t *testing.T) {
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.Lookup("a100")
	if err != nil {
		t.Fatal(err)
	}
	f, err := rows.New(models.Inputs{Dims: 2, Stencil: true, Tensor: true, Setting: true, GPU: true, Analytic: rows.AnalyticStencil})
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Concat(features.StencilNames(0), features.TensorNames(2, 0), features.SettingNames(2), features.GPUNames(), []string{roofline.FeatureName, "roofline_ok"})
	if !slices.Equal(f.Names(), names) {
		t.Fatalf("names %v, want %v", f.Names(), names)
	}
	oc := smart.Combination(smart.ST)
	for _, tc := range []struct {
		setting string
		runs    bool // whether the analytic model answers
	}{
		{"bx=128,by=1,shared=1,const=1,sd=2,sb=32,ufx=1,ufy=2", true},
		{"bx=2048,by=1,shared=1,const=1,sd=2,sb=32,ufx=1,ufy=2", false}, // more threads than a block holds
	} {
		set, err := smart.ParseSetting(tc.setting)
		if err != nil {
			t.Fatal(err)
		}
		row, err := f.Row(st, oc, set, gpu)
		if err != nil {
			t.Fatal(err)
		}
		sv, _ := features.Stencil(st, 0)
		tv, _ := features.Tensor(st, 0)
		setv, _ := features.Setting(2, oc, set)
		gv, _ := features.GPU(gpu)
		ana := []float64{0, 0}
		tuning, err := smart.DecodeTuning(2, oc, set)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := roofline.Feature(st, tuning, gpu); (err == nil) != tc.runs {
			t.Fatalf("%s: analytic model error %v, want it to answer: %v", tc.setting, err, tc.runs)
		} else if err == nil {
			ana = []float64{v, 1}
		}
		want := slices.Concat(sv, tv, setv, gv, ana)
		if len(row) != len(want) {
			t.Fatalf("%s: row of %d columns, want %d", tc.setting, len(row), len(want))
		}
		for i := range want {
			if math.Float64bits(row[i]) != math.Float64bits(want[i]) {
				t.Errorf("%s: column %s is %v, want %v", tc.setting, names[i], row[i], want[i])
			}
		}
	}
	j3, _ := generator.NamedStencil("j3d7pt", 0, 0)
	if _, err := f.Row(j3, oc, nil, gpu); err == nil || !strings.Contains(err.Error(), "trained on 2-D stencils") {
		t.Errorf("a 3-D stencil in a 2-D model's row: %v", err)
	}
	// An order beyond the features (4 by default) is refused before any row, as the caller's
	// mistake rather than a variant that fails.
	far, err := smart.NewStencil("far", 2, []smart.Offset{{}, {5, 0}, {-5, 0}}, nil, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Accepts(far); err == nil || !strings.Contains(err.Error(), "has order 5; the model's features reach order 4") {
		t.Errorf("an order-5 stencil in a model of order 4: %v", err)
	}
	if wide, _ := rows.New(models.Inputs{Dims: 2, Stencil: true, MaxOrder: 6}); wide.Accepts(far) != nil {
		t.Errorf("a model of order 6 refuses an order-5 stencil: %v", wide.Accepts(far))
	}
}

// TestRefill: a row refilled for another OC and setting is the row Row builds for them, bit for
// bit, whether the analytic model answers for either or not.
func TestRefill(t *testing.T) {
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.Lookup("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	f, err := rows.New(models.Inputs{Dims: 3, Stencil: true, Tensor: true, Setting: true, Usage: true, GPU: true, Analytic: rows.AnalyticStencil})
	if err != nil {
		t.Fatal(err)
	}
	// The usage columns follow the setting's.
	names := f.Names()
	at := slices.Index(names, features.UsageNames()[0])
	if at < 0 || names[at-1] != features.SettingNames(3)[len(features.SettingNames(3))-1] || !slices.Equal(names[at:at+3], features.UsageNames()) {
		t.Fatalf("columns %v: want %v right after the setting's", names, features.UsageNames())
	}
	variants := []struct {
		oc      smart.Combination
		setting string
	}{
		{0, "bx=32,by=4,bz=2,shared=0,const=1"},
		{smart.Combination(smart.ST).With(smart.BM), "bx=64,by=2,bz=1,shared=1,const=0,sd=3,sb=64,bmx=2,bmy=1,bmz=1,ufx=1,ufy=1,ufz=4"},
		{smart.Combination(smart.ST), "bx=2048,by=1,bz=1,shared=1,const=1,sd=3,sb=32,ufx=1,ufy=1,ufz=2"}, // too many threads: no analytic time
	}
	var built [][]float64
	for _, v := range variants {
		set, err := smart.ParseSetting(v.setting)
		if err != nil {
			t.Fatal(err)
		}
		row, err := f.Row(st, v.oc, set, gpu)
		if err != nil {
			t.Fatal(err)
		}
		built = append(built, row)
	}
	if built[2][len(built[2])-1] != 0 || built[0][len(built[0])-1] != 1 {
		t.Fatalf("the analytic model's flags %v and %v, want 1 and 0", built[0][len(built[0])-1], built[2][len(built[2])-1])
	}
	for i, v := range variants {
		set, _ := smart.ParseSetting(v.setting)
		want, err := features.Usage(st, v.oc, set)
		if err != nil {
			t.Fatal(err)
		}
		if got := built[i][at : at+3]; !slices.Equal(got, want) {
			t.Errorf("%s: usage columns %v, want %v", v.setting, got, want)
		}
	}
	for i, from := range built {
		for j, v := range variants {
			set, _ := smart.ParseSetting(v.setting)
			row := slices.Clone(from)
			if err := f.Refill(row, st, v.oc, set, gpu); err != nil {
				t.Fatal(err)
			}
			for k := range row {
				if math.Float64bits(row[k]) != math.Float64bits(built[j][k]) {
					t.Errorf("row of %s refilled for %s: column %s is %v, want %v", variants[i].setting, v.setting, f.Names()[k], row[k], built[j][k])
				}
			}
		}
	}
	if err := f.Refill(built[0][1:], st, 0, nil, gpu); err == nil || !strings.Contains(err.Error(), "columns") {
		t.Errorf("a row one column short: %v", err)
	}
}

// TestKernelRow: a foreign kernel's columns are its parameters, in the order the inputs name them.
func TestKernelRow(t *testing.T) {
	params := []string{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding", "use_shmem"}
	if !rows.IsConvolution(params) || rows.IsConvolution(params[1:]) {
		t.Fatal("IsConvolution does not tell the convolution's parameters")
	}
	f, err := rows.New(models.Inputs{Kernel: "convolution_kernel", KernelParams: []string{"tile_size_x", "block_size_x"}, Setting: true})
	if err != nil {
		t.Fatal(err)
	}
	row, err := f.Row(nil, 0, smart.Setting{"block_size_x": 32, "tile_size_x": 2, "use_shmem": 1}, smart.GPU{})
	if err != nil || !slices.Equal(row, []float64{2, 32}) {
		t.Fatalf("row %v (%v), want [2 32]", row, err)
	}
	if _, err := f.Row(nil, 0, smart.Setting{"block_size_x": 32}, smart.GPU{}); err == nil || !strings.Contains(err.Error(), "lacks parameter tile_size_x") {
		t.Errorf("a setting without a column's parameter: %v", err)
	}
	// A stencil is no configuration of the kernel: refused before any row is built.
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Accepts(st); err == nil || !strings.Contains(err.Error(), "predicts the foreign kernel convolution_kernel") {
		t.Errorf("a stencil given to a kernel's model: %v", err)
	}
}
