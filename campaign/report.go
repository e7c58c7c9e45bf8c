package campaign

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"smart"
	"smart/dataset"
)

// DataSetStatus is how far a campaign data set has measured its manifest, and its calls.
type DataSetStatus struct {
	Out      string       `json:"out"`
	GPU      string       `json:"gpu"`
	Source   smart.Source `json:"source"`
	Rows     int          `json:"rows"`
	Done     int          `json:"stencils_done"`
	Started  int          `json:"stencils_started"`
	Stencils int          `json:"stencils"`
	Calls    []Call       `json:"calls"`
}

// StatusReport is the status of campaign data sets.
type StatusReport []DataSetStatus

// Status reads the campaign data sets dirs, each of which must have been measured from m.
func (m *Manifest) Status(ctx context.Context, dirs []string) (StatusReport, error) {
	out := StatusReport{}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		meta, rows, err := dataset.ReadAll(dir)
		if err != nil {
			return nil, err
		}
		if err := m.measuredIn(dir, meta.Plan); err != nil {
			return nil, err
		}
		calls, err := ReadCalls(dir)
		if err != nil {
			return nil, err
		}
		s := DataSetStatus{Out: dir, GPU: meta.Devices[0].GPU, Source: meta.Sources[0], Rows: len(rows), Stencils: len(m.Entries), Calls: calls}
		s.Done, s.Started = m.Progress(rows)
		out = append(out, s)
	}
	return out, nil
}

// WriteTables writes, per data set, the stencils measured and a table of its calls.
func (r StatusReport) WriteTables(w io.Writer) error {
	for _, s := range r {
		fmt.Fprintf(w, "%s (%s, %s): %d rows; %d of %d stencils started, %d of them done\n", s.Out, s.GPU, s.Source, s.Rows, s.Started, s.Stencils, s.Done)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  start\tminutes\trows\tok\tcut\t2-D\t3-D\trows/min\tcard")
		for _, c := range s.Calls {
			fmt.Fprintf(tw, "  %s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\n", c.Start.Format("2006-01-02 15:04"), c.End.Sub(c.Start).Minutes(),
				c.Rows, c.OK, c.Cut, c.Rows2D, c.Rows3D, c.RowsPerMinute(), c.UUID)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// Invalid counts the manifest's variants that are OCs without a valid setting, recorded
// without running.
func (m *Manifest) Invalid() int {
	n := 0
	for _, it := range m.items {
		if it.Invalid != "" {
			n++
		}
	}
	return n
}
