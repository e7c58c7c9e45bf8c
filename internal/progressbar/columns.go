package progressbar

import (
	"os"
	"strconv"
)

// IsTerminal reports whether f is a terminal, where a bar redraws in place.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// TerminalColumns is the width of the terminal f writes to: $COLUMNS where it is set (a user's
// override; shells do not export it), else what the terminal says, else 80.
func TerminalColumns(f *os.File) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n := windowColumns(f); n > 0 {
		return n
	}
	return 80
}
