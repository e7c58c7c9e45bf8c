//go:build linux || darwin

package progressbar

import (
	"os"
	"syscall"
	"unsafe"
)

// windowColumns asks the terminal f writes to for its width (the TIOCGWINSZ ioctl); 0 where f
// is no terminal.
func windowColumns(f *os.File) int {
	conn, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var ws struct{ rows, cols, xpixel, ypixel uint16 }
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	}); err != nil || errno != 0 {
		return 0
	}
	return int(ws.cols)
}
