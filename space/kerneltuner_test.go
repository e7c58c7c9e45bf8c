package space

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"smart"
	"smart/internal/ktdata"
)

// cacheKeys reads a Kernel Tuner cache file: its parameter names and the settings it lists.
func cacheKeys(t *testing.T, path string) ([]string, map[string]smart.Setting) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Keys  []string                   `json:"tune_params_keys"`
		Cache map[string]json.RawMessage `json:"cache"`
	}
	if err := json.NewDecoder(zr).Decode(&c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make(map[string]smart.Setting, len(c.Cache))
	for key := range c.Cache {
		vals := strings.Split(key, ",")
		if len(vals) != len(c.Keys) {
			t.Fatalf("%s: key %q has %d values for %d parameters", path, key, len(vals), len(c.Keys))
		}
		set := smart.Setting{}
		for i, v := range vals {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: key %q: %v", path, key, err)
			}
			set[c.Keys[i]] = n
		}
		out[set.String()] = set
	}
	return c.Keys, out
}

// TestKernelTunerSpaces builds the convolution and dedispersion spaces from their space.json
// and compares them with the configurations Kernel Tuner lists in each GPU's cache file.
//
// The counts agree exactly: 4362 for convolution_milo and 11130 for dedispersion_milo, on every
// GPU. Kernel Tuner writes a cache entry for every configuration of its constrained space,
// failed ones included (their "time" is a string such as "CompilationFailedConfig"), so the
// cache keys are the valid settings of space.json's parameters and restrictions, no more and no
// fewer. The settings agree one by one too.
func TestKernelTunerSpaces(t *testing.T) {
	tests := []struct {
		kernel string
		count  int64
		groups int
	}{
		// convolution: the block and tile sizes, use_padding, use_shmem and the single-valued
		// filter sizes (the shared-memory restriction reads them) are linked; read_only and
		// use_cmem stand alone.
		{"convolution_milo", 4362, 3},
		// dedispersion: {block_size_x, block_size_y}, {tile_size_x, tile_stride_x},
		// {tile_size_y, tile_stride_y}, and block_size_z, loop_unroll_factor_channel alone.
		{"dedispersion_milo", 11130, 5},
	}
	for _, tc := range tests {
		t.Run(tc.kernel, func(t *testing.T) {
			dir := ktdata.Require(t, tc.kernel)
			data, err := os.ReadFile(filepath.Join(dir, tc.kernel, "space.json"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := benchmarkSpace(context.Background(), data, "space.json")
			if err != nil {
				t.Fatal(err)
			}
			if s.Count().Int64() != tc.count {
				t.Errorf("count %s, want %d", s.Count(), tc.count)
			}
			if len(s.Groups()) != tc.groups {
				t.Errorf("groups %v, want %d of them", s.Groups(), tc.groups)
			}
			files, _ := filepath.Glob(filepath.Join(dir, tc.kernel, "*.json.gz"))
			for _, f := range files {
				if strings.HasSuffix(f, "_T4.json.gz") {
					continue
				}
				keys, cache := cacheKeys(t, f)
				if int64(len(cache)) != s.Count().Int64() {
					t.Errorf("%s lists %d configurations, the space has %s", filepath.Base(f), len(cache), s.Count())
				}
				if !slices.Equal(keys, s.Names()) {
					t.Errorf("%s has parameters %v, the space %v", filepath.Base(f), keys, s.Names())
				}
				for _, set := range cache {
					if err := s.Check(set); err != nil {
						t.Fatalf("%s lists %s, which the space rejects: %v", filepath.Base(f), set, err)
					}
				}
				for set := range s.All() {
					if _, ok := cache[set.String()]; !ok {
						t.Fatalf("the space has %s, which %s does not list", set, filepath.Base(f))
					}
				}
			}
		})
	}
}

// benchmarkSpace reads a space.json and builds its space, as an import of Kernel Tuner
// results and a tuner of its kernel do (ParseBenchmarkSpec, then KernelTuner); errors name the
// file (source).
func benchmarkSpace(ctx context.Context, data []byte, source string) (*Space, error) {
	b, err := ParseBenchmarkSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	s, err := KernelTuner(ctx, b.Params, b.Conditions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

func TestKernelTunerErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{`, "space.json: not a search-space description"},
		{"no parameters", `{"ConfigurationSpace": {}}`, "TuningParameters is missing"},
		{"unknown type", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "complex", "Values": "[1j]"}]}}`, `TuningParameters[0].Type is "complex"; the types are int, uint, bool, float, double and string`},
		{"float as int", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": "[1, 1.5]"}]}}`, `value 1.5 is not an integer`},
		{"unquoted string", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "string", "Values": "[fast]"}]}}`, `value "fast" is neither a number nor a quoted string`},
		{"open string", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "string", "Values": "['fast]"}]}}`, `a string is not closed`},
		{"float of seven decimals", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "float", "Values": [0.1234567]}]}}`, `more than six decimals`},
		{"bool not a bool", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "bool", "Values": "[True, 2]"}]}}`, `value "2" is not True or False`},
		{"bool as integers", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "bool", "Values": [0, 1]}]}}`, "value 0 is not a boolean"},
		{"bad list", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": "1, 2"}]}}`, "TuningParameters[0].Values (a)"},
		{"bad value", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": "[1, x]"}]}}`, `value "x" is not an integer`},
		{"unknown name", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": [1, 2]}], "Conditions": [{"Expression": "a < b"}]}}`, "reads b, which is not a tuning parameter"},
		{"bad expression", `{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": [1, 2]}], "Conditions": [{"Expression": "a ** 2 < 3"}]}}`, `"**" is not supported`},
	}
	for _, tc := range tests {
		_, err := benchmarkSpace(ctx, []byte(tc.json), "space.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "space.json") {
			t.Errorf("%s: %v, want an error naming space.json and containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := KernelTuner(ctx, []BenchmarkParam{{Name: "a", Values: []int{1, 2}, Labels: []json.RawMessage{json.RawMessage("0.5")}}}, nil); err == nil {
		t.Error("KernelTuner with mismatched values and labels did not fail")
	}
}

// A bool parameter, its values as a Python list or as JSON booleans, and conditions comparing
// it with True: the settings are those Python enumerates (counted by hand: 12 combinations, the
// two with a False and b 1 and the two with c True and b 4 left out).
func TestKernelTunerBoolSpace(t *testing.T) {
	const spec = `{"ConfigurationSpace": {
		"TuningParameters": [
			{"Name": "a", "Type": "bool", "Values": "[True, False]"},
			{"Name": "b", "Type": "int", "Values": "[1, 2, 4]"},
			{"Name": "c", "Type": "bool", "Values": [false, true]}],
		"Conditions": [{"Expression": "a == True or b > 1"}, {"Expression": "not c or b != 4"}]}}`
	s, err := benchmarkSpace(context.Background(), []byte(spec), "space.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Count().Int64() != 8 {
		t.Errorf("count %s, want 8", s.Count())
	}
	var got []string
	for set := range s.All() {
		got = append(got, set.String())
	}
	slices.Sort(got)
	want := []string{
		"a=0,b=2,c=0", "a=0,b=2,c=1", "a=0,b=4,c=0",
		"a=1,b=1,c=0", "a=1,b=1,c=1", "a=1,b=2,c=0", "a=1,b=2,c=1", "a=1,b=4,c=0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
}

// Float and string parameters, as a Python list in a string (single or double quotes) or as a
// JSON array: each value held as its LabelCode, beside its JSON; conditions read their values.
func TestBenchmarkSpecLabels(t *testing.T) {
	const spec = `{"ConfigurationSpace": {
		"TuningParameters": [
			{"Name": "alpha", "Type": "float", "Values": "[0.5, 1.25, 2]"},
			{"Name": "method", "Type": "string", "Values": "['fast', \"exact\"]"},
			{"Name": "mode", "Type": "string", "Values": ["a, b", "c"]},
			{"Name": "bx", "Type": "int", "Values": "[32, 64]"}],
		"Conditions": [{"Expression": "bx > 32"}, {"Expression": "alpha * bx <= 64 or method == 'exact'"}]}}`
	b, err := ParseBenchmarkSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	code := func(label string) int {
		c, err := LabelCode(json.RawMessage(label))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	want := []BenchmarkParam{
		{Name: "alpha", Values: []int{500000, 1250000, 2000000}, Labels: []json.RawMessage{json.RawMessage("0.5"), json.RawMessage("1.25"), json.RawMessage("2")}},
		{Name: "method", Values: []int{code(`"fast"`), code(`"exact"`)}, Labels: []json.RawMessage{json.RawMessage(`"fast"`), json.RawMessage(`"exact"`)}},
		{Name: "mode", Values: []int{code(`"a, b"`), code(`"c"`)}, Labels: []json.RawMessage{json.RawMessage(`"a, b"`), json.RawMessage(`"c"`)}},
		{Name: "bx", Values: []int{32, 64}},
	}
	if !reflect.DeepEqual(b.Params, want) {
		t.Errorf("params\n%+v\nwant\n%+v", b.Params, want)
	}
	s, err := KernelTuner(context.Background(), b.Params, b.Conditions)
	if err != nil {
		t.Fatal(err)
	}
	// Python: sum(1 for alpha, method, mode, bx in product(...) if bx > 32 and (alpha * bx <= 64
	// or method == 'exact')) is 8.
	if s.Count().Int64() != 8 {
		t.Errorf("count %s, want 8", s.Count())
	}
	for set := range s.All() {
		if set["bx"] != 64 || set["alpha"] != 500000 && set["method"] != code(`"exact"`) {
			t.Errorf("the space holds %v, which the conditions refuse", set)
		}
	}
}

// LabelCode keeps a number's order and tells a string from the number it spells.
func TestLabelCode(t *testing.T) {
	tests := []struct {
		label string
		want  int
		err   bool
	}{
		{"0.5", 500000, false},
		{"0.50", 500000, false},
		{"-1.25", -1250000, false},
		{"3", 3000000, false},
		{`"x3"`, 241371996, false}, // FNV-1a of "x3", its low 31 bits (computed apart)
		// A string of an integer as Python prints it is that integer, as in Kernel Tuner's key:
		// a cache of ["16", "32"] shares its configurations with one of [16, 32].
		{`"3"`, 3, false},
		{`"-16"`, -16, false},
		{`"03"`, 518876564, false}, // not as Python prints 3: a string like any other
		{"0.0000001", 0, true},
		{"null", 0, true},
		{"[1]", 0, true},
	}
	for _, tc := range tests {
		got, err := LabelCode(json.RawMessage(tc.label))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("LabelCode(%s) = %d, %v; want %d (error %v)", tc.label, got, err, tc.want, tc.err)
		}
	}
}
