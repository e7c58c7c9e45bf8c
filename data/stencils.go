package data

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// stencilFiles holds the sample stencils: the classic shapes of package generator with their
// default grids, written by `smart generate` (see TestSampleStencils for how to refresh them).
//
//go:embed stencils/*.json
var stencilFiles embed.FS

// StencilNames lists the embedded sample stencils by name (the file name without .json), sorted.
func StencilNames() []string {
	entries, err := fs.ReadDir(stencilFiles, "stencils")
	if err != nil { // cannot happen: the directory is embedded
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// StencilFile returns the sample stencil file of that name, e.g. "j3d7pt"; smart.ParseStencil
// reads it.
func StencilFile(name string) ([]byte, error) {
	b, err := stencilFiles.ReadFile("stencils/" + name + ".json")
	if err != nil || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("no sample stencil %q; the samples are %s", name, strings.Join(StencilNames(), ", "))
	}
	return b, nil
}
