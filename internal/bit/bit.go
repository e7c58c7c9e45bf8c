// Package bit turns a condition into a count: 1 where it holds, 0 where it does not, for the
// sums, indexes and 0/1 entries that count conditions.
package bit

// Of is 1 where b holds, else 0.
func Of(b bool) int {
	if b {
		return 1
	}
	return 0
}
