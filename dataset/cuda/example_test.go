package cuda_test

import (
	"fmt"
	"strings"

	"smart"
	"smart/dataset/cuda"
	"smart/generator"
)

// Generate a 3-D heat stencil under streaming with two fused time steps, and print the launch
// configuration a runner needs: the stencil's 10 steps are 5 launches of a kernel fusing 2.
func ExampleGenerate() {
	offs, _ := generator.Named("j3d7pt", 0, 0)
	st, _ := smart.NewStencil("heat", 3, offs, nil, smart.Limits{}) // 512^3, 10 steps
	oc, _ := smart.ParseCombination("ST_TB")
	set, _ := smart.ParseSetting("bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=4,tt=2")
	t, _ := smart.DecodeTuning(st.Dims, oc, set)
	k, err := cuda.Generate(st, t)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range k.Launches {
		fmt.Printf("%s::%s grid %v block %v, %d B shared, %d steps per launch, %d launches\n",
			strings.SplitN(k.Name, "_", 3)[0], l.Kernel, l.Grid, l.Block, l.SharedBytes, l.Steps, l.Count)
	}
	fmt.Println(t.SharedElems(st.Order())*st.Dtype.Size() == k.Launches[0].SharedBytes)
	// Output:
	// smart::kernel_t2 grid [16 64 8] block [32 8 1], 24704 B shared, 2 steps per launch, 5 launches
	// true
}
