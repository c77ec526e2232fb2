package harness

import (
	"os"
	"time"
)

// SyncRate measures what the disk under dir allows a store that syncs
// every commit: 4 KiB written over the same place of a file and flushed
// with fdatasync (fsync where there is none), again and again for d; it
// returns the flushes per second.
func SyncRate(dir string, d time.Duration) (float64, error) {
	f, err := os.CreateTemp(dir, "syncrate-")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	page := make([]byte, 4096)
	n := 0
	began := time.Now()
	for time.Since(began) < d || n == 0 {
		page[0] = byte(n)
		if _, err := f.WriteAt(page, 0); err != nil {
			return 0, err
		}
		if err := datasync(f); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(began).Seconds(), nil
}
