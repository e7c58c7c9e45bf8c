package predict

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"smart"
	"smart/data"
	"smart/dataset"
)

// TestEmbeddedFastestIsCurrent sets the embedded fastest measured variants against those of the
// data sets under data/measured as they are now: measuring more without go generate ./data fails.
func TestEmbeddedFastestIsCurrent(t *testing.T) {
	emb, err := dataset.ParseFastest(data.Fastest(), "embedded")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "data", "measured")
	dirs, err := dataset.Glob([]string{filepath.Join(root, "*", "*", dataset.RowsFile), filepath.Join(root, "*", "*", "*", dataset.RowsFile)})
	if err != nil {
		t.Fatal(err)
	}
	now, err := dataset.FastestMeasured(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Fastest) != len(now.Fastest) {
		t.Fatalf("%d embedded, %d in data/measured: run go generate ./data", len(emb.Fastest), len(now.Fastest))
	}
	for i, e := range emb.Fastest {
		n := now.Fastest[i]
		if e.GPU != n.GPU || e.StencilID != n.StencilID || e.TimeMs != n.TimeMs || e.Variants != n.Variants || e.OC != n.OC || e.Setting.String() != n.Setting.String() {
			t.Errorf("embedded %s on %s: %g ms (%s) of %d; data/measured: %g ms (%s) of %d: run go generate ./data", e.Stencil, e.GPU, e.TimeMs, e.OC, e.Variants, n.TimeMs, n.OC, n.Variants)
		}
	}
}

// TestPredictSetsMeasuredAgainst: a stencil measured on the GPU asked about gets the fastest
// measured kernel beside the prediction and in the command that times the candidates; on
// another GPU it is listed under the table; without measurements nothing is said.
func TestPredictSetsMeasuredAgainst(t *testing.T) {
	p := defaultPredictor(t)
	st := sample(t, "j2d9pt")
	set, err := smart.ParseSetting("bx=32,by=4,shared=0,const=0")
	if err != nil {
		t.Fatal(err)
	}
	base, err := smart.ParseCombination("BASE")
	if err != nil {
		t.Fatal(err)
	}
	p.Measured = &dataset.FastestFile{Format: dataset.FastestFormat, Fastest: []dataset.Fastest{
		{GPU: "H100-SXM", StencilID: st.ID(), Stencil: st.Name, OC: base, Setting: set, TimeMs: 0.5, Variants: 7},
		{GPU: "H200", StencilID: st.ID(), Stencil: st.Name, OC: base, Setting: set, TimeMs: 0.4, Variants: 3},
		{GPU: "H100-SXM", StencilID: "another", Stencil: "other", OC: base, Setting: set, TimeMs: 0.1, Variants: 1},
	}}
	in := Input{Stencil: st, File: "j2d9pt.json"}
	pr, err := p.Predict(context.Background(), in, "h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Measured) != 2 || pr.Measured[0].GPU != "H200" || pr.Measured[1].GPU != "H100-SXM" {
		t.Fatalf("measured: %+v; want the H200's and the H100's, fastest first", pr.Measured)
	}
	if !strings.HasSuffix(pr.Measure, " --setting BASE:"+set.String()+" --out j2d9pt-candidates") {
		t.Errorf("the candidates' command does not time the fastest kernel measured: %s", pr.Measure)
	}
	var b bytes.Buffer
	if err := pr.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "measured on the H100-SXM (smart's own runs, 0001-01-01): the fastest of the 7 variants run in full is BASE at 0.5 ms per step") {
		t.Errorf("no line for the measured kernel:\n%s", b.String())
	}

	pr, err = p.Predict(context.Background(), in, "a100")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := pr.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "(smart's own runs, ") || !strings.Contains(b.String(), "measured (smart's own runs of this stencil): H200 0.4 ms/step (BASE, fastest of 3); H100-SXM 0.5 ms/step") {
		t.Errorf("on the A100: want the measured kernels under the table alone:\n%s", b.String())
	}
	if strings.Count(pr.Measure, "--setting") != len(pr.Candidates) {
		t.Errorf("the A100's command times a kernel measured on another GPU: %s", pr.Measure)
	}

	p.Measured = nil
	pr, err = p.Predict(context.Background(), in, "h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Measured) != 0 || strings.Count(pr.Measure, "--setting") != len(pr.Candidates) {
		t.Errorf("without measurements: %+v, %s", pr.Measured, pr.Measure)
	}
}
