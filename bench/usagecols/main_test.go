package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart"
	"smart/features"
	"smart/models"
	"smart/models/train"
)

// TestDropUsage: the set without usage keeps every other column of every row, in order.
func TestDropUsage(t *testing.T) {
	names := slices.Concat([]string{"a", "b"}, features.UsageNames(), []string{"c"})
	set := &train.Set{Data: &models.Data{Features: names, X: [][]float64{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}}, Inputs: models.Inputs{Usage: true}}
	got := dropUsage(set)
	if !slices.Equal(got.Data.Features, []string{"a", "b", "c"}) || !slices.Equal(got.Data.X[1], []float64{7, 8, 12}) || got.Inputs.Usage {
		t.Errorf("dropped: %v %v, usage %v", got.Data.Features, got.Data.X, got.Inputs.Usage)
	}
	if len(set.Data.X[0]) != 6 {
		t.Error("the original set lost columns")
	}
}

// TestUniformItems keeps the manifest's uniformly drawn items alone, keyed as rows are.
func TestUniformItems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.csv.gz")
	f, _ := os.Create(path)
	zw := gzip.NewWriter(f)
	zw.Write([]byte("stencil_id,oc,setting,origin,predicted_ms,invalid\n" +
		"s1,CM_TB,\"bx=64,by=8,shared=1,const=1,ufx=1,ufy=1,cmx=1,cmy=8,tt=4\",predicted,0.1,\n" +
		"s1,BASE,\"bx=32,by=4,shared=0,const=1\",uniform,,\n"))
	zw.Close()
	f.Close()
	got, err := uniformItems(path)
	if err != nil {
		t.Fatal(err)
	}
	want := item("s1", 0, smart.Setting{"bx": 32, "by": 4, "shared": 0, "const": 1})
	if len(got) != 1 || !got[want] {
		t.Errorf("uniform items %v; want only %q", got, want)
	}
}
