package cuda

import (
	"fmt"
	"strings"
)

// writer accumulates C++ lines, indenting by the braces that open and close them.
type writer struct {
	b     strings.Builder
	depth int
}

// line writes one formatted line. A line starting with '}' closes a level before it is written;
// a line ending with '{' opens one after.
func (w *writer) line(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if strings.HasPrefix(s, "}") {
		w.depth--
	}
	if s != "" {
		w.b.WriteString(strings.Repeat("  ", w.depth))
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
	if strings.HasSuffix(s, "{") {
		w.depth++
	}
}

// raw writes text as it is.
func (w *writer) raw(s string) { w.b.WriteString(s) }

func (w *writer) String() string { return w.b.String() }
