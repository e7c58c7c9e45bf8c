// Package english writes the small pieces of English that messages share.
package english

import (
	"fmt"
	"strings"
)

// Plural is a count with its noun, "1 step" or "2 steps": the noun takes an s unless n is 1, es
// where it ends in s, x, ch or sh ("2 launches").
func Plural[N ~int | ~int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	suffix := "s"
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			suffix = "es"
		}
	}
	return fmt.Sprintf("%d %s%s", n, noun, suffix)
}
