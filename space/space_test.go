package space

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"smart"
)

// atfExample is the five-parameter example of ATF section 4 (Fig. 1): p2 divides p1, p4
// divides p3, p5 equals p3 + p4.
func atfExample() []Param {
	divides := func(name, of string) Constraint {
		return Constraint{Name: name + " divides " + of, Reads: []string{of, name}, Fn: func(v []int) bool { return v[0]%v[1] == 0 }}
	}
	return []Param{
		{Name: "p1", Values: []int{22, 35}},
		{Name: "p2", Values: []int{2, 5, 7, 11}, Constraints: []Constraint{divides("p2", "p1")}},
		{Name: "p3", Values: []int{26, 51}},
		{Name: "p4", Values: []int{1, 3, 13, 17}, Constraints: []Constraint{divides("p4", "p3")}},
		{Name: "p5", Values: []int{27, 39, 52, 54, 68}, Constraints: []Constraint{{
			Name: "p5 = p3 + p4", Reads: []string{"p3", "p4", "p5"}, Fn: func(v []int) bool { return v[2] == v[0]+v[1] },
		}}},
	}
}

// bruteForce is the traditional generation (ATF Listing 1): every combination of values, all
// constraints checked on the full setting. It returns the valid settings' strings, sorted.
func bruteForce(params []Param) []string {
	var out []string
	for set := range combinations(params) {
		ok := true
		for _, p := range params {
			for _, c := range p.Constraints {
				v := make([]int, len(c.Reads))
				for j, r := range c.Reads {
					v[j] = set[r]
				}
				ok = ok && c.Fn(v)
			}
		}
		if ok {
			out = append(out, set.String())
		}
	}
	slices.Sort(out)
	return out
}

func enumerate(s *Space) []string {
	var out []string
	for set := range s.All() {
		out = append(out, set.String())
	}
	return out
}

