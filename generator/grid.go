package generator

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseGrid reads grid extents written "512x512x512" or "512,512,512" (2 or 3 of them), for
// Customise; empty text is nil, each stencil's default grid. The extents' range is Customise's
// to check, against the stencil.
func ParseGrid(text string) ([]int, error) {
	if text == "" {
		return nil, nil
	}
	var ext []int
	for _, part := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == 'x' || r == ',' }) {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer; write extents as 512x512x512", part)
		}
		ext = append(ext, v)
	}
	if len(ext) != 2 && len(ext) != 3 {
		return nil, fmt.Errorf("has %d extents; give 2 or 3", len(ext))
	}
	return ext, nil
}
