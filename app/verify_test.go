package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/dataset/cuda"
	"smart/generator"
)

// TestVerify: a stencil read from Stdin is verified with progress; a file that does not open
// is refused before any variant runs. Needs clang-14 and g++.
func TestVerify(t *testing.T) {
	if _, err := cuda.FindTools(); err != nil {
		t.Skip(err)
	}
	if testing.Short() {
		t.Skip("compiles and runs a variant")
	}
	done := 0
	v := Verify{Files: []string{"-"}, Stdin: strings.NewReader(`{"name":"t","dims":2,"offsets":[[0,0],[1,0],[-1,0]]}`),
		OCs: []smart.Combination{0}, Samples: 1, Seed: 1, GPU: smart.SM80(), Jobs: 1, Timeout: time.Minute,
		Progress: func(d, _ int) { done = d }}
	report, total, err := v.Run(context.Background())
	switch {
	case err != nil:
		t.Fatal(err)
	case total != 1 || len(report.Results) != 1 || done != 1 || report.Err() != nil || report.GPU != "sm_80":
		t.Errorf("%d variants, %d reported, progress %d, %v, GPU %s; want 1 passed on sm_80", total, len(report.Results), done, report.Err(), report.GPU)
	}
	v.Files = []string{"nonexist.json"}
	if report, _, err := v.Run(context.Background()); err == nil || report != nil || !strings.Contains(err.Error(), "nonexist.json") {
		t.Errorf("a missing file: report %v, %v", report, err)
	}
}

func TestVerifyCheck(t *testing.T) {
	ocs := []smart.Combination{smart.Combination(smart.TB), 0}
	const given = "bx=32,by=4,shared=1,const=0,tt=8"
	base := func(f func(*Verify)) Verify {
		v := Verify{Files: []string{"j2d5pt"}, Samples: 1, Timeout: time.Minute}
		f(&v)
		return v
	}
	for _, tc := range []struct {
		name   string
		verify Verify
		field  string
	}{
		{"valid", base(func(*Verify) {}), ""},
		{"jobs", base(func(v *Verify) { v.Jobs = 4 }), ""},
		{"no files", base(func(v *Verify) { v.Files = nil }), "Files"},
		{"no samples", base(func(v *Verify) { v.Samples = 0 }), "Samples"},
		{"negative jobs", base(func(v *Verify) { v.Jobs = -1 }), "Jobs"},
		{"no time", base(func(v *Verify) { v.Timeout = 0 }), "Timeout"},
		{"a setting, no samples", base(func(v *Verify) { v.OCs, v.Setting, v.Samples = ocs[:1], given, 0 }), ""},
		{"a setting of two OCs", base(func(v *Verify) { v.OCs, v.Setting = ocs, given }), "OCs"},
		{"a setting not k=v", base(func(v *Verify) { v.OCs, v.Setting = ocs[:1], "bx" }), "Setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.verify.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}

// TestVerifyGiven: a setting made for a real grid, outside the small copy's space (sb beyond
// its extent), is verified as given on the small copy; one that does not decode for the
// stencil, that the GPU cannot run or that the generator refuses is a SettingError of Setting
// naming the file and why.
func TestVerifyGiven(t *testing.T) {
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	const good = "bx=32,by=4,bz=1,shared=1,const=0,sd=3,sb=256,ufx=1,ufy=1,ufz=4"
	v := Verify{Files: []string{"j3d7pt"}, OCs: []smart.Combination{smart.Combination(smart.ST)}, Setting: good, GPU: smart.SM80()}
	variants, origin, err := v.given(context.Background(), []*smart.Stencil{st})
	if err != nil {
		t.Fatal(err)
	}
	if len(variants) != 1 || variants[0].Setting.String() != good || variants[0].Stencil.Grid != cuda.SmallCopy(st).Grid ||
		variants[0].Stencil.Steps != 2 || origin[0].File != "j3d7pt" {
		t.Errorf("variants %+v from %+v; want the setting on the small copy for 2 steps", variants, origin)
	}
	for _, c := range []struct{ name, oc, set, gpu, in string }{
		{"2-D setting", "TB", "bx=32,by=4,shared=1,const=0,tt=2", "", "parameter bz is missing"},
		{"beyond the GPU", "TB", "bx=32,by=32,bz=1,shared=1,const=0,tt=4", "k80", "exceed the K80's 48 KiB"},
		{"outside the space", "TB", "bx=1,by=1,bz=128,shared=1,const=0,tt=2", "", "bz"},
		{"TB without shared memory", "TB", "bx=32,by=8,bz=1,shared=0,const=0,tt=2", "", "temporal blocking needs shared = 1"},
		{"tt beyond its values", "TB", "bx=32,by=8,bz=1,shared=1,const=0,tt=40", "", "tt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			oc, err := smart.ParseCombination(c.oc)
			if err != nil {
				t.Fatal(err)
			}
			v := v
			v.OCs, v.Setting = []smart.Combination{oc}, c.set
			if c.gpu != "" {
				if v.GPU, err = LimitsGPU("", c.gpu); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err = v.given(context.Background(), []*smart.Stencil{st})
			if refusedField(t, err) != "Setting" || !strings.Contains(err.Error(), "stencil file j3d7pt") || !strings.Contains(err.Error(), c.in) {
				t.Errorf("error %v; want a SettingError of Setting naming the file and saying %q", err, c.in)
			}
		})
	}
}
