package progressbar

import (
	"os"
	"strconv"
)

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
