package jsonerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	var v struct {
		N int               `json:"n"`
		F float64           `json:"f"`
		P *struct{ X int }  `json:"p"`
		L []string          `json:"l"`
		M map[string]string `json:"m"`
		B bool              `json:"b"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"n": 1,}`, "invalid JSON at byte 9"},
		{`{"n": "x"}`, `field "n" has a JSON string where an integer is expected`},
		{`{"f": "x"}`, `field "f" has a JSON string where a number is expected`},
		{`{"p": [1]}`, `field "p" has a JSON array where an object is expected`},
		{`{"l": {}}`, `field "l" has a JSON object where an array is expected`},
		{`{"l": [1]}`, `field "l" has a JSON number where a string is expected`},
		{`{"m": 3}`, `field "m" has a JSON number where an object is expected`},
		{`{"b": 1}`, `field "b" has a JSON number where true or false is expected`},
		{`[]`, `the file has a JSON array where an object is expected`},
		{``, "the file is empty or cut short"},
		{`{"n": 1`, "the file is empty or cut short"},
	} {
		err := Describe(json.NewDecoder(strings.NewReader(tc.in)).Decode(&v))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
	other := errors.New("other")
	if Describe(other) != other {
		t.Error("a non-JSON error was rewritten")
	}
}

func TestTrimBOM(t *testing.T) {
	if got := string(TrimBOM([]byte(BOM + `{"a": 1}`))); got != `{"a": 1}` {
		t.Errorf("TrimBOM kept %q", got)
	}
	if got := string(TrimBOM([]byte(`{"a": 1}`))); got != `{"a": 1}` {
		t.Errorf("TrimBOM of a file without a mark: %q", got)
	}
}

func TestUnknownField(t *testing.T) {
	var v struct {
		A int `json:"a"`
	}
	dec := json.NewDecoder(strings.NewReader(`{"a": 1, "b\"c": 2}`))
	dec.DisallowUnknownFields()
	err := dec.Decode(&v)
	if name, ok := UnknownField(err); !ok || name != `b"c` {
		t.Errorf("UnknownField(%v) = %q, %v; want b\"c, true", err, name, ok)
	}
	for _, err := range []error{nil, errors.New("json: cannot unmarshal")} {
		if name, ok := UnknownField(err); ok {
			t.Errorf("UnknownField(%v) = %q, true", err, name)
		}
	}
}
