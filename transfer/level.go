package transfer

// The target's level: the hardware ratio of two GPUs and the share of bandwidth in it.

import (
	"math"
	"slices"

	"smart"
)

// hardwareKnown reports whether g has what the hardware ratio needs.
func hardwareKnown(g smart.GPU, fp64 bool) bool { return g.BandwidthGBs > 0 && flops(g, fp64) > 0 }

func flops(g smart.GPU, fp64 bool) float64 {
	if fp64 {
		return g.FP64TFLOPS
	}
	return g.FP32TFLOPS
}

// hardware is a GPU's ln time scale at a share: lower on a faster GPU. It compares the devices
// a kernel runs on (one die of the MI250X), not the boards the catalogue describes.
func hardware(g smart.GPU, share float64, fp64 bool) float64 {
	d := g.Device()
	return -share*math.Log(d.BandwidthGBs) - (1-share)*math.Log(flops(d, fp64))
}

// levelFrom is the target's ln level of a kernel as the sources that ran it say it at a share
// (their own level where the hardware is unknown: the shots then move it); false where none ran it.
func (st *state) levelFrom(srcs []*index, centers func(*index) (float64, bool), tgt smart.GPU, share float64) (float64, bool) {
	sum, n := 0.0, 0
	for _, ix := range srcs {
		c, ok := centers(ix)
		if !ok {
			continue
		}
		if st.hw {
			c += hardware(tgt, share, st.s.FP64) - hardware(ix.gpu, share, st.s.FP64)
		}
		sum += c
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// centerOf reads a source's level of one kernel.
func centerOf(id string) func(*index) (float64, bool) {
	return func(ix *index) (float64, bool) { c, ok := ix.center[id]; return c, ok }
}

// fitShare chooses the share: the settings' where given; else, with three or more sources, the
// one that best predicts each source's level from the others' (on a grid of twentieths, ties to
// the nearer to DefaultShare); else DefaultShare.
func (st *state) fitShare() {
	switch {
	case !st.hw || st.s.Ratio != nil:
	case st.s.Share > 0:
		st.share = st.s.Share
	case len(st.used) >= 3:
		best, bestErr := DefaultShare, math.Inf(1)
		for i := 0; i <= 20; i++ {
			share := float64(i) / 20
			e := 0.0
			for j, held := range st.used {
				others := slices.Delete(slices.Clone(st.used), j, j+1)
				for id, c := range held.center {
					if l, ok := st.levelFrom(others, centerOf(id), held.gpu, share); ok {
						e += (l - c) * (l - c)
					}
				}
			}
			if e < bestErr-1e-12 || (math.Abs(e-bestErr) <= 1e-12 && math.Abs(share-DefaultShare) < math.Abs(best-DefaultShare)) {
				best, bestErr = share, e
			}
		}
		st.share, st.fitted = best, true
	default:
		st.share = DefaultShare
	}
	st.level = map[string]float64{}
	for _, id := range st.ids {
		st.level[id], _ = st.levelFrom(st.used, centerOf(id), st.target.GPU, st.share)
	}
}
