package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/bit"
)

// TestAnalyse builds a data set of format 3 from committed H100 rows, whose compiler facts are
// made up so that the answers are known: registers twice the estimate on every row (ratio 2,
// MAPE 50%, every estimate below, rank correlation 1), local memory on every third row. A
// committed data set without facts adds ok rows and nothing else.
func TestAnalyse(t *testing.T) {
	src := filepath.Join("..", "..", "data", "measured", "h100-sxm", "random", "j2d9pt-gol")
	meta, rows, err := dataset.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	st, err := dataset.ReadStencil(src, rows[0].StencilID)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "facts")
	meta.Format = "" // the current format, which has the columns
	w, err := dataset.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddStencil(st); err != nil {
		t.Fatal(err)
	}
	best := math.Inf(1)
	for _, m := range rows {
		if m.OK() {
			best = min(best, m.TimeMs)
		}
	}
	var local []float64 // the slowdowns of the rows given local memory
	ok := 0
	for i, m := range rows {
		if m.OK() {
			tu, err := smart.DecodeTuning(st.Dims, m.OC, m.Setting)
			if err != nil {
				t.Fatal(err)
			}
			u := tu.Usage(st)
			m.Compiled = &smart.Compiled{RegsPerThread: 2 * (u.RegsPerThread + u.FusedRegs)}
			if i%3 == 0 {
				m.Compiled.LocalBytesPerThread = 16
				local = append(local, m.TimeMs/best)
			}
			ok++
		}
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join("..", "..", "data", "measured", "h100-sxm", "random", "j2d13pt")
	_, plainRows, err := dataset.ReadAll(plain)
	if err != nil {
		t.Fatal(err)
	}
	plainOK := 0
	for _, m := range plainRows {
		plainOK += bit.Of(m.OK())
	}

	r, err := analyse([]string{dir, plain}, cat, dataset.NewCompiledFacts())
	if err != nil {
		t.Fatal(err)
	}
	a := r.All
	switch {
	case r.DataSets != 2 || r.OKRows != ok+plainOK || r.WithFacts != ok:
		t.Errorf("%d data sets, %d ok rows, %d with facts; want 2, %d, %d", r.DataSets, r.OKRows, r.WithFacts, ok+plainOK, ok)
	case a.N != ok || a.MedianRatio != 2 || math.Abs(a.MAPE-50) > 1e-9 || a.Under != 1 || math.Abs(a.Spearman-1) > 1e-12:
		t.Errorf("agreement %+v; want %d rows, ratio 2, MAPE 50%%, all below, Spearman 1", a, ok)
	case r.Spill[0][1]+r.Spill[1][1] != len(local) || r.Spill[0][0]+r.Spill[1][0] != ok-len(local):
		t.Errorf("spill table %v; want %d rows with local memory and %d without", r.Spill, len(local), ok-len(local))
	}
	n := 0
	for _, g := range r.ByOC {
		n += g.N
	}
	if n != ok {
		t.Errorf("the OCs' groups hold %d rows, want %d", n, ok)
	}
	slices.Sort(local)
	want := local[len(local)/2]
	if len(local)%2 == 0 { // the mean of the two middle ones
		want = (local[len(local)/2-1] + want) / 2
	}
	if r.SlowdownLocal != want {
		t.Errorf("slowdown with local memory %v, want %v", r.SlowdownLocal, want)
	}
}

// TestFactsFile: facts written for three rows of a data set that has none are read back and
// used for those rows alone; a last line cut short is left out, a bad line elsewhere refused.
func TestFactsFile(t *testing.T) {
	plain := filepath.Join("..", "..", "data", "measured", "h100-sxm", "random", "j2d13pt")
	_, rows, err := dataset.ReadAll(plain)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "compiled.csv")
	text := strings.Join(dataset.CompiledHeader(), ",") + "\n"
	n := 0
	for _, m := range rows {
		if m.OK() && n < 3 {
			text += fmt.Sprintf("%s,%s,\"%s\",sm_90,nvcc test,%d,0\n", m.StencilID, m.OC, m.Setting, 40+n)
			n++
		}
	}
	if err := os.WriteFile(path, []byte(text+"cut,ST,\"bx=1\",sm_9"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := dataset.ReadCompiledFacts(path)
	if err != nil || len(f.Facts) != 3 {
		t.Fatalf("read %d facts (%v), want 3", len(f.Facts), err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	r, err := analyse([]string{plain}, cat, f)
	if err != nil || r.WithFacts != 3 || r.FromFile["nvcc test"] != 3 {
		t.Fatalf("%d rows with facts, %v from the file (%v); want 3, all from the file", r.WithFacts, r.FromFile, err)
	}
	if err := os.WriteFile(path, []byte(text+"bad,line\n"+text[len(strings.Join(dataset.CompiledHeader(), ","))+1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.ReadCompiledFacts(path); err == nil {
		t.Error("a bad line before the last was accepted")
	}
}

// TestParsePtxas reads what ptxas 11.8 printed for a variant of two kernels: the largest of each.
func TestParsePtxas(t *testing.T) {
	out := `ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN1a9kernel_t1EPKdPd' for 'sm_90'
ptxas info    : Function properties for _ZN1a9kernel_t1EPKdPd
    640 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers
ptxas info    : Compiling entry function '_ZN1a9kernel_t2EPKdPd' for 'sm_90'
ptxas info    : Function properties for _ZN1a9kernel_t2EPKdPd
    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, 360 bytes cmem[0]
`
	c, err := parsePtxas(out)
	if err != nil || c.RegsPerThread != 255 || c.LocalBytesPerThread != 640 {
		t.Errorf("parsed %+v (%v), want 255 registers and 640 bytes", c, err)
	}
	if _, err := parsePtxas("ptxas info    : 0 bytes gmem\n"); err == nil {
		t.Error("an output without registers was accepted")
	}
}
