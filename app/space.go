package app

import (
	"fmt"
	"strings"

	"smart"
	"smart/catalog"
)

// SpaceQuery is what smart space asks of a stencil's setting spaces: those of one optimization
// combination or all on a GPU, whose per-block limits may be put in place, or one space's
// random sample, or whether a setting lies in it.
type SpaceQuery struct {
	OC       string // an optimization combination, e.g. ST_BM or BASE, or "all"
	GPU      string // catalogue name or alias whose limits apply; "" for sm_80
	Catalog  string // GPU catalogue file merged over the embedded one; "" for none
	Regs     int    // registers per thread in place of the GPU's; 0 keeps them
	SharedKB int    // shared memory per block, KiB, in place of the GPU's; 0 keeps it
	Sample   int    // distinct random valid settings to draw from the space of OC; 0 for none
	Seed     uint64 // of the sample
	Setting  string // a setting k=v,... to check against the space of OC; "" for none
}

// Check refuses, before anything is read, a negative sample or limit, and a sample asked for
// together with a setting to check, each as a *SettingError of its field.
func (q SpaceQuery) Check() error {
	switch {
	case q.Sample < 0:
		return wrong("Sample", fmt.Sprint(q.Sample), "must not be negative (0 draws none)")
	case q.Sample > 0 && q.Setting != "":
		return wrong("Setting", "", "check a setting or draw a sample, not both")
	case q.Regs < 0:
		return wrong("Regs", fmt.Sprint(q.Regs), "must not be negative (0 keeps the GPU's)")
	case q.SharedKB < 0:
		return wrong("SharedKB", fmt.Sprint(q.SharedKB), "must not be negative (0 keeps the GPU's)")
	}
	return nil
}

// LimitsGPU is the GPU whose limits apply (LimitsGPU of GPU and Catalog) with Regs and SharedKB
// in their place; limits it cannot take are a *SettingError of Limits.
func (q SpaceQuery) LimitsGPU() (smart.GPU, error) {
	gpu, err := LimitsGPU(q.Catalog, q.GPU)
	if err != nil || (q.Regs == 0 && q.SharedKB == 0) {
		return gpu, err
	}
	if gpu, err = catalog.Hypothetical(gpu, q.Regs, q.SharedKB); err != nil {
		return gpu, &SettingError{Field: "Limits", Err: err, Wrong: true}
	}
	return gpu, nil
}

// Combinations reads OC: one combination, or all of them where neither a sample nor a setting
// to check needs one; an OC that is none of these is a *SettingError of OC.
func (q SpaceQuery) Combinations() ([]smart.Combination, error) {
	if strings.TrimSpace(q.OC) == "" { // ParseCombination reads "" as BASE
		return nil, wrong("OC", "", "is empty; give an optimization combination (BASE for none), or all")
	}
	if strings.EqualFold(q.OC, "all") {
		if q.Sample > 0 || q.Setting != "" {
			return nil, wrong("OC", "all", "a sample or a setting to check needs one combination")
		}
		return smart.Combinations(), nil
	}
	oc, err := ParseOC(q.OC)
	if err != nil {
		return nil, err
	}
	return []smart.Combination{oc}, nil
}

// Open checks q and reads, before any stencil, the GPU whose limits apply, the combinations
// and the setting to check (nil for none); what cannot be used is a *SettingError of its field.
func (q SpaceQuery) Open() (smart.GPU, []smart.Combination, smart.Setting, error) {
	if err := q.Check(); err != nil {
		return smart.GPU{}, nil, nil, err
	}
	gpu, err := q.LimitsGPU()
	if err != nil {
		return gpu, nil, nil, err
	}
	ocs, err := q.Combinations()
	if err != nil || q.Setting == "" {
		return gpu, ocs, nil, err
	}
	set, err := smart.ParseSetting(q.Setting)
	if err != nil {
		return gpu, ocs, nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	return gpu, ocs, set, nil
}

// CheckStencil refuses a stencil, read from file, whose grids the GPU of GPU cannot hold: its
// spaces would list settings of a kernel that fails at its first allocation. Without GPU
// (sm_80's limits alone) nothing holds a grid, and any is accepted.
func (q SpaceQuery) CheckStencil(st *smart.Stencil, file string, gpu smart.GPU) error {
	if q.GPU == "" {
		return nil
	}
	return checkMemory(st, file, gpu)
}
