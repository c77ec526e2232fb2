package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisOptions say how a Redis journal talks to Redis.
type RedisOptions struct {
	// Timeout bounds each exchange (dial, read, write); 0 is 5 s.
	Timeout time.Duration
	// Prefix starts every key; "" is "petctl". Tests give each their own.
	Prefix string
}

// redisLogLength is about how many changes of a collection Redis keeps in
// its log: a replica further behind (idle for that many changes) reloads
// the collection whole instead.
const redisLogLength = 100_000

// redisJournal keeps a store in Redis (or Valkey), shared by every petctl
// serving the same document: the replicas. Redis is the truth and each
// replica's tables a copy it keeps up to date: for each collection Redis
// holds its records (a hash by seq), a log of its changes (a stream whose
// entry IDs are the change's position, "<pos>-1"), the position of the last
// change, and the seq the next create takes.
//
// A change is committed by a script that appends it only when the log is
// where the replica last saw it (compare and append): otherwise another
// replica changed the collection first, the script answers with the log
// entries the replica has not seen, and the replica applies them and
// builds its change again (errStale). So every replica applies the same
// changes in the same order, ids are unique and increasing across
// replicas, and no update is lost. Before every read and write a replica
// asks for the position (one round trip) and applies what it has not seen:
// a create answered by one replica is in the next list of any other.
// Creates are the exception to the asking: the creates waiting on one
// replica are committed together, by one script call (createGroup), which
// is sent even when none of them built, so that its compare confirms the
// table they were built or refused on; a group costs one round trip, and
// one more each time another replica came first.
// Resets and imports replace collections whole, in one script, all
// together, and the other replicas reload them.
type redisJournal struct {
	name   string
	client *redis.Client
	prefix string
	// timeout bounds each call's context as well as the client's own.
	timeout time.Duration

	mu      sync.Mutex
	lastErr error
	// held says the journal has held a store: its meta was read or
	// written. A meta gone after it means Redis lost the store.
	held bool
	// lost, once set, says Redis no longer holds the store this process
	// served (see lose): every exchange after it is refused.
	lost error
}

// RedisName names a Redis URL for messages and banners: its host, port and
// database, never its user or password.
func RedisName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "redis (store.url)"
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		db = "0"
	}
	return "redis " + u.Host + "/" + db
}

// OpenRedis connects to the Redis at rawURL (redis:// or rediss://) and
// checks that it answers. A URL that cannot be read or a Redis that cannot
// be reached is an error that names it (without its password).
func OpenRedis(rawURL string, o RedisOptions) (Journal, error) {
	quietClient.Do(func() { redis.SetLogger(discardLogger{}) })
	name := RedisName(rawURL)
	if rawURL == "" {
		return nil, errors.New("store.backend is redis and no store.url is given: give redis://host:port/db")
	}
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: the URL cannot be read: want redis://[user:password@]host:port[/db] or rediss://", name)
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Prefix == "" {
		o.Prefix = "petctl"
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = o.Timeout, o.Timeout, o.Timeout
	// A commit that is sent twice could store a record twice: a change is
	// never retried by the client; the caller answers 503 instead.
	opt.MaxRetries = -1
	// The CLIENT SETINFO greeting is not understood by older servers.
	opt.DisableIdentity = true
	j := &redisJournal{name: name, client: redis.NewClient(opt), timeout: o.Timeout,
		// One hash tag for every key: the scripts touch several collections at once.
		prefix: "{" + o.Prefix + "}:"}
	ctx, cancel := j.ctx()
	defer cancel()
	if err := j.client.Ping(ctx).Err(); err != nil {
		_ = j.client.Close()
		return nil, fmt.Errorf("%s cannot be reached: %v", name, err)
	}
	return j, nil
}

// quietClient silences go-redis's own logger once: it prints, to
// stderr and in its own format, beside petctl's log, each dial that
// failed, which petctl answers already (503 store_unavailable) and
// reports under /__petctl/health.
var quietClient sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

func (j *redisJournal) Name() string { return j.name }

func (j *redisJournal) Close() error { return j.client.Close() }

func (j *redisJournal) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), j.timeout)
}

