package transfer_test

import (
	"fmt"

	"smart"
	"smart/catalog"
	"smart/transfer"
)

// A kernel measured on an A100 and an RTX A6000, predicted on an RTX A4000 it never ran on,
// then corrected by four settings measured there.
func Example() {
	cat, _ := catalog.Default()
	gpu := func(name string) smart.GPU { g, _ := cat.Lookup(name); return g }
	rows := func(g string, scale float64) []smart.Measurement {
		var out []smart.Measurement
		for b := 1; b <= 8; b++ {
			out = append(out, smart.Measurement{Kernel: "saxpy", GPU: g, Setting: smart.Setting{"block": 32 * b},
				Status: smart.StatusOK, TimeMs: scale * (1 + float64((b-3)*(b-3))/10)})
		}
		return out
	}
	sources := []transfer.Source{
		{GPU: gpu("A100-40GB"), Rows: rows("A100-40GB", 1)},
		{GPU: gpu("RTX-A6000"), Rows: rows("RTX-A6000", 1.3)},
	}
	p, _ := transfer.Predict(sources, transfer.Target{GPU: gpu("RTX-A4000")}, transfer.Settings{})
	fmt.Printf("zero-shot: %s at %.2f ms\n", p.Variants[0].Setting, p.Variants[0].TimeMs)

	shots := rows("RTX-A4000", 2.5)[:4] // what measuring four settings there gave
	p, _ = transfer.Predict(sources, transfer.Target{GPU: gpu("RTX-A4000"), Shots: shots}, transfer.Settings{})
	fmt.Printf("4 shots (%s): %s at %.2f ms\n", p.Correction, p.Variants[0].Setting, p.Variants[0].TimeMs)
	// Output:
	// zero-shot: block=96 at 2.13 ms
	// 4 shots (level): block=96 at 2.50 ms
}
