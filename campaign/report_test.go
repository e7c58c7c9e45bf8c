package campaign

import (
	"bytes"
	"testing"
	"time"

	"smart"
)

// TestStatusReportText: the text counts the stencils started and done as the JSON does
// (stencils_started holds those done too).
func TestStatusReportText(t *testing.T) {
	start := time.Date(2026, 3, 1, 9, 5, 0, 0, time.UTC)
	r := StatusReport{{Out: "data/measured/h100-sxm/campaign", GPU: "H100-SXM", Source: smart.Measured, Rows: 300, Done: 4, Started: 5, Stencils: 40,
		Calls: []Call{
			{Start: start, End: start.Add(90 * time.Second), Rows: 300, OK: 280, Cut: 12, Rows2D: 200, Rows3D: 100, UUID: "GPU-1"},
		}}}
	var b bytes.Buffer
	if err := r.WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	want := `data/measured/h100-sxm/campaign (H100-SXM, measured): 300 rows; 5 of 40 stencils started, 4 of them done
  start             minutes  rows  ok   cut  2-D  3-D  rows/min  card
  2026-03-01 09:05  1.5      300   280  12   200  100  200       GPU-1
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestManifestInvalid(t *testing.T) {
	var m Manifest
	for _, why := range []string{"", "no valid setting", "", "no valid setting"} {
		var it Item
		it.Invalid = why
		m.items = append(m.items, it)
	}
	if got := m.Invalid(); got != 2 {
		t.Errorf("Invalid() = %d, want 2", got)
	}
}
