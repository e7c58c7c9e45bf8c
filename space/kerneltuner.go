package space

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// benchmarkSpace is the search-space description of a benchmark_hub space.json file.
type benchmarkSpace struct {
	ConfigurationSpace struct {
		TuningParameters []struct {
			Name   string          `json:"Name"`
			Type   string          `json:"Type"`
			Values json.RawMessage `json:"Values"`
		} `json:"TuningParameters"`
		Conditions []struct {
			Expression string   `json:"Expression"`
			Parameters []string `json:"Parameters"`
		} `json:"Conditions"`
	} `json:"ConfigurationSpace"`
}

// ParseBenchmarkSpace reads a search-space description in the format of the benchmark_hub
// space.json files (BAT / T4: TuningParameters with Values as a Python list, or a JSON array,
// and Conditions as Python expressions) and builds its space with KernelTuner. Only int
// parameters are supported. Errors name the file (source) and the field.
func ParseBenchmarkSpace(ctx context.Context, data []byte, source string) (*Space, error) {
	var b benchmarkSpace
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: not a search-space description: %w", source, err)
	}
	cs := b.ConfigurationSpace
	if len(cs.TuningParameters) == 0 {
		return nil, fmt.Errorf("%s: field ConfigurationSpace.TuningParameters is missing or empty", source)
	}
	var names []string
	var values [][]int
	for i, p := range cs.TuningParameters {
		field := fmt.Sprintf("ConfigurationSpace.TuningParameters[%d]", i)
		if p.Type != "" && p.Type != "int" {
			return nil, fmt.Errorf("%s: field %s.Type is %q; only int parameters are supported", source, field, p.Type)
		}
		v, err := parseValueList(p.Values)
		if err != nil {
			return nil, fmt.Errorf("%s: field %s.Values (%s): %w", source, field, p.Name, err)
		}
		names = append(names, p.Name)
		values = append(values, v)
	}
	var exprs []string
	for _, c := range cs.Conditions {
		exprs = append(exprs, c.Expression)
	}
	s, err := KernelTuner(ctx, names, values, exprs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

// parseValueList reads "[1, 2, 4]" (a Python list in a JSON string) or [1, 2, 4].
func parseValueList(raw json.RawMessage) ([]int, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
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
		n, err := strconv.Atoi(item)
		if err != nil {
			return nil, fmt.Errorf("value %q is not an integer", item)
		}
		out = append(out, n)
	}
	return out, nil
}
