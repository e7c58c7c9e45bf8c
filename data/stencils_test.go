package data_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"smart"
	"smart/data"
	"smart/generator"
)

var update = flag.Bool("update", false, "rewrite data/stencils/*.json from the generator")

// The samples are exactly the generator's classic shapes, byte for byte. After changing the
// generator or the file layout, refresh them with
//
//	go test ./data -run TestSampleStencils -update
func TestSampleStencils(t *testing.T) {
	var classics []string
	for _, sh := range generator.Shapes() {
		if sh.Family() {
			continue
		}
		classics = append(classics, sh.Name)
		s, err := sh.Stencil(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want, err := generator.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := generator.WriteFile(filepath.Join("stencils", sh.Name+".json"), s); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := data.StencilFile(sh.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("stencils/%s.json differs from the generator; run go test ./data -run TestSampleStencils -update", sh.Name)
		}
		parsed, err := smart.ParseStencil(got, smart.Limits{})
		if err != nil {
			t.Fatalf("stencils/%s.json: %v", sh.Name, err)
		}
		if !reflect.DeepEqual(parsed, s) {
			t.Errorf("stencils/%s.json parses to a different stencil", sh.Name)
		}
	}
	if *update {
		return
	}
	names := data.StencilNames()
	if len(names) != len(classics) {
		t.Errorf("samples %v, want one per classic %v", names, classics)
	}
	entries, _ := os.ReadDir("stencils")
	if len(entries) != len(names) {
		t.Errorf("%d files in stencils/, %d embedded", len(entries), len(names))
	}
}

func TestStencilFileErrors(t *testing.T) {
	for _, name := range []string{"nope", "../stencils/j3d7pt", ""} {
		if _, err := data.StencilFile(name); err == nil || !strings.Contains(err.Error(), "the samples are j2d13pt, j2d17pt") {
			t.Errorf("data.StencilFile(%q) error %v", name, err)
		}
	}
}
