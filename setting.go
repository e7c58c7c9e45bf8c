package smart

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"smart/internal/bit"
)

// Setting assigns an integer value to each parameter of a search space. Booleans are 0/1 and
// enumerations count from 1, as in csTuner.
type Setting map[string]int

// Names of the stencil-space parameters (csTuner Table I). Which of them a combination has is
// given by ParamNames.
const (
	ParamBlockX  = "bx"     // threads per block along x
	ParamBlockY  = "by"     // threads per block along y
	ParamBlockZ  = "bz"     // threads per block along z (3-D)
	ParamShared  = "shared" // 1: stage the input tile in shared memory; 0: read-only global loads
	ParamConst   = "const"  // 1: coefficients in constant memory; 0: numeric literals in the code
	ParamStreamD = "sd"     // streaming axis, 1=x, 2=y, 3=z (ST)
	ParamStreamB = "sb"     // concurrent-streaming block: points of the streaming axis per block (ST)
	ParamUnrollX = "ufx"    // unroll factor of the per-thread loop along x
	ParamUnrollY = "ufy"
	ParamUnrollZ = "ufz"
	ParamBMX     = "bmx" // block-merging factor along x: adjacent points per thread (BM)
	ParamBMY     = "bmy"
	ParamBMZ     = "bmz"
	ParamCMX     = "cmx" // cyclic-merging factor along x: points per thread, a block apart (CM)
	ParamCMY     = "cmy"
	ParamCMZ     = "cmz"
	ParamTT      = "tt" // time steps fused in one launch (TB)
)

// paramOrder is the order in which stencil parameters are listed and printed.
var paramOrder = []string{
	ParamBlockX, ParamBlockY, ParamBlockZ, ParamShared, ParamConst, ParamStreamD, ParamStreamB,
	ParamUnrollX, ParamUnrollY, ParamUnrollZ, ParamBMX, ParamBMY, ParamBMZ,
	ParamCMX, ParamCMY, ParamCMZ, ParamTT,
}

var (
	blockParams  = [3]string{ParamBlockX, ParamBlockY, ParamBlockZ}
	unrollParams = [3]string{ParamUnrollX, ParamUnrollY, ParamUnrollZ}
	bmParams     = [3]string{ParamBMX, ParamBMY, ParamBMZ}
	cmParams     = [3]string{ParamCMX, ParamCMY, ParamCMZ}
)

// ParamNames lists the parameters of the stencil space of combination oc in a dims-D stencil,
// in print order: block sizes, shared, const; sd and sb with ST; unroll factors with ST, BM or
// CM; merging factors with BM or CM; tt with TB.
func ParamNames(dims int, oc Combination) []string { return appendParamNames(nil, dims, oc) }

// maxParams bounds the parameters of a setting: every one a 3-D setting can have.
const maxParams = 3 + 2 + 2 + 3 + 3 + 3 + 1

// appendParamNames appends ParamNames(dims, oc) to names: DecodeTuning lists them into a buffer
// on the stack, once for every setting a search scores.
func appendParamNames(names []string, dims int, oc Combination) []string {
	names = append(names, blockParams[:dims]...)
	names = append(names, ParamShared, ParamConst)
	if oc.Has(ST) {
		names = append(names, ParamStreamD, ParamStreamB)
	}
	if oc.Has(ST) || oc.Has(BM) || oc.Has(CM) {
		names = append(names, unrollParams[:dims]...)
	}
	if oc.Has(BM) {
		names = append(names, bmParams[:dims]...)
	}
	if oc.Has(CM) {
		names = append(names, cmParams[:dims]...)
	}
	if oc.Has(TB) {
		names = append(names, ParamTT)
	}
	return names
}

// String writes the setting as "k=v,..." with stencil parameters in their usual order and any
// other names after them alphabetically; ParseSetting reads it back.
func (s Setting) String() string {
	type ranked struct {
		name string
		rank int
	}
	var buf [24]ranked // a stencil setting has at most 17 names: no allocation
	keys := buf[:0]
	for k := range s {
		keys = append(keys, ranked{k, paramRank(k)})
	}
	// Insertion sort: a setting has a handful of names.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0; j-- {
			a, b := keys[j-1], keys[j]
			if a.rank < b.rank || (a.rank == b.rank && a.name < b.name) {
				break
			}
			keys[j-1], keys[j] = b, a
		}
	}
	b := make([]byte, 0, 8*len(keys))
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, k.name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(s[k.name]), 10)
	}
	return string(b)
}

// paramRank is a parameter's place in paramOrder, after them all for any other name.
func paramRank(name string) int {
	for i, p := range paramOrder {
		if p == name {
			return i
		}
	}
	return len(paramOrder)
}

