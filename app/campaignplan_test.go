package app

import (
	"context"
	"errors"
	"path/filepath"
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
