package smart

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"smart/internal/testctx"
)

func TestSettingString(t *testing.T) {
	for _, tc := range []struct {
		s    Setting
		want string
	}{
		{Setting{}, ""},
		{Setting{"tt": 2, "bx": 32, "zeta": 1, "alpha": -3, "by": 4}, "bx=32,by=4,tt=2,alpha=-3,zeta=1"},
		{Setting{"cmz": 1, "bmx": 2, "sd": 3, "const": 0, "shared": 1, "bz": 8}, "bz=8,shared=1,const=0,sd=3,bmx=2,cmz=1"},
		{Setting{"block_size_x": 128, "TILE": 2}, "TILE=2,block_size_x=128"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%v.String() = %q, want %q", map[string]int(tc.s), got, tc.want)
		}
	}
}

func TestParseSetting(t *testing.T) {
	got, err := ParseSetting(" bx = 32 , by=4,tt=-1 ")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Setting{"bx": 32, "by": 4, "tt": -1}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := ParseSetting("  "); err != nil || len(got) != 0 {
		t.Errorf("blank setting: %v, %v", got, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"bx", `item "bx" is not of the form name=value`},
		{"=1", `item "=1" is not of the form name=value`},
		{"bx=1,", `item "" is not of the form`},
		{"b-x=1", `parameter name "b-x" may hold only letters, digits and '_'`},
		{"bx=a", `value of bx is "a", not an integer`},
		{"bx=1.5", `value of bx is "1.5", not an integer`},
		{"bx=1,bx=2", "bx is given twice"},
	} {
		if _, err := ParseSetting(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSetting(%q) error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// String and ParseSetting are inverses for every setting with valid names.
func TestSettingRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
	for range 500 {
		s := Setting{}
		for range rng.IntN(20) {
			var name string
			if rng.IntN(2) == 0 {
				name = paramOrder[rng.IntN(len(paramOrder))]
			} else {
				b := make([]byte, 1+rng.IntN(8))
				for i := range b {
					b[i] = letters[rng.IntN(len(letters))]
				}
				name = string(b)
			}
			s[name] = int(rng.Uint64()) >> rng.IntN(64)
		}
		back, err := ParseSetting(s.String())
		if err != nil {
			t.Fatalf("%q: %v", s.String(), err)
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("%q read back as %v", s.String(), back)
		}
		c := s.Clone()
		c["x_clone_only"] = 1
		if _, leaked := s["x_clone_only"]; leaked {
			t.Fatal("Clone shares the map")
		}
	}
}

// fullSetting gives every parameter of oc a distinct valid value.
func fullSetting(dims int, oc Combination) Setting {
	s := Setting{}
	for i, n := range ParamNames(dims, oc) {
		s[n] = 2 + i
	}
	s[ParamShared], s[ParamConst] = 1, 0
	if oc.Has(ST) {
		s[ParamStreamD] = dims
	}
	return s
}

func TestTuningRoundTripEveryCombination(t *testing.T) {
	ocs := Combinations()
	if len(ocs) != 30 {
		t.Fatalf("%d valid combinations, want 30 (64 less BM with CM, RT or PR without ST)", len(ocs))
	}
	for _, dims := range []int{2, 3} {
		for _, oc := range ocs {
			s := fullSetting(dims, oc)
			tu, err := DecodeTuning(dims, oc, s)
			if err != nil {
				t.Fatalf("%d-D %s: %v", dims, oc, err)
			}
			if back := tu.Setting(); !reflect.DeepEqual(back, s) {
				t.Errorf("%d-D %s: %v encodes back as %v", dims, oc, s, back)
			}
			again, err := DecodeTuning(dims, oc, tu.Setting())
			if err != nil || !reflect.DeepEqual(again, tu) {
				t.Errorf("%d-D %s: decode(encode(t)) = %+v, %v; want %+v", dims, oc, again, err, tu)
			}
			// Spot-check the mapping of names to fields.
			if tu.Block[0] != s[ParamBlockX] || tu.Block[1] != s[ParamBlockY] || tu.Shared != true || tu.Const != false {
				t.Errorf("%d-D %s: block %v shared %v const %v from %v", dims, oc, tu.Block, tu.Shared, tu.Const, s)
			}
			if oc.Has(ST) != (tu.StreamAxis == dims-1) || oc.Has(ST) != (tu.SB == s[ParamStreamB]) {
				t.Errorf("%d-D %s: stream axis %d sb %d from %v", dims, oc, tu.StreamAxis, tu.SB, s)
			}
			if oc.Has(BM) && tu.Merge[0] != s[ParamBMX] || oc.Has(CM) && tu.Merge[dims-1] != s[cmParams[dims-1]] {
				t.Errorf("%d-D %s: merge %v from %v", dims, oc, tu.Merge, s)
			}
			if !oc.Has(BM) && !oc.Has(CM) && tu.Merge != [3]int{1, 1, 1} {
				t.Errorf("%d-D %s: merge %v without merging", dims, oc, tu.Merge)
			}
			if oc.Has(TB) != (tu.TT == s[ParamTT]) || !oc.Has(TB) && tu.TT != 1 {
				t.Errorf("%d-D %s: tt %d from %v", dims, oc, tu.TT, s)
			}
		}
	}
}

func TestDecodeTuningErrors(t *testing.T) {
	for _, tc := range []struct {
		dims int
		oc   Combination
		set  string
		want string
	}{
		{2, 0, "bx=32,shared=1,const=0", "parameter by is missing; BASE takes bx,by,shared,const"},
		{2, 0, "bx=32,by=4,shared=1,const=0,bz=2", "BASE takes no parameter bz"},
		{3, Combination(ST), "bx=32,by=4,bz=1,shared=1,const=0,sd=4,sb=8,ufx=1,ufy=1,ufz=1", "sd is 4"},
		{2, Combination(ST), "bx=32,by=4,shared=1,const=0,sd=0,sb=8,ufx=1,ufy=1", "sd is 0"},
		{2, Combination(BM | CM), "bx=32,by=4,shared=1,const=0", "exclude each other"},
		{2, Combination(RT), "bx=32,by=4,shared=1,const=0", "retiming (RT) needs streaming (ST)"},
		{2, Combination(1 << 6), "bx=32,by=4,shared=1,const=0", "unknown optimization bits"},
		{4, 0, "bx=32,by=4,shared=1,const=0", "dims is 4"},
		{-1, 0, "bx=32,by=4,shared=1,const=0", "dims is -1"},
		// Factors below 1 or so large that the tile or resource products would overflow.
		{2, 0, "bx=0,by=4,shared=1,const=0", "bx is 0; it must be at least 1"},
		{2, 0, "bx=32,by=-4,shared=1,const=0", "by is -4; it must be at least 1"},
		{3, Combination(BM), "bx=32,by=8,bz=1,shared=1,const=0,bmx=576460752303423488,bmy=1,bmz=1,ufx=1,ufy=1,ufz=1", "bmx is 576460752303423488; it must be at most 1048576"},
		{3, Combination(ST | BM | RT | TB), "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,tt=2,bmx=4611686018427387904,bmy=4,bmz=1,ufx=1,ufy=1,ufz=1", "bmx is 4611686018427387904"},
		{3, Combination(ST | BM | RT | TB), "bx=2,by=7,bz=2,shared=1024,const=0,sd=2,sb=3,tt=2147483647,bmx=2147483647,bmy=3,bmz=1,ufx=64,ufy=2147483647,ufz=2", "it must be at most 1048576"},
		{3, Combination(ST | RT | TB), "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,tt=100000000,ufx=1,ufy=1,ufz=1", "tt is 100000000; it must be at most 1048576"},
		{3, Combination(ST), "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=4294967296,ufx=1,ufy=1,ufz=1", "sb is 4294967296"},
		{2, Combination(CM), "bx=32,by=4,shared=1,const=0,cmx=1,cmy=1,ufx=1,ufy=1099511627776", "ufy is 1099511627776"},
		{2, Combination(CM), "bx=1024,by=4,shared=1,const=0,cmx=1048576,cmy=1,ufx=1,ufy=1", "the tile along x is bx*cmx = 1073741824 points; it must be at most 1048576"},
	} {
		s, err := ParseSetting(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeTuning(tc.dims, tc.oc, s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeTuning(%d, %s, %s) error %v, want one containing %q", tc.dims, tc.oc, tc.set, err, tc.want)
		}
	}
}

// Usage of a tuning with the largest factors Check allows, built directly as the search space
// builds them: its products saturate rather than wrap, so no GPU accepts it, and SharedElems of
// a tt beyond MaxFactor returns at once instead of looping over the levels.
func TestUsageSaturates(t *testing.T) {
	st, err := NewStencil("big", 3, []Offset{{}, {8, 0, 0}}, nil, Limits{MaxOrder: MaxMaxOrder})
	if err != nil {
		t.Fatal(err)
	}
	big := [3]int{MaxFactor, MaxFactor, MaxFactor}
	for _, tc := range []struct {
		name    string
		t       Tuning
		minRegs int
	}{
		{"merged and unrolled", Tuning{OC: Combination(ST | BM | PR), Dims: 3, Block: [3]int{1, 1, 1}, Merge: big, Unroll: big, StreamAxis: 2, SB: MaxFactor, TT: 1, Shared: true}, math.MaxInt},
		{"huge blocks, tt and tiles", Tuning{OC: Combination(TB), Dims: 3, Block: big, Merge: big, Unroll: big, StreamAxis: -1, SB: 1, TT: MaxFactor, Shared: true}, 1 << 60},
		{"streamed levels", Tuning{OC: Combination(ST | TB), Dims: 3, Block: big, Merge: [3]int{1, 1, 1}, Unroll: big, StreamAxis: 0, SB: MaxFactor, TT: MaxFactor}, 1 << 20},
		{"tt beyond MaxFactor", Tuning{OC: Combination(ST | TB), Dims: 3, Block: [3]int{1, 1, 1}, Merge: [3]int{1, 1, 1}, Unroll: [3]int{1, 1, 1}, StreamAxis: 0, SB: 1, TT: 1 << 40}, 1},
		{"retimed tt beyond MaxFactor", Tuning{OC: Combination(ST | RT | TB), Dims: 3, Block: [3]int{1, 1, 1}, Merge: [3]int{1, 1, 1}, Unroll: [3]int{1, 1, 1}, StreamAxis: 0, SB: 1, TT: 1 << 40}, 1},
	} {
		done := make(chan Usage, 1)
		go func() { done <- tc.t.Usage(st) }()
		var u Usage
		select {
		case u = <-done:
		case <-testctx.Context(t).Done():
			t.Fatalf("%s: Usage has not returned by the test's deadline", tc.name)
		}
		if u.Threads < 1 || u.RegsPerThread < tc.minRegs || u.SharedBytes < 1<<31 {
			t.Errorf("%s: usage %+v wrapped around", tc.name, u)
		}
		if u.Fits(SM80()) == nil {
			t.Errorf("%s: usage %+v fits the A100", tc.name, u)
		}
	}
}

// SharedElems on cases worked out by hand from its documentation: level k of tt fused levels
// covers the tile plus a halo of r*(tt-k) per side; level 0 is stored only with shared=1.
func TestSharedElems(t *testing.T) {
	for _, tc := range []struct {
		dims  int
		oc    string
		set   string
		order int
		want  int
	}{
		// No streaming, one level: (tile + 2r) per axis, or nothing without shared.
		{2, "BASE", "bx=32,by=8,shared=1,const=0", 1, 34 * 10},
		{2, "BASE", "bx=32,by=8,shared=0,const=0", 1, 0},
		{3, "BASE", "bx=32,by=4,bz=2,shared=1,const=1", 2, 36 * 8 * 6},
		// Cyclic merging widens the tile: 32 x (4*4).
		{2, "CM", "bx=32,by=4,shared=1,const=0,ufx=1,ufy=1,cmx=1,cmy=4", 1, 34 * 18},
		// Temporal blocking, BM tile 32 x 16: level 0 with halo 2, level 1 with halo 1.
		{2, "BM_TB", "bx=16,by=16,shared=1,const=0,ufx=1,ufy=1,bmx=2,bmy=1,tt=2", 1, 36*20 + 34*18},
		// Without shared the input is read from global memory; level 1 stays.
		{2, "BM_TB", "bx=16,by=16,shared=0,const=0,ufx=1,ufy=1,bmx=2,bmy=1,tt=2", 1, 34 * 18},
		// Four fused levels still take two alternating buffers, sized for levels 0 and 1.
		{2, "TB", "bx=32,by=8,shared=1,const=0,tt=4", 1, (32+8)*(8+8) + (32+6)*(8+6)},
		// Streaming along z: a ring of 2r+2 planes of (tile + 2r) in x and y.
		{3, "ST", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1", 1, 34 * 10 * 4},
		// Retiming keeps two planes.
		{3, "ST_RT", "bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1", 1, 34 * 10 * 2},
		// Streaming along x with two fused steps, y and z tiles 8 and 4: 6 planes per level,
		// level 0 with halo 4, level 1 with halo 2.
		{3, "ST_TB", "bx=1,by=8,bz=4,shared=1,const=0,sd=1,sb=128,ufx=1,ufy=1,ufz=1,tt=2", 2, 6 * (16*12 + 12*8)},
		{3, "ST_TB", "bx=1,by=8,bz=4,shared=0,const=0,sd=1,sb=128,ufx=1,ufy=1,ufz=1,tt=2", 2, 6 * 12 * 8},
	} {
		oc, err := ParseCombination(tc.oc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSetting(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		tu, err := DecodeTuning(tc.dims, oc, s)
		if err != nil {
			t.Fatal(err)
		}
		if got := tu.SharedElems(tc.order); got != tc.want {
			t.Errorf("%s %s order %d: SharedElems = %d, want %d", tc.oc, tc.set, tc.order, got, tc.want)
		}
	}
}

func TestParseCombination(t *testing.T) {
	for _, oc := range Combinations() {
		back, err := ParseCombination(strings.ToLower(oc.String()))
		if err != nil || back != oc {
			t.Errorf("%s read back as %s, %v", oc, back, err)
		}
		text, _ := oc.MarshalText()
		var c Combination
		if err := c.UnmarshalText(text); err != nil || c != oc {
			t.Errorf("%s: text round trip gave %s, %v", oc, c, err)
		}
	}
	if c, err := ParseCombination("tb_st"); err != nil || c != Combination(ST|TB) {
		t.Errorf("tb_st = %s, %v", c, err)
	}
	for _, bad := range []string{"ST_ST", "XY", "BM_CM", "PR"} {
		if _, err := ParseCombination(bad); err == nil || !strings.Contains(err.Error(), "valid combinations: BASE, ST") && !strings.Contains(err.Error(), "twice") {
			t.Errorf("ParseCombination(%q) error %v", bad, err)
		}
	}
}
