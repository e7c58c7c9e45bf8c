package space

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"smart/internal/jsonerr"
)

// KernelTuner builds the space Kernel Tuner searches for a kernel: its parameters (in order,
// each with its values: integers, booleans as 1 and 0, or a float or string parameter's codes
// beside its Labels) and restrictions written as Python expressions, which read a float or
// string parameter as its value. Each restriction becomes the constraint of the last parameter
// it mentions, so it is checked as soon as all its parameters are bound; the valid settings
// are those Kernel Tuner enumerates.
func KernelTuner(ctx context.Context, bps []BenchmarkParam, restrictions []string) (*Space, error) {
	names := make([]string, len(bps))
	params := make([]Param, len(bps))
	decode := map[string]func(int) value{}
	for i, bp := range bps {
		names[i], params[i] = bp.Name, Param{Name: bp.Name, Values: bp.Values}
		if bp.Labels == nil {
			continue
		}
		d, err := labelDecoder(bp)
		if err != nil {
			return nil, fmt.Errorf("kernel tuner space: %w", err)
		}
		decode[bp.Name] = d
	}
	for _, r := range restrictions {
		c, err := parseConstraint(r, decode)
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

// labelDecoder gives the value each code of a float or string parameter stands for.
func labelDecoder(bp BenchmarkParam) (func(int) value, error) {
	if len(bp.Labels) != len(bp.Values) {
		return nil, fmt.Errorf("parameter %s has %d values but %d labels", bp.Name, len(bp.Values), len(bp.Labels))
	}
	byCode := make(map[int]value, len(bp.Values))
	for k, label := range bp.Labels {
		var text string
		var f float64
		switch {
		case json.Unmarshal(label, &text) == nil:
			byCode[bp.Values[k]] = value{s: text, str: true}
		case json.Unmarshal(label, &f) == nil:
			byCode[bp.Values[k]] = value{f: f, float: true}
		default:
			return nil, fmt.Errorf("parameter %s: value %s is neither a number nor a string", bp.Name, label)
		}
	}
	return func(code int) value { return byCode[code] }, nil
}

// BenchmarkSpec is the search space a benchmark_hub space.json describes (BAT / T4:
// TuningParameters with Values as a Python list in a string, or a JSON array, and Conditions as
// Python expressions).
type BenchmarkSpec struct {
	Params     []BenchmarkParam
	Conditions []string // Python expressions, as written
}

// BenchmarkParam is one tuning parameter of a BenchmarkSpec. A bool parameter's values (True
// and False, or JSON's true and false) are held as 1 and 0, as Python compares them; a float
// or string parameter's values as their LabelCode, each value's JSON in Labels.
type BenchmarkParam struct {
	Name   string
	Values []int
	Bool   bool
	Labels []json.RawMessage // Labels[i] is the value whose code is Values[i]
}

// ParseBenchmarkSpec reads the tuning parameters and conditions of a space.json. Parameters
// are int (or uint), bool, float (or double) or string. Errors name the field; the caller
// names the file.
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
		kind, ok := valueKinds[p.Type]
		if !ok {
			return BenchmarkSpec{}, fmt.Errorf("field %s.Type is %q; the types are int, uint, bool, float, double and string", field, p.Type)
		}
		bp, err := parseValueList(p.Values, kind)
		if err != nil {
			return BenchmarkSpec{}, fmt.Errorf("field %s.Values (%s): %w", field, p.Name, err)
		}
		bp.Name = p.Name
		b.Params = append(b.Params, bp)
	}
	for _, c := range cs.Conditions {
		b.Conditions = append(b.Conditions, c.Expression)
	}
	return b, nil
}

// valueKind is how a space.json's Type holds its values.
type valueKind int

const (
	intValues valueKind = iota
	boolValues
	labelValues // floats and strings, held as their LabelCode
)

var valueKinds = map[string]valueKind{"": intValues, "int": intValues, "uint": intValues,
	"bool": boolValues, "boolean": boolValues,
	"float": labelValues, "double": labelValues, "string": labelValues, "str": labelValues}

