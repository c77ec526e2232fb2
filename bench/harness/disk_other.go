//go:build !linux

package harness

import "os"

// datasync is fsync where the system has no fdatasync.
func datasync(f *os.File) error { return f.Sync() }
