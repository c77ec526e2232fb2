package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// bigFile writes a file of n bytes whose every part differs, so that a
// part read into the wrong place shows.
func bigFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	data := make([]byte, 0, n)
	for i := 0; len(data) < n; i++ {
		data = strconv.AppendInt(data, int64(i), 36)
		data = append(data, ',')
	}
	data = data[:n]
	p := filepath.Join(t.TempDir(), "pets.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, data
}

func TestReadFixtureFile(t *testing.T) {
	for _, n := range []int{0, 1, 4096, parallelReadBytes - 1, parallelReadBytes, parallelReadBytes + 12345} {
		p, want := bigFile(t, n)
		got, err := ReadFixtureFile(p)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read %d bytes that differ from the file's", n, len(got))
		}
	}
	if _, err := ReadFixtureFile(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v, want not exist", err)
	}
}

// TestReadFixtureFileChanged: parts read from a file that is no longer the
// size its Stat gave are refused, and ReadFixtureFile reads it again as
// one, from its start.
func TestReadFixtureFileChanged(t *testing.T) {
	p, want := bigFile(t, parallelReadBytes+100)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := readParts(f, len(want)-10, 2); !errors.Is(err, errSizeChanged) {
		t.Fatalf("grown: %v, want %v", err, errSizeChanged)
	}
	if _, err := readParts(f, len(want)+10, 2); !errors.Is(err, errSizeChanged) {
		t.Fatalf("shrunk: %v, want %v", err, errSizeChanged)
	}
	got, err := readParts(f, len(want), 3)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("unchanged: %d bytes, %v", len(got), err)
	}
	// What ReadFixtureFile then reads: the file as it is now, whole, for a
	// Stat that saw it smaller or larger.
	for _, size := range []int{len(want) - 10, len(want) + 10} {
		got, err := readSized(f, int64(size), 2)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read again after a Stat of %d bytes: %d bytes, %v; want the file's %d", size, len(got), err, len(want))
		}
	}
}

// TestReadFixtureFilePipe: a named pipe has no size to split by and is
// read as a stream (serve --fixtures <(generate-pets)).
func TestReadFixtureFilePipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pets.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	want := bytes.Repeat([]byte(`{"id":1},`), 100000)
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err == nil {
			_, err = w.Write(want)
			err = errors.Join(err, w.Close())
		}
		done <- err
	}()
	got, err := ReadFixtureFile(p)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%d bytes, %v; want %d", len(got), err, len(want))
	}
}

// TestReadFixtureFileTooLarge: a file past what a fixtures file may hold
// is refused from its size, before a byte is read (it would be refused
// once read, after taking 4 GiB).
func TestReadFixtureFileTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pets.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(maxFixtureBytes + 1) // sparse: no disk taken
	f.Close()
	if err != nil {
		t.Skipf("cannot make a sparse file here: %v", err)
	}
	if _, err := ReadFixtureFile(p); !errors.Is(err, errFixtureTooLarge) {
		t.Fatalf("got %v, want %v", err, errFixtureTooLarge)
	}
}