// exchanged keeps the outcome of an exchange with Redis for health, and
// returns its error as the journal's (nil when it went through).
func (j *redisJournal) exchanged(err error) error {
	if err != nil {
		err = &JournalError{Journal: j.name, Err: err}
	}
	j.mu.Lock()
	j.lastErr = err
	j.mu.Unlock()
	return err
}

func (j *redisJournal) health() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost != nil {
		return j.lost
	}
	return j.lastErr
}

// lose notes that Redis no longer holds the store this process served:
// its meta is gone, or a collection's log went back (Redis restarted
// without its data or from an older snapshot, or was flushed). Taking
// what it holds now would serve an empty or older store as if nothing
// had happened, and a change made on it would overwrite what the other
// replicas still hold. So from then on every change is refused, reads
// answer from this process's copy and health says why, until petctl is
// restarted and takes what Redis holds then.
func (j *redisJournal) lose(why string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost == nil {
		j.lost = &JournalError{Journal: j.name, Err: fmt.Errorf("no longer holds the store this petctl served (%s: Redis was restarted without its data or from an older snapshot, or flushed); nothing is changed until petctl is restarted, which takes what Redis holds then", why)}
	}
	return j.lost
}

func (j *redisJournal) hold() {
	j.mu.Lock()
	j.held = true
	j.mu.Unlock()
}

func (j *redisJournal) holds() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.held
}

// gone is the error of lose once Redis lost the store; nil before.
func (j *redisJournal) gone() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lost
}

// noMeta is what the scripts answer for a position when the meta is gone.
const noMeta = -1

// The keys of a collection.
func (j *redisJournal) key(coll, what string) string { return j.prefix + "c:" + coll + ":" + what }
func (j *redisJournal) metaKey() string              { return j.prefix + "meta" }

func (j *redisJournal) meta() (*stateMeta, error) {
	if err := j.gone(); err != nil {
		return nil, err
	}
	ctx, cancel := j.ctx()
	defer cancel()
	data, err := j.client.Get(ctx, j.metaKey()).Bytes()
	switch {
	case errors.Is(err, redis.Nil) && j.holds():
		// A reload's: seeding now would fill the shared store afresh.
		return nil, j.lose("its meta is gone")
	case errors.Is(err, redis.Nil):
		return nil, j.exchanged(nil)
	case err != nil:
		return nil, j.exchanged(err)
	}
	j.exchanged(nil)
	m, err := decodeMeta(j.name+" (key "+j.metaKey()+")", data)
	if err == nil {
		j.hold()
	}
	return m, err
}

// snapshotScript reads a collection's position, next seq and records at
// one moment.
var snapshotScript = redis.NewScript(`
return {redis.call('GET', KEYS[1]) or '0', redis.call('GET', KEYS[2]) or '0', redis.call('HGETALL', KEYS[3])}`)

// snapshotOfRedis reads collection name whole: its records in seq order.
func (j *redisJournal) snapshot(name string) (pos, next int64, seqs []int64, vals []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*j.timeout)
	defer cancel()
	res, err := snapshotScript.Run(ctx, j.client, []string{j.key(name, "pos"), j.key(name, "next"), j.key(name, "rec")}).Slice()
	if err != nil {
		return 0, 0, nil, nil, j.exchanged(err)
	}
	j.exchanged(nil)
	if len(res) != 3 {
		return 0, 0, nil, nil, fmt.Errorf("%s: unexpected answer to a snapshot", j.name)
	}
	pos, _ = strconv.ParseInt(fmt.Sprint(res[0]), 10, 64)
	next, _ = strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
	pairs, _ := res[2].([]any)
	type rec struct {
		seq int64
		val string
	}
	recs := make([]rec, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		seq, err := strconv.ParseInt(fmt.Sprint(pairs[i]), 10, 64)
		if err != nil {
			return 0, 0, nil, nil, fmt.Errorf("%s is damaged: %s: a record's seq %q is not a number", j.name, name, fmt.Sprint(pairs[i]))
		}
		recs = append(recs, rec{seq, fmt.Sprint(pairs[i+1])})
	}
	slices.SortFunc(recs, func(a, b rec) int { return cmpInt(a.seq, b.seq) })
	seqs = make([]int64, len(recs))
	vals = make([]string, len(recs))
	for i, r := range recs {
		seqs[i], vals[i] = r.seq, r.val
	}
	return pos, next, seqs, vals, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (j *redisJournal) load(name string, each func(seq int64, value []byte) error) (next, pos int64, err error) {
	pos, next, seqs, vals, err := j.snapshot(name)
	if err != nil {
		return 0, 0, err
	}
	for i, seq := range seqs {
		if err := each(seq, []byte(vals[i])); err != nil {
			return 0, 0, err
		}
	}
	return next, pos, nil
}

