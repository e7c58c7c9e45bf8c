package catalog

import (
	"reflect"
	"testing"

	"smart"
)

func TestHypothetical(t *testing.T) {
	base := smart.SM80()
	tests := []struct {
		regs, shared int
		name         string
		check        func(g smart.GPU) bool
		fails        bool
	}{
		{0, 0, "sm_80", func(g smart.GPU) bool { return reflect.DeepEqual(g, base) }, false},
		// 128 KiB per block exceeds nothing per SM (164 KiB): only the per-block limit moves.
		{0, 128, "sm_80 (128 KiB shared per block)", func(g smart.GPU) bool {
			return g.SharedPerBlockKB == 128 && g.SharedPerSMKB == base.SharedPerSMKB
		}, false},
		// More shared memory per block than an SM has raises the SM's with it.
		{0, 200, "sm_80 (200 KiB shared per block)", func(g smart.GPU) bool { return g.SharedPerBlockKB == 200 && g.SharedPerSMKB == 200 }, false},
		{64, 0, "sm_80 (64 registers per thread)", func(g smart.GPU) bool {
			return g.MaxRegsPerThread == 64 && g.RegsPerBlock == base.RegsPerBlock && g.RegsPerSM == base.RegsPerSM
		}, false},
		{1 << 31, 0, "", nil, true}, // beyond the bound Validate puts on every number
	}
	for _, tt := range tests {
		g, err := Hypothetical(base, tt.regs, tt.shared)
		if tt.fails {
			if err == nil {
				t.Errorf("regs %d, shared %d: no error", tt.regs, tt.shared)
			}
			continue
		}
		if err != nil || g.Name != tt.name || !tt.check(g) {
			t.Errorf("regs %d, shared %d: %+v, %v", tt.regs, tt.shared, g, err)
		}
	}
}
