package predict

import (
	"testing"

	"smart"
	"smart/generator"
)

// shape builds a named stencil on a given grid.
func shape(t testing.TB, name string, dims, order int, grid [3]int) *smart.Stencil {
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