// stage writes each snapshot's records under a key of their own, to be
// swapped in by a script; it returns the keys, "" for an empty snapshot.
func (j *redisJournal) stage(sets []*snapshot) ([]string, error) {
	var tag [8]byte
	_, _ = rand.Read(tag[:])
	keys := make([]string, len(sets))
	ctx, cancel := context.WithTimeout(context.Background(), 10*j.timeout)
	defer cancel()
	for i, sn := range sets {
		if len(sn.seqs) == 0 {
			continue
		}
		key := j.key(sn.coll.def.Key, "stage:"+hex.EncodeToString(tag[:]))
		const batch = 1000
		var e entry
		for lo := 0; lo < len(sn.seqs); lo += batch {
			args := make([]any, 0, 2*batch)
			for k := lo; k < min(lo+batch, len(sn.seqs)); k++ {
				if sn.recs.isDead(k) {
					continue // deleted: not stored
				}
				if err := sn.entry(k, &e); err != nil {
					j.unstage(keys)
					return nil, err
				}
				args = append(args, strconv.FormatInt(sn.seqs[k], 10), string(encodeValue(nil, sn.coll, &e)))
			}
			if len(args) == 0 {
				continue
			}
			keys[i] = key // only once it holds a record: an empty stage is no key
			if err := j.client.HSet(ctx, keys[i], args...).Err(); err != nil {
				j.unstage(keys)
				return nil, j.exchanged(err)
			}
		}
		// A stage left by a process that died before swapping it in expires.
		if keys[i] != "" {
			j.client.Expire(ctx, keys[i], time.Hour)
		}
	}
	return keys, nil
}

func (j *redisJournal) unstage(keys []string) {
	ctx, cancel := j.ctx()
	defer cancel()
	for _, k := range keys {
		if k != "" {
			j.client.Del(ctx, k)
		}
	}
}

// swapScript replaces collections with staged records, all at once: for
// each collection KEYS[5i+1..5i+5] are its position, records, next seq,
// log and stage ("" when it is to be empty) and ARGV[i+3] its next seq.
// ARGV[1] is the meta to set ("" for none: a reset or an import, which
// the meta must be there for); ARGV[2] is "1" when the swap is to happen
// only while there is no meta yet (a first seed). It returns the new
// positions, or 0 when a seed found the meta set, or noMeta when a reset
// or import found none.
var swapScript = redis.NewScript(`
local function unstage()
  for i = 0, (#KEYS - 1) / 5 - 1 do
    if redis.call('EXISTS', KEYS[5*i+5]) == 1 then redis.call('DEL', KEYS[5*i+5]) end
  end
end
local hasMeta = redis.call('EXISTS', KEYS[#KEYS]) == 1
if ARGV[2] == '1' and hasMeta then
  unstage()
  return 0
end
if ARGV[1] == '' and not hasMeta then
  unstage()
  return -1
end
local out = {}
for i = 0, (#KEYS - 1) / 5 - 1 do
  local pos, rec, nxt, log, stage = KEYS[5*i+1], KEYS[5*i+2], KEYS[5*i+3], KEYS[5*i+4], KEYS[5*i+5]
  if redis.call('EXISTS', stage) == 1 then
    redis.call('RENAME', stage, rec)
    redis.call('PERSIST', rec)
  else
    redis.call('DEL', rec)
  end
  local p = redis.call('INCR', pos)
  redis.call('SET', nxt, ARGV[i+3])
  redis.call('XADD', log, 'MAXLEN', '~', ARGV[#ARGV], p .. '-1', 'op', 'reload')
  out[#out+1] = p
end
if ARGV[1] ~= '' then redis.call('SET', KEYS[#KEYS], ARGV[1]) end
return out`)

