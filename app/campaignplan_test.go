package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart"
	"smart/campaign"
	"smart/dataset"
)

// TestPlanCampaignRefusesSpec: a spec field out of range, a GPU the catalogue lacks and one
// smart's CUDA does not run on are SettingErrors of their fields, refused before anything is
// written.
func TestPlanCampaignRefusesSpec(t *testing.T) {
	for _, c := range []struct {
		change func(*campaign.Spec)
		field  string
	}{
		{func(s *campaign.Spec) { s.GPU = "no such GPU" }, "GPU"},
		{func(s *campaign.Spec) { s.GPU = "MI250X" }, "GPU"},
		{func(s *campaign.Spec) { s.PerDims = 0 }, "PerDims"},
		{func(s *campaign.Spec) { s.MaxOrder = 9 }, "MaxOrder"},
		{func(s *campaign.Spec) { s.Uniform, s.Predicted = 0, 0 }, "Predicted"},
	} {
		spec := campaign.DefaultSpec()
		spec.PerDims = 1 // quick to draw where the refusal fails
		c.change(&spec)
		out := filepath.Join(t.TempDir(), "m")
		_, err := PlanCampaign(context.Background(), spec, out, nil)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != c.field || !se.Wrong {
			t.Errorf("%+v: %v; want a SettingError of %s", spec, err, c.field)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%+v: %s was written", spec, out)
		}
	}
}

// TestCampaignRunRefusesAMD: a call on a GPU smart's CUDA does not run on begins nothing.
func TestCampaignRunRefusesAMD(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sim")
	call, err := Campaign{Backend: "sim", GPU: "MI250X", Out: out}.Run(context.Background())
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "GPU" || !se.Wrong || !errors.Is(err, smart.ErrNotCUDA) || call != (CampaignCall{}) {
		t.Errorf("%+v, %v; want no call and a SettingError of GPU", call, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}

// TestCampaignRunRefusesAMDFirst: an AMD GPU named for cuda is refused before the driver is
// looked for, so on a machine without one the error is the GPU's, not the missing driver's.
func TestCampaignRunRefusesAMDFirst(t *testing.T) {
	call, err := Campaign{Backend: "cuda", GPU: "mi250x", Out: filepath.Join(t.TempDir(), "cuda")}.Run(context.Background())
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "GPU" || !se.Wrong || !errors.Is(err, smart.ErrNotCUDA) || call != (CampaignCall{}) {
		t.Errorf("%+v, %v; want no call and a SettingError of GPU", call, err)
	}
}

// TestPlanCampaignRefusesOut: the manifest's directory is required, and one that cannot be made
// or already holds a manifest or a data set is refused before drawing; one that holds either is a
// name to change (Wrong), as a missing one is.
func TestPlanCampaignRefusesOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	held := t.TempDir() // a manifest's directory: refused before drawing, not after
	if err := os.WriteFile(filepath.Join(held, campaign.ManifestFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := t.TempDir() // a data set's directory: a manifest would sit among its files
	if err := os.WriteFile(filepath.Join(set, dataset.MetaFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out   string
		wrong bool
	}{{"", true}, {filepath.Join(file, "m"), false}, {held, true}, {set, true}} {
		_, err := PlanCampaign(context.Background(), campaign.DefaultSpec(), c.out, nil)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != "Out" || se.Wrong != c.wrong {
			t.Errorf("out %q: %v; want a SettingError of Out, Wrong %v", c.out, err, c.wrong)
		}
	}
}

// TestCampaignDirs finds the campaign data sets of every GPU where CampaignDir puts them.
func TestCampaignDirs(t *testing.T) {
	t.Chdir(t.TempDir())
	if dirs := CampaignDirs(); len(dirs) != 0 {
		t.Fatalf("found %v in an empty directory", dirs)
	}
	for _, gpu := range []string{"H100-SXM", "H200"} {
		if err := os.MkdirAll(CampaignDir(gpu), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{CampaignDir("H100-SXM"), CampaignDir("H200")}
	if dirs := CampaignDirs(); !slices.Equal(dirs, want) {
		t.Errorf("found %v, want %v", dirs, want)
	}
	// The H200's measured from manifest "a", the H100's not begun: only the H200's is another's.
	w, err := dataset.Create(CampaignDir("H200"), dataset.Meta{Sources: []smart.Source{smart.Simulated}, Params: dataset.StencilParams(), Devices: []dataset.Device{{GPU: "H200", Name: "analytic model"}},
		Plan: &dataset.Plan{Manifest: "a", Stencils: []string{"0123456789abcdef"}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if of, others := CampaignDirsOf("a"); !slices.Equal(of, want) || len(others) != 0 {
		t.Errorf("of manifest a: %v, others %v; want both", of, others)
	}
	if of, others := CampaignDirsOf("b"); !slices.Equal(of, want[:1]) || !slices.Equal(others, want[1:]) {
		t.Errorf("of manifest b: %v, others %v; want the H100's, the H200's another's", of, others)
	}
}
