package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart/campaign"
)

func TestPlanCampaignRefusesUnknownGPU(t *testing.T) {
	spec := campaign.DefaultSpec()
	spec.GPU = "no such GPU"
	out := filepath.Join(t.TempDir(), "m")
	_, err := PlanCampaign(context.Background(), spec, out, nil)
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "GPU" || !se.Wrong {
		t.Fatalf("got %v; want a SettingError of GPU", err)
	}
}

// TestPlanCampaignRefusesOut: the manifest's directory is required, and one that cannot be made
// or already holds a manifest is refused before drawing.
func TestPlanCampaignRefusesOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	held := t.TempDir() // a manifest's directory: refused before drawing, not after
	if err := os.WriteFile(filepath.Join(held, campaign.ManifestFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"", filepath.Join(file, "m"), held} {
		_, err := PlanCampaign(context.Background(), campaign.DefaultSpec(), out, nil)
		var se *SettingError
		if !errors.As(err, &se) || se.Field != "Out" || se.Wrong != (out == "") {
			t.Errorf("out %q: %v; want a SettingError of Out", out, err)
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
}
