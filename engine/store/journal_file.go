package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// SyncMode says when a file journal's commits reach the disk.
type SyncMode string

// The sync modes, declared once: config lists them as store.sync's enum.
const (
	// SyncAlways answers a change once it is on the disk (fdatasync);
	// changes that arrive together share one commit.
	SyncAlways SyncMode = "always"
	// SyncInterval answers once the operating system has the change, and
	// syncs the file to the disk every FileOptions.Interval: a killed
	// process loses nothing, a machine that loses power the last interval.
	SyncInterval SyncMode = "interval"
	// SyncNever answers once the operating system has the change and
	// leaves the syncing to it.
	SyncNever SyncMode = "never"
)

// SyncModes are the sync modes, in the order the configuration lists them.
var SyncModes = []SyncMode{SyncAlways, SyncInterval, SyncNever}

// FileOptions say how a file journal syncs.
type FileOptions struct {
	Sync     SyncMode      // "" is SyncAlways
	Interval time.Duration // for SyncInterval; 0 is one second
	// Fresh says the state is to start afresh (serve --state-reset): a
	// damaged state file is then replaced by a new one.
	Fresh bool
}

// openTimeout is how long OpenFile waits for another process to release
// the file before it says the file is in use.
const openTimeout = time.Second

// The buckets of a state file: meta holds the stateMeta under metaKey and
// each collection's next seq under its name; records holds a bucket of
// records per collection, keyed by seqBytes.
var (
	metaBucket    = []byte("petctl")
	metaKey       = []byte("meta")
	nextBucket    = []byte("next")
	recordsBucket = []byte("records")
)

// fileJournal keeps a store in a bbolt file (go.etcd.io/bbolt): one
// process, many readers, one writer, every commit atomic, so that a
// process killed at any moment leaves the file as its last commit made it.
// Changes are queued in the order the collections make them and written
// by one goroutine, a batch at a time, to the write-ahead log beside the
// file (fileWAL): under SyncAlways, concurrent creates share one
// fdatasync (group commit). The log's batches reach the bbolt file
// together, in one transaction, once the log is large or old enough
// (walCheckpointBytes, walCheckpointAge), and before anything reads or
// rewrites the file directly (checkpoint).
type fileJournal struct {
	path string
	mode SyncMode
	// db is replaced, under dbMu, only while no change is under way (at
	// start-up, and while a reload's store is frozen); the writer and the
	// syncs of SyncInterval hold dbMu for reading.
	dbMu sync.RWMutex
	db   *bolt.DB

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []*fileOp
	closed bool
	// failed is the error of the last commit that failed: every change
	// after it is refused, so the memory does not drift further from the file.
	failed error
	// written is closed when the writer has stopped.
	written chan struct{}
	stop    chan struct{}
	ticker  sync.WaitGroup

	// walMu guards the log, the changes it holds that the bbolt file does
	// not (logged, since loggedAt) and the writes to the file: the writer
	// holds it for a batch, and whatever reads or rewrites the file
	// directly checkpoints under it first.
	walMu    sync.Mutex
	wal      *fileWAL
	logged   []*fileOp
	loggedAt time.Time
	// checkpointAge is walCheckpointAge; tests lengthen it, before the
	// first change.
	checkpointAge time.Duration
}

// A checkpoint moves the log's batches into the bbolt file once the log
// holds walCheckpointBytes, or with the first batch after its oldest is
// walCheckpointAge old (checkpointIfDue runs after a batch: a quiet log
// waits, durable as it is): a transaction then takes thousands of
// changes, and the log and the changes kept for it stay small.
const (
	walCheckpointBytes = 1 << 20
	walCheckpointAge   = time.Second
)

// fileOp is one queued change: a record put, or whole collections replaced.
type fileOp struct {
	coll  string
	seq   int64
	value []byte // nil for a delete
	next  int64
	sets  []*snapshot
	done  chan error
}

