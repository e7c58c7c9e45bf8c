package catalog

import (
	"fmt"

	"smart"
)

// Hypothetical returns g with other per-block limits: regsPerThread registers per thread and
// sharedKB KiB of shared memory per block, each where positive. The per-SM amounts they would
// exceed are raised with them; the GPU is no longer held to its compute capability's limits,
// but must still pass Validate. Its name says what was changed.
func Hypothetical(g smart.GPU, regsPerThread, sharedKB int) (smart.GPU, error) {
	if regsPerThread > 0 {
		g.MaxRegsPerThread = regsPerThread
		g.RegsPerBlock, g.RegsPerSM = max(g.RegsPerBlock, regsPerThread), max(g.RegsPerSM, regsPerThread)
	}
	if sharedKB > 0 {
		g.SharedPerBlockKB, g.SharedPerSMKB = sharedKB, max(g.SharedPerSMKB, sharedKB)
	}
	if err := Validate(g); err != nil {
		return g, err
	}
	if regsPerThread > 0 {
		g.Name += fmt.Sprintf(" (%d registers per thread)", regsPerThread)
	}
	if sharedKB > 0 {
		g.Name += fmt.Sprintf(" (%d KiB shared per block)", sharedKB)
	}
	return g, nil
}
