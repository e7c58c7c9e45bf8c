package transfer

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"smart/dataset"
)

// WriteText writes the prediction as smart transfer prints it: the target, the sources and
// the basis, the interval, and the top fastest settings.
func (p *Prediction) WriteText(w io.Writer, top int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s, predicted from %s", p.Target, strings.Join(p.Sources, ", "))
	switch {
	case len(p.Ignored) > 0:
		fmt.Fprintf(bw, " (other vendor, left out: %s)", strings.Join(p.Ignored, ", "))
	case p.OtherVendor:
		bw.WriteString(" (every one of another vendor)")
	}
	fmt.Fprintf(bw, "\nbasis: %s\n", p.Basis)
	if iv := p.Interval; iv != nil {
		fmt.Fprintf(bw, "%.0f%% interval: x%.2f to x%.2f of each time (from %s)\n", 100*iv.Level, math.Exp(iv.LogLo), math.Exp(iv.LogHi), iv.From)
	} else {
		fmt.Fprintf(bw, "no interval: %s\n", p.NoInterval)
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	several := severalKernels(p.Variants) // then each row names its kernel
	if several {
		fmt.Fprintln(tw, "rank\ttime ms\tinterval\t\tkernel\tsetting")
	} else {
		fmt.Fprintln(tw, "rank\ttime ms\tinterval\t\tsetting")
	}
	for i, v := range p.Variants[:min(max(top, 0), len(p.Variants))] {
		iv, what := "", ""
		if v.HiMs > 0 {
			iv = fmt.Sprintf("%.4g-%.4g", v.LoMs, v.HiMs)
		}
		switch {
		case v.Shot:
			what = "measured"
		case v.Floored:
			what = "floor" // the stencil's copies or FMAs at the target's peak: Settings.Floor
		}
		if several {
			what += "\t" + v.kernelName(p.Names)
		}
		fmt.Fprintf(tw, "%d\t%.4g\t%s\t%s\t%s\n", i+1, v.TimeMs, iv, what, v.Label(p.Params))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteNotes writes what a reader of the prediction should know beside it (smart transfer
// prints it on stderr): the shots left out, at settings no source holds, named (the first
// maxNamed of them).
func (p *Prediction) WriteNotes(w io.Writer) error {
	if len(p.LeftOut) == 0 {
		return nil
	}
	var names []string
	for _, v := range p.LeftOut[:min(len(p.LeftOut), maxNamed)] {
		names = append(names, v.Label(p.Params))
	}
	if len(p.LeftOut) > maxNamed {
		names = append(names, fmt.Sprintf("and %d more", len(p.LeftOut)-maxNamed))
	}
	_, err := fmt.Fprintf(w, "note: %d shots left out: no source holds their settings, so nothing predicts them, they correct nothing and nothing written holds them: %s\n",
		len(p.LeftOut), strings.Join(names, "; "))
	return err
}

// maxNamed is the most settings a note names.
const maxNamed = 5

// WriteShots writes the settings ChooseShots chose for target, numbered in the order to
// measure them, their values as params print them (nil: as held); where they are of several
// kernels, each names its own (by names, the stencils' names by ID, where given).
func WriteShots(w io.Writer, target string, vs []Variant, params []dataset.Param, names map[string]string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "measure these %d settings on %s first (the zero-shot ranking's fastest, then one per stratum of it, spreading the parameters):\n", len(vs), target)
	several := severalKernels(vs)
	for i, v := range vs {
		if several {
			fmt.Fprintf(bw, "%3d  %s: %s\n", i+1, v.kernelName(names), v.Label(params))
		} else {
			fmt.Fprintf(bw, "%3d  %s\n", i+1, v.Label(params))
		}
	}
	return bw.Flush()
}

// severalKernels reports whether vs are of more than one kernel.
func severalKernels(vs []Variant) bool {
	for _, v := range vs {
		if v.Kernel != vs[0].Kernel || v.StencilID != vs[0].StencilID {
			return true
		}
	}
	return false
}

// kernelName is the variant's kernel as a person reads it: its stencil's name where names has
// it, else the stencil's ID or the kernel's name.
func (v Variant) kernelName(names map[string]string) string {
	return cmp.Or(names[v.StencilID], v.StencilID, v.Kernel)
}

// Label is the variant's OC and setting as a person reads them; the setting alone for a
// kernel without OCs, each value as params print it (dataset.Param.Text; nil: as held).
func (v Variant) Label(params []dataset.Param) string {
	set := dataset.SettingText(v.Setting, params)
	if v.OC == 0 && v.StencilID == "" {
		return set
	}
	return v.OC.String() + " " + set
}
