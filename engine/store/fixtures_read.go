package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
)

// parallelReadBytes is the size from which ReadFixtureFile reads a file in
// parts on every core. Below it one read is as quick.
const parallelReadBytes = 8 << 20

// ReadFixtureFile reads the fixtures file at path whole.
//
// A large regular file is read in as many parts as there are cores, each
// part by its own goroutine. Most of the time of reading a file the page
// cache holds goes to the fresh memory the bytes are copied into, not to
// the copy: on the virtual machines petctl is measured on, every 4 KiB
// page touched for the first time costs about 12 µs, so a million animals
// (64 MB, 15,600 pages) took 183 ms to read with os.ReadFile. Faults on
// different cores are taken side by side: in two parts, 97 ms
// (bench/cmd/readcmp measures both on a machine). The records are split
// once the whole file is read, as before.
//
// A file that changes size while it is read is read again, once, as
// os.ReadFile reads it: the parts must come from one version of the file.
func ReadFixtureFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Mode().IsRegular() && info.Size() > maxFixtureBytes {
		return nil, errFixtureTooLarge // Parse would refuse it, once read
	}
	parts := runtime.GOMAXPROCS(0)
	if !info.Mode().IsRegular() || info.Size() < parallelReadBytes || parts < 2 {
		return readAll(f, info.Size())
	}
	return readSized(f, info.Size(), parts)
}

// readSized reads f, size bytes by its Stat, in parts; when it is no
// longer that size, whole again from its start, as one stream.
func readSized(f *os.File, size int64, parts int) ([]byte, error) {
	data, err := readParts(f, int(size), parts)
	if errors.Is(err, errSizeChanged) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return readAll(f, size)
	}
	return data, err
}

// readAll reads f from where it is to its end, in a buffer of the size
// its Stat gave (0 for a pipe) to begin with, as os.ReadFile does; no
// more than a fixtures file may hold.
func readAll(f *os.File, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, max(0, min(size, maxFixtureBytes))+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxFixtureBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFixtureBytes {
		return nil, errFixtureTooLarge
	}
	return buf.Bytes(), nil
}

// errSizeChanged says that the file was written to while it was read.
var errSizeChanged = errors.New("the file changed size while it was read")

// readParts reads the size bytes of f in parts goroutines, then checks
// that nothing follows them.
func readParts(f *os.File, size, parts int) ([]byte, error) {
	data := make([]byte, size)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := size*i/parts, size*(i+1)/parts
		wg.Go(func() {
			// ReadAt reads until its slice is full or the file ends.
			if _, err := f.ReadAt(data[lo:hi], int64(lo)); err != nil {
				errs[i] = err
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, io.EOF) {
			return nil, errSizeChanged // it shrank
		}
		if err != nil {
			return nil, err
		}
	}
	var more [1]byte
	if n, _ := f.ReadAt(more[:], int64(size)); n > 0 {
		return nil, errSizeChanged // it grew
	}
	return data, nil
}
