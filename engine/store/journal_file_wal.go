package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
)

// fileWAL is a state file's write-ahead log: the changes answered since
// the last checkpoint, appended a batch at a time beside the state file
// (its path and "-wal"). A change is answered once its batch is in the
// log (and, under SyncAlways, on the disk), and reaches the bbolt file
// later, many batches in one transaction (fileJournal.checkpoint).
//
// Why: a bbolt transaction rewrites every page it touches (the
// collection's last leaf, the branches above it, the freelist, the meta
// page), each a system call, and, under SyncAlways, flushes the file
// twice. Under the Petstore's create load the writer was a quarter of the
// server's CPU profile with store.sync interval; an append is one system
// call a batch.
//
// A batch is one frame: its length, the CRC-32C of its changes, then the
// changes. A frame cut short (a process killed as it wrote, a disk that
// filled) or that does not match its checksum ends the log: its batch was
// answered to no one, and it is applied whole or not at all.
type fileWAL struct {
	f    *os.File
	size int64 // the bytes of whole frames: where the next one goes
	buf  []byte
}

// walSuffix names the log beside its state file.
const walSuffix = "-wal"

// walFrameHeader is a frame's length and checksum.
const walFrameHeader = 8

// walMaxFrame bounds a frame read back: a length beyond it is damage.
const walMaxFrame = 1 << 30

var walTable = crc32.MakeTable(crc32.Castagnoli)

// The kinds of change a frame holds.
const (
	walPut    = 1
	walDelete = 2
)

// openWAL opens (or creates) the log at path and reads the batches of its
// whole frames; what follows the last whole frame is cut off, so that the
// next batch follows it.
func openWAL(path string) (*fileWAL, []*fileOp, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// The first changes answered under SyncAlways are in this file.
		syncDir(path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	var ops []*fileOp
	size := 0
	for {
		batch, n, ok := decodeWALFrame(data[size:])
		if !ok {
			break
		}
		ops = append(ops, batch...)
		size += n
	}
	if size < len(data) {
		if err := f.Truncate(int64(size)); err != nil {
			_ = f.Close()
			return nil, nil, err
		}
	}
	if _, err := f.Seek(int64(size), io.SeekStart); err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return &fileWAL{f: f, size: int64(size)}, ops, nil
}

// decodeWALFrame reads the frame data starts with: its changes and its
// length; false when data holds no whole, intact frame.
func decodeWALFrame(data []byte) ([]*fileOp, int, bool) {
	if len(data) < walFrameHeader {
		return nil, 0, false
	}
	n := binary.LittleEndian.Uint32(data)
	sum := binary.LittleEndian.Uint32(data[4:])
	// No batch is empty: a length of 0 is zeros a power cut left, whose
	// checksum (of nothing) is 0 too.
	if n == 0 || n > walMaxFrame || int(n) > len(data)-walFrameHeader {
		return nil, 0, false
	}
	body := data[walFrameHeader : walFrameHeader+int(n)]
	if crc32.Checksum(body, walTable) != sum {
		return nil, 0, false
	}
	var ops []*fileOp
	for len(body) > 0 {
		op, rest, ok := decodeWALOp(body)
		if !ok {
			return nil, 0, false
		}
		ops = append(ops, op)
		body = rest
	}
	return ops, walFrameHeader + int(n), true
}

func decodeWALOp(b []byte) (*fileOp, []byte, bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	kind := b[0]
	b = b[1:]
	name, b, ok := walBytes(b)
	if !ok {
		return nil, nil, false
	}
	seq, n := binary.Varint(b)
	if n <= 0 {
		return nil, nil, false
	}
	b = b[n:]
	next, n := binary.Varint(b)
	if n <= 0 {
		return nil, nil, false
	}
	b = b[n:]
	op := &fileOp{coll: string(name), seq: seq, next: next}
	switch kind {
	case walPut:
		value, rest, ok := walBytes(b)
		if !ok {
			return nil, nil, false
		}
		// A put's value is never nil: nil says delete.
		op.value, b = append([]byte{}, value...), rest
	case walDelete:
	default:
		return nil, nil, false
	}
	return op, b, true
}

// walBytes reads a length and that many bytes.
func walBytes(b []byte) ([]byte, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// appendBatch writes batch (record puts and deletes only) as one frame,
// and flushes it to the disk when sync is set. A frame that could not be
// written whole is cut off again, as far as the file allows.
func (w *fileWAL) appendBatch(batch []*fileOp, sync bool) error {
	b := append(w.buf[:0], make([]byte, walFrameHeader)...)
	for _, op := range batch {
		kind := byte(walPut)
		if op.value == nil {
			kind = walDelete
		}
		b = append(b, kind)
		b = binary.AppendUvarint(b, uint64(len(op.coll)))
		b = append(b, op.coll...)
		b = binary.AppendVarint(b, op.seq)
		b = binary.AppendVarint(b, op.next)
		if op.value != nil {
			b = binary.AppendUvarint(b, uint64(len(op.value)))
			b = append(b, op.value...)
		}
	}
	body := b[walFrameHeader:]
	if len(body) > walMaxFrame {
		return fmt.Errorf("a batch of %d bytes is larger than the log takes", len(body))
	}
	binary.LittleEndian.PutUint32(b, uint32(len(body)))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(body, walTable))
	if cap(b) <= walCheckpointBytes {
		w.buf = b[:0] // reused; a larger batch's (an import) is let go
	}
	if _, err := w.f.Write(b); err != nil {
		w.cut()
		return err
	}
	if sync {
		if err := syncData(w.f); err != nil {
			// Refused, so not in the log: the next start must not apply it.
			w.cut()
			return err
		}
	}
	w.size += int64(len(b))
	return nil
}

// cut drops what follows the last whole frame, after a failed write.
func (w *fileWAL) cut() {
	if w.f.Truncate(w.size) == nil {
		_, _ = w.f.Seek(w.size, io.SeekStart)
	}
}

// reset empties the log, once its batches are in the state file. With
// sync, the empty log is on the disk before reset returns: the file may
// then be rewritten directly (a reset, an import, a seed), and a power cut
// that kept that rewrite but lost the truncation would replay the old
// batches over it.
func (w *fileWAL) reset(sync bool) error {
	if err := w.f.Truncate(0); err != nil {
		return err
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w.size = 0
	if sync {
		return syncData(w.f)
	}
	return nil
}

func (w *fileWAL) close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}
