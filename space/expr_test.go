package space

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// The expected results were computed by Python 3: bool(eval(expr, {}, values)).
func TestParseConstraintMatchesPython(t *testing.T) {
	const conv = "use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_size_y+(filter_height-1)))) < 12*1024"
	tests := []struct {
		expr   string
		values map[string]int
		want   bool
	}{
		{"use_padding==0 or block_size_x % 32 != 0", map[string]int{"use_padding": 1, "block_size_x": 64}, false},
		{"use_padding==0 or block_size_x % 32 != 0", map[string]int{"use_padding": 1, "block_size_x": 48}, true},
		{"use_padding==0 or block_size_x % 32 != 0", map[string]int{"use_padding": 0, "block_size_x": 64}, true},
		{"32 <= block_size_x * block_size_y <= 1024", map[string]int{"block_size_x": 16, "block_size_y": 2}, true},
		{"32 <= block_size_x * block_size_y <= 1024", map[string]int{"block_size_x": 16, "block_size_y": 1}, false},
		{"32 <= block_size_x * block_size_y <= 1024", map[string]int{"block_size_x": 256, "block_size_y": 8}, false},
		{"not a", map[string]int{"a": 0}, true},
		{"not a == 1", map[string]int{"a": 1}, false},
		{"a - b - c == -5", map[string]int{"a": 1, "b": 2, "c": 4}, true},
		{"-7 // 2 == b", map[string]int{"b": -4}, true},
		{"-7 % 3", nil, true},
		{"7 % -3 == a", map[string]int{"a": -2}, true},
		{"a / b == 2", map[string]int{"a": 5, "b": 2}, false},
		{"a // b == 2", map[string]int{"a": 5, "b": 2}, true},
		{"a / b > 2", map[string]int{"a": 5, "b": 2}, true},
		{"(a + b) * c == 21", map[string]int{"a": 3, "b": 4, "c": 3}, true},
		{"a + b * c == 15", map[string]int{"a": 3, "b": 4, "c": 3}, true},
		{"a < b < c", map[string]int{"a": 1, "b": 3, "c": 2}, false},
		{"a < b < c", map[string]int{"a": 1, "b": 2, "c": 3}, true},
		{"a == b != c", map[string]int{"a": 2, "b": 2, "c": 2}, false},
		{"a and b", map[string]int{"a": 2, "b": 0}, false},
		{"a or b", map[string]int{"a": 0, "b": 0}, false},
		{"(a or b) - 3", map[string]int{"a": 0, "b": 3}, false},
		{"(a and b) == 5", map[string]int{"a": 2, "b": 5}, true},
		{"not not a", map[string]int{"a": 7}, true},
		{"a == 0 or a % b == 0", map[string]int{"a": 0, "b": 0}, true},
		{"1 < 2 == 2", nil, true},
		{"+a == --a", map[string]int{"a": 3}, true},
		{"a / b * b == a", map[string]int{"a": 7, "b": 3}, true},
		{conv, map[string]int{"use_shmem": 1, "block_size_x": 128, "tile_size_x": 4, "block_size_y": 16, "tile_size_y": 1, "filter_width": 15, "filter_height": 15}, false},
		{conv, map[string]int{"use_shmem": 1, "block_size_x": 128, "tile_size_x": 1, "block_size_y": 16, "tile_size_y": 1, "filter_width": 15, "filter_height": 15}, true},
		// Python's bool is an int: True == 1, False == 0, and they add.
		{"use_shmem == True", map[string]int{"use_shmem": 1}, true},
		{"use_shmem == True", map[string]int{"use_shmem": 0}, false},
		{"a == False or b", map[string]int{"a": 1, "b": 0}, false},
		{"True + True == a", map[string]int{"a": 2}, true},
		{"a * False", map[string]int{"a": 5}, false},
		{"not (a != True)", map[string]int{"a": 1}, true},
		// Python raises ZeroDivisionError; a constraint counts it as a violation.
		{"a % b", map[string]int{"a": 5, "b": 0}, false},
		{"a // b >= 0", map[string]int{"a": 5, "b": 0}, false},
		{"a / b >= 0", map[string]int{"a": 5, "b": 0}, false},
	}
	for _, tc := range tests {
		c, err := ParseConstraint(tc.expr)
		if err != nil {
			t.Fatalf("ParseConstraint(%q): %v", tc.expr, err)
		}
		names := slices.Sorted(maps.Keys(tc.values))
		got := slices.Clone(c.Reads)
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Errorf("%q reads %v, want exactly %v", tc.expr, c.Reads, names)
		}
		v := make([]int, len(c.Reads))
		for i, r := range c.Reads {
			v[i] = tc.values[r]
		}
		if ok := c.Fn(v); ok != tc.want {
			t.Errorf("%q with %v = %v, Python says %v", tc.expr, tc.values, ok, tc.want)
		}
	}
}

func TestParseConstraintReadsInOrderOfMention(t *testing.T) {
	c, err := ParseConstraint("z*y <= x + z")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"z", "y", "x"}; !slices.Equal(c.Reads, want) {
		t.Errorf("reads %v, want %v", c.Reads, want)
	}
	if c.Name != "z*y <= x + z" {
		t.Errorf("name %q", c.Name)
	}
}

func TestParseConstraintErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{"a ** 2 < 4", `"**" is not supported`},
		{"a < 1.5", "only decimal integer literals"},
		{"a in [1, 2]", `"in" is not supported`},
		{"a is True", `"is" is not supported`},
		{"a == None", `"None" is not supported`},
		{"(a + 1", `expected ")"`},
		{"a + ", "ends where an operand is expected"},
		{"a b", `unexpected "b" after a complete expression`},
		{"a = 1", `"=" is not supported`},
		{"a < 'x'", `"'" is not supported`},
		{"a * * b", `unexpected "*" where an operand`},
		{"f(a)", `unexpected "(" after a complete expression`},
		{"a < 99999999999999999999", "out of range"},
	}
	for _, tc := range tests {
		_, err := ParseConstraint(tc.expr)
		if err == nil {
			t.Errorf("ParseConstraint(%q) = nil error, want one containing %q", tc.expr, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "constraint") {
			t.Errorf("ParseConstraint(%q) = %v, want it to name the constraint and say %q", tc.expr, err, tc.want)
		}
	}
}

func ExampleParseConstraint() {
	c, err := ParseConstraint("32 <= block_size_x * block_size_y <= 1024")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Reads)
	fmt.Println(c.Fn([]int{64, 8}), c.Fn([]int{256, 8}))
	// Output:
	// [block_size_x block_size_y]
	// true false
}
