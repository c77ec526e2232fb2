package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store/redistest"
	"github.com/redis/go-redis/v9"
)

// commandStats are redis-server's counts since its last CONFIG RESETSTAT:
// calls and microseconds by command.
type commandStats struct {
	calls, usec map[string]int64
}

func (s commandStats) total() (calls, usec int64) {
	for k, v := range s.calls {
		calls, usec = calls+v, usec+s.usec[k]
	}
	return calls, usec
}

func readCommandStats(t *testing.T, url string) commandStats {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	cl := redis.NewClient(opt)
	defer cl.Close()
	info, err := cl.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	s := commandStats{calls: map[string]int64{}, usec: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		name = strings.TrimPrefix(name, "cmdstat_")
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				s.calls[name] = n
			case "usec":
				s.usec[name] = n
			}
		}
	}
	return s
}

// exchangeCounter counts a client's exchanges with Redis: each command
// or pipeline sent and answered is one round trip.
type exchangeCounter struct{ n atomic.Int64 }

func (h *exchangeCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *exchangeCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *exchangeCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

func resetCommandStats(t *testing.T, url string) {
	t.Helper()
	opt, _ := redis.ParseURL(url)
	cl := redis.NewClient(opt)
	defer cl.Close()
	if err := cl.ConfigResetStat(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRedisReplicaCreatesShareExchanges: creates from three replicas at
// once, eight at a time on each, cost few exchanges with Redis a create,
// commit attempts included (a refused one is an exchange too), and none
// is lost: the replicas hold the same records, every id once.
func TestRedisReplicaCreatesShareExchanges(t *testing.T) {
	url := redistest.Start(t)
	replicas := []*testDoc{openReplica(t, url), openReplica(t, url), openReplica(t, url)}
	const perGoroutine, goroutines = 25, 8
	var exchanges exchangeCounter
	for _, d := range replicas {
		d.store.journal.(*redisJournal).client.AddHook(&exchanges)
	}
	resetCommandStats(t, url)
	began := time.Now()
	ids := createConcurrently(t, replicas, goroutines, perGoroutine)
	elapsed := time.Since(began)
	stats := readCommandStats(t, url)
	creates := int64(len(replicas) * goroutines * perGoroutine)
	_, usec := stats.total()
	perCreate := float64(exchanges.n.Load()) / float64(creates)
	t.Logf("%d creates in %v: %.2f exchanges with Redis a create; redis-server ran %v (scripts' commands inside evalsha), µs %v: %.1f µs of its time a create",
		creates, elapsed.Round(time.Millisecond), perCreate, stats.calls, stats.usec, float64(usec)/float64(creates))
	if got, want := int64(len(ids)), creates; got != want {
		t.Errorf("%d ids, want %d", got, want)
	}
	want := exportOf(t, replicas[0].store)
	for r, d := range replicas[1:] {
		if got := exportOf(t, d.store); got != want {
			t.Errorf("replica %d holds other records than replica 0", r+1)
		}
	}
	for id, name := range ids {
		if !strings.Contains(want, fmt.Sprintf(`"id":%s,"name":%q`, id, name)) {
			t.Errorf("pet %s (%s) is not in the store", id, name)
		}
	}
	// Today's bound: one exchange to learn the position before a create,
	// then one commit shared by the creates waiting on the replica.
	if got, max := perCreate, 2.0; got > max {
		t.Errorf("%.2f exchanges with Redis a create, want at most %.1f", got, max)
	}
}

// TestRedisCreateGroup: a group's creates are committed together, each
// with its own answer: one the schema refuses leaves the others, which
// take consecutive ids past the other replica's create that came first.
func TestRedisCreateGroup(t *testing.T) {
	url := redistest.Start(t)
	a, b := openReplica(t, url), openReplica(t, url)
	create(t, b.store.colls["pets"], "First, on B") // A has not seen it: A's commit is refused once
	doc := func(body string) any {
		t.Helper()
		v, err := DecodeStrict([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	group := []*groupedCreate{
		{obj: doc(`{"name":"One","categoryId":1}`)},
		{obj: doc(`{"name":"Bad","categoryId":"not a number"}`)},
		{obj: doc(`{"name":"Two","categoryId":1}`)},
	}
	for _, p := range group {
		p.w = Write{Now: time.Now()}
	}
	pa := a.store.colls["pets"]
	pa.createGroupOf(group)
	tests := []struct {
		name, wantID string
		wantInvalid  bool
	}{
		{"One", "152", false},
		{"Bad", "", true},
		{"Two", "153", false},
	}
	for i, tt := range tests {
		p := group[i]
		var invalid *InvalidRecordError
		if got := errors.As(p.err, &invalid); got != tt.wantInvalid {
			t.Errorf("%s: error %v, want invalid %v", tt.name, p.err, tt.wantInvalid)
		}
		if p.rec.ID != tt.wantID {
			t.Errorf("%s: id %q, want %q", tt.name, p.rec.ID, tt.wantID)
		}
	}
	if got, want := exportOf(t, b.store), exportOf(t, a.store); got != want {
		t.Errorf("the replicas hold different records after the group")
	}
	if got, want := pa.Len(), 153; got != want {
		t.Errorf("A holds %d pets, want %d", got, want)
	}
}
