package smart_test

import (
	"errors"
	"fmt"

	"smart"
)

// A stencil file needs only its dimensions and offsets; the rest takes defaults. Coefficients
// left out are derived, positive and summing to 1.
func ExampleParseStencil() {
	s, err := smart.ParseStencil([]byte(`{"name":"j2d5pt","dims":2,"offsets":[[0,0],[1,0],[-1,0],[0,1],[0,-1]]}`), smart.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.Dims, s.Order(), s.NNZ(), s.Grid, s.Dtype, s.Steps)
	// Output:
	// j2d5pt 2 1 5 [8192 8192 1] float64 10
}

// Errors name the field at fault.
func ExampleParseStencil_error() {
	_, err := smart.ParseStencil([]byte(`{"dims":3,"offsets":[[0,0,0],[1,0,0],[0,1]]}`), smart.Limits{})
	fmt.Println(err)
	var fe *smart.FieldError
	if errors.As(err, &fe) {
		fmt.Println("field:", fe.Field)
	}
	// Output:
	// field "offsets[2]": has 2 coordinates; a 3-D offset has 3
	// field: offsets[2]
}

// Orders beyond 4 need a raised limit.
func ExampleLimits() {
	file := []byte(`{"dims":2,"offsets":[[0,0],[6,0]]}`)
	_, err := smart.ParseStencil(file, smart.Limits{})
	fmt.Println(err)
	s, _ := smart.ParseStencil(file, smart.Limits{MaxOrder: 8})
	fmt.Println(s.Order())
	// Output:
	// field "offsets": reach order 6, beyond the maximum 4; use a smaller stencil or raise the maximum order (up to 8)
	// 6
}

func ExampleCombinations() {
	ocs := smart.Combinations()
	fmt.Println(len(ocs), ocs[0], ocs[1], ocs[len(ocs)-1])
	// Output:
	// 30 BASE ST ST_CM_RT_PR_TB
}

func ExampleParamNames() {
	oc, _ := smart.ParseCombination("st_bm")
	fmt.Println(smart.ParamNames(3, oc))
	// Output:
	// [bx by bz shared const sd sb ufx ufy ufz bmx bmy bmz]
}

// A setting is decoded for its combination; the shared-memory footprint follows from the tile:
// streaming along z keeps a ring of 2r+2 planes of 34x10 elements.
func ExampleTuning_SharedElems() {
	set, _ := smart.ParseSetting("bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1")
	t, err := smart.DecodeTuning(3, smart.Combination(smart.ST), set)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.StreamAxis, t.Tile(), t.SharedElems(1))
	// Output:
	// 2 [32 8 64] 1360
}