// ParseSetting reads "k=v,k=v" (spaces allowed around items). Names are letters, digits and '_'.
func ParseSetting(text string) (Setting, error) {
	s := Setting{}
	if strings.TrimSpace(text) == "" {
		return s, nil
	}
	for _, item := range strings.Split(text, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("setting %q: item %q is not of the form name=value", text, item)
		}
		if !validName(k) {
			return nil, fmt.Errorf("setting %q: parameter name %q may hold only letters, digits and '_'", text, k)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("setting %q: value of %s is %q, not an integer", text, k, v)
		}
		if _, dup := s[k]; dup {
			return nil, fmt.Errorf("setting %q: %s is given twice", text, k)
		}
		s[k] = n
	}
	return s, nil
}

func validName(k string) bool {
	for _, r := range k {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// Clone returns a copy of the setting.
func (s Setting) Clone() Setting {
	c := make(Setting, len(s))
	for k, v := range s {
		c[k] = v
	}
	return c
}

// Tuning is a stencil setting decoded for a combination: what the code generator and the
// analytic model read. Axes are 0=x, 1=y, 2=z; unused axes hold 1.
type Tuning struct {
	OC         Combination
	Dims       int
	Block      [3]int // threads per block
	Shared     bool   // input tile staged in shared memory
	Const      bool   // coefficients in constant memory
	StreamAxis int    // axis streamed along (ST); -1 without streaming
	SB         int    // points of the streaming axis per block (ST); 1 without streaming
	Unroll     [3]int // unroll factor of the per-thread loop along each axis
	Merge      [3]int // points per thread along each axis (BM: adjacent, CM: a block apart)
	TT         int    // time steps per launch (TB); 1 without temporal blocking
}

// MaxFactor bounds every factor of a tuning (block sizes, unroll and merging factors, sb, tt)
// and every tile extent: a tile larger than the largest grid extent fits no grid, and within the
// bound the products the analytic model and the code generator form cannot overflow.
const MaxFactor = MaxExtent

// DecodeTuning reads a stencil setting for combination oc. It checks that the setting has
// exactly the parameters of ParamNames and that the tuning passes Check, not that the values
// satisfy the space's constraints (the search space does that).
func DecodeTuning(dims int, oc Combination, s Setting) (Tuning, error) {
	if err := oc.Check(); err != nil {
		return Tuning{}, err
	}
	if dims != 2 && dims != 3 {
		return Tuning{}, fmt.Errorf("setting %s: dims is %d; a stencil has 2 or 3 dimensions", s, dims)
	}
	var buf [maxParams]string
	names := appendParamNames(buf[:0], dims, oc)
	for _, n := range names {
		if _, ok := s[n]; !ok {
			return Tuning{}, fmt.Errorf("setting %s for %s: parameter %s is missing; %s takes %s", s, oc, n, oc, strings.Join(names, ","))
		}
	}
	if len(s) != len(names) {
		for k := range s {
			if !slices.Contains(names, k) {
				return Tuning{}, fmt.Errorf("setting %s for %s: %s takes no parameter %s; it takes %s", s, oc, oc, k, strings.Join(names, ","))
			}
		}
	}
	t := Tuning{OC: oc, Dims: dims, Block: [3]int{1, 1, 1}, Unroll: [3]int{1, 1, 1}, Merge: [3]int{1, 1, 1},
		StreamAxis: -1, SB: 1, TT: 1, Shared: s[ParamShared] != 0, Const: s[ParamConst] != 0}
	for a := 0; a < dims; a++ {
		t.Block[a] = s[blockParams[a]]
		if v, ok := s[unrollParams[a]]; ok {
			t.Unroll[a] = v
		}
		if v, ok := s[bmParams[a]]; ok {
			t.Merge[a] = v
		}
		if v, ok := s[cmParams[a]]; ok {
			t.Merge[a] = v
		}
	}
	if oc.Has(ST) {
		sd := s[ParamStreamD]
		if sd < 1 || sd > dims {
			return Tuning{}, fmt.Errorf("setting %s: sd is %d; the streaming axis is 1 (x) to %d", s, sd, dims)
		}
		t.StreamAxis, t.SB = sd-1, s[ParamStreamB]
	}
	if oc.Has(TB) {
		t.TT = s[ParamTT]
	}
	if err := t.Check(); err != nil {
		return Tuning{}, fmt.Errorf("setting %s for %s: %w", s, oc, err)
	}
	return t, nil
}

// Check reports what makes the tuning no kernel at all, naming the parameter: an invalid
// combination or dimension count, a factor below 1 or above MaxFactor, a tile extent above
// MaxFactor, a streaming axis outside the grid. DecodeTuning, the analytic model and the code
// generator call it before computing with the factors, so that no product of them overflows;
// Threads, Tile, SharedElems and Usage saturate instead, for tunings built without it (the
// search space's).
func (t Tuning) Check() error {
	if err := t.OC.Check(); err != nil {
		return err
	}
	if t.Dims != 2 && t.Dims != 3 {
		return fmt.Errorf("dims is %d; a stencil has 2 or 3 dimensions", t.Dims)
	}
	factor := func(name string, v int) error {
		switch {
		case v < 1:
			return fmt.Errorf("%s is %d; it must be at least 1", name, v)
		case v > MaxFactor:
			return fmt.Errorf("%s is %d; it must be at most %d, the largest grid extent", name, v, MaxFactor)
		}
		return nil
	}
	merges := bmParams
	if t.OC.Has(CM) {
		merges = cmParams
	}
	for a := range 3 {
		for _, f := range []struct {
			name string
			v    int
		}{{blockParams[a], t.Block[a]}, {unrollParams[a], t.Unroll[a]}, {merges[a], t.Merge[a]}} {
			if err := factor(f.name, f.v); err != nil {
				return err
			}
		}
	}
	if err := factor(ParamStreamB, t.SB); err != nil {
		return err
	}
	if err := factor(ParamTT, t.TT); err != nil {
		return err
	}
	if t.StreamAxis < -1 || t.StreamAxis >= t.Dims || t.OC.Has(ST) && t.StreamAxis < 0 {
		return fmt.Errorf("sd is %d; the streaming axis is 1 (x) to %d", t.StreamAxis+1, t.Dims)
	}
	for a, n := range t.Tile() {
		if n > MaxFactor {
			return fmt.Errorf("the tile along %s is %s*%s = %d points; it must be at most %d, the largest grid extent", "xyz"[a:a+1], blockParams[a], merges[a], n, MaxFactor)
		}
	}
	return nil
}

// Setting encodes the tuning back into a setting; DecodeTuning(t.Dims, t.OC, t.Setting()) == t.
func (t Tuning) Setting() Setting {
	s := Setting{ParamShared: bit.Of(t.Shared), ParamConst: bit.Of(t.Const)}
	for _, n := range ParamNames(t.Dims, t.OC) {
		for a := 0; a < t.Dims; a++ {
			switch n {
			case blockParams[a]:
				s[n] = t.Block[a]
			case unrollParams[a]:
				s[n] = t.Unroll[a]
			case bmParams[a], cmParams[a]:
				s[n] = t.Merge[a]
			}
		}
		switch n {
		case ParamStreamD:
			s[n] = t.StreamAxis + 1
		case ParamStreamB:
			s[n] = t.SB
		case ParamTT:
			s[n] = t.TT
		}
	}
	return s
}

// Threads is the number of threads per block (math.MaxInt when that overflows).
func (t Tuning) Threads() int { return mulSat(mulSat(t.Block[0], t.Block[1]), t.Block[2]) }

// Tile is the number of output points a block computes along each axis in one launch
// (math.MaxInt where that overflows).
func (t Tuning) Tile() [3]int {
	var tile [3]int
	for a := range tile {
		tile[a] = mulSat(t.Block[a], t.Merge[a])
		if a == t.StreamAxis {
			tile[a] = t.SB
		}
	}
	return tile
}

// SharedElems is the number of grid elements a block keeps in shared memory for a stencil of
// order r. The code generator (dataset/cuda) allocates exactly this much and the search space
// checks it against the GPU's limit, so both read it from here.
//
// A block computes tt fused time levels (1 without temporal blocking); level k covers the tile
// plus a halo of r*(tt-k) points per side. Level 0, the input, is kept in shared memory when
// Shared is set (otherwise it is read from global memory); the intermediate levels 1..tt-1
// always are. Without streaming a level is a box and the stored levels alternate between two
// buffers sized for the first two. With streaming a level is a plane across the streaming axis
// and each stored level keeps a ring of them: 2r+2 planes (the 2r+1 a stencil reads and the one
// being written, so one barrier per plane suffices), or 2 with retiming, whose partial sums live
// in registers.
func (t Tuning) SharedElems(r int) int {
	if t.TT > MaxFactor {
		return math.MaxInt // Check rejects it; the loop over the levels would take too long
	}
	first := 1
	if t.Shared {
		first = 0
	}
	n := 0
	if t.StreamAxis >= 0 {
		planes := 2*r + 2
		if t.OC.Has(RT) {
			planes = 2
		}
		for k := first; k < t.TT; k++ {
			n = addSat(n, mulSat(planes, t.levelArea(r, k)))
		}
		return n
	}
	for k := first; k < min(first+2, t.TT); k++ {
		n = addSat(n, t.levelArea(r, k))
	}
	return n
}

// levelArea is the number of points of time level k of tt fused levels across the streaming
// axis (every axis without streaming): the tile plus a halo of r*(tt-k) points per side.
func (t Tuning) levelArea(r, k int) int {
	tile := t.Tile()
	n := 1
	for a := 0; a < t.Dims; a++ {
		if a != t.StreamAxis {
			n = mulSat(n, addSat(tile[a], mulSat(2*r, t.TT-k)))
		}
	}
	return n
}

// mulSat and addSat are * and + of non-negative ints that stop at math.MaxInt instead of
// wrapping, so that the resources of an absurd tuning come out too large, never small.
func mulSat(a, b int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return math.MaxInt
	}
	return int(lo)
}

func addSat(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