// OpenFile opens the state file at path, creating it (and its folder) when
// it does not exist. A file that is not a bbolt database, or is damaged,
// or is held by another process, is an error that names it; a damaged one
// is replaced by a new file when o.Fresh is set.
func OpenFile(path string, o FileOptions) (Journal, error) {
	name := "state " + path
	if o.Sync == "" {
		o.Sync = SyncAlways
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %v", name, unwrapPath(err))
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder; give a file", name)
	}
	j := &fileJournal{path: path, mode: o.Sync, written: make(chan struct{}), stop: make(chan struct{}), checkpointAge: walCheckpointAge}
	db, err := openBolt(path, j.boltOptions())
	var damage *damageError
	made := false
	if errors.As(err, &damage) && o.Fresh {
		db, err = newBolt(path, j.boltOptions())
		made = true
	}
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, fmt.Errorf("%s is in use by another process (another petctl serving it?); stop it, or give another file with --state", name)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrInvalidMapping):
		return nil, fmt.Errorf("%s is not a petctl state file, or it is damaged (%v); give another file with --state, or delete this one to start afresh", name, err)
	case errors.As(err, &damage):
		damage.name = name
		return nil, damage
	case err != nil:
		return nil, fmt.Errorf("%s cannot be opened: %v; give another file with --state, or delete this one to start afresh", name, unwrapPath(err))
	}
	j.db = db
	err = j.openWAL(made)
	if errors.As(err, &damage) && o.Fresh && !made {
		// The log's changes met a damaged page: afresh, as above.
		_ = db.Close()
		if j.db, err = newBolt(path, j.boltOptions()); err == nil {
			err = j.openWAL(true)
		}
	}
	if err != nil {
		if j.db != nil {
			_ = j.db.Close()
		}
		return nil, err
	}
	j.cond = sync.NewCond(&j.mu)
	go j.write()
	if o.Sync == SyncInterval {
		j.ticker.Add(1)
		go j.syncEvery(o.Interval)
	}
	return j, nil
}

// openBolt is bolt.Open, with a damaged file an error: bbolt checks the
// checksum of the file's meta pages, and panics on a damaged page it reads
// as it opens (the freelist), or faults on one past the end of a file cut
// short. The panic leaves the file open and locked by this process, which
// then either stops or, starting afresh, replaces it with a new file.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer func(faults bool) {
		debug.SetPanicOnFault(faults)
		if v := recover(); v != nil {
			db, err = nil, &damageError{name: "state " + path, why: panicWhy(v)}
		}
	}(faultsPanic())
	db, err = bolt.Open(path, 0o600, o)
	if errors.Is(err, bolterrors.ErrChecksum) {
		return nil, &damageError{name: "state " + path, why: err.Error()}
	}
	if err == nil {
		if err = checkSize(db, path); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return db, err
}

// checkSize refuses a file shorter than the pages its last commit
// reaches: a copy cut short, whose records past the cut would otherwise be
// read as a fault (or, missed, as records that are not there).
func checkSize(db *bolt.DB, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return &damageError{name: "state " + path, why: fmt.Sprintf("cut short: its pages reach %d bytes, and the file holds %d", tx.Size(), fi.Size())}
		}
		return nil
	})
}

// faultsPanic makes a fault of this goroutine reading memory a panic that
// a deferred recover takes, rather than the end of the process: bbolt
// reads the file through a memory map, and a damaged page that points
// past the map, or a page past the end of a file cut short, is a fault
// (SIGSEGV, SIGBUS). It returns the setting to restore.
func faultsPanic() bool { return debug.SetPanicOnFault(true) }

// panicWhy says why bbolt panicked reading the file.
func panicWhy(v any) string {
	if f, ok := v.(interface{ Addr() uintptr }); ok && f.Addr() != 0 {
		return fmt.Sprintf("a page could not be read (%v): the file is cut short, or a page points past its end", v)
	}
	return fmt.Sprint(v)
}

