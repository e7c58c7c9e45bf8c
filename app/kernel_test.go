package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/calibrate"
	"smart/generator"
	"smart/space"
)

// TestKernelSettingErrors checks that each refused value of Generate and EstimateStencil is a
// SettingError of the field that holds it, so that the CLI names the right flag, and that a
// default setting that does not fit is a DefaultSettingError, not the caller's mistake.
func TestKernelSettingErrors(t *testing.T) {
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	notKernel, kernel := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "k.cu")
	if err := os.WriteFile(notKernel, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tiny := *st
	tiny.Grid = [3]int{8, 8, 8}
	ctx := context.Background()
	const good = "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=4"
	for _, c := range []struct {
		name  string
		run   func() error
		field string // "" for no SettingError
		in    string // in the message
	}{
		{"generate", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good})
			return err
		}, "", ""},
		{"generate into a file not smart's", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, Out: notKernel})
			return err
		}, "Out", "not an unedited CUDA source"},
		{"generate into a file", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, Out: kernel})
			if b, rerr := os.ReadFile(kernel); err == nil && (rerr != nil || !strings.Contains(string(b), "__global__")) {
				return fmt.Errorf("%s holds no kernel: %v", kernel, rerr)
			}
			return err
		}, "", ""},
		{"generate into the file smart wrote", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST", Setting: good, Out: kernel})
			return err
		}, "", ""},
		{"generate into the file smart wrote, edited since", func() error {
			f, err := os.OpenFile(kernel, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			if _, err := f.WriteString("// my tuning notes\n"); err != nil {
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			_, err = GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, Out: kernel})
			if b, rerr := os.ReadFile(kernel); rerr != nil || !strings.Contains(string(b), "// my tuning notes") {
				return fmt.Errorf("the edited %s was replaced (%v)", kernel, rerr)
			}
			return err
		}, "Out", "not an unedited CUDA source"},
		{"generate into an edited file, told to replace it", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, Out: kernel, Replace: true})
			return err
		}, "", ""},
		{"generate OC", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "NOPE", Setting: good})
			return err
		}, "OC", "NOPE"},
		{"generate GPU", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, GPU: "nosuch"})
			return err
		}, "GPU", "nosuch"},
		{"generate AMD", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: good, GPU: "mi250x"})
			return err
		}, "GPU", "AMD"},
		{"generate syntax", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: "x"})
			return err
		}, "Setting", "name=value"},
		{"generate space", func() error {
			_, err := GenerateKernel(ctx, st, "j3d7pt", KernelSettings{OC: "ST_RT", Setting: strings.Replace(good, "bx=32", "bx=33", 1)})
			return err
		}, "Setting", "bx=33"},
		{"estimate", func() error {
			_, err := EstimateStencil(ctx, st, "j3d7pt", EstimateSettings{GPU: "a100", OC: "ST_TB"})
			return err
		}, "", ""},
		{"estimate GPU", func() error {
			_, err := EstimateStencil(ctx, st, "j3d7pt", EstimateSettings{GPU: "mi250x", OC: "ST_TB"})
			return err
		}, "GPU", "NVIDIA GPUs only"},
		{"estimate calibration and literature", func() error {
			_, err := EstimateStencil(ctx, st, "j3d7pt", EstimateSettings{GPU: "a100", OC: "ST_TB", Calibration: "c.json", Literature: true})
			return err
		}, "Calibration", "exclude each other"},
		{"estimate setting", func() error {
			_, err := EstimateStencil(ctx, st, "j3d7pt", EstimateSettings{GPU: "a100", OC: "ST_TB", Setting: "bx=32"})
			return err
		}, "Setting", "missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			var se *SettingError
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("error %v", err)
			case c.field == "":
			case !errors.As(err, &se) || se.Field != c.field || !se.Wrong:
				t.Fatalf("error %v (%#v), want a SettingError of %s", err, err, c.field)
			case !strings.Contains(err.Error(), c.in):
				t.Errorf("error %q does not say %q", err, c.in)
			}
		})
	}
	// A kernel for a GPU that cannot hold its two grids is refused, as predict refuses to time it.
	huge := *st
	huge.Grid = [3]int{2048, 2048, 2048} // two float64 grids of 68.7 GB each
	const tooBig = `stencil file huge.json: field "grid" 2048x2048x2048: its two grids need 128.0 GiB; the T4 has 16 GiB, 15 GiB of it left after the CUDA context`
	if _, err := GenerateKernel(ctx, &huge, "huge.json", KernelSettings{OC: "ST_RT", Setting: good, GPU: "t4"}); err == nil || !strings.Contains(err.Error(), tooBig) {
		t.Errorf("a kernel of 137 GB of grids for the T4: %v, want %q", err, tooBig)
	}
	if _, err := EstimateStencil(ctx, &huge, "huge.json", EstimateSettings{GPU: "t4", OC: "BASE"}); err == nil || !strings.Contains(err.Error(), tooBig) {
		t.Errorf("an estimate of 137 GB of grids on the T4: %v, want %q", err, tooBig)
	}
	_, err = EstimateStencil(ctx, &tiny, "tiny", EstimateSettings{GPU: "t4", OC: "BASE"})
	var ds *DefaultSettingError
	if !errors.As(err, &ds) || ds.Setting["bx"] != 32 {
		t.Errorf("the default setting on an 8^3 grid: error %v, want a DefaultSettingError of bx=32", err)
	}
}

