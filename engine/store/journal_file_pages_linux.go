package store

import (
	"os"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// dropPages takes the pages of db's memory map out of the process's
// resident memory: bbolt reads through a read-only shared map of the file,
// so they stay in the page cache and a later read maps them again. A start
// that reads every record calls it as it goes, so that its peak is the
// records it keeps and not the file beside them. Best effort: the start is
// right without it, only larger.
func dropPages(db *bolt.DB, path string) {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		return
	}
	// The map starts at a page boundary and covers the file; madvise takes
	// the address as a number, so no pointer is made from it.
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, db.Info().Data, uintptr(fi.Size()), unix.MADV_DONTNEED)
}

// syncData flushes f's data (and its size) to the disk: fdatasync, which
// leaves out the times os.File.Sync's fsync also writes.
func syncData(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
