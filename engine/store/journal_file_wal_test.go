package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// copyState copies a state file and its log, open and being written, as
// the operating system holds them: what a process killed at that moment
// leaves behind.
func copyState(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "state")
	for _, suffix := range []string{"", walSuffix} {
		data, err := os.ReadFile(from + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestFileStateLogKeepsWhatAKillLeaves: changes answered but not yet in
// the bbolt file (in the log, before its checkpoint) are there when the
// files are opened as a killed process left them, under each sync mode:
// creates, a replace, a delete and an import, in the order made. A log
// whose last frame is cut short, or damaged, is read up to it: the batch
// in that frame, answered to no one, is dropped whole, the log is cut
// back to its whole frames, and the next changes follow them.
func TestFileStateLogKeepsWhatAKillLeaves(t *testing.T) {
	for _, mode := range SyncModes {
		t.Run(string(mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			// No checkpoint on a slow machine: the changes stay in the log.
			d, _ := openLogged(t, path, FileOptions{Sync: mode}, time.Hour)
			pets := d.store.colls["pets"]
			createPets(t, pets, 40)
			doc, _ := DecodeStrict([]byte(`{"name":"Renamed","categoryId":7,"status":"pending"}`))
			if _, _, err := pets.Put(Write{ID: "3", Now: time.Now()}, false, func(*Record) (any, error) { return doc, nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := pets.Delete(nil, "4", nil); err != nil {
				t.Fatal(err)
			}
			logSize := func(p string) int64 {
				fi, err := os.Stat(p + walSuffix)
				if err != nil {
					t.Fatal(err)
				}
				return fi.Size()
			}
			if logSize(path) == 0 {
				t.Fatal("the log is empty: the changes went to the file at once, and this test proves nothing")
			}
			before := logSize(path)
			var batch []any
			for i := range 5 {
				doc, _ := DecodeStrict([]byte(`{"name":"Imported ` + string(rune('a'+i)) + `","categoryId":9}`))
				batch = append(batch, doc)
			}
			if _, err := pets.CreateMany(batch, Write{Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			want := exportOf(t, d.store)

			reopen := func(path string) (*testDoc, Journal) {
				t.Helper()
				return openLogged(t, path, FileOptions{Sync: mode}, walCheckpointAge)
			}
			killed := copyState(t, path)
			if again, _ := reopen(killed); exportOf(t, again.store) != want {
				t.Errorf("after a kill the state holds other records than were answered")
			}
			if logSize(killed) != 0 {
				t.Errorf("the log holds %d bytes after its changes were moved into the file, want none", logSize(killed))
			}

			// The import's frame cut short by one byte, then damaged: the
			// import is gone whole, everything before it is there.
			var withoutImport string
			{
				cut := copyState(t, path)
				if err := os.Truncate(cut+walSuffix, logSize(cut)-1); err != nil {
					t.Fatal(err)
				}
				again, _ := reopen(cut)
				withoutImport = exportOf(t, again.store)
				if strings.Contains(withoutImport, "Imported") || !strings.Contains(withoutImport, "Renamed") {
					t.Errorf("a log whose last frame (an import) is cut short: imported records present %v, the replace before it %v; want none and present",
						strings.Contains(withoutImport, "Imported"), strings.Contains(withoutImport, "Renamed"))
				}
				if strings.Count(want, "\n")-strings.Count(withoutImport, "\n") != 5 {
					t.Errorf("the cut import took other records with it:\nwant\n%s\ngot\n%s", want, withoutImport)
				}
				// The next changes follow the whole frames, and are read back.
				createPets(t, again.store.colls["pets"], 3)
				after := exportOf(t, again.store)
				if again2, _ := reopen(copyState(t, cut)); exportOf(t, again2.store) != after {
					t.Errorf("changes after a cut log were not read back")
				}
			}
			{
				damaged := copyState(t, path)
				data, err := os.ReadFile(damaged + walSuffix)
				if err != nil {
					t.Fatal(err)
				}
				data[before+walFrameHeader+3] ^= 0xff // in the import's frame
				if err := os.WriteFile(damaged+walSuffix, data, 0o600); err != nil {
					t.Fatal(err)
				}
				if again, _ := reopen(damaged); exportOf(t, again.store) != withoutImport {
					t.Errorf("a log whose last frame is damaged: the state is not the one before that frame")
				}
			}
		})
	}
}

// TestWALFramesRefuseWhatIsNotWhole: a frame is read only when whole and
// matching its checksum; a length beyond the data or the bound is no
// frame.
func TestWALFramesRefuseWhatIsNotWhole(t *testing.T) {
	w := &fileWAL{}
	f, err := os.Create(filepath.Join(t.TempDir(), "wal"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w.f = f
	ops := []*fileOp{{coll: "pets", seq: 7, next: 8, value: []byte(`{"x":1}`)}, {coll: "pets", seq: 3, next: 8}}
	if err := w.appendBatch(ops, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	got, n, ok := decodeWALFrame(data)
	if !ok || n != len(data) || len(got) != 2 || got[0].seq != 7 || !bytes.Equal(got[0].value, ops[0].value) || got[1].value != nil || got[1].seq != 3 || got[1].next != 8 {
		t.Fatalf("decodeWALFrame = %+v, %d, %v; want the two changes written", got, n, ok)
	}
	for cut := range len(data) {
		if _, _, ok := decodeWALFrame(data[:cut]); ok {
			t.Errorf("a frame cut to %d of %d bytes was read", cut, len(data))
		}
	}
	if _, _, ok := decodeWALFrame(make([]byte, 64)); ok {
		t.Error("zeros (a tail a power cut left) were read as a frame")
	}
	huge := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(huge, walMaxFrame+1)
	if _, _, ok := decodeWALFrame(huge); ok {
		t.Error("a frame longer than the bound was read")
	}
}

// TestFileStateCheckpoints: once due, the log's changes are written into
// the bbolt file and the log is emptied: the file alone then holds every
// change answered.
func TestFileStateCheckpoints(t *testing.T) {
	for _, mode := range SyncModes {
		t.Run(string(mode), func(t *testing.T) { checkpoints(t, mode) })
	}
}

func checkpoints(t *testing.T, mode SyncMode) {
	path := filepath.Join(t.TempDir(), "state")
	d, _ := openLogged(t, path, FileOptions{Sync: mode}, 0) // due after every batch
	createPets(t, d.store.colls["pets"], 30)
	if _, err := d.store.colls["pets"].Delete(nil, "5", nil); err != nil {
		t.Fatal(err)
	}
	want := exportOf(t, d.store)
	// The checkpoint follows the answer to the batch that made it due.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		fi, err := os.Stat(path + walSuffix)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log holds %d bytes 5 s after a checkpoint was due after every batch, want none", fi.Size())
		}
	}
	alone := copyState(t, path)
	if err := os.Remove(alone + walSuffix); err != nil {
		t.Fatal(err)
	}
	again := openPetstore(t)
	openState(t, again, alone, false)
	if got := exportOf(t, again.store); got != want {
		t.Errorf("the file alone, after the checkpoints, holds other records than were answered")
	}
}

// openLogged opens a state with o as a start does, its log checkpointed
// once its first batch is age old (set before the first change), and
// attaches it to a new Petstore store.
func openLogged(t *testing.T, path string, o FileOptions, age time.Duration) (*testDoc, Journal) {
	t.Helper()
	d := openPetstore(t)
	j, err := OpenFile(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	j.(*fileJournal).checkpointAge = age
	if _, err := d.store.Attach(j, originOf(d.spec), o.Fresh); err != nil {
		t.Fatal(err)
	}
	return d, j
}

// TestFileStateLogKeepsTheNextID: the largest id, deleted before a kill,
// is not given again after it: the log's delete says so.
func TestFileStateLogKeepsTheNextID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	d, _ := openLogged(t, path, FileOptions{}, time.Hour)
	pets := d.store.colls["pets"]
	createPets(t, pets, 5)
	largest := pets.Len() // the fixtures' ids are 1 to 150, the creates' the ones after
	if _, err := pets.Delete(nil, fmt.Sprint(largest), nil); err != nil {
		t.Fatal(err)
	}
	again, _ := openLogged(t, copyState(t, path), FileOptions{}, time.Hour)
	doc, _ := DecodeStrict([]byte(`{"name":"After","categoryId":1}`))
	rec, err := again.store.colls["pets"].Create(doc, Write{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID != fmt.Sprint(largest+1) {
		t.Errorf("the create after a kill took id %s, want %d: %d was deleted and is never given again", rec.ID, largest+1, largest)
	}
}

// TestFileStateLogWithoutItsFile: a log left by a killed process beside
// no state file (deleted, as the errors say to start afresh) is dropped,
// not applied to the new file: that start serves the fixtures, and so
// does the next.
func TestFileStateLogWithoutItsFile(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		t.Run(fmt.Sprint("fresh=", fresh), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state")
			d, _ := openLogged(t, path, FileOptions{}, time.Hour)
			createPets(t, d.store.colls["pets"], 5)
			killed := copyState(t, path)
			if err := os.Remove(killed); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				j, err := OpenFile(killed, FileOptions{Fresh: fresh})
				if err != nil {
					t.Fatal(err)
				}
				again := openPetstore(t)
				if _, err := again.store.Attach(j, originOf(d.spec), fresh); err != nil {
					t.Fatalf("a start beside a log without its file: %v", err)
				}
				if got := again.store.colls["pets"].Len(); got != 150 {
					t.Errorf("it serves %d pets, want the 150 fixtures", got)
				}
				_ = j.Close()
			}
		})
	}
}