// TestEstimateCalibrationFile: estimate takes a calibration file's constants and its interval,
// and says which file they came from; a file that cannot be read is a SettingError of the field
// that names it, not the caller's usage (the file failed, not the flag).
func TestEstimateCalibrationFile(t *testing.T) {
	ctx := context.Background()
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	base, err := EstimateStencil(ctx, st, "j2d5pt", EstimateSettings{GPU: "h100-sxm", OC: "CM_TB"})
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrate.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The OC's factor multiplies the time after every term: twice it, twice the time.
	f := *cal
	f.Calibration.OCScale = maps.Clone(cal.Calibration.OCScale)
	f.Calibration.OCScale["CM_TB"] *= 2
	f.Interval.LogLo, f.Interval.LogHi = -0.1, 0.2
	path := filepath.Join(t.TempDir(), "mine.json")
	if err := calibrate.Write(path, &f, false); err != nil {
		t.Fatal(err)
	}
	got, err := EstimateStencil(ctx, st, "j2d5pt", EstimateSettings{GPU: "h100-sxm", OC: "CM_TB", Calibration: path})
	if err != nil {
		t.Fatal(err)
	}
	if r := got.Estimate.TimeMs / base.Estimate.TimeMs; math.Abs(r-2) > 1e-9 {
		t.Errorf("time %g with the file's doubled CM_TB factor, %g embedded: ratio %g, want 2", got.Estimate.TimeMs, base.Estimate.TimeMs, r)
	}
	if got.Constants != "calibrated" || got.ConstantsFile != path || base.ConstantsFile != calibrate.EmbeddedName {
		t.Errorf("constants %q from %q (embedded: %q)", got.Constants, got.ConstantsFile, base.ConstantsFile)
	}
	if iv := got.Interval; iv == nil || math.Abs(iv.LoMs-got.Estimate.TimeMs*math.Exp(-0.1)) > 1e-9 || math.Abs(iv.HiMs-got.Estimate.TimeMs*math.Exp(0.2)) > 1e-9 {
		t.Errorf("interval %+v around %g, want the file's exp(-0.1)-exp(0.2)", got.Interval, got.Estimate.TimeMs)
	}
	var text strings.Builder
	if err := got.WriteText(&text); err != nil || !strings.Contains(text.String(), "calibrated: from "+path) {
		t.Errorf("the text does not name the file (%v):\n%s", err, text.String())
	}
	_, err = EstimateStencil(ctx, st, "j2d5pt", EstimateSettings{GPU: "h100-sxm", OC: "CM_TB", Calibration: filepath.Join(t.TempDir(), "none.json")})
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "Calibration" || se.Wrong || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing file: error %v, want a SettingError of Calibration naming it", err)
	}
}

// TestEmptySpace: an OC with no valid setting for the stencil on the GPU (temporal blocking of
// an order-4 3-D stencil within the K80's 48 KiB of shared memory) is an EmptySpaceError naming
// the constraint that empties the space and why, not a default setting to replace; an OC with
// settings is none.
func TestEmptySpace(t *testing.T) {
	ctx := context.Background()
	st, err := generator.NamedStencil("j3d25pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = EstimateStencil(ctx, st, "j3d25pt", EstimateSettings{GPU: "k80", OC: "TB"})
	var empty *EmptySpaceError
	if !errors.As(err, &empty) || errors.As(err, new(*DefaultSettingError)) {
		t.Fatalf("error %v (%T), want an EmptySpaceError", err, err)
	}
	for _, want := range []string{"TB has no valid setting for j3d25pt on the K80", `the constraint "registers, shared memory and threads fit the K80" rejects every setting`,
		`"temporal blocking needs shared = 1"`, "bytes of shared memory per block exceed the K80's 48 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	gpu, err := LimitsGPU("", "k80")
	if err != nil {
		t.Fatal(err)
	}
	oc := smart.Combination(smart.ST).With(smart.RT).With(smart.TB)
	sp, err := space.ForStencil(st, oc, gpu)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSpace(ctx, st, oc, gpu, sp); err != nil || sp.Count().Sign() == 0 {
		t.Errorf("ST_RT_TB, %v settings: %v; want settings and no error", sp.Count(), err)
	}
}

// TestEstimateIntervalMeasuredOn: the interval is measured on the fit's GPUs alone; a GPU whose
// data only tested it is said to be that, with its coverage there, and a GPU of neither kind is
// named apart from both.
func TestEstimateIntervalMeasuredOn(t *testing.T) {
	ctx := context.Background()
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrate.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := *cal
	f.FittedOn = []calibrate.Source{{Dir: "fit", GPU: "H100-SXM"}}
	f.TestedOn = []calibrate.Source{{Dir: "test", GPU: "H200"}}
	f.Test = []calibrate.Score{{GPU: "H200", Stencil: "a", Coverage: 0.7}, {GPU: "H200", Stencil: "b", Coverage: 0.8}}
	path := filepath.Join(t.TempDir(), "cal.json")
	if err := calibrate.Write(path, &f, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ gpu, want string }{
		{"h100-sxm", ""},
		{"h200", "the interval was measured on the H100-SXM; on the H200, only a test set, it held 75% of the measured times (mean over 2 stencils)"},
		{"v100", "the V100 is not among the GPUs the interval was measured on (H100-SXM) or only tested on (H200)"},
	} {
		est, err := EstimateStencil(ctx, st, "j3d7pt", EstimateSettings{GPU: c.gpu, OC: "BASE", Calibration: path})
		if err != nil {
			t.Fatal(err)
		}
		var gpu []string
		for _, b := range est.BeyondInterval {
			if strings.Contains(b, est.GPU) {
				gpu = append(gpu, b)
			}
		}
		if got := strings.Join(gpu, "; "); got != c.want {
			t.Errorf("%s: beyond the interval %q; want %q", c.gpu, got, c.want)
		}
	}
}