// swap runs swapScript for sets; meta "" sets none.
func (j *redisJournal) swap(sets []*snapshot, meta string, onlyFirst bool) ([]int64, error) {
	if err := j.gone(); err != nil {
		return nil, err
	}
	staged, err := j.stage(sets)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, 5*len(sets)+1)
	args := []any{meta, "0"}
	if onlyFirst {
		args[1] = "1"
	}
	for i, sn := range sets {
		name := sn.coll.def.Key
		stage := staged[i]
		if stage == "" {
			stage = j.key(name, "stage:none")
		}
		keys = append(keys, j.key(name, "pos"), j.key(name, "rec"), j.key(name, "next"), j.key(name, "log"), stage)
		args = append(args, strconv.FormatInt(sn.next, 10))
	}
	keys = append(keys, j.metaKey())
	args = append(args, redisLogLength)
	ctx, cancel := j.ctx()
	defer cancel()
	res, err := swapScript.Run(ctx, j.client, keys, args...).Result()
	if err != nil {
		j.unstage(staged)
		return nil, j.exchanged(err)
	}
	j.exchanged(nil)
	if n, _ := res.(int64); n == noMeta {
		return nil, j.lose("its meta is gone")
	}
	if meta != "" {
		j.hold()
	}
	list, ok := res.([]any)
	if !ok {
		return nil, nil // a seed that found the meta set
	}
	out := make([]int64, len(list))
	for i, v := range list {
		out[i], _ = v.(int64)
	}
	return out, nil
}

func (j *redisJournal) seed(sets []*snapshot, m *stateMeta, how seedMode) (bool, error) {
	meta, err := json.Marshal(m)
	if err != nil {
		return false, err
	}
	pos, err := j.swap(sets, string(meta), how == seedEmpty) // a swap is one change either way
	if err != nil || pos == nil {
		return false, err
	}
	// The records are this process's own: nothing before the swap is to
	// be applied.
	for i, sn := range sets {
		sn.coll.applied.Store(pos[i])
	}
	return true, nil
}

func (j *redisJournal) setMeta(m *stateMeta) error {
	if err := j.gone(); err != nil {
		return err
	}
	meta, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := j.ctx()
	defer cancel()
	return j.exchanged(j.client.Set(ctx, j.metaKey(), meta, 0).Err())
}

func (j *redisJournal) replace(sets []*snapshot) (func() error, error) {
	pos, err := j.swap(sets, "", false)
	if err != nil {
		return nil, err
	}
	for i, sn := range sets {
		sn.coll.applied.Store(pos[i])
	}
	return nil, nil
}

// commitScript appends changes to a collection when its log is at
// ARGV[1], all of them or none: KEYS are the position, records, next seq,
// log and the store's meta; ARGV the expected position, the next seq, the log length and
// how many log entries a refusal carries, then a triple a change: "put"
// or "del", the seq and the stored value ("" for a delete); none is a
// compare alone. It returns
// {1, the new position}; or, when the log has moved on, {0, its position,
// the entries after ARGV[1]} (at most ARGV[4] of them), so that the
// replica catches up with the answer to the commit it has to build again;
// or {noMeta, noMeta} when the meta is gone.
var commitScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[5]) == 0 then return {-1, -1} end
local pos = tonumber(redis.call('GET', KEYS[1]) or '0')
if pos ~= tonumber(ARGV[1]) then
  return {0, pos, redis.call('XRANGE', KEYS[4], '(' .. ARGV[1] .. '-1', '+', 'COUNT', ARGV[4])}
