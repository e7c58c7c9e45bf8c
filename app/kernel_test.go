package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"smart/generator"
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
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: good})
			return err
		}, "", ""},
		{"generate into a file not smart's", func() error {
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: good, Out: notKernel})
			return err
		}, "Out", "not a CUDA source"},
		{"generate into a file", func() error {
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: good, Out: kernel})
			if b, rerr := os.ReadFile(kernel); err == nil && (rerr != nil || !strings.Contains(string(b), "__global__")) {
				return fmt.Errorf("%s holds no kernel: %v", kernel, rerr)
			}
			return err
		}, "", ""},
		{"generate OC", func() error { _, err := GenerateKernel(ctx, st, KernelSettings{OC: "NOPE", Setting: good}); return err }, "OC", "NOPE"},
		{"generate GPU", func() error {
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: good, GPU: "nosuch"})
			return err
		}, "GPU", "nosuch"},
		{"generate AMD", func() error {
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: good, GPU: "mi250x"})
			return err
		}, "GPU", "AMD"},
		{"generate syntax", func() error { _, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: "x"}); return err }, "Setting", "name=value"},
		{"generate space", func() error {
			_, err := GenerateKernel(ctx, st, KernelSettings{OC: "ST_RT", Setting: strings.Replace(good, "bx=32", "bx=33", 1)})
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
	_, err = EstimateStencil(ctx, &tiny, "tiny", EstimateSettings{GPU: "t4", OC: "BASE"})
	var ds *DefaultSettingError
	if !errors.As(err, &ds) || ds.Setting["bx"] != 32 {
		t.Errorf("the default setting on an 8^3 grid: error %v, want a DefaultSettingError of bx=32", err)
	}
}
