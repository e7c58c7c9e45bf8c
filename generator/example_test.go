package generator_test

import (
	"fmt"
	"math/rand/v2"

	"smart/generator"
)

// Random stencils are reproducible from a seed; every point of order n > 1 neighbours a point
// of order n-1.
func ExampleRandom() {
	rng := rand.New(rand.NewPCG(1, 0))
	offs, err := generator.Random(rng, 2, 2, generator.DefaultKeep)
	if err != nil {
		panic(err)
	}
	perOrder := make([]int, 3)
	for _, o := range offs {
		perOrder[o.Chebyshev()]++
	}
	fmt.Println("points per order:", perOrder)
	// Output:
	// points per order: [1 5 12]
}

func ExampleSpec() {
	sp := generator.Spec{Dims: 3, Order: 2, Seed: 1}
	s, err := sp.Stencil(0)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.Dims, s.Order(), s.NNZ())
	// Output:
	// rand3d-o2-s1-0000 3 2 76
}

func ExampleNamed() {
	offs, err := generator.Named("j2d5pt", 0, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(offs)
	box, _ := generator.Named("box", 3, 2)
	fmt.Println(len(box), "points in a 3-D box of order 2")
	// Output:
	// [[0 -1 0] [-1 0 0] [0 0 0] [1 0 0] [0 1 0]]
	// 125 points in a 3-D box of order 2
}
