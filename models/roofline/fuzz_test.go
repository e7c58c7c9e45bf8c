package roofline_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"smart"
	"smart/catalog"
	"smart/generator"
	"smart/models/roofline"
	"smart/space"
)

// FuzzModelOnUserGPU describes a GPU in a user's catalogue file with fuzzed numbers: where the
// catalogue accepts it, every setting the space draws for it must decode and the model must give
// it a positive, finite time or an error, never a panic, a zero or an infinity.
func FuzzModelOnUserGPU(f *testing.F) {
	// An H100-SXM's numbers, and a small Hopper's.
	f.Add(132, 3350.0, 50.0, 228, 227, 65536, 65536, 255, 2048, 1024, 32, 34.0, 67.0, 1980, 64, 32, uint8(0))
	f.Add(16, 500.0, 8.0, 228, 227, 65536, 65536, 255, 2048, 1024, 32, 2.0, 4.0, 1200, 64, 32, uint8(7))
	def, err := catalog.Default()
	if err != nil {
		f.Fatal(err)
	}
	var stencils []*smart.Stencil
	for _, name := range []string{"j2d5pt", "j3d7pt"} {
		st, err := generator.Load(name, nil, smart.Limits{})
		if err != nil {
			f.Fatal(err)
		}
		stencils = append(stencils, st)
	}
	ocs := smart.Combinations()
	f.Fuzz(func(t *testing.T, sms int, bw, l2 float64, shSM, shBlock, regsSM, regsBlock, maxRegs, threadsSM, threadsBlock, blocksSM int,
		fp64, fp32 float64, clock, constKB, warp int, pick uint8) {
		file := fmt.Appendf(nil, `{"format":"smart-gpus/1","gpus":[{"name":"X1","vendor":"NVIDIA","arch":"Hopper","compute_capability":"9.0",`+
			`"sms":%d,"memory_gb":80,"bandwidth_gbs":%g,"l2_mb":%g,"shared_per_sm_kb":%d,"shared_per_block_kb":%d,"regs_per_sm":%d,`+
			`"regs_per_block":%d,"max_regs_per_thread":%d,"max_threads_per_sm":%d,"max_threads_per_block":%d,"max_blocks_per_sm":%d,`+
			`"fp64_tflops":%g,"fp32_tflops":%g,"boost_clock_mhz":%d,"constant_memory_kb":%d,"warp_size":%d,"price":null,"sources":{"*":"fuzz"}}]}`,
			sms, bw, l2, shSM, shBlock, regsSM, regsBlock, maxRegs, threadsSM, threadsBlock, blocksSM, fp64, fp32, clock, constKB, warp)
		cat, err := def.Merge(file, "user.json")
		if err != nil {
			return
		}
		g, err := cat.Lookup("X1")
		if err != nil {
			t.Fatalf("the merged GPU is not found: %v", err)
		}
		st := stencils[int(pick)%len(stencils)]
		oc := ocs[int(pick/2)%len(ocs)]
		lazy, err := space.LazyForStencil(st, oc, g)
		if err != nil {
			return
		}
		rng := rand.New(rand.NewPCG(1, uint64(pick)))
		for range 3 {
			v, ok := lazy.Draw(rng)
			if !ok {
				continue // a dead end: the draw binds parameters one by one
			}
			tu, err := smart.DecodeTuning(st.Dims, oc, lazy.Setting(v))
			if err != nil {
				t.Fatalf("a drawn setting does not decode: %v", err)
			}
			e, err := roofline.Model(st, tu, g)
			if err == nil && !(e.TimeMs > 0 && !math.IsInf(e.TimeMs, 0)) {
				t.Fatalf("%s %v on %+v: %v ms", oc, lazy.Setting(v), g, e.TimeMs)
			}
		}
	})
}
