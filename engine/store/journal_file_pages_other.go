//go:build !linux

package store

import (
	"os"

	bolt "go.etcd.io/bbolt"
)

// dropPages does nothing where madvise is not called (see the Linux
// version): a start there peaks higher, with the file's pages resident.
func dropPages(*bolt.DB, string) {}

// syncData flushes f to the disk.
func syncData(f *os.File) error { return f.Sync() }
