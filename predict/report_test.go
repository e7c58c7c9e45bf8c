package predict

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWriteHTML checks the page is self-contained (no script, nothing loaded from elsewhere),
// holds the three charts as inline SVG, and escapes a stencil name that holds markup.
func TestWriteHTML(t *testing.T) {
	times := []GPUTime{timed("fast-dear", 1, 7.2), timed("mid", 2, 3.6), timed("owned", 3, 0), timed("slow-cheap", 4, 0.9), {GPU: "amd", Reason: "AMD GPU: smart's kernels are CUDA"}}
	r, err := rankAll(times, Workload{Steps: 1000}, "owned")
	if err != nil {
		t.Fatal(err)
	}
	r.Stencil = StencilInfo{Name: `<script>alert("x")</script>`, Dims: 2, Order: 1, Points: 5, Grid: []int{64, 64}, Dtype: "float64"}
	var b bytes.Buffer
	if err := WriteHTML(&b, []*Recommendation{r}, time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script") || strings.Contains(page, `alert("x")`) {
		t.Error("the stencil name reached the page unescaped")
	}
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d inline SVG charts, want 3 (time, cost, best OC)", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration inside the HTML")
	}
	if ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:|//)|@import|url\(`).FindString(page); ext != "" {
		t.Errorf("the page loads something from elsewhere: %q", ext)
	}
	for _, want := range []string{"Fastest: <strong>fast-dear</strong>", "Most cost-efficient: <strong>slow-cheap</strong>",
		"the fast-dear is predicted 3.00x faster than your owned", "AMD GPU: smart&#39;s kernels are CUDA", "2026-01-02 03:04 UTC"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
