package app

import (
	"slices"
	"testing"

	"smart"
)

func TestSpaceQuery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		q     SpaceQuery
		field string // refused by Open
		ocs   int
	}{
		{"all", SpaceQuery{OC: "all"}, "", len(smart.Combinations())},
		{"one, lower case", SpaceQuery{OC: "st_bm"}, "", 1},
		{"a sample", SpaceQuery{OC: "ST", Sample: 3}, "", 1},
		{"a setting", SpaceQuery{OC: "ST", Setting: "bx=32"}, "", 1},
		{"limits", SpaceQuery{OC: "ST", GPU: "v100", Regs: 64, SharedKB: 48}, "", 1},
		{"negative sample", SpaceQuery{OC: "ST", Sample: -1}, "Sample", 0},
		{"a sample and a setting", SpaceQuery{OC: "ST", Sample: 1, Setting: "bx=32"}, "Setting", 0},
		{"negative registers", SpaceQuery{OC: "ST", Regs: -1}, "Regs", 0},
		{"negative shared memory", SpaceQuery{OC: "ST", SharedKB: -1}, "SharedKB", 0},
		{"unknown GPU", SpaceQuery{OC: "ST", GPU: "nosuch"}, "GPU", 0},
		{"AMD GPU", SpaceQuery{OC: "ST", GPU: "mi250x"}, "GPU", 0},
		{"registers beyond any GPU", SpaceQuery{OC: "ST", Regs: 100000000000}, "Limits", 0},
		{"empty OC", SpaceQuery{OC: " "}, "OC", 0},
		{"unknown OC", SpaceQuery{OC: "NOPE"}, "OC", 0},
		{"a sample of all", SpaceQuery{OC: "ALL", Sample: 2}, "OC", 0},
		{"a setting in all", SpaceQuery{OC: "all", Setting: "bx=32"}, "OC", 0},
		{"a setting that does not parse", SpaceQuery{OC: "ST", Setting: "bx"}, "Setting", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gpu, ocs, set, err := tc.q.Open()
			if got := refusedField(t, err); got != tc.field {
				t.Fatalf("refused %q (%v), want %q", got, err, tc.field)
			}
			if err == nil && (len(ocs) != tc.ocs || gpu.Name == "" || (set == nil) != (tc.q.Setting == "")) {
				t.Errorf("%d combinations on GPU %q, setting %v; want %d", len(ocs), gpu.Name, set, tc.ocs)
			}
		})
	}
	q := SpaceQuery{OC: "ST", GPU: "v100", Regs: 64, SharedKB: 48}
	gpu, err := q.LimitsGPU()
	if err != nil || gpu.MaxRegsPerThread != 64 || gpu.SharedPerBlockKB != 48 {
		t.Errorf("limits put in place: %+v, %v", gpu, err)
	}
	if ocs, _ := (SpaceQuery{OC: "all"}).Combinations(); !slices.Equal(ocs, smart.Combinations()) {
		t.Errorf("all is %v", ocs)
	}
}
