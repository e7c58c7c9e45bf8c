package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"smart"
)

func TestParseVariants(t *testing.T) {
	st := smart.Combination(0).With(smart.ST)
	tb := smart.Combination(0).With(smart.TB)
	for _, tt := range []struct {
		name    string
		texts   []string
		ocs     []smart.Combination
		want    []Variant
		wantErr string
	}{
		{"named", []string{"ST:bx=32,by=4", "TB:bx=8,tt=2"}, nil,
			[]Variant{{OC: st, Setting: smart.Setting{"bx": 32, "by": 4}}, {OC: tb, Setting: smart.Setting{"bx": 8, "tt": 2}}}, ""},
		{"one OC stands for all", []string{"bx=16", "BASE:bx=64"}, []smart.Combination{st},
			[]Variant{{OC: st, Setting: smart.Setting{"bx": 16}}, {OC: 0, Setting: smart.Setting{"bx": 64}}}, ""},
		{"no OC", []string{"bx=16"}, []smart.Combination{st, tb}, nil, "bx=16 names no OC"},
		{"unknown OC", []string{"XX:bx=16"}, nil, nil, "XX:bx=16: unknown optimization"},
		{"bad setting", []string{"ST:bx"}, nil, nil, "bx: "},
	} {
		got, err := ParseVariants(tt.texts, tt.ocs)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || !reflect.DeepEqual(got, tt.want)):
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := ParseVariants([]string{"bx=1"}, nil); !errors.As(err, new(*NoOCError)) {
		t.Errorf("a setting without an OC: %v, want a NoOCError", err)
	}
}
