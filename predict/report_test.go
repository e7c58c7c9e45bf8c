package predict

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/dataset"
)

// TestWriteHTML checks the page is self-contained (no script, nothing loaded from elsewhere),
// holds the three charts as inline SVG in the page's font and width, says before the charts
// what stands behind the times, breaks settings only between parameters, and escapes a stencil
// name that holds markup.
func TestWriteHTML(t *testing.T) {
	times := []GPUTime{timed("fast-dear", 1, 7.2), timed("mid", 2, 3.6), timed("owned", 3, 0), timed("slow-cheap", 4, 0.9), {GPU: "amd", Reason: "AMD GPU: smart's kernels are CUDA"}}
	measured := Provenance{Basis: BasisMeasured, Model: "runtime.smartmodel", Text: "trained on measurements of this GPU"}
	simulated := Provenance{Basis: BasisSimulated, Model: "runtime.smartmodel", Text: "simulated: analytic model, no measurements of this GPU"}
	for i, p := range []Provenance{simulated, measured, simulated, simulated} {
		times[i].Best.Source = p
		times[i].Best.Setting = smart.Setting{"bx": 32, "by": 4, "shared": 1}
		times[i].Best.Interval = &smart.Interval{Level: 0.8, LoMs: times[i].Best.TimeMs * 0.5, HiMs: times[i].Best.TimeMs * 2.5}
	}
	times[3].Best.Bounded = &Bounded{By: BoundFloor, LearnedMs: 3}
	r, err := rankAll(times, Workload{Steps: 1000}, "owned")
	if err != nil {
		t.Fatal(err)
	}
	r.Stencil = StencilInfo{Name: `<script>alert("x")</script>`, Dims: 2, Order: 1, Points: 5, Grid: []int{64, 64}, Dtype: "float64"}
	r.Measured = []dataset.Fastest{{GPU: "mid", OC: smart.Combination(0).With(smart.ST), Setting: smart.Setting{"bx": 64, "by": 2}, TimeMs: 2.25, Variants: 40, Device: "<b>card</b>"}}
	var b bytes.Buffer
	if err := WriteHTML(&b, []*Recommendation{r}, nil, time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, `alert("x")`) {
		t.Error("the stencil name reached the page unescaped")
	}
	if n := strings.Count(page, `<svg class="chart" viewBox=`); n != 3 {
		t.Errorf("%d inline SVG charts sized by the page, want 3 (time, cost, best OC)", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration inside the HTML")
	}
	if strings.Contains(page[strings.Index(page, "<svg"):], "font-family") {
		t.Error("the charts name a font of their own; they should take the page's")
	}
	if ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|@import|url\(`).FindString(page); ext != "" {
		t.Errorf("the page loads something from elsewhere: %q", ext)
	}
	for _, want := range []string{"Fastest: <strong>fast-dear</strong>", "Most cost-efficient: <strong>slow-cheap</strong>",
		"the fast-dear is predicted 3.00x faster than your owned", "AMD GPU: smart&#39;s kernels are CUDA", "2026-01-02 03:04 UTC",
		`<span class="p">bx=32</span>,<wbr><span class="p">by=4</span>,<wbr><span class="p">shared=1</span>`,
		`<span class="key" style="background: #2ca02c"></span>fastest`,
		// fast-dear's 0.5-2.5 ms overlaps mid's 1-5, owned's 1.5-7.5 and slow-cheap's 2-10.
		"<td class=\"n\">0.5-2.5</td>", "80% interval</th>", "overlaps\nthose of mid, owned, slow-cheap",
		"A bound answered instead of the model for slow-cheap (copy floor)",
		"<li><span class=\"basis measured\">measured</span> mid: 2.25 ms/step, ST <code>bx=64,by=2</code>, the fastest of 40 variants (&lt;b&gt;card&lt;/b&gt;)</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The first screen, before the charts: each basis once, strongest first, with its GPUs.
	first := page[:strings.Index(page, "<svg")]
	m := strings.Index(first, `<span class="basis measured">measured</span> mid: trained on measurements of this GPU (runtime.smartmodel)`)
	s := strings.Index(first, `<span class="basis simulated">simulated</span> fast-dear, owned, slow-cheap: analytic model, no measurements of this GPU (runtime.smartmodel)`)
	if m < 0 || s < m {
		t.Errorf("before the charts, want the measured GPU, then the simulated ones; the page begins:\n%s", first)
	}
}

// TestAxisTicks: about ten ticks at a round step from 0, the axis ending on the first tick at
// least 3% beyond the largest value, labels with the step's decimals.
func TestAxisTicks(t *testing.T) {
	for _, c := range []struct {
		max         float64
		end         float64
		first, last string
		n           int
	}{
		{9.577, 10, "0", "10", 11},
		{10, 11, "0", "11", 12},             // a value on a tick: one tick more, so the bar ends inside
		{0.1399, 0.16, "0.00", "0.16", 9},   // 0.14 is too close
		{0.25, 0.275, "0.000", "0.275", 12}, // step 0.025
		{1234, 1400, "0", "1400", 8},        // step 200
		{0, 1.1, "0.0", "1.1", 12},          // nothing to draw: the unit axis
	} {
		ticks, end := axisTicks(c.max)
		if d := end - c.end; d > 1e-9 || d < -1e-9 || len(ticks) != c.n || ticks[0].Label != c.first || ticks[len(ticks)-1].Label != c.last {
			t.Errorf("axisTicks(%v): %d ticks %q..%q ending at %v; want %d, %q..%q, %v", c.max, len(ticks), ticks[0].Label, ticks[len(ticks)-1].Label, end, c.n, c.first, c.last, c.end)
		}
		if end < 1.03*c.max {
			t.Errorf("axisTicks(%v): the axis ends at %v, not beyond the value", c.max, end)
		}
	}
}
