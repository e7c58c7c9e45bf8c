package smart

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCombinationsAreTheValidOnes builds the valid combinations of StencilMART Table I
// independently: with ST, {none, BM, CM} x RT x PR x TB (24); without ST, {none, BM, CM} x TB
// (6, RT and PR need ST).
func TestCombinationsAreTheValidOnes(t *testing.T) {
	var want []Combination
	merges := []Combination{0, Combination(BM), Combination(CM)}
	for _, m := range merges {
		for _, tb := range []Combination{0, Combination(TB)} {
			want = append(want, m|tb)
			for _, rt := range []Combination{0, Combination(RT)} {
				for _, pr := range []Combination{0, Combination(PR)} {
					want = append(want, Combination(ST)|m|rt|pr|tb)
				}
			}
		}
	}
	slices.Sort(want)
	got := Combinations()
	if len(got) != 30 || !slices.Equal(got, want) {
		t.Fatalf("Combinations() = %v (%d), want %v (30)", got, len(got), want)
	}
	if got[0] != 0 || got[0].String() != BaselineName {
		t.Errorf("the first combination is %s, want the baseline %s", got[0], BaselineName)
	}
	if !slices.IsSorted(got) {
		t.Errorf("Combinations() is not in increasing bit order: %v", got)
	}
	for _, c := range got {
		if err := c.Check(); err != nil {
			t.Errorf("%s: Check = %v", c, err)
		}
	}
}

// TestCombinationNamesRoundTrip writes every combination's parts in every order and in mixed
// case and reads them back.
func TestCombinationNamesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range Combinations() {
		if c == 0 {
			for _, name := range []string{"BASE", "base", "Base", "", "  "} {
				if got, err := ParseCombination(name); err != nil || got != 0 {
					t.Errorf("ParseCombination(%q) = %s, %v; want the baseline", name, got, err)
				}
			}
			continue
		}
		parts := strings.Split(c.String(), "_")
		for perm := range permutations(parts) {
			mixed := make([]string, len(perm))
			for i, p := range perm {
				var b strings.Builder
				for _, r := range p {
					if rng.IntN(2) == 0 {
						b.WriteString(strings.ToLower(string(r)))
					} else {
						b.WriteRune(r)
					}
				}
				mixed[i] = b.String()
			}
			name := strings.Join(mixed, "_")
			got, err := ParseCombination(name)
			if err != nil || got != c {
				t.Fatalf("ParseCombination(%q) = %s, %v; want %s", name, got, err, c)
			}
		}
	}
}

// permutations yields every ordering of s (Heap's algorithm).
func permutations(s []string) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		a := slices.Clone(s)
		var gen func(k int) bool
		gen = func(k int) bool {
			if k <= 1 {
				return yield(slices.Clone(a))
			}
			for i := 0; i < k; i++ {
				if !gen(k - 1) {
					return false
				}
				if k%2 == 0 {
					a[i], a[k-1] = a[k-1], a[i]
				} else {
					a[0], a[k-1] = a[k-1], a[0]
				}
			}
			return true
		}
		gen(len(a))
	}
}

func TestPermutations(t *testing.T) {
	seen := map[string]bool{}
	for p := range permutations([]string{"a", "b", "c", "d"}) {
		seen[strings.Join(p, "")] = true
	}
	if len(seen) != 24 {
		t.Errorf("%d distinct permutations of 4 items, want 24", len(seen))
	}
}

// TestParseCombinationBadNames checks that every rejected name gets an error that says what is
// wrong and, for unknown or invalid combinations, lists all 30 valid names.
func TestParseCombinationBadNames(t *testing.T) {
	tests := []struct {
		name, want string
		lists      bool
	}{
		{"XY", `unknown optimization "XY"`, true},
		{"ST_FOO", `unknown optimization "FOO"`, true},
		{"ST-RT", `unknown optimization "ST-RT"`, true},
		{"ST__RT", `unknown optimization ""`, true},
		{"bm_cm", "block merging (BM) and cyclic merging (CM) exclude each other", true},
		{"RT", "retiming (RT) needs streaming (ST)", true},
		{"pr_tb", "prefetching (PR) needs streaming (ST)", true},
		{"CM_RT_BM", "exclude each other", true},
		{"ST_st", "names ST twice", false},
	}
	for _, tc := range tests {
		_, err := ParseCombination(tc.name)
		if err == nil {
			t.Errorf("ParseCombination(%q) = nil error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("ParseCombination(%q) = %q, want it to say %q", tc.name, msg, tc.want)
		}
		if !tc.lists {
			continue
		}
		for _, c := range Combinations() {
			if !strings.Contains(msg, c.String()) {
				t.Errorf("ParseCombination(%q) = %q does not list the valid combination %s", tc.name, msg, c)
			}
		}
	}
}

func TestCombinationCheck(t *testing.T) {
	tests := []struct {
		c    Combination
		want string // "" for valid
	}{
		{0, ""},
		{Combination(ST | BM | RT | PR | TB), ""},
		{Combination(CM | TB), ""},
		{Combination(BM | CM), "exclude each other"},
		{Combination(ST | BM | CM), "exclude each other"},
		{Combination(RT), "retiming (RT) needs streaming (ST)"},
		{Combination(CM | RT | TB), "retiming (RT) needs streaming (ST)"},
		{Combination(PR), "prefetching (PR) needs streaming (ST)"},
		{Combination(BM | PR), "prefetching (PR) needs streaming (ST)"},
		{Combination(1 << 6), "unknown optimization bits"},
	}
	for _, tc := range tests {
		err := tc.c.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Combination(%d).Check() = %v, want valid", uint8(tc.c), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Combination(%d).Check() = %v, want an error saying %q", uint8(tc.c), err, tc.want)
		}
	}
	// Every combination but the 30 valid ones fails Check.
	valid := 0
	for c := range Combination(1 << 6) {
		if c.Check() == nil {
			valid++
		}
	}
	if valid != 30 {
		t.Errorf("%d of the 64 bit patterns pass Check, want 30", valid)
	}
}

func TestOptimizationString(t *testing.T) {
	for _, tc := range []struct {
		o    Optimization
		want string
	}{{ST, "ST"}, {BM, "BM"}, {CM, "CM"}, {RT, "RT"}, {PR, "PR"}, {TB, "TB"}, {Optimization(64), "Optimization(64)"}} {
		if got := tc.o.String(); got != tc.want {
			t.Errorf("%d: %q, want %q", uint8(tc.o), got, tc.want)
		}
	}
	if got := Combination(0).With(TB).With(ST).With(CM).String(); got != "ST_CM_TB" {
		t.Errorf("ST|CM|TB writes as %q, want ST_CM_TB (Table I order)", got)
	}
}

func TestParseCombinations(t *testing.T) {
	st, stRT := Combination(0).With(ST), Combination(0).With(ST).With(RT)
	for _, tt := range []struct {
		list    string
		want    []Combination
		wantErr string
	}{
		{"all", Combinations(), ""},
		{" ALL ", Combinations(), ""},
		{"BASE,st_rt,ST", []Combination{0, stRT, st}, ""},
		{"ST,", nil, "has an empty name"},
		{"", nil, "has an empty name"},
		{"ST,ST", nil, "ST is listed twice"},
		{"ST,FOO", nil, "unknown optimization"},
	} {
		got, err := ParseCombinations(tt.list)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: error %v, want one saying %q", tt.list, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !slices.Equal(got, tt.want)):
			t.Errorf("%q: %v, %v; want %v", tt.list, got, err, tt.want)
		}
	}
}
