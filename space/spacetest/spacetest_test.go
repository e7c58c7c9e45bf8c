package spacetest

import (
	"testing"

	"smart"
	"smart/space"
)

// TestNamed: the spaces are those space.ForStencil builds, every OC that has one in order, and
// a second call returns the same ones without building them again.
func TestNamed(t *testing.T) {
	g := smart.SM80()
	sps := Named(t, "j2d5pt", g)
	if len(sps) != len(smart.Combinations()) {
		t.Fatalf("%d spaces; want one for each of the %d OCs on an A100", len(sps), len(smart.Combinations()))
	}
	for i, sp := range sps {
		if sp.OC != smart.Combinations()[i] || sp.Stencil.Name != "j2d5pt" {
			t.Fatalf("space %d: %s of %s; want %s of j2d5pt", i, sp.OC, sp.Stencil.Name, smart.Combinations()[i])
		}
		want, err := space.ForStencil(sp.Stencil, sp.OC, g)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Space.Count().Cmp(want.Count()) != 0 {
			t.Errorf("%s: %v settings; space.ForStencil has %v", sp.OC, sp.Space.Count(), want.Count())
		}
	}
	again := Named(t, "j2d5pt", g)
	if &again[0] != &sps[0] {
		t.Error("the second call built the spaces again")
	}
}
