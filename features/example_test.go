package features_test

import (
	"fmt"

	"smart"
	"smart/features"
	"smart/generator"
)

// The Table II features of the 3-D 7-point Jacobi stencil, with their names.
func ExampleStencil() {
	s, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		panic(err)
	}
	v, err := features.Stencil(s, 0)
	if err != nil {
		panic(err)
	}
	names := features.StencilNames(0)
	for i := 2; i < 10; i++ {
		fmt.Printf("%s=%.4g ", names[i], v[i])
	}
	fmt.Println()
	// Output:
	// order=1 nnz=7 sparsity=0.009602 nnz_o1=6 nnz_o2=0 nnz_o3=0 nnz_o4=0 nnz_ratio_o1=0.2308
}

// The binary tensor of j2d5pt: 9x9 by default, printed row by row from y = -4.
func ExampleTensor() {
	s, _ := generator.NamedStencil("j2d5pt", 0, 0)
	t, _ := features.Tensor(s, 2) // a 5x5 tensor is enough for order 1
	for y := range 5 {
		fmt.Println(t[5*y : 5*y+5])
	}
	// Output:
	// [0 0 0 0 0]
	// [0 0 1 0 0]
	// [0 1 1 1 0]
	// [0 0 1 0 0]
	// [0 0 0 0 0]
}

// A setting of the streaming combination ST in 2-D: one layout for every combination.
func ExampleSetting() {
	set, _ := smart.ParseSetting("bx=128,by=1,shared=1,const=1,sd=2,sb=32,ufx=1,ufy=2")
	v, err := features.Setting(2, smart.Combination(smart.ST), set)
	if err != nil {
		panic(err)
	}
	fmt.Println(features.SettingNames(2))
	fmt.Println(v)
	// Output:
	// [oc_ST oc_BM oc_CM oc_RT oc_PR oc_TB log2_bx log2_by shared const sd log2_sb log2_ufx log2_ufy log2_bmx log2_bmy log2_cmx log2_cmy log2_tt]
	// [1 0 0 0 0 0 7 0 1 1 2 5 0 1 0 0 0 0 0]
}
