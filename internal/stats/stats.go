// Package stats holds the summary statistics several packages compute alike.
package stats

import (
	"slices"
	"sort"
)

// Median is the median of x, the mean of the two middle values for an even count, and 0 for
// none; it leaves x as it is.
func Median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return 0
	}
	s := slices.Clone(x)
	sort.Float64s(s)
	if n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[n/2]
}