// newBolt makes a new, empty database at path, in place of what is there:
// it is made beside it and renamed over it, locked before it takes the
// name, so that no other process opens either meanwhile.
func newBolt(path string, o *bolt.Options) (*bolt.DB, error) {
	tmp := path + ".new"
	_ = os.Remove(tmp) // left by a start that stopped here
	db, err := bolt.Open(tmp, 0o600, o)
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = db.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	// The new name is made durable, as a seed is: it is answered to no one.
	syncDir(path)
	return db, nil
}

// syncDir makes a new file's name in its folder durable, best effort.
func syncDir(path string) {
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// damageError says a state file is a bbolt database whose pages cannot
// be read: a state started afresh (--state-reset) replaces it.
type damageError struct {
	name string // "state FILE"
	why  string
}

func (e *damageError) Error() string {
	return fmt.Sprintf("%s is damaged (%s); delete it, or start with --state-reset, to start afresh", e.name, e.why)
}

// startAfresh replaces the file with a new, empty database: a state
// started afresh keeps nothing of the old one, whose pages, damaged
// perhaps, are then never read again.
func (j *fileJournal) startAfresh() error {
	// Nor of its log.
	j.walMu.Lock()
	clear(j.logged)
	j.logged = j.logged[:0]
	err := j.wal.reset(j.mode != SyncNever)
	j.walMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: its log could not be emptied: %v", j.Name(), unwrapPath(err))
	}
	db, err := newBolt(j.path, j.boltOptions())
	if err != nil {
		return fmt.Errorf("%s could not be made afresh: %v", j.Name(), unwrapPath(err))
	}
	j.dbMu.Lock()
	old := j.db
	j.db = db
	j.dbMu.Unlock()
	_ = old.Close() // its file has no name any more
	return nil
}

// dropEvery is how many bytes of records load reads between two
// dropPages: small against the records a large state keeps, large enough
// that the calls cost nothing.
const dropEvery = 8 << 20

// releaseSize is the file size from which release maps the file afresh.
const releaseSize = 32 << 20

// release maps the file afresh once a start has read it whole: reading
// every record brought all its pages into the process's resident memory
// (bbolt reads through a memory map), and a fresh map holds none of them
// until a write touches one. Only the start calls it, before any change.
func (j *fileJournal) release() error {
	if fi, err := os.Stat(j.path); err != nil || fi.Size() < releaseSize {
		return nil
	}
	if err := j.checkpoint(); err != nil {
		return err
	}
	j.dbMu.Lock()
	defer j.dbMu.Unlock()
	if err := j.db.Close(); err != nil {
		return err
	}
	db, err := openBolt(j.path, j.boltOptions())
	if err != nil {
		return fmt.Errorf("%s could not be opened again: %v", j.Name(), err)
	}
	j.db = db
	return nil
}

func (j *fileJournal) boltOptions() *bolt.Options {
	return &bolt.Options{Timeout: openTimeout, NoSync: j.mode != SyncAlways, FreelistType: bolt.FreelistMapType}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (j *fileJournal) Name() string { return "state " + j.path }

// openWAL opens the log beside the file and moves the batches it holds (a
// process killed before its checkpoint) into the file; a file made afresh
// (fresh) drops them instead.
func (j *fileJournal) openWAL(fresh bool) error {
	wal, ops, err := openWAL(j.path + walSuffix)
	if err != nil {
		return fmt.Errorf("%s: its log cannot be opened: %v", j.Name(), unwrapPath(err))
	}
	j.wal = wal
	if len(ops) > 0 && !fresh {
		// The file the log belongs to may be gone (deleted after a kill,
		// as the errors suggest to start afresh) or not be petctl's: a
		// log alone is no state, and applied to a new file it would make
		// one with records and no meta.
		if fresh, err = j.holdsNoMeta(); err != nil {
			_ = wal.close()
			return err
		}
	}
	if fresh {
		ops = nil
	}
	j.logged = ops
	if err := j.checkpointLocked(); err != nil {
		_ = wal.close()
		var damage *damageError
		if errors.As(err, &damage) {
			return err
		}
		return fmt.Errorf("%s: the changes its log holds could not be written to it: %v", j.Name(), unwrapPath(err))
	}
	return nil
}

// checkpointLocked moves the changes of the log into the bbolt file, in
// one transaction, makes them durable there (unless SyncNever) and
// empties the log. The caller holds walMu, or is alone with the journal.
func (j *fileJournal) checkpointLocked() error {
	if len(j.logged) > 0 {
		// Synced before the log lets them go.
		if err := j.commitSynced(j.logged); err != nil {
			return err
		}
		clear(j.logged)
		j.logged = j.logged[:0]
	}
	if j.wal.size == 0 {
		return nil
	}
	return j.wal.reset(j.mode != SyncNever)
}

// holdsNoMeta says the bbolt file holds no petctl state's meta.
func (j *fileJournal) holdsNoMeta() (none bool, err error) {
	defer j.damaged(&err, faultsPanic())
	none = true
	err = j.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(metaBucket); b != nil {
			none = b.Get(metaKey) == nil
		}
		return nil
	})
	return none, err
}

