package app

import (
	"fmt"
	"io"

	"smart"
	"smart/campaign"
	"smart/predict"
)

// CampaignReport is what a campaign call did, against its manifest.
type CampaignReport struct {
	Out          string       `json:"out"`
	Manifest     string       `json:"manifest"`
	GPU          string       `json:"gpu"`
	Source       smart.Source `json:"source"`
	Rows         int          `json:"rows"`
	OK           int          `json:"ok"`
	Rows2D       int          `json:"rows_2d"`
	Rows3D       int          `json:"rows_3d"`
	Cut          int          `json:"cut"`
	Seconds      float64      `json:"seconds"`
	RowsPerMin   float64      `json:"rows_per_minute"`
	StencilsDone int          `json:"stencils_done"`
	Stencils     int          `json:"stencils"`
	Stopped      bool         `json:"stopped"`
	CopyGBs      float64      `json:"copy_gb_per_s,omitempty"`
	CompileS     float64      `json:"compile_s,omitempty"` // summed wall time of the compiler runs
	GPUS         float64      `json:"gpu_s,omitempty"`     // running variants, harness start-ups included
	WaitS        float64      `json:"wait_s,omitempty"`    // the GPU waiting for compiles
	Compiles     int          `json:"compiles,omitempty"`
	Starts       int          `json:"starts,omitempty"` // harness processes
	Error        string       `json:"error,omitempty"`  // what stopped the call early
}

// Report is the report of call c, of manifest m, which err stopped early (nil: none).
func (c CampaignCall) Report(m *campaign.Manifest, err error) CampaignReport {
	r := CampaignReport{Out: c.Out, Manifest: m.Hash(), GPU: c.GPU, Source: c.Source, Rows: c.Rows, OK: c.OK,
		Rows2D: c.Rows2D, Rows3D: c.Rows3D, Cut: c.Cut, Seconds: c.End.Sub(c.Start).Seconds(),
		RowsPerMin: c.RowsPerMinute(), StencilsDone: c.StencilsDone, Stencils: len(m.Entries), Stopped: c.Stopped,
		CompileS: c.CompileS, GPUS: c.GPUS, WaitS: c.WaitS, Compiles: c.Compiles, Starts: c.Starts, CopyGBs: c.CopyGBs}
	if err != nil {
		r.Error = stopReason(err)
	}
	return r
}

// WriteText writes the rows of the call, its rate and where its time went; not whether it
// stopped early, which the caller words.
func (r CampaignReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d rows (%s on %s): %d ok, %d cut short; 2-D %d, 3-D %d\n", r.Out, r.Rows, r.Source, r.GPU, r.OK, r.Cut, r.Rows2D, r.Rows3D)
	fmt.Fprintf(w, "%s, %.0f rows a minute; %d of %d stencils of the manifest done\n", predict.FormatSeconds(r.Seconds), r.RowsPerMin, r.StencilsDone, r.Stencils)
	if r.Compiles > 0 {
		fmt.Fprintf(w, "time: compilers %.0f s in %d runs, GPU %.0f s (%d harness processes), waiting for compiles %.0f s\n", r.CompileS, r.Compiles, r.GPUS, r.Starts, r.WaitS)
	}
	if r.CopyGBs > 0 {
		_, err := fmt.Fprintf(w, "device-to-device copy: %.0f GB/s\n", r.CopyGBs)
		return err
	}
	return nil
}
