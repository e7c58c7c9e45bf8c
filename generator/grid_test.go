package generator

import (
	"slices"
	"strings"
	"testing"
)

func TestParseGrid(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []int
		err  string // in the error; "" for none
	}{
		{"", nil, ""},
		{"512x256x128", []int{512, 256, 128}, ""},
		{"64X32", []int{64, 32}, ""},
		{" 64 , 32 ", []int{64, 32}, ""},
		{"64,32x16", []int{64, 32, 16}, ""},
		{"64", nil, "has 1 extents; give 2 or 3"},
		{"8x8x8x8", nil, "4 extents"},
		{"x", nil, "extent 1 of 2 is empty"},
		{"100,,100", nil, "extent 2 of 3 is empty"},
		{"x100x100", nil, "extent 1 of 3 is empty"},
		{"100x100x", nil, "extent 3 of 3 is empty"},
		{"100, ,100", nil, "extent 2 of 3 is empty"},
		{"100xx", nil, "extent 2 of 3 is empty"},
		{",", nil, "extent 1 of 2 is empty"},
		{"1,2,3,", nil, "has 4 extents"},
		{"64xab", nil, `"ab" is not an integer`},
		{"64x1.5", nil, `"1.5" is not an integer`},
	} {
		got, err := ParseGrid(tc.text)
		switch {
		case tc.err == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("ParseGrid(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseGrid(%q) = %v, %v; want an error with %q", tc.text, got, err, tc.err)
		}
	}
}
