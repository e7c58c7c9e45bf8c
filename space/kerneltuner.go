package space

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"smart/internal/jsonerr"
)

// KernelTuner builds the space Kernel Tuner searches for a kernel: tune_params (names in order,
// each with its values) and restrictions written as Python expressions. Each restriction
// becomes the constraint of the last parameter it mentions, so it is checked as soon as all its
// parameters are bound; the valid settings are those Kernel Tuner enumerates.
func KernelTuner(ctx context.Context, names []string, values [][]int, restrictions []string) (*Space, error) {
	if len(names) != len(values) {
		return nil, fmt.Errorf("kernel tuner space: %d parameter names but %d value lists", len(names), len(values))
	}
	params := make([]Param, len(names))
	for i, n := range names {
		params[i] = Param{Name: n, Values: values[i]}
	}
	for _, r := range restrictions {
		c, err := ParseConstraint(r)
		if err != nil {
			return nil, err
		}
		for _, n := range c.Reads {
			if !slices.Contains(names, n) {
				return nil, fmt.Errorf("restriction %q reads %s, which is not a tuning parameter; the parameters are %s", r, n, strings.Join(names, ","))
			}
		}
		params = attach(params, c)
	}
	s, err := New(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("kernel tuner space: %w", err)
	}
	return s, nil
}

// BenchmarkSpec is the search space a benchmark_hub space.json describes (BAT / T4:
// TuningParameters with Values as a Python list in a string, or a JSON array, and Conditions as
// Python expressions).
type BenchmarkSpec struct {
	Params     []BenchmarkParam
	Conditions []string // Python expressions, as written
}

// BenchmarkParam is one tuning parameter of a BenchmarkSpec. A bool parameter's values (True
// and False, or JSON's true and false) are held as 1 and 0, as Python compares them.
type BenchmarkParam struct {
	Name   string
	Values []int
	Bool   bool
}

// ParseBenchmarkSpec reads the tuning parameters and conditions of a space.json. Parameters
// are int (or uint) or bool. Errors name the field; the caller names the file.
func ParseBenchmarkSpec(data []byte) (BenchmarkSpec, error) {
	var raw struct {
		ConfigurationSpace struct {
			TuningParameters []struct {
				Name   string          `json:"Name"`
				Type   string          `json:"Type"`
				Values json.RawMessage `json:"Values"`
			} `json:"TuningParameters"`
			Conditions []struct {
				Expression string `json:"Expression"`
			} `json:"Conditions"`
		} `json:"ConfigurationSpace"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return BenchmarkSpec{}, fmt.Errorf("not a search-space description: %w", jsonerr.Describe(err))
	}
	cs := raw.ConfigurationSpace
	if len(cs.TuningParameters) == 0 {
		return BenchmarkSpec{}, fmt.Errorf("field ConfigurationSpace.TuningParameters is missing or empty")
	}
	var b BenchmarkSpec
	for i, p := range cs.TuningParameters {
		field := fmt.Sprintf("ConfigurationSpace.TuningParameters[%d]", i)
		isBool := p.Type == "bool" || p.Type == "boolean"
		if p.Type != "" && p.Type != "int" && p.Type != "uint" && !isBool {
			return BenchmarkSpec{}, fmt.Errorf("field %s.Type is %q; only int and bool parameters are supported", field, p.Type)
		}
		v, err := parseValueList(p.Values, isBool)
		if err != nil {
			return BenchmarkSpec{}, fmt.Errorf("field %s.Values (%s): %w", field, p.Name, err)
		}
		b.Params = append(b.Params, BenchmarkParam{Name: p.Name, Values: v, Bool: isBool})
	}
	for _, c := range cs.Conditions {
		b.Conditions = append(b.Conditions, c.Expression)
	}
	return b, nil
}

// Space builds the space Kernel Tuner searches for b (KernelTuner).
func (b BenchmarkSpec) Space(ctx context.Context) (*Space, error) {
	names := make([]string, len(b.Params))
	values := make([][]int, len(b.Params))
	for i, p := range b.Params {
		names[i], values[i] = p.Name, p.Values
	}
	return KernelTuner(ctx, names, values, b.Conditions)
}

// ParseBenchmarkSpace reads a space.json (ParseBenchmarkSpec) and builds its space. Errors name
// the file (source) and the field.
func ParseBenchmarkSpace(ctx context.Context, data []byte, source string) (*Space, error) {
	b, err := ParseBenchmarkSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	s, err := b.Space(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

// parseValueList reads "[1, 2, 4]" (a Python list in a JSON string) or [1, 2, 4]; with
// isBool, "[True, False]" or [true, false] as 1 and 0.
func parseValueList(raw json.RawMessage, isBool bool) ([]int, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		if isBool {
			var b []bool
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, fmt.Errorf("is neither a list of booleans nor a string holding one")
			}
			v := make([]int, len(b))
			for i, x := range b {
				v[i] = boolInt(x)
			}
			return v, nil
		}
		var v []int
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("is neither a list of integers nor a string holding one")
		}
		return v, nil
	}
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "[") || !strings.HasSuffix(text, "]") {
		return nil, fmt.Errorf("%q is not a list such as \"[1, 2, 4]\"", text)
	}
	var out []int
	for _, item := range strings.Split(text[1:len(text)-1], ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if isBool {
			if item != "True" && item != "False" {
				return nil, fmt.Errorf("value %q is not True or False", item)
			}
			out = append(out, boolInt(item == "True"))
			continue
		}
		n, err := strconv.Atoi(item)
		if err != nil {
			return nil, fmt.Errorf("value %q is not an integer", item)
		}
		out = append(out, n)
	}
	return out, nil
}