// commitSynced commits batch into the bbolt file and makes it durable
// there: under SyncInterval its commits do not sync themselves and the
// ticker syncs the log only, so what goes past the log is synced at once
// (a machine that loses power loses the last interval at most);
// SyncAlways's commits sync themselves.
func (j *fileJournal) commitSynced(batch []*fileOp) error {
	if err := j.commit(batch); err != nil || j.mode != SyncInterval {
		return err
	}
	j.dbMu.RLock()
	defer j.dbMu.RUnlock()
	return j.db.Sync()
}

// checkpoint moves the log's changes into the bbolt file before something
// reads or rewrites the file directly.
func (j *fileJournal) checkpoint() error {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	err := j.checkpointLocked()
	var damage *damageError
	if err != nil && !errors.As(err, &damage) {
		return fmt.Errorf("%s: the changes in its log could not be written into it: %v", j.Name(), unwrapPath(err))
	}
	return err
}

// record makes a batch durable as the sync mode says: record puts and
// deletes go to the log; a batch that replaces whole collections (a
// reset, an import) goes to the file, after what the log holds.
func (j *fileJournal) record(batch []*fileOp) error {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	for _, op := range batch {
		if op.sets != nil {
			if err := j.checkpointLocked(); err != nil {
				return err
			}
			return j.commitSynced(batch) // resets and imports are rare
		}
	}
	if err := j.wal.appendBatch(batch, j.mode == SyncAlways); err != nil {
		return err
	}
	if len(j.logged) == 0 {
		j.loggedAt = time.Now()
	}
	j.logged = append(j.logged, batch...)
	return nil
}

// checkpointIfDue checkpoints once the log is large or old enough. It runs
// after the batch that made it so was answered: that batch is durable in
// the log, and a checkpoint that fails refuses the changes after it.
func (j *fileJournal) checkpointIfDue() error {
	j.walMu.Lock()
	defer j.walMu.Unlock()
	if j.wal.size < walCheckpointBytes && (len(j.logged) == 0 || time.Since(j.loggedAt) < j.checkpointAge) {
		return nil
	}
	return j.checkpointLocked()
}

// Close writes what is queued, syncs and closes the file.
func (j *fileJournal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	j.cond.Broadcast()
	j.mu.Unlock()
	<-j.written
	close(j.stop)
	j.ticker.Wait()
	// A checkpoint that fails leaves the changes in the log: the next
	// start moves them.
	err := j.checkpoint()
	if serr := j.db.Sync(); err == nil {
		err = serr
	}
	if cerr := j.wal.close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Empty: a stopped server leaves its state file alone. Removed
		// while the file is still locked, so no other start opens a log
		// that is going away.
		_ = os.Remove(j.path + walSuffix)
	}
	if cerr := j.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncEvery makes the changes of SyncInterval durable: those in the log
// (a checkpoint syncs the file before the log lets its changes go).
func (j *fileJournal) syncEvery(d time.Duration) {
	defer j.ticker.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			// Not under walMu: the writer goes on appending while the
			// disk flushes; the file is the same until Close, which
			// waits for this goroutine.
			if err := syncData(j.wal.f); err != nil {
				j.fail(fmt.Errorf("syncing to the disk: %v", err))
			}
		}
	}
}