func mustNew(t testing.TB, params []Param) *Space {
	t.Helper()
	s, err := New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestATFExample(t *testing.T) {
	s := mustNew(t, atfExample())
	if got := s.Count().Int64(); got != 20 {
		t.Errorf("count %d, want 20 (4 settings of {p1,p2} x 5 of {p3,p4,p5})", got)
	}
	want := []Group{{Params: []string{"p1", "p2"}, Count: 4}, {Params: []string{"p3", "p4", "p5"}, Count: 5}}
	if got := s.Groups(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	// Fig. 1: tree 1 has 22 -> {2, 11}, 35 -> {5, 7}; tree 2 has 26 -> {1, 13}, 51 -> {1, 3, 17}
	// and one p5 below each p4.
	g1, g2 := s.groups[0], s.groups[1]
	shape := func(g *group, l int) []int {
		var n []int
		for i := range g.lv[l].val {
			lo, hi := g.children(l+1, i)
			n = append(n, hi-lo)
		}
		return n
	}
	if got := shape(g1, 0); !slices.Equal(got, []int{2, 2}) {
		t.Errorf("tree 1 children per p1 value %v, want [2 2]", got)
	}
	if got := shape(g2, 0); !slices.Equal(got, []int{2, 3}) {
		t.Errorf("tree 2 children per p3 value %v, want [2 3]", got)
	}
	if got := shape(g2, 1); !slices.Equal(got, []int{1, 1, 1, 1, 1}) {
		t.Errorf("tree 2 children per p4 value %v, want one each", got)
	}
	got := enumerate(s)
	slices.Sort(got)
	if want := bruteForce(atfExample()); !slices.Equal(got, want) {
		t.Errorf("enumeration\n%v\nbrute force\n%v", got, want)
	}
}

// smallSpaces are spaces to compare with brute force: independent parameters, a chain of
// dependencies, a constraint that dead-ends whole branches, and an empty space.
func smallSpaces() map[string][]Param {
	le := func(a, b string) Constraint {
		return Constraint{Name: a + " <= " + b, Reads: []string{a, b}, Fn: func(v []int) bool { return v[0] <= v[1] }}
	}
	return map[string][]Param{
		"atf": atfExample(),
		"independent": {
			{Name: "a", Values: Range(1, 3, 1)}, {Name: "b", Values: Bool()}, {Name: "c", Values: PowersOfTwo(1, 8)},
		},
		"chain": {
			{Name: "x", Values: PowersOfTwo(1, 64)},
			{Name: "y", Values: PowersOfTwo(1, 64), Constraints: []Constraint{le("x", "y")}},
			{Name: "z", Values: Range(0, 4, 1)},
			{Name: "w", Values: PowersOfTwo(1, 64), Constraints: []Constraint{le("y", "w"), {
				Name: "x*y*w <= 4096", Reads: []string{"x", "y", "w"}, Fn: func(v []int) bool { return v[0]*v[1]*v[2] <= 4096 },
			}}},
		},
		"dead branches": {
			{Name: "a", Values: Range(0, 9, 1)},
			{Name: "b", Values: Range(0, 9, 1)},
			{Name: "c", Values: Range(0, 9, 1), Constraints: []Constraint{{
				Name: "a+b+c = 12 and a odd", Reads: []string{"a", "b", "c"}, Fn: func(v []int) bool { return v[0]+v[1]+v[2] == 12 && v[0]%2 == 1 },
			}}},
		},
		"monotone": {
			{Name: "a", Values: []int{8, 1, 4, 2}},
			{Name: "s", Values: Bool()},
			{Name: "b", Values: PowersOfTwo(1, 32)},
			{Name: "c", Values: PowersOfTwo(1, 32), Constraints: []Constraint{{
				Name: "a*b*c*(1+s) <= 64", Reads: []string{"a", "s", "b", "c"}, Monotone: []string{"b", "c", "a"},
				Fn: func(v []int) bool { return v[0]*v[2]*v[3]*(1+v[1]) <= 64 },
			}}},
		},
		"empty": {
			{Name: "a", Values: Range(1, 4, 1)},
			{Name: "b", Values: Range(1, 4, 1), Constraints: []Constraint{{Name: "a+b > 8", Reads: []string{"a", "b"}, Fn: func(v []int) bool { return v[0]+v[1] > 8 }}}},
		},
	}
}

func TestCountAndEnumerationMatchBruteForce(t *testing.T) {
	for name, params := range smallSpaces() {
		t.Run(name, func(t *testing.T) {
			s := mustNew(t, params)
			want := bruteForce(params)
			if s.Count().Cmp(big.NewInt(int64(len(want)))) != 0 {
				t.Errorf("count %s, brute force %d", s.Count(), len(want))
			}
			got := enumerate(s)
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, want) {
				t.Errorf("enumeration differs from brute force:\n%v\n%v", sorted, want)
			}
			for i, set := range got {
				if err := s.Check(mustParse(t, set)); err != nil {
					t.Errorf("enumerated setting %d %s fails Check: %v", i, set, err)
				}
			}
		})
	}
}

// TestIndex64RejectsWhatCheckRejects checks Index64 over every combination of the parameters'
// values, valid or not, and settings with a parameter missing, an extra one or a value outside
// its parameter's: it answers exactly where Check passes, with IndexOf's index.
func TestIndex64RejectsWhatCheckRejects(t *testing.T) {
	for name, params := range smallSpaces() {
		t.Run(name, func(t *testing.T) {
			s := mustNew(t, params)
			valid := 0
			for set := range combinations(params) {
				sets := []smart.Setting{set}
				missing, extra, outside := set.Clone(), set.Clone(), set.Clone()
				delete(missing, params[0].Name)
				extra["zz"] = 1
				outside[params[0].Name] = slices.Max(params[0].Values) + 1
				sets = append(sets, missing, extra, outside)
				for _, set := range sets {
					i, ok := s.Index64(set)
					want, err := s.IndexOf(set)
					if ok != (err == nil) || ok && i != want.Uint64() {
						t.Fatalf("Index64(%s) = %d, %v; IndexOf %v, %v", set, i, ok, want, err)
					}
					if ok {
						valid++
					}
				}
			}
			if n := s.Count().Int64(); int64(valid) != n {
				t.Errorf("Index64 took %d settings of a space of %d", valid, n)
			}
		})
	}
}

func mustParse(t testing.TB, text string) smart.Setting {
	t.Helper()
	set, err := smart.ParseSetting(text)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestMappingsAreBijective checks that At and IndexOf are inverse bijections between
// [0, Count) and the valid settings, in enumeration order, and that Coordinates and Point
// are: every valid setting has a cell of the coordinate space that maps back to it.
func TestMappingsAreBijective(t *testing.T) {
	for name, params := range smallSpaces() {
		t.Run(name, func(t *testing.T) {
			s := mustNew(t, params)
			i := int64(0)
			seen := map[string]bool{}
			for set := range s.All() {
				at, err := s.At(big.NewInt(i))
				if err != nil {
					t.Fatal(err)
				}
				if at.String() != set.String() {
					t.Fatalf("At(%d) = %s, enumeration gives %s", i, at, set)
				}
				if at64, err := s.At64(uint64(i)); err != nil || at64.String() != set.String() {
					t.Fatalf("At64(%d) = %s, %v; At gives %s", i, at64, err, set)
				}
				vals, err := s.Values64(uint64(i), nil)
				if err != nil || len(vals) != len(set) {
					t.Fatalf("Values64(%d) = %v, %v; At gives %s", i, vals, err, set)
				}
				for k, n := range s.Names() {
					if vals[k] != set[n] {
						t.Fatalf("Values64(%d) = %v in the order %v; At gives %s", i, vals, s.Names(), set)
					}
				}
				idx, err := s.IndexOf(set)
				if err != nil || idx.Int64() != i {
					t.Fatalf("IndexOf(%s) = %v, %v; want %d", set, idx, err, i)
				}
				if i64, ok := s.Index64(set); !ok || i64 != uint64(i) {
					t.Fatalf("Index64(%s) = %d, %v; want %d", set, i64, ok, i)
				}
				x, err := s.Coordinates(set)
				if err != nil {
					t.Fatal(err)
				}
				back, err := s.Point(x)
				if err != nil || back.String() != set.String() {
					t.Fatalf("Point(Coordinates(%s) = %v) = %s, %v", set, x, back, err)
				}
				key := fmt.Sprint(x)
				if seen[key] {
					t.Fatalf("two settings share the coordinates %v", x)
				}
				seen[key] = true
				i++
			}
			if _, err := s.At(big.NewInt(i)); err == nil {
				t.Errorf("At(Count) did not fail")
			}
			if _, err := s.Values64(uint64(i), nil); err == nil {
				t.Errorf("Values64(Count) did not fail")
			}
			if _, err := s.At(big.NewInt(-1)); err == nil {
				t.Errorf("At(-1) did not fail")
			}
		})
	}
}

// TestPointCoversTheSpace walks a grid of the coordinate space: every point maps to a valid
// setting, and the points reach every setting.
func TestPointCoversTheSpace(t *testing.T) {
	s := mustNew(t, smallSpaces()["chain"])
	reached := map[string]bool{}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		x := make([]float64, s.Dims())
		for i := range x {
			x[i] = 1 - rng.Float64() // (0, 1]
		}
		set, err := s.Point(x)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(set); err != nil {
			t.Fatalf("Point(%v) = %s is invalid: %v", x, set, err)
		}
		reached[set.String()] = true
	}
	n, _ := s.Len()
	if uint64(len(reached)) != n {
		t.Errorf("random points reached %d of %d settings", len(reached), n)
	}
	ones := slices.Repeat([]float64{1}, s.Dims())
	if _, err := s.Point(ones); err != nil {
		t.Errorf("Point(1,...,1): %v", err)
	}
	for _, bad := range [][]float64{slices.Repeat([]float64{0}, s.Dims()), slices.Repeat([]float64{1.5}, s.Dims()), {0.5}, slices.Repeat([]float64{math.NaN()}, s.Dims())} {
		if _, err := s.Point(bad); err == nil {
			t.Errorf("Point(%v) did not fail", bad)
		}
	}
}

// TestRandomIsUniform draws from a space whose groups have unequal subtrees (a uniform choice
// per tree level would not be uniform over settings) and applies a chi-square test.
func TestRandomIsUniform(t *testing.T) {
	s := mustNew(t, smallSpaces()["chain"])
	n, _ := s.Len()
	const draws = 200000
	counts := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	for range draws {
		set, err := s.Random(rng)
		if err != nil {
			t.Fatal(err)
		}
		counts[set.String()]++
	}
	if uint64(len(counts)) != n {
		t.Fatalf("drew %d distinct settings of %d", len(counts), n)
	}
	expected := float64(draws) / float64(n)
	chi2 := 0.0
	for set := range s.All() {
		d := float64(counts[set.String()]) - expected
		chi2 += d * d / expected
	}
	// For df = n-1 the statistic has mean df and deviation sqrt(2 df); six deviations above
	// the mean is far beyond the 1e-6 quantile, so only a biased sampler fails.
	df := float64(n - 1)
	if limit := df + 6*math.Sqrt(2*df); chi2 > limit {
		t.Errorf("chi-square %.1f with %v degrees of freedom exceeds %.1f: sampling is not uniform", chi2, df, limit)
	}
	// The ATF coordinate mapping, by contrast, favours settings in small subtrees: a
	// uniform point is not a uniform setting, which is why Random maps an index.
	pc := map[string]int{}
	for range draws {
		x := make([]float64, s.Dims())
		for i := range x {
			x[i] = 1 - rng.Float64()
		}
		set, _ := s.Point(x)
		pc[set.String()]++
	}
	chi2 = 0
	for set := range s.All() {
		d := float64(pc[set.String()]) - expected
		chi2 += d * d / expected
	}
	if limit := df + 6*math.Sqrt(2*df); chi2 <= limit {
		t.Errorf("uniform points gave a uniform distribution over settings (chi-square %.1f); the test space should be unbalanced", chi2)
	}
}

// TestSampleIsUniform checks Sample: distinct valid settings in index order, every setting
// included with probability n/N (chi-square over many samples), and the limits on n.
func TestSampleIsUniform(t *testing.T) {
	s := mustNew(t, smallSpaces()["chain"])
	total, _ := s.Len()
	rng := rand.New(rand.NewPCG(9, 10))
	const k, rounds = 7, 20000
	counts := map[string]int{}
	for range rounds {
		sets, err := s.Sample(rng, k)
		if err != nil {
			t.Fatal(err)
		}
		var prev *big.Int
		for _, set := range sets {
			idx, err := s.IndexOf(set)
			if err != nil {
				t.Fatalf("sampled an invalid setting %s: %v", set, err)
			}
			if prev != nil && idx.Cmp(prev) <= 0 {
				t.Fatalf("sample %v is not in increasing index order without repeats", sets)
			}
			prev = idx
			counts[set.String()]++
		}
	}
	expected := float64(rounds*k) / float64(total)
	chi2 := 0.0
	for set := range s.All() {
		d := float64(counts[set.String()]) - expected
		chi2 += d * d / expected
	}
	df := float64(total - 1)
	if limit := df + 6*math.Sqrt(2*df); chi2 > limit {
		t.Errorf("chi-square %.1f with %v degrees of freedom exceeds %.1f: inclusion is not uniform", chi2, df, limit)
	}
	all, err := s.Sample(rng, int(total))
	if err != nil || uint64(len(all)) != total {
		t.Errorf("Sample(Count) = %d settings, %v", len(all), err)
	}
	if _, err := s.Sample(rng, int(total)+1); err == nil {
		t.Error("Sample(Count+1) did not fail")
	}
}

func TestBigSpace(t *testing.T) {
	var params []Param
	for i := range 70 {
		params = append(params, Param{Name: fmt.Sprintf("b%02d", i), Values: Bool()})
	}
	params = append(params, Param{Name: "x", Values: Range(1, 3, 1), Constraints: []Constraint{{
		Name: "x > b00", Reads: []string{"b00", "x"}, Fn: func(v []int) bool { return v[1] > v[0] },
	}}})
	s := mustNew(t, params)
	// b00=0: x in {1,2,3}; b00=1: x in {2,3}: 5 settings of {b00,x}, times 2^69.
	want := new(big.Int).Lsh(big.NewInt(5), 69)
	if s.Count().Cmp(want) != 0 {
		t.Fatalf("count %s, want %s", s.Count(), want)
	}
	if _, fits := s.Len(); fits {
		t.Errorf("Len says %s fits in a uint64", s.Count())
	}
	if len(s.Groups()) != 70 {
		t.Errorf("%d groups, want 70 (69 lone booleans and {b00,x})", len(s.Groups()))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, i := range []*big.Int{big.NewInt(0), new(big.Int).Sub(want, big.NewInt(1)), new(big.Int).Rsh(want, 1)} {
		set, err := s.At(i)
		if err != nil {
			t.Fatal(err)
		}
		back, err := s.IndexOf(set)
		if err != nil || back.Cmp(i) != 0 {
			t.Errorf("IndexOf(At(%s)) = %v, %v", i, back, err)
		}
	}
	last, _ := s.At(new(big.Int).Sub(want, big.NewInt(1)))
	if last["b00"] != 1 || last["x"] != 3 || last["b69"] != 1 {
		t.Errorf("the last setting is %s, want every value at its largest", last)
	}
	ones := 0
	for range 200 {
		set, err := s.Random(rng)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(set); err != nil {
			t.Fatal(err)
		}
		ones += set["b69"]
	}
	if ones < 60 || ones > 140 {
		t.Errorf("b69 was 1 in %d of 200 draws", ones)
	}
	sets, err := s.Sample(rng, 50)
	if err != nil || len(sets) != 50 {
		t.Fatalf("Sample of a big space: %d settings, %v", len(sets), err)
	}
	for _, set := range sets {
		if err := s.Check(set); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckSaysWhy(t *testing.T) {
	s := mustNew(t, atfExample())
	tests := []struct {
		set  string
		want *Violation
	}{
		{"p1=22,p2=11,p3=51,p4=17,p5=68", nil},
		{"p1=22,p2=5,p3=51,p4=17,p5=68", &Violation{Param: "p2", Constraint: "p2 divides p1", Reads: []string{"p1", "p2"}, Values: []int{22, 5}}},
		{"p1=22,p2=2,p3=51,p4=17,p5=27", &Violation{Param: "p5", Constraint: "p5 = p3 + p4", Reads: []string{"p3", "p4", "p5"}, Values: []int{51, 17, 27}}},
		// two broken constraints: the first in definition order is reported
		{"p1=22,p2=5,p3=51,p4=13,p5=27", &Violation{Param: "p2", Constraint: "p2 divides p1", Reads: []string{"p1", "p2"}, Values: []int{22, 5}}},
		{"p1=23,p2=2,p3=51,p4=17,p5=68", &Violation{Param: "p1", Problem: "p1=23 is not one of its values [22 35]"}},
		{"p1=22,p2=2,p3=51,p4=17", &Violation{Param: "p5", Problem: "parameter p5 is missing; the space has p1,p2,p3,p4,p5"}},
		{"p1=22,p2=2,p3=51,p4=17,p5=68,q=1", &Violation{Param: "q", Problem: "unknown parameter q; the space has p1,p2,p3,p4,p5"}},
	}
	for _, tc := range tests {
		err := s.Check(mustParse(t, tc.set))
		if tc.want == nil {
			if err != nil {
				t.Errorf("Check(%s) = %v, want valid", tc.set, err)
			}
			continue
		}
		var v *Violation
		if !errors.As(err, &v) {
			t.Errorf("Check(%s) = %v, want a *Violation", tc.set, err)
			continue
		}
		if fmt.Sprint(*v) != fmt.Sprint(*tc.want) {
			t.Errorf("Check(%s) = %+v, want %+v", tc.set, *v, *tc.want)
		}
	}
	err := s.Check(mustParse(t, "p1=22,p2=5,p3=51,p4=17,p5=68"))
	if want := `p2: constraint "p2 divides p1" rejects p1=22,p2=5`; err == nil || err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestNewRejectsBadParams(t *testing.T) {
	ok := func(v []int) bool { return true }
	tests := []struct {
		name   string
		params []Param
		want   string
	}{
		{"none", nil, "at least one parameter"},
		{"no name", []Param{{Values: Bool()}}, "has no name"},
		{"twice", []Param{{Name: "a", Values: Bool()}, {Name: "a", Values: Bool()}}, "defined twice"},
		{"no values", []Param{{Name: "a"}}, "has no values"},
		{"repeated value", []Param{{Name: "a", Values: []int{1, 2, 1}}}, "lists the value 1 twice"},
		{"reads later", []Param{{Name: "a", Values: Bool(), Constraints: []Constraint{{Name: "c", Reads: []string{"a", "b"}, Fn: ok}}}, {Name: "b", Values: Bool()}},
			"reads b, which is not a parameter defined before a"},
		{"reads unknown", []Param{{Name: "a", Values: Bool(), Constraints: []Constraint{{Name: "c", Reads: []string{"zz"}, Fn: ok}}}}, "reads zz"},
		{"reads nothing", []Param{{Name: "a", Values: Bool(), Constraints: []Constraint{{Name: "c", Fn: ok}}}}, "reads no parameter"},
		{"no function", []Param{{Name: "a", Values: Bool(), Constraints: []Constraint{{Name: "c", Reads: []string{"a"}}}}}, "has no function"},
		{"monotone unread", []Param{{Name: "a", Values: Bool()}, {Name: "b", Values: Bool(), Constraints: []Constraint{{Name: "c", Reads: []string{"b"}, Fn: ok, Monotone: []string{"a"}}}}}, "does not read"},
	}
	for _, tc := range tests {
		_, err := New(context.Background(), tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestEmptySpace(t *testing.T) {
	s := mustNew(t, smallSpaces()["empty"])
	if s.Count().Sign() != 0 {
		t.Fatalf("count %s, want 0", s.Count())
	}
	if _, err := s.Random(rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrEmpty) {
		t.Errorf("Random on an empty space: %v, want ErrEmpty", err)
	}
	if _, err := s.Point([]float64{1, 1}); !errors.Is(err, ErrEmpty) {
		t.Errorf("Point on an empty space: %v, want ErrEmpty", err)
	}
	for range s.All() {
		t.Fatal("an empty space enumerated a setting")
	}
}

func TestNewIsCancellable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(ctx, smallSpaces()["chain"])
	if !errors.Is(err, context.Canceled) {
		t.Errorf("New with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestValueHelpers(t *testing.T) {
	tests := []struct {
		got, want []int
	}{
		{Range(2, 10, 4), []int{2, 6, 10}},
		{Range(1, 0, 1), nil},
		{Range(1, 5, 0), nil},
		{PowersOfTwo(1, 16), []int{1, 2, 4, 8, 16}},
		{PowersOfTwo(3, 20), []int{4, 8, 16}},
		{PowersOfTwo(0, 1), []int{1}},
		{PowersOfTwo(5, 4), nil},
		{Bool(), []int{0, 1}},
	}
	for i, tc := range tests {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("case %d: %v, want %v", i, tc.got, tc.want)
		}
	}
}

func ExampleNew() {
	// ATF's example of section 4: p2 divides p1, p4 divides p3, p5 = p3 + p4.
	divides := func(of, name string) Constraint {
		return Constraint{Name: name + " divides " + of, Reads: []string{of, name}, Fn: func(v []int) bool { return v[0]%v[1] == 0 }}
	}
	s, err := New(context.Background(), []Param{
		{Name: "p1", Values: []int{22, 35}},
		{Name: "p2", Values: []int{2, 5, 7, 11}, Constraints: []Constraint{divides("p1", "p2")}},
		{Name: "p3", Values: []int{26, 51}},
		{Name: "p4", Values: []int{1, 3, 13, 17}, Constraints: []Constraint{divides("p3", "p4")}},
		{Name: "p5", Values: []int{27, 39, 52, 54, 68}, Constraints: []Constraint{{
			Name: "p5 = p3 + p4", Reads: []string{"p3", "p4", "p5"}, Fn: func(v []int) bool { return v[2] == v[0]+v[1] },
		}}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	first, _ := s.At(big.NewInt(0))
	fmt.Println(first)
	fmt.Println(s.Check(smart.Setting{"p1": 22, "p2": 5, "p3": 26, "p4": 1, "p5": 27}))
	// Output:
	// 20 settings in 2 groups: {p1,p2}=4 {p3,p4,p5}=5
	// p1=22,p2=2,p3=26,p4=1,p5=27
	// p2: constraint "p2 divides p1" rejects p1=22,p2=5
}
