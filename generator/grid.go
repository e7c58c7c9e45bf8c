package generator

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseGrid reads grid extents written "512x512x512" or "512,512,512" (2 or 3 of them, none
// empty: "100,,100" is refused), for Customise; empty text is nil, each stencil's default grid.
// The extents' range is Customise's to check, against the stencil.
func ParseGrid(text string) ([]int, error) {
	if text == "" {
		return nil, nil
	}
	parts := strings.Split(strings.NewReplacer("x", ",", "X", ",").Replace(text), ",")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, fmt.Errorf("has %d extents; give 2 or 3", len(parts))
	}
	ext := make([]int, len(parts))
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			// "100,,100" is no 100x100 grid: an extent left out is a slip, not a separator.
			return nil, fmt.Errorf("extent %d of %d is empty; write extents as 512x512x512", i+1, len(parts))
		}
		v, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer; write extents as 512x512x512", part)
		}
		ext[i] = v
	}
	return ext, nil
}
