package harness

import (
	"os"
	"syscall"
)

// datasync is what bbolt calls on Linux after each commit.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