end
for i = 5, #ARGV, 3 do
  pos = pos + 1
  if ARGV[i] == 'put' then
    redis.call('HSET', KEYS[2], ARGV[i+1], ARGV[i+2])
    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], pos .. '-1', 'op', 'put', 'seq', ARGV[i+1], 'val', ARGV[i+2])
  else
    redis.call('HDEL', KEYS[2], ARGV[i+1])
    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], pos .. '-1', 'op', 'del', 'seq', ARGV[i+1])
  end
end
if #ARGV > 4 then
  redis.call('SET', KEYS[1], pos)
  redis.call('SET', KEYS[3], ARGV[2])
end
return {1, pos}`)

// catchUpScript reads a collection's position and the log entries after
// ARGV[1] (at most ARGV[2] of them) at one moment: {position, entries};
// the position is noMeta when the store's meta (KEYS[3]) is gone.
var catchUpScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[3]) == 0 then return {'-1', {}} end
local pos = redis.call('GET', KEYS[1]) or '0'
if tonumber(pos) == tonumber(ARGV[1]) then return {pos, {}} end
return {pos, redis.call('XRANGE', KEYS[2], '(' .. ARGV[1] .. '-1', '+', 'COUNT', ARGV[2])}`)

func (j *redisJournal) shared() bool { return true }

func (j *redisJournal) put(c *Collection, e *entry, next int64) (func() error, error) {
	return j.commit(c, next, "put", strconv.FormatInt(e.seq, 10), string(encodeValue(nil, c, e)))
}

func (j *redisJournal) putAll(c *Collection, es []entry, next int64) (func() error, error) {
	args := make([]any, 0, 3*len(es))
	for i := range es {
		args = append(args, "put", strconv.FormatInt(es[i].seq, 10), string(encodeValue(nil, c, &es[i])))
	}
	return j.commit(c, next, args...)
}

func (j *redisJournal) delete(c *Collection, e *entry, next int64) (func() error, error) {
	return j.commit(c, next, "del", strconv.FormatInt(e.seq, 10), "")
}

// commit runs commitScript on c's keys with the position c has applied,
// next and changes (triples). When another replica changed c first, it
// applies what the refusal carries (the caller holds c's write lock), and
// the rest of the log when that was not all, and returns errStale.
func (j *redisJournal) commit(c *Collection, next int64, changes ...any) (func() error, error) {
	if err := j.gone(); err != nil {
		return nil, err
	}
	name := c.def.Key
	from := c.applied.Load()
	ctx, cancel := j.ctx()
	defer cancel()
	res, err := commitScript.Run(ctx, j.client,
		[]string{j.key(name, "pos"), j.key(name, "rec"), j.key(name, "next"), j.key(name, "log"), j.metaKey()},
		append([]any{from, next, redisLogLength, catchUpBatch}, changes...)...).Slice()
	if err != nil {
		return nil, j.exchanged(err)
	}
	j.exchanged(nil)
	ok, pos, entries, err := j.answer(res)
	if err != nil {
		return nil, err
	}
	if ok == 1 {
		c.applied.Store(pos)
		return nil, nil
	}
	if err := j.wentBack(c, from, pos); err != nil {
		return nil, err
	}
	done, err := j.apply(c, pos, entries)
	if err == nil && !done {
		err = j.catchUp(c)
	}
	if err != nil {
		return nil, err
	}
	return nil, errStale
}

// answer reads a script's answer {number, position[, entries]}.
func (j *redisJournal) answer(res []any) (n, pos int64, entries []any, err error) {
	if len(res) < 2 {
		return 0, 0, nil, fmt.Errorf("%s: an unexpected answer to a commit", j.name)
	}
	n, _ = res[0].(int64)
	pos, err = strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%s is damaged: a log position %q is not a number", j.name, fmt.Sprint(res[1]))
	}
	if len(res) > 2 {
		entries, _ = res[2].([]any)
	}
	return n, pos, entries, nil
}