func (j *fileJournal) fail(err error) {
	j.mu.Lock()
	if j.failed == nil {
		j.failed = err
	}
	j.mu.Unlock()
}

func (j *fileJournal) health() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.failed
}

// damaged turns a panic of bbolt reading a damaged page into an error (a
// *damageError), and restores faults, the setting faultsPanic returned:
//
//	defer j.damaged(&err, faultsPanic())
func (j *fileJournal) damaged(err *error, faults bool) {
	debug.SetPanicOnFault(faults)
	if v := recover(); v != nil {
		*err = &damageError{name: j.Name(), why: panicWhy(v)}
	}
}

func (j *fileJournal) meta() (m *stateMeta, err error) {
	if err := j.checkpoint(); err != nil {
		return nil, err
	}
	defer j.damaged(&err, faultsPanic())
	err = j.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(metaBucket)
		if b == nil {
			var names []string
			_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				names = append(names, string(name))
				return nil
			})
			if len(names) > 0 {
				return fmt.Errorf("%s was not made by petctl (it holds %s); give another file with --state, or delete it", j.Name(), QuoteNames(names))
			}
			return nil
		}
		var err error
		m, err = decodeMeta(j.Name(), b.Get(metaKey))
		return err
	})
	return m, err
}

func (j *fileJournal) load(name string, each func(seq int64, value []byte) error) (next, pos int64, err error) {
	if err := j.checkpoint(); err != nil {
		return 0, 0, err
	}
	defer j.damaged(&err, faultsPanic())
	err = j.db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(metaBucket); m != nil {
			if nb := m.Bucket(nextBucket); nb != nil {
				if v := nb.Get([]byte(name)); len(v) == 8 {
					next = int64(binary.BigEndian.Uint64(v))
				}
			}
		}
		rb := tx.Bucket(recordsBucket)
		if rb == nil {
			return nil
		}
		b := rb.Bucket([]byte(name))
		if b == nil {
			return nil
		}
		cur := b.Cursor()
		read := 0
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			seq, ok := seqOfBytes(k)
			if !ok {
				return fmt.Errorf("%s is damaged: %s: a record's key cannot be read; delete it, or start with --state-reset, to start afresh", j.Name(), name)
			}
			if err := each(seq, v); err != nil {
				return err
			}
			// each copies what it keeps: the pages read so far are let go,
			// so a large state is not held twice, as records and as file.
			if read += len(k) + len(v); read >= dropEvery {
				dropPages(j.db, j.path)
				read = 0
			}
		}
		return nil
	})
	return next, 0, err
}

func (j *fileJournal) seed(sets []*snapshot, m *stateMeta, how seedMode) (bool, error) {
	meta, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	if how == seedAfresh {
		// Written into a new file: the old one's records are dropped
		// whole, its pages (damaged, perhaps) never read.
		if err := j.startAfresh(); err != nil {
			return false, err
		}
	} else if err := j.checkpoint(); err != nil {
		return false, err
	}
	// Over a state, in one transaction: a write that fails (a full disk)
	// leaves the state file as it was, where a new file put in its place
	// first would be left without the records.
	seeded := false
	err = j.db.Update(func(tx *bolt.Tx) error {
		if mb := tx.Bucket(metaBucket); mb != nil && mb.Get(metaKey) != nil && how == seedEmpty {
			return nil
		}
		if tx.Bucket(recordsBucket) != nil {
			if err := tx.DeleteBucket(recordsBucket); err != nil {
				return err
			}
		}
		mb, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if err := mb.Put(metaKey, meta); err != nil {
			return err
		}
		if err := writeSets(tx, sets, true); err != nil {
			return err
		}
		seeded = true
		return nil
	})
	if err == nil && seeded && j.mode != SyncAlways {
		err = j.db.Sync() // a seed is answered to no one: it is made durable at once
	}
	if err != nil && how == seedOver {
		return false, fmt.Errorf("%s could not be rewritten for the new document (%v); it is left as it was", j.Name(), unwrapPath(err))
	}
	if err != nil {
		return false, fmt.Errorf("%s could not be written (%v)", j.Name(), unwrapPath(err))
	}
	return seeded, nil
}

