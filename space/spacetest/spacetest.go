// Package spacetest gives tests the setting spaces of named stencils, built once a test binary:
// a 3-D stencil's spaces under every OC take seconds of CPU to build, and the tests of a package
// draw their settings from the same few.
package spacetest

import (
	"sync"
	"testing"

	"smart"
	"smart/generator"
	"smart/space"
)

// OCSpace is a stencil's setting space under one OC.
type OCSpace struct {
	Stencil *smart.Stencil
	OC      smart.Combination
	Space   *space.Space
}

// built holds the spaces already built in this test binary, by stencil and GPU: a cache for
// tests alone, which read what it holds and never change it.
var built = struct {
	sync.Mutex
	spaces map[string][]OCSpace
}{spaces: map[string][]OCSpace{}}

// Named returns the spaces of the named stencil (generator.NamedStencil with its default grid)
// under every OC that has one on g, in smart.Combinations' order. Every caller in the test binary
// gets the same stencil and spaces: read them, do not change them.
func Named(t testing.TB, name string, g smart.GPU) []OCSpace {
	t.Helper()
	key := name + "|" + g.Name
	built.Lock()
	defer built.Unlock()
	if sps, ok := built.spaces[key]; ok {
		return sps
	}
	st, err := generator.NamedStencil(name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sps []OCSpace
	for _, oc := range smart.Combinations() {
		sp, err := space.ForStencil(st, oc, g)
		if err != nil {
			continue // no setting of the OC fits g
		}
		sps = append(sps, OCSpace{Stencil: st, OC: oc, Space: sp})
	}
	built.spaces[key] = sps
	return sps
}