// parseValueList reads "[1, 2, 4]" (a Python list in a JSON string) or [1, 2, 4]; booleans as
// "[True, False]" or [true, false], held as 1 and 0; floats and strings as "[0.5, 1.0]",
// "['fast', 'exact']" or their JSON arrays, held as their LabelCode.
func parseValueList(raw json.RawMessage, kind valueKind) (BenchmarkParam, error) {
	var items []json.RawMessage
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		if items, err = pythonList(text, kind); err != nil {
			return BenchmarkParam{}, err
		}
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return BenchmarkParam{}, fmt.Errorf("is neither a list nor a string holding one, such as \"[1, 2, 4]\"")
	}
	var p BenchmarkParam
	for _, item := range items {
		item = bytes.TrimSpace(item)
		var v int
		switch kind {
		case boolValues:
			var b bool
			if err := json.Unmarshal(item, &b); err != nil {
				return p, fmt.Errorf("value %s is not a boolean", item)
			}
			v, p.Bool = boolInt(b), true
		case labelValues:
			code, err := LabelCode(item)
			if err != nil {
				return p, err
			}
			if slices.Contains(p.Values, code) {
				return p, fmt.Errorf("value %s has the code %d that another value has; smart cannot hold them apart", item, code)
			}
			v, p.Labels = code, append(p.Labels, item)
		default:
			if err := json.Unmarshal(item, &v); err != nil {
				return p, fmt.Errorf("value %s is not an integer", item)
			}
		}
		p.Values = append(p.Values, v)
	}
	return p, nil
}

// pythonList splits the text of a Python list into its items as JSON: numbers as written,
// True and False as true and false, quoted strings (single or double quotes) as JSON strings.
func pythonList(text string, kind valueKind) ([]json.RawMessage, error) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "[") || !strings.HasSuffix(text, "]") {
		return nil, fmt.Errorf("%q is not a list such as \"[1, 2, 4]\"", text)
	}
	var out []json.RawMessage
	rest := strings.TrimSpace(text[1 : len(text)-1])
	for rest != "" {
		var item string
		if q := rest[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				return nil, fmt.Errorf("%q: a string is not closed", text)
			}
			if strings.ContainsRune(rest[1:end+1], '\\') {
				return nil, fmt.Errorf("%q: a string with a backslash is not supported", text)
			}
			quoted, _ := json.Marshal(rest[1 : end+1])
			item, rest = string(quoted), strings.TrimSpace(rest[end+2:])
		} else {
			end := strings.IndexByte(rest, ',')
			if end < 0 {
				end = len(rest)
			}
			item, rest = strings.TrimSpace(rest[:end]), rest[end:]
			switch {
			case kind == boolValues && (item == "True" || item == "False"):
				item = strings.ToLower(item)
			case kind == boolValues:
				return nil, fmt.Errorf("value %q is not True or False", item)
			case kind == intValues && !json.Valid([]byte(item)):
				return nil, fmt.Errorf("value %q is not an integer", item)
			case !json.Valid([]byte(item)):
				return nil, fmt.Errorf("value %q is neither a number nor a quoted string", item)
			}
		}
		out = append(out, json.RawMessage(item))
		if rest != "" {
			if rest[0] != ',' {
				return nil, fmt.Errorf("%q: expected a comma after %s", text, item)
			}
			rest = strings.TrimSpace(rest[1:])
		}
	}
	return out, nil
}

// LabelCode is the integer smart holds for a parameter value that is not an integer (label, its
// JSON): a number in millionths, so that codes keep the values' order, and a string by a
// 31-bit FNV-1a hash of it, except a string that holds an integer as Python prints it ("16"),
// which is that integer: Kernel Tuner's key of a configuration holds "16" and 16 alike, and the
// kernel gets the same text, so a cache of "16" and one of 16 share their configurations. Every
// file of a kernel gives a value the same code. A number with more than six decimals, or
// beyond ±2^53 millionths, has none.
func LabelCode(label json.RawMessage) (int, error) {
	if string(bytes.TrimSpace(label)) == "null" {
		return 0, errors.New("null is neither a number nor a string")
	}
	var text string
	if json.Unmarshal(label, &text) == nil {
		if n, err := strconv.Atoi(text); err == nil && strconv.Itoa(n) == text && math.Abs(float64(n)) <= 1<<53 {
			return n, nil
		}
		h := fnv.New32a()
		h.Write([]byte(text))
		return int(h.Sum32() & 0x7fffffff), nil
	}
	var f float64
	if err := json.Unmarshal(label, &f); err != nil {
		return 0, fmt.Errorf("%s is neither a number nor a string", label)
	}
	code := math.Round(f * 1e6)
	if math.Abs(code) > 1<<53 || math.Abs(code/1e6-f) > 1e-12*math.Max(1, math.Abs(f)) {
		return 0, fmt.Errorf("%s has more than six decimals or is too large; smart holds a number parameter in millionths", label)
	}
	return int(code), nil
}