func (j *fileJournal) setMeta(m *stateMeta) error {
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := j.checkpoint(); err != nil {
		return err
	}
	err = j.db.Update(func(tx *bolt.Tx) error {
		mb, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		return mb.Put(metaKey, meta)
	})
	if err == nil && j.mode != SyncAlways {
		err = j.db.Sync()
	}
	return err
}

// stateBuckets are the state's buckets in tx, made where missing: the
// records, and each collection's next id (inside the meta bucket).
func stateBuckets(tx *bolt.Tx) (records, next *bolt.Bucket, err error) {
	if records, err = tx.CreateBucketIfNotExists(recordsBucket); err != nil {
		return nil, nil, err
	}
	meta, err := tx.CreateBucketIfNotExists(metaBucket)
	if err != nil {
		return nil, nil, err
	}
	next, err = meta.CreateBucketIfNotExists(nextBucket)
	return records, next, err
}

// writeSets replaces each snapshot's collection with its records.
func writeSets(tx *bolt.Tx, sets []*snapshot, fresh bool) error {
	rb, nb, err := stateBuckets(tx)
	if err != nil {
		return err
	}
	// bbolt keeps the keys and values it is given until the commit: they
	// are cut from slabs, never reused.
	var slab []byte
	for _, sn := range sets {
		name := []byte(sn.coll.def.Key)
		if !fresh && rb.Bucket(name) != nil {
			if err := rb.DeleteBucket(name); err != nil {
				return err
			}
		}
		b, err := rb.CreateBucketIfNotExists(name)
		if err != nil {
			return err
		}
		b.FillPercent = 1 // written in key order: pages are filled, not split
		var e entry
		for i := range sn.seqs {
			if sn.recs.isDead(i) {
				continue
			}
			if err := sn.entry(i, &e); err != nil {
				return err
			}
			if need := len(e.raw) + len(e.key) + len(e.scope) + 64*len(e.vals) + 64; cap(slab)-len(slab) < need {
				slab = make([]byte, 0, max(1<<20, need))
			}
			start := len(slab)
			slab = append(slab, seqBytes(sn.seqs[i])...)
			mid := len(slab)
			slab = encodeValue(slab, sn.coll, &e)
			if err := b.Put(slab[start:mid:mid], slab[mid:len(slab):len(slab)]); err != nil {
				return err
			}
		}
		if err := nb.Put(name, binary.BigEndian.AppendUint64(nil, uint64(sn.next))); err != nil {
			return err
		}
	}
	return nil
}

func (j *fileJournal) catchUp(*Collection) error        { return nil }
func (j *fileJournal) behind(*Collection) (bool, error) { return false, nil }

func (j *fileJournal) put(c *Collection, e *entry, next int64) (func() error, error) {
	return j.enqueue(putOp(c, e, next))
}

func putOp(c *Collection, e *entry, next int64) *fileOp {
	return &fileOp{coll: c.def.Key, seq: e.seq, value: encodeValue(nil, c, e), next: next}
}

func (j *fileJournal) shared() bool { return false }

// putAll queues the puts together: the writer takes them in one batch,
// so that an import is in the log whole or not at all.
func (j *fileJournal) putAll(c *Collection, es []entry, next int64) (func() error, error) {
	ops := make([]*fileOp, len(es))
	for i := range es {
		ops[i] = putOp(c, &es[i], next)
	}
	return j.enqueue(ops...)
}

// delete drops the record's key: a state holds the live records only.
func (j *fileJournal) delete(c *Collection, e *entry, next int64) (func() error, error) {
	return j.enqueue(&fileOp{coll: c.def.Key, seq: e.seq, next: next})
}

func (j *fileJournal) replace(sets []*snapshot) (func() error, error) {
	return j.enqueue(&fileOp{sets: sets})
}

