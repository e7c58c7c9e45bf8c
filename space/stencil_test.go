package space

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/generator"
)

// tinyGPU has limits small enough that every resource constraint bites on tiny grids.
func tinyGPU() smart.GPU {
	return smart.GPU{Name: "tiny", WarpSize: 2, MaxThreadsPerBlk: 16, MaxRegsPerThread: 60, RegsPerBlock: 600,
		SharedPerBlockKB: 1, ConstantMemoryKB: 64}
}

func stencilOn(t testing.TB, name string, grid [3]int, steps int) *smart.Stencil {
	t.Helper()
	st, err := generator.NamedStencil(name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.Grid, st.Steps = grid, steps
	if err := st.Validate(smart.Limits{}); err != nil {
		t.Fatal(err)
	}
	return st
}

// reference says whether a setting is valid, written from the table of the package
// documentation independently of the space's constraints.
func reference(st *smart.Stencil, oc smart.Combination, gpu smart.GPU, s smart.Setting) bool {
	t, err := smart.DecodeTuning(st.Dims, oc, s)
	if err != nil {
		return false
	}
	r := st.Order()
	pow2 := func(v int) bool { return v >= 1 && v&(v-1) == 0 }
	if s[smart.ParamShared] < 0 || s[smart.ParamShared] > 1 || s[smart.ParamConst] < 0 || s[smart.ParamConst] > 1 {
		return false
	}
	if s[smart.ParamConst] == 1 && st.NNZ()*st.Dtype.Size() > gpu.ConstantMemoryKB*1024 {
		return false
	}
	if n := t.Threads(); n < gpu.WarpSize || n > gpu.MaxThreadsPerBlk {
		return false
	}
	merged := oc.Has(smart.BM) || oc.Has(smart.CM)
	for a := range st.Dims {
		interior := st.Grid[a] - 2*r
		if !pow2(t.Block[a]) || t.Block[a] > [3]int{1024, 1024, 64}[a] || t.Block[a] > interior {
			return false
		}
		if !pow2(t.Merge[a]) || t.Block[a]*t.Merge[a] > interior || !pow2(t.Unroll[a]) {
			return false
		}
		switch {
		case a == t.StreamAxis:
			if t.Block[a] != 1 || t.Merge[a] != 1 || t.Unroll[a] > t.SB {
				return false
			}
		case merged:
			if t.Unroll[a] > t.Merge[a] {
				return false
			}
		default:
			if t.Unroll[a] != 1 {
				return false
			}
		}
	}
	if oc.Has(smart.ST) && (!pow2(t.SB) || t.SB > st.Grid[t.StreamAxis]-2*r) {
		return false
	}
	if oc.Has(smart.TB) {
		if !slices.Contains([]int{2, 4, 8}, t.TT) || t.TT > st.Steps || !t.Shared {
			return false
		}
		tile := t.Tile()
		for a := range st.Dims {
			if tile[a]+2*r*t.TT > st.Grid[a] {
				return false
			}
		}
	}
	// CUDA launches at most 2^31-1 x 65535 x 65535 blocks, one per tile of the interior.
	tile := t.Tile()
	for a := range st.Dims {
		if n := (st.Grid[a] - 2*r + tile[a] - 1) / tile[a]; n > [3]int{1<<31 - 1, 65535, 65535}[a] {
			return false
		}
	}
	return t.Usage(st).Fits(gpu) == nil
}

// TestStencilSpaceMatchesReference compares the space with the reference on small 2-D and 3-D
// grids for every combination: its settings, its count and Check's verdict on every
// combination of the parameters' values. Every enumerated setting decodes (the reference
// decodes it first).
func TestStencilSpaceMatchesReference(t *testing.T) {
	gpu := tinyGPU()
	stencils := []*smart.Stencil{
		stencilOn(t, "j2d5pt", [3]int{7, 9, 1}, 4),
		stencilOn(t, "j3d7pt", [3]int{4, 5, 4}, 10),
	}
	box := stencilOn(t, "j2d9pt", [3]int{11, 10, 1}, 8) // order 2: bigger halos
	for _, st := range append(stencils, box) {
		for _, oc := range smart.Combinations() {
			if st == box && oc.Has(smart.BM) {
				continue // CM's space is the same shape; keep the test fast
			}
			t.Run(st.Name+"/"+oc.String(), func(t *testing.T) {
				s, err := ForStencil(st, oc, gpu)
				if err != nil {
					t.Fatal(err)
				}
				matchReference(t, s, st, oc, gpu)
			})
		}
	}
}

// matchReference compares space s of st under oc on gpu with the reference: its parameters,
// its settings, its count and Check's verdict on every combination of the parameters' values.
func matchReference(t *testing.T, s *Space, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) {
	t.Helper()
	names := s.Names()
	want := smart.ParamNames(st.Dims, oc)
	if !sameSet(names, want) {
		t.Fatalf("parameters %v, want those of smart.ParamNames %v", names, want)
	}
	// The enumerated settings (distinct tree paths) all pass the reference, and as many
	// combinations pass it as were enumerated: the two sets are equal.
	enumerated := 0
	for set := range s.All() {
		enumerated++
		if !reference(st, oc, gpu, set) {
			t.Fatalf("enumerated %s, which the reference rejects", set)
		}
	}
	valid := 0
	for set := range combinations(s.Params()) {
		ref := reference(st, oc, gpu, set)
		if ref {
			valid++
		}
		if err := s.Check(set); (err == nil) != ref {
			t.Fatalf("%s: reference says valid=%v, Check says %v", set, ref, err)
		}
	}
	if n, _ := s.Len(); n != uint64(valid) || valid != enumerated {
		t.Errorf("count %d, enumerated %d, reference %d", n, enumerated, valid)
	}
}

// TestTallSpacesMatchReference: on grids whose interior along y or z is longer than CUDA's
// 65535 blocks, the spaces hold only settings whose launch grid fits (the reference's rule),
// and some settings of every OC with any are left out for it. OCs with more than 150,000 combinations of
// values are skipped to keep the test fast.
func TestTallSpacesMatchReference(t *testing.T) {
	gpu := tinyGPU()
	gpu.WarpSize = 1 // so that a block of 1 thread, a tile of 1 along the tall axis, is allowed
	for _, st := range []*smart.Stencil{
		stencilOn(t, "j2d5pt", [3]int{5, 65540, 1}, 4),
		stencilOn(t, "j3d7pt", [3]int{3, 3, 70000}, 4),
	} {
		for _, oc := range smart.Combinations() {
			params, err := StencilParams(st, oc, gpu)
			if err != nil {
				t.Fatal(err)
			}
			n := 1
			for _, p := range params {
				n *= len(p.Values)
			}
			if n > 150_000 {
				continue
			}
			t.Run(st.Name+"/"+oc.String(), func(t *testing.T) {
				s := mustNew(t, params)
				matchReference(t, s, st, oc, gpu)
				// Without the limit the space is larger: tiles of 1 along the tall axis.
				loose := slices.Clone(params)
				for i := range loose {
					loose[i].Constraints = slices.DeleteFunc(slices.Clone(loose[i].Constraints), func(c Constraint) bool {
						return strings.Contains(c.Name, "CUDA's limit on the blocks of a launch")
					})
				}
				if all := mustNew(t, loose).Count(); all.Sign() > 0 && all.Cmp(s.Count()) <= 0 {
					t.Errorf("the launch grid limit leaves out none of the %s settings", all)
				}
			})
		}
	}
}

// combinations yields every combination of the parameters' values.
func combinations(params []Param) func(func(smart.Setting) bool) {
	return func(yield func(smart.Setting) bool) {
		idx := make([]int, len(params))
		for {
			set := smart.Setting{}
			for i, p := range params {
				set[p.Name] = p.Values[idx[i]]
			}
			if !yield(set) {
				return
			}
			i := len(params) - 1
			for ; i >= 0; i-- {
				if idx[i]++; idx[i] < len(params[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				return
			}
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func paramValues(s *Space, name string) []int {
	for _, p := range s.Params() {
		if p.Name == name {
			return p.Values
		}
	}
	return nil
}

// TestStencilValueLists checks the value lists on the default 512^3 grid of a stencil of
// order 1 (interior 510 points per axis) and order 4 (504).
func TestStencilValueLists(t *testing.T) {
	j3 := stencilOn(t, "j3d7pt", [3]int{512, 512, 300}, 10)
	all, _ := smart.ParseCombination("ST_CM_RT_PR_TB")
	s, err := ForStencil(j3, all, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want []int
	}{
		{"bx", PowersOfTwo(1, 256)},
		{"by", PowersOfTwo(1, 256)},
		{"bz", PowersOfTwo(1, 64)},
		{"shared", []int{0, 1}},
		{"const", []int{0, 1}},
		{"sd", []int{1, 2, 3}},
		{"sb", PowersOfTwo(1, 256)},
		{"cmx", PowersOfTwo(1, 256)},
		{"cmz", PowersOfTwo(1, 256)},
		{"ufz", PowersOfTwo(1, 256)},
		{"tt", []int{2, 4, 8}},
	}
	for _, tc := range tests {
		if got := paramValues(s, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	groups := s.Groups()
	if len(groups) != 2 || !slices.Equal(groups[1].Params, []string{"const"}) || groups[1].Count != 2 {
		t.Errorf("groups %v, want everything but const linked and const alone", groups)
	}
}

// TestStencilCheckSaysWhy checks which constraint rejects typical mistakes.
func TestStencilCheckSaysWhy(t *testing.T) {
	j3, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		oc, set    string
		param, why string
	}{
		{"BASE", "bx=32,by=8,bz=1,shared=1,const=0", "", ""},
		{"BASE", "bx=32,by=32,bz=2,shared=1,const=0", "bz", "32 <= bx*by*bz <= 1024"},
		{"BASE", "bx=4,by=4,bz=1,shared=1,const=0", "bz", "32 <= bx*by*bz <= 1024"},
		{"BASE", "bx=2048,by=1,bz=1,shared=1,const=0", "bx", ""},
		{"ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=1,sb=64,ufx=1,ufy=1,ufz=1", "sd", "the block size along the streaming axis sd is 1"},
		{"ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=128", "ufz", "ufz <= sb when sd = 3, ufz = 1 otherwise"},
		{"ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=2,ufy=1,ufz=1", "ufx", "ufx <= sb when sd = 1, ufx = 1 otherwise"},
		{"CM", "bx=32,by=8,bz=1,shared=1,const=0,cmx=32,cmy=1,cmz=1,ufx=1,ufy=1,ufz=1", "cmx", "bx*cmx <= 510 (the interior extent)"},
		{"CM", "bx=32,by=8,bz=1,shared=1,const=0,cmx=1,cmy=1,cmz=1,ufx=1,ufy=2,ufz=1", "ufy", "ufy <= cmy"},
		{"CM", "bx=32,by=8,bz=1,shared=1,const=0,cmx=8,cmy=8,cmz=8,ufx=1,ufy=1,ufz=1", "cmz", "registers, shared memory and threads fit the sm_80"},
		{"TB", "bx=32,by=8,bz=1,shared=0,const=0,tt=2", "tt", "temporal blocking needs shared = 1"},
		{"ST_TB", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1,tt=16", "tt", ""},
		{"ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1", "ufz", ""},
	}
	for _, tc := range tests {
		oc, err := smart.ParseCombination(tc.oc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ForStencil(j3, oc, smart.SM80())
		if err != nil {
			t.Fatal(err)
		}
		err = s.Check(mustParse(t, tc.set))
		if tc.param == "" {
			if err != nil {
				t.Errorf("%s %s: %v, want valid", tc.oc, tc.set, err)
			}
			continue
		}
		var v *Violation
		if !errors.As(err, &v) || v.Param != tc.param || v.Constraint != tc.why {
			t.Errorf("%s %s: %v, want parameter %s rejected by %q", tc.oc, tc.set, err, tc.param, tc.why)
		}
	}
	cm, _ := smart.ParseCombination("CM")
	s, _ := ForStencil(j3, cm, smart.SM80())
	err = s.Check(mustParse(t, "bx=32,by=8,bz=1,shared=1,const=0,cmx=8,cmy=8,cmz=8,ufx=1,ufy=1,ufz=1"))
	if err == nil || !strings.Contains(err.Error(), "registers per thread exceed") {
		t.Errorf("the resource violation does not say which resource: %v", err)
	}
}

// TestUsageIsMonotone guards the Monotone declaration of the resource constraint: doubling a
// block, merge or unroll factor, sb or tt, or turning shared on, never lowers the estimated
// threads, registers or shared memory.
func TestUsageIsMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	st, err := generator.Spec{Dims: 3, Order: 3, Seed: 2}.Stencil(0)
	if err != nil {
		t.Fatal(err)
	}
	ocs := smart.Combinations()
	for range 5000 {
		oc := ocs[rng.IntN(len(ocs))]
		p := func() int { return 1 << rng.IntN(5) }
		tn := smart.Tuning{OC: oc, Dims: 3, Block: [3]int{p(), p(), p()}, Merge: [3]int{1, 1, 1}, Unroll: [3]int{p(), p(), p()},
			Shared: rng.IntN(2) == 1, StreamAxis: -1, SB: 1, TT: 1}
		if oc.Has(smart.ST) {
			tn.StreamAxis, tn.SB = rng.IntN(3), p()
		}
		if oc.Has(smart.BM) || oc.Has(smart.CM) {
			tn.Merge = [3]int{p(), p(), p()}
		}
		if oc.Has(smart.TB) {
			tn.TT = 2 << rng.IntN(3)
		}
		base := tn.Usage(st)
		grow := []func(*smart.Tuning){
			func(t *smart.Tuning) { t.Block[rng.IntN(3)] *= 2 },
			func(t *smart.Tuning) { t.Merge[rng.IntN(3)] *= 2 },
			func(t *smart.Tuning) { t.Unroll[rng.IntN(3)] *= 2 },
			func(t *smart.Tuning) { t.SB *= 2 },
			func(t *smart.Tuning) { t.TT *= 2 },
			func(t *smart.Tuning) { t.Shared = true },
		}
		for i, g := range grow {
			up := tn
			g(&up)
			u := up.Usage(st)
			if u.Threads < base.Threads || u.RegsPerThread < base.RegsPerThread || u.SharedBytes < base.SharedBytes {
				t.Fatalf("change %d of %+v lowered the usage %+v to %+v", i, tn, base, u)
			}
		}
	}
}

// TestResourceStencilIsEquivalent guards the stand-in of the resource check: Usage gives the
// same for it as for the stencil, for random tunings of random stencils of every order.
func TestResourceStencilIsEquivalent(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ocs := smart.Combinations()
	for order := 1; order <= smart.MaxMaxOrder; order++ {
		for _, dims := range []int{2, 3} {
			st, err := generator.Spec{Dims: dims, Order: order, Seed: 3}.Stencil(order)
			if err != nil {
				t.Fatal(err)
			}
			st.Dtype = [2]smart.Dtype{smart.Float32, smart.Float64}[order%2]
			shape := resourceStencil(st)
			if shape.Order() != st.Order() || shape.Dtype != st.Dtype {
				t.Fatalf("stand-in of %s has order %d and %s", st.Name, shape.Order(), shape.Dtype)
			}
			for range 200 {
				oc := ocs[rng.IntN(len(ocs))]
				p := func() int { return 1 << rng.IntN(6) }
				tn := smart.Tuning{OC: oc, Dims: dims, Block: [3]int{p(), p(), 1}, Merge: [3]int{p(), p(), 1}, Unroll: [3]int{p(), p(), 1},
					Shared: rng.IntN(2) == 1, StreamAxis: -1, SB: 1, TT: 1 + rng.IntN(8)}
				if dims == 3 {
					tn.Block[2], tn.Merge[2], tn.Unroll[2] = p(), p(), p()
				}
				if oc.Has(smart.ST) {
					tn.StreamAxis, tn.SB = rng.IntN(dims), p()
				}
				if got, want := tn.Usage(shape), tn.Usage(st); got != want {
					t.Fatalf("%s %+v: the stand-in uses %+v, the stencil %+v", st.Name, tn, got, want)
				}
			}
		}
	}
}

func TestForStencilErrors(t *testing.T) {
	j3, _ := generator.NamedStencil("j3d7pt", 0, 0)
	bad := smart.Combination(0).With(smart.BM).With(smart.CM)
	noLimits := smart.SM80()
	noLimits.RegsPerBlock = 0
	tests := []struct {
		name string
		st   *smart.Stencil
		oc   smart.Combination
		gpu  smart.GPU
		want string
	}{
		{"nil", nil, 0, smart.SM80(), "no stencil"},
		{"bm+cm", j3, bad, smart.SM80(), "exclude each other"},
		{"gpu", j3, 0, noLimits, "lacks its per-block limits"},
	}
	for _, tc := range tests {
		_, err := ForStencil(tc.st, tc.oc, tc.gpu)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func ExampleForStencil() {
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		panic(err)
	}
	oc, _ := smart.ParseCombination("ST_RT")
	s, err := ForStencil(st, oc, smart.SM80())
	if err != nil {
		panic(err)
	}
	for _, g := range s.Groups() {
		fmt.Println(g.Params)
	}
	bad, _ := smart.ParseSetting("bx=32,by=8,bz=1,shared=1,const=0,sd=1,sb=64,ufx=1,ufy=1,ufz=1")
	fmt.Println(s.Check(bad))
	// Output:
	// [bx by bz shared sd sb ufx ufy ufz]
	// [const]
	// sd: constraint "the block size along the streaming axis sd is 1" rejects sd=1,bx=32,by=8,bz=1
}

// TestExplicitConstraintsAlone builds the j3d7pt space on the default grid without the
// resource constraint and compares its size with a count made independently (a Python loop
// over the table's explicit constraints). It is the figure docs/performance.md compares with csTuner's
// "more than 10^8 settings after the explicit constraints".
func TestExplicitConstraintsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a space of 5 million settings")
	}
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	oc, _ := smart.ParseCombination("ST_CM_RT")
	params, err := StencilParams(st, oc, smart.SM80())
	if err != nil {
		t.Fatal(err)
	}
	for i := range params {
		params[i].Constraints = slices.DeleteFunc(params[i].Constraints, func(c Constraint) bool {
			return strings.HasPrefix(c.Name, "registers, shared memory and threads fit")
		})
	}
	s := mustNew(t, params)
	if got := s.Count().Int64(); got != 5290560 {
		t.Errorf("ST_CM_RT with the explicit constraints alone has %d settings, want 5290560", got)
	}
}

// CheckStencilSetting narrows each parameter's values to the setting's before generating the space;
// its verdicts and messages must be those of the whole space's Check, for settings in the space
// and for each of them with one parameter changed to another of its values or to any integer.
func TestCheckStencilSettingMatchesSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gpu := smart.SM80()
	for _, name := range []string{"j2d9pt", "j3d7pt"} {
		st, err := generator.NamedStencil(name, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ocName := range []string{"BASE", "ST_BM_RT_TB", "ST_CM_PR", "BM_TB"} {
			oc, _ := smart.ParseCombination(ocName)
			sp, err := ForStencil(st, oc, gpu)
			if err != nil {
				t.Fatal(err)
			}
			params := sp.Params()
			for range 100 {
				set, err := sp.Random(rng)
				if err != nil {
					t.Fatal(err)
				}
				p := params[rng.IntN(len(params))]
				switch rng.IntN(3) {
				case 0:
					set[p.Name] = p.Values[rng.IntN(len(p.Values))]
				case 1:
					set[p.Name] = rng.IntN(2000) - 2
				}
				want := ""
				if err := sp.Check(set); err != nil {
					want = fmt.Sprintf("invalid setting for %s on %s: %v", oc, gpu.Name, err)
				}
				got := ""
				if err := CheckStencilSetting(context.Background(), st, oc, gpu, set); err != nil {
					got = err.Error()
				}
				if got != want {
					t.Errorf("%s %s %s: CheckStencilSetting says %q, the space %q", name, oc, set, got, want)
				}
			}
		}
	}
}

// TestBlockRoom: a grid whose interior holds no block of a warp (powers of two no longer than
// the interior) has no setting in any OC's space, and BlockRoom says so; one that holds a warp
// passes, and its spaces are not all empty.
func TestBlockRoom(t *testing.T) {
	g := smart.SM80()
	for _, tc := range []struct {
		name string
		grid []int
		room bool
	}{
		{"j2d5pt", []int{8, 8}, false},    // interior 6x6: blocks up to 4x4, 16 threads
		{"j2d5pt", []int{10, 6}, true},    // interior 8x4: 8x4 is a warp
		{"j2d5pt", []int{34, 3}, true},    // interior 32x1
		{"j2d5pt", []int{33, 3}, false},   // interior 31x1: 16x1
		{"j3d7pt", []int{6, 6, 6}, true},  // interior 4x4x4: 64 threads
		{"j3d7pt", []int{4, 4, 4}, false}, // interior 2x2x2: 8 threads
		{"j2d25pt", []int{12, 6}, false},  // order 2: interior 8x2, 16 threads
		{"j2d25pt", []int{12, 8}, true},   // interior 8x4
	} {
		st, err := generator.NamedStencil(tc.name, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		copy(st.Grid[:], tc.grid)
		err = BlockRoom(st, g)
		if (err == nil) != tc.room {
			t.Errorf("%s on %v: BlockRoom %v, want room %v", tc.name, tc.grid, err, tc.room)
		}
		valid := 0
		for _, oc := range smart.Combinations() {
			s, err := ForStencil(st, oc, g)
			if err != nil {
				t.Fatal(err)
			}
			if s.Count().Sign() > 0 {
				valid++
			}
		}
		if (valid > 0) != tc.room {
			t.Errorf("%s on %v: %d OCs with a valid setting, BlockRoom says room %v", tc.name, tc.grid, valid, tc.room)
		}
	}
}
