package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/dataset/cuda"
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.verify.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}
