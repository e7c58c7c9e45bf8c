// Package generatortest builds the stencils tests run on: a named shape (generator.Named) on a
// given grid, failing the test where the shape or grid is refused.
package generatortest

import (
	"testing"

	"smart"
	"smart/generator"
)

// Named builds the stencil of a named shape (generator.Named's name, dimensions and order), read
// under smart.MaxMaxOrder, on grid; a zero grid keeps smart.NewStencil's default.
func Named(t testing.TB, name string, dims, order int, grid [3]int) *smart.Stencil {
	t.Helper()
	offs, err := generator.Named(name, dims, order)
	if err != nil {
		t.Fatal(err)
	}
	lim := smart.Limits{MaxOrder: smart.MaxMaxOrder}
	st, err := smart.NewStencil(name, dims, offs, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	if grid != ([3]int{}) {
		st.Grid = grid
		if err := st.Validate(lim); err != nil {
			t.Fatal(err)
		}
	}
	return st
}
