package catalog

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"smart"
)

// WriteTable writes gpus as smart gpus prints them: a row each with the architecture, the
// compute capability, the SMs, memory, bandwidth, peaks and price, then where the numbers
// come from.
func WriteTable(w io.Writer, gpus []smart.GPU) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tarch\tCC\tSMs\tmemory GB\tGB/s\tFP64 TF\tFP32 TF\t$/GPU-h\tinstance\t")
	for _, g := range gpus {
		cc, price, inst := g.ComputeCapability, "-", "-"
		if cc == "" {
			cc = "-"
		}
		if g.Price != nil {
			price = fmt.Sprintf("%.3f", g.Price.USDPerHour)
			inst = g.Price.Instance
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%g\t%g\t%g\t%g\t%s\t%s\t\n", g.Name, g.Arch, cc, g.SMs, g.MemoryGB, g.BandwidthGBs,
			g.FP64TFLOPS, g.FP32TFLOPS, price, inst)
	}
	fmt.Fprintln(tw, "\nSources: every figure cites the document it comes from: a datasheet, whitepaper, CUDA Programming")
	fmt.Fprintln(tw, "Guide table, or a review where the maker gives none (smart gpus --json). Prices: on-demand, per GPU,")
	fmt.Fprintln(tw, "with the provider, region and date read; - where not rented.")
	prices := make([]*smart.Price, len(gpus))
	for i := range gpus {
		prices[i] = gpus[i].Price
	}
	if src := smart.PriceSources(prices...); len(src) > 0 {
		fmt.Fprintf(tw, "Prices: %s.\n", strings.Join(src, "; "))
	}
	return tw.Flush()
}
