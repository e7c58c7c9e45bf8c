package generatortest

import "testing"

func TestNamed(t *testing.T) {
	st := Named(t, "star", 2, 1, [3]int{34, 34, 1})
	if st.Name != "star" || st.Dims != 2 || st.Grid != [3]int{34, 34, 1} {
		t.Fatalf("got %s, %d-D on %v; want star, 2-D on [34 34 1]", st.Name, st.Dims, st.Grid)
	}
	if def := Named(t, "star", 3, 1, [3]int{}); def.Grid == ([3]int{}) {
		t.Fatal("a zero grid left the stencil without its default grid")
	}
}