// positionScript reads a collection's position (KEYS[1]); noMeta when
// the store's meta (KEYS[2]) is gone.
var positionScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
return tonumber(redis.call('GET', KEYS[1]) or '0')`)

func (j *redisJournal) behind(c *Collection) (bool, error) {
	if err := j.gone(); err != nil {
		return false, err
	}
	// Read before asking: without c's lock, a commit of this process may
	// take c further while the question is on its way.
	applied := c.applied.Load()
	ctx, cancel := j.ctx()
	defer cancel()
	pos, err := positionScript.Run(ctx, j.client, []string{j.key(c.def.Key, "pos"), j.metaKey()}).Int64()
	if err != nil {
		return false, j.exchanged(err)
	}
	j.exchanged(nil)
	if err := j.wentBack(c, applied, pos); err != nil {
		return false, err
	}
	return pos != c.applied.Load(), nil
}

// wentBack is lose's error when Redis answered position pos for c, asked
// once c had applied its log up to applied: the meta is gone (noMeta), or
// the log is behind what c applied from it.
func (j *redisJournal) wentBack(c *Collection, applied, pos int64) error {
	switch {
	case pos == noMeta:
		return j.lose("its meta is gone")
	case pos < applied:
		return j.lose(fmt.Sprintf("the log of %s went back from %d changes to %d", c.def.Key, applied, pos))
	}
	return nil
}

// catchUpBatch is how many log entries one exchange reads.
const catchUpBatch = 1000

func (j *redisJournal) catchUp(c *Collection) error {
	if err := j.gone(); err != nil {
		return err
	}
	name := c.def.Key
	for {
		applied := c.applied.Load()
		ctx, cancel := j.ctx()
		res, err := catchUpScript.Run(ctx, j.client, []string{j.key(name, "pos"), j.key(name, "log"), j.metaKey()},
			applied, catchUpBatch).Slice()
		cancel()
		if err != nil {
			return j.exchanged(err)
		}
		j.exchanged(nil)
		res = append([]any{int64(0)}, res...)
		_, pos, entries, err := j.answer(res)
		if err != nil {
			return err
		}
		if err := j.wentBack(c, applied, pos); err != nil {
			return err
		}
		if done, err := j.apply(c, pos, entries); done || err != nil {
			return err
		}
	}
}

// apply applies log entries read at one moment, when the log was at pos;
// done says c is then at pos. The caller holds c's write lock.
func (j *redisJournal) apply(c *Collection, pos int64, entries []any) (done bool, err error) {
	for _, m := range entries {
		at, values, ok := logEntry(m)
		if !ok || at != c.applied.Load()+1 || !c.applyLogged(values) {
			// A gap (the log was trimmed), a reset or an import: the
			// collection is read whole.
			return true, j.reload(c)
		}
		c.applied.Store(at)
	}
	switch {
	case c.applied.Load() == pos:
		return true, nil
	case len(entries) == catchUpBatch:
		return false, nil // more to read
	}
	// Entries to apply are missing: the log was trimmed past them.
	return true, j.reload(c)
}

// logEntry reads an entry of XRANGE as a script returns it: {id, {field,
// value, ...}}.
func logEntry(m any) (pos int64, values map[string]any, ok bool) {
	pair, _ := m.([]any)
	if len(pair) != 2 {
		return 0, nil, false
	}
	id, _ := pair[0].(string)
	pos, err := strconv.ParseInt(strings.TrimSuffix(id, "-1"), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	fields, _ := pair[1].([]any)
	values = make(map[string]any, len(fields)/2)
	for i := 0; i+1 < len(fields); i += 2 {
		k, _ := fields[i].(string)
		values[k] = fields[i+1]
	}
	return pos, values, true
}

// reload replaces c's records with those Redis holds. The caller holds
// c's write lock.
func (j *redisJournal) reload(c *Collection) error {
	var pos, next int64
	cols, err := c.fastColumns(j.name, func(each func(seq int64, value []byte) error) error {
		var err error
		next, pos, err = j.load(c.def.Key, each)
		return err
	})
	if err != nil {
		return err
	}
	c.table.loadColumnsLocked(cols)
	if next > c.table.nextSeq {
		c.table.nextSeq = next
	}
	c.applied.Store(pos)
	return nil
}

// applyLogged applies a logged put or delete made by another replica;
// false when it is not one this copy can apply in place (a reload, or a
// record out of order), and the collection is to be reloaded.
func (c *Collection) applyLogged(v map[string]any) bool {
	seq, err := strconv.ParseInt(fmt.Sprint(v["seq"]), 10, 64)
	if err != nil {
		return false
	}
	switch v["op"] {
	case "del":
		return c.applyDelete(seq)
	case "put":
	default:
		return false
	}
	val, _ := v["val"].(string)
	var sv storedValue
	if !decodeValue([]byte(val), c.layout(), &sv) {
		return false
	}
	return c.applyPut(seq, &sv)
}

// applyPut stores a record another process built and checked: a new one
// after the last, or a new version of one this copy holds (a replace); the
// caller holds the write lock. A record that is already there, unchanged,
// is skipped; any other is refused (false).
func (c *Collection) applyPut(seq int64, sv *storedValue) bool {
	t := c.table
	e, ok := c.storedEntry(seq, sv)
	if !ok {
		return false
	}
	if n := len(t.seqs); n > 0 && seq <= t.seqs[n-1] {
		pos, found := slices.BinarySearch(t.seqs, seq)
		if !found || t.isDead(pos) {
			return false
		}
		old := t.recordAt(pos)
		if string(old.JSON) == string(sv.raw) {
			return true
		}
		if old.ID != e.key || old.Scope != e.scope {
			return false
		}
		prev, err := c.decodeStored(old.JSON)
		if err != nil {
			return false
		}
		oldEntry := c.entryOf(&prev, old.Scope)
		t.replaceLocked(pos, &oldEntry, &e)
		t.compactIfWorthIt()
		return true
	}
	t.insertLocked(&e)
	return true
}

// applyDelete tombstones a record another process deleted; the caller
// holds the write lock. One this copy does not hold is refused (false).
func (c *Collection) applyDelete(seq int64) bool {
	t := c.table
	pos, found := slices.BinarySearch(t.seqs, seq)
	if !found || t.isDead(pos) {
		return false
	}
	old := t.recordAt(pos)
	prev, err := c.decodeStored(old.JSON)
	if err != nil {
		return false
	}
	e := c.entryOf(&prev, old.Scope)
	t.deleteLocked(pos, &e)
	t.compactIfWorthIt()
	return true
}

// storedEntry is the table entry of a stored record: its filter values as
// stored, or decoded from its JSON when they were stored for other filters.
func (c *Collection) storedEntry(seq int64, sv *storedValue) (entry, bool) {
	if len(sv.vals) != len(c.filterFields) {
		return c.storedEntryOf(seq, sv.key, sv.scope, sv.raw)
	}
	key := sv.key
	if c.table.integer {
		key = strconv.FormatInt(seq, 10)
	}
	e := entry{seq: seq, key: key, scope: sv.scope, raw: sv.raw, has: sv.has}
	if len(sv.vals) > 0 {
		e.vals = make([]string, len(sv.vals))
		for i, v := range sv.vals {
			e.vals[i] = string(v)
		}
	}
	return e, true
}

// storedEntryOf is the table entry of a stored record: its filter values
// decoded.
func (c *Collection) storedEntryOf(seq int64, key, scope string, raw []byte) (entry, bool) {
	fv := c.newFieldValues()
	if extra, ok := decodeFields(raw, c.fieldPos, &fv, nil); !ok || len(extra) > 0 {
		return entry{}, false
	}
	if c.table.integer {
		key = strconv.FormatInt(seq, 10)
	}
	e := entry{seq: seq, key: key, scope: scope, raw: raw}
	if len(c.filterFields) > 0 {
		e.vals = make([]string, len(c.filterFields))
		for i, p := range c.filterPos {
			if p >= 0 && fv.has[p] {
				if v, ok := scalarValue(fv.vals[p]); ok {
					e.vals[i], e.has = v, e.has|1<<i
				}
			}
		}
	}
	return e, true
}
