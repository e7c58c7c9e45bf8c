// Package english writes the small pieces of English that messages share.
package english

import "fmt"

// Plural is a count with its noun, "1 step" or "2 steps": the noun takes an s unless n is 1.
func Plural[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
