package space

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
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
		{"a < 0x10", "only decimal number literals"},
		{"a < 1.5e", "1.5e is not a number"},
		{"a in [1, 2]", `"in" is not supported`},
		{"a is True", `"is" is not supported`},
		{"a == None", `"None" is not supported`},
		{"(a + 1", `expected ")"`},
		{"a + ", "ends where an operand is expected"},
		{"a b", `unexpected "b" after a complete expression`},
		{"a = 1", `"=" is not supported`},
		{"a < 'x", "the string is not closed"},
		{`a == "x\\y"`, "a string with a backslash"},
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

// Float and string parameters (held as their LabelCode) read as their values, with float and
// string literals; each answer is Python's (eval of the expression with these values), and
// what Python raises on (a string ordered against a number, negated, or taken from) fails.
func TestParseConstraintFloatsAndStrings(t *testing.T) {
	labelled := map[string][]json.RawMessage{
		"alpha":  {json.RawMessage("0.5"), json.RawMessage("1.25"), json.RawMessage("1.0")},
		"method": {json.RawMessage(`"fast"`), json.RawMessage(`"exact"`), json.RawMessage(`""`)},
	}
	decode := map[string]func(int) value{}
	code := map[string]int{} // a label's text, its code
	for name, labels := range labelled {
		bp := BenchmarkParam{Name: name, Labels: labels}
		for _, l := range labels {
			c, err := LabelCode(l)
			if err != nil {
				t.Fatal(err)
			}
			bp.Values, code[string(l)] = append(bp.Values, c), c
		}
		d, err := labelDecoder(bp)
		if err != nil {
			t.Fatal(err)
		}
		decode[name] = d
	}
	tests := []struct {
		expr   string
		values map[string]string // a labelled parameter's label, or an integer
		want   bool
	}{
		{"alpha * block_size_x <= 48", map[string]string{"alpha": "0.5", "block_size_x": "64"}, true},
		{"alpha * block_size_x <= 48", map[string]string{"alpha": "1.25", "block_size_x": "64"}, false},
		{"method == 'fast'", map[string]string{"method": `"fast"`}, true},
		{"method == 'fast'", map[string]string{"method": `"exact"`}, false},
		{`method == "fast" or block_size_x > 32`, map[string]string{"method": `"exact"`, "block_size_x": "64"}, true},
		{"method != 1", map[string]string{"method": `"fast"`}, true},
		{"method == 1", map[string]string{"method": `"fast"`}, false},
		{"method < 'g'", map[string]string{"method": `"fast"`}, true},
		{"alpha == 0.5", map[string]string{"alpha": "0.5"}, true},
		{"alpha == 1/2", map[string]string{"alpha": "0.5"}, true},
		{"1e-3 < alpha < .75", map[string]string{"alpha": "0.5"}, true},
		{"1E+1 == block_size_x / 6.4", map[string]string{"block_size_x": "64"}, true},
		{"method + 'er' == 'faster'", map[string]string{"method": `"fast"`}, true},
		{"method * 2 == 'fastfast'", map[string]string{"method": `"fast"`}, true},
		{"2 * method == method + method", map[string]string{"method": `"fast"`}, true},
		{"method * 0", map[string]string{"method": `"fast"`}, false},
		{"method and alpha", map[string]string{"method": `"fast"`, "alpha": "0.5"}, true},
		{"not method", map[string]string{"method": `"fast"`}, false},
		{"alpha % 0.2 > 0.09", map[string]string{"alpha": "0.5"}, true},
		{"alpha // 0.2 == 2", map[string]string{"alpha": "0.5"}, true},
		{"1_000.5 > block_size_x", map[string]string{"block_size_x": "64"}, true},
		{"method == ''", map[string]string{"method": `""`}, true},
		{"alpha == True", map[string]string{"alpha": "1.0"}, true},
		// Python raises TypeError on these.
		{"method < 1", map[string]string{"method": `"fast"`}, false},
		{"-method == 1", map[string]string{"method": `"fast"`}, false},
		{"method - 'a'", map[string]string{"method": `"fast"`}, false},
		{"method * 1.5", map[string]string{"method": `"fast"`}, false},
	}
	for _, tc := range tests {
		c, err := parseConstraint(tc.expr, decode)
		if err != nil {
			t.Fatalf("parseConstraint(%q): %v", tc.expr, err)
		}
		v := make([]int, len(c.Reads))
		for i, name := range c.Reads {
			text, ok := tc.values[name]
			if !ok {
				t.Fatalf("%q reads %s, which the case does not give", tc.expr, name)
			}
			if _, isLabel := labelled[name]; isLabel {
				v[i] = code[text]
			} else if v[i], err = strconv.Atoi(text); err != nil {
				t.Fatal(err)
			}
		}
		if got := c.Fn(v); got != tc.want {
			t.Errorf("%q with %v = %v, want %v (Python)", tc.expr, tc.values, got, tc.want)
		}
	}
}

// FuzzParseConstraint: no expression makes ParseConstraint, or a constraint it accepts, panic
// on any values of the names it reads.
func FuzzParseConstraint(f *testing.F) {
	for _, s := range []string{"use_padding==0 or block_size_x % 32 != 0", "32 <= block_size_x * block_size_y <= 1024",
		"a // b - c / 2 > -3", "not (x == 'a')", "(a+b)*c%7 != 1 and True"} {
		f.Add(s, int64(3), int64(-5), int64(0))
	}
	f.Fuzz(func(t *testing.T, expr string, a, b, c int64) {
		con, err := ParseConstraint(expr)
		if err != nil {
			return
		}
		v := make([]int, len(con.Reads))
		for i := range v {
			v[i] = int([]int64{a, b, c}[i%3])
		}
		if !con.Fn(v) && con.Explain(v) == "" {
			t.Errorf("%q fails on %v without saying why", expr, v)
		}
	})
}
