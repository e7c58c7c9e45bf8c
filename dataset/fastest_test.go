package dataset

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"smart/internal/atomicfile"
)

// fastestByHand reads rows.csv of dir with encoding/csv alone: the least time of the rows
// measured in full (ok, measured, not cut short) of each GPU and stencil, and their count.
func fastestByHand(t *testing.T, dir string) map[[2]string][2]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	out := map[[2]string][2]float64{}
	for _, r := range recs[1:] {
		cut := ""
		if i, ok := col["cut"]; ok {
			cut = r[i]
		}
		if r[col["status"]] != "ok" || r[col["source"]] != "measured" || cut != "" {
			continue
		}
		ms, err := strconv.ParseFloat(r[col["time_ms"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		k := [2]string{r[col["gpu"]], r[col["stencil_id"]]}
		v, seen := out[k]
		if !seen || ms < v[0] {
			v[0] = ms
		}
		v[1]++
		out[k] = v
	}
	return out
}

// TestFastestMeasured sets the fastest variants against a reading of the rows by hand, on one
// stencil measured on two GPUs and on the campaign (whose rows may be cut short), and checks that
// a row not measured on a GPU never counts.
func TestFastestMeasured(t *testing.T) {
	root := filepath.Join("..", "data", "measured")
	dirs := []string{filepath.Join(root, "h100-sxm", "random", "j3d125pt"), filepath.Join(root, "h200", "random", "j3d125pt"), filepath.Join(root, "h100-sxm", "campaign")}
	f, err := FastestMeasured(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]string][2]float64{}
	for _, d := range dirs {
		for k, v := range fastestByHand(t, d) {
			want[k] = v
		}
	}
	if len(f.Fastest) != len(want) {
		t.Fatalf("%d fastest variants, want %d", len(f.Fastest), len(want))
	}
	for _, v := range f.Fastest {
		w := want[[2]string{v.GPU, v.StencilID}]
		if v.TimeMs != w[0] || float64(v.Variants) != w[1] || len(v.DataSets) != 1 || v.Stencil == "" || v.Setting.String() == "" {
			t.Errorf("%s on %s: %g ms of %d variants in %v; want %g ms of %g in one data set", v.Stencil, v.GPU, v.TimeMs, v.Variants, v.DataSets, w[0], w[1])
		}
	}
	var h100, h200 *Fastest
	for _, v := range f.OfStencil("9012cfcd540e9e07") {
		switch v.GPU {
		case "H100-SXM":
			h100 = &v
		case "H200":
			h200 = &v
		}
	}
	if h100 == nil || h200 == nil || h100.Stencil != "j3d125pt" || len(f.OfStencil("9012cfcd540e9e07")) != 2 {
		t.Fatalf("j3d125pt: %+v on the H100, %+v on the H200; want both", h100, h200)
	}

	// The same H100 data set with its fastest row marked simulated: the next one is the fastest.
	copyDir := t.TempDir()
	if err := os.CopyFS(copyDir, os.DirFS(dirs[0])); err != nil {
		t.Fatal(err)
	}
	rowsPath := filepath.Join(copyDir, RowsFile)
	in, err := os.Open(rowsPath)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(in).ReadAll()
	in.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	next := math.Inf(1)
	for _, r := range recs[1:] {
		ms, _ := strconv.ParseFloat(r[col["time_ms"]], 64)
		switch {
		case r[col["status"]] != "ok":
		case ms == h100.TimeMs:
			r[col["source"]] = "simulated"
		case ms < next:
			next = ms
		}
	}
	out, err := os.Create(rowsPath)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	out.Close()
	g, err := FastestMeasured(context.Background(), []string{copyDir})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Fastest) != 1 || g.Fastest[0].TimeMs != next || g.Fastest[0].Variants != h100.Variants-1 {
		t.Errorf("with the fastest row simulated: %+v; want %g ms of %d variants", g.Fastest, next, h100.Variants-1)
	}
}

// TestFastestFile: a file written is read back the same, a file of another kind is not replaced
// unless told to, and a file of another format is refused.
func TestFastestFile(t *testing.T) {
	f, err := FastestMeasured(context.Background(), []string{filepath.Join("..", "data", "measured", "h200", "random", "j3d125pt")})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fastest.json")
	if err := WriteFastest(path, f, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseFastest(b, path)
	if err != nil || len(back.Fastest) != 1 || back.Fastest[0].TimeMs != f.Fastest[0].TimeMs || back.Fastest[0].Setting.String() != f.Fastest[0].Setting.String() || !back.Fastest[0].To.Equal(f.Fastest[0].To) {
		t.Fatalf("read back %+v (%v), want %+v", back, err, f)
	}
	if err := WriteFastest(path, f, false); err != nil {
		t.Errorf("replacing its own file: %v", err)
	}
	notes := filepath.Join(t.TempDir(), "notes.json")
	if err := os.WriteFile(notes, []byte(`{"mine": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var notOurs *atomicfile.NotOursError
	if err := WriteFastest(notes, f, false); !errors.As(err, &notOurs) {
		t.Errorf("writing over another file: %v; want a NotOursError", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != `{"mine": true}` {
		t.Errorf("the other file changed: %s", b)
	}
	if err := WriteFastest(notes, f, true); err != nil {
		t.Errorf("told to replace: %v", err)
	}
	var text bytes.Buffer
	if err := (&FastestFile{}).WriteText(&text); err != nil || !strings.Contains(text.String(), "no stencil was measured in full on a GPU in these data sets (imported, simulated and predicted rows do not count)") {
		t.Errorf("no variants: %q, %v", text.String(), err)
	}
	if _, err := ParseFastest([]byte(`{"format":"smart-fastest/0"}`), "old.json"); err == nil {
		t.Error("a file of another format was read")
	}
}