// enqueue hands ops to the writer, together; the caller holds the lock
// of the collections they change, so ops are queued in the order they
// happen.
func (j *fileJournal) enqueue(ops ...*fileOp) (func() error, error) {
	for _, op := range ops {
		op.done = make(chan error, 1)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.failed != nil:
		return nil, fmt.Errorf("an earlier write failed (%v); nothing is written until petctl is restarted", j.failed)
	case j.closed:
		return nil, errors.New("the state file is closed: petctl is stopping")
	}
	j.queue = append(j.queue, ops...)
	j.cond.Signal()
	return func() error {
		var first error
		for _, op := range ops {
			if err := <-op.done; err != nil && first == nil {
				first = err
			}
		}
		return first
	}, nil
}

// gatherWait is how long the writer waits for more changes before a
// flush to the disk (SyncAlways) when the last batch held several: short
// against an fdatasync. Without a flush, a batch is one append to the log,
// cheaper than the wait: the writer takes what is queued.
const gatherWait = 100 * time.Microsecond

// write commits the queue, a batch at a time, until Close.
func (j *fileJournal) write() {
	defer close(j.written)
	last := 0 // the size of the last batch
	for {
		j.mu.Lock()
		for len(j.queue) == 0 && !j.closed {
			j.cond.Wait()
		}
		if j.mode == SyncAlways && last > 1 && len(j.queue) < last && !j.closed {
			// The writers of the last batch were answered together and
			// are likely sending their next changes now: a moment's wait,
			// until as many are queued, lets one flush take them all,
			// where taking the first alone would cost a flush each.
			waited := false
			t := time.AfterFunc(gatherWait, func() {
				j.mu.Lock()
				waited = true
				j.cond.Broadcast()
				j.mu.Unlock()
			})
			for len(j.queue) < last && !waited && !j.closed {
				j.cond.Wait()
			}
			t.Stop()
		}
		batch := j.queue
		last = len(batch)
		j.queue = nil
		j.mu.Unlock()
		if len(batch) == 0 {
			return // closed, and nothing left
		}
		err := j.record(batch)
		if err != nil {
			err = fmt.Errorf("writing to the disk: %v", err)
			j.fail(err)
		}
		for _, op := range batch {
			op.done <- err
		}
		if err == nil {
			if err := j.checkpointIfDue(); err != nil {
				j.fail(fmt.Errorf("writing to the disk: %v", err))
			}
		}
	}
}

// commit writes a batch in one transaction; bbolt rolls it back when it
// panics on a damaged page, which is then the batch's error.
func (j *fileJournal) commit(batch []*fileOp) (err error) {
	defer j.damaged(&err, faultsPanic())
	j.dbMu.RLock()
	defer j.dbMu.RUnlock()
	return j.db.Update(func(tx *bolt.Tx) error { return commitOps(tx, batch) })
}

// commitOps writes a batch of changes in one transaction.
func commitOps(tx *bolt.Tx, batch []*fileOp) error {
	rb, nb, err := stateBuckets(tx)
	if err != nil {
		return err
	}
	for _, op := range batch {
		if op.sets != nil {
			if err := writeSets(tx, op.sets, false); err != nil {
				return err
			}
			continue
		}
		b, err := rb.CreateBucketIfNotExists([]byte(op.coll))
		if err != nil {
			return err
		}
		b.FillPercent = 0.95 // creates append: a page split leaves the left page nearly full
		if op.value == nil {
			err = b.Delete(seqBytes(op.seq))
		} else {
			err = b.Put(seqBytes(op.seq), op.value)
		}
		if err != nil {
			return err
		}
		if op.value != nil && op.next == op.seq+1 {
			// The next seq follows the record just written, and a start
			// takes the one after the largest stored seq anyway (or the
			// stored next, when larger): writing it would only cost two
			// more pages per transaction. Deletes write it, as the seq
			// they free must not be taken again.
			continue
		}
		if err := nb.Put([]byte(op.coll), binary.BigEndian.AppendUint64(nil, uint64(op.next))); err != nil {
			return err
		}
	}
	return nil
}
