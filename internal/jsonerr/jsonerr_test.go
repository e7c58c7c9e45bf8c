package jsonerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	var v struct {
		N int `json:"n"`
	}
	for _, tc := range []struct{ in, want string }{
		{`{"n": 1,}`, "invalid JSON at byte 9"},
		{`{"n": "x"}`, `field "n" has a JSON string where a int is expected`},
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
