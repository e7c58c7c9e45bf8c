//go:build unix

package dataset

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; the system drops it when f is closed
// or the process ends, so a killed run never leaves a data set locked.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// locks says that lockFile locks: a file another process holds locked is in use.
const locks = true
