package harness

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petctl/petctl/bench/load"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		conns, n int
		want     []int
	}{
		{16, 1, []int{16}},
		{16, 3, []int{6, 5, 5}},
		{3, 3, []int{1, 1, 1}},
		{17, 2, []int{9, 8}},
	} {
		got, err := Spread(tc.conns, tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Spread(%d, %d) = %v, %v, want %v", tc.conns, tc.n, got, err, tc.want)
		}
	}
	// A replica without a connection would get load's default of 16.
	for _, tc := range [][2]int{{2, 3}, {1, 0}} {
		if got, err := Spread(tc[0], tc[1]); err == nil {
			t.Errorf("Spread(%d, %d) = %v, want an error", tc[0], tc[1], got)
		}
	}
}

func TestMerge(t *testing.T) {
	a := load.Result{Requests: 10, Errors: 1, Status: map[int]int64{201: 9}, RPS: 100, Elapsed: time.Second,
		P50: 2 * time.Millisecond, P99: 9 * time.Millisecond, Max: 20 * time.Millisecond}
	b := load.Result{Requests: 20, Status: map[int]int64{201: 19, 503: 1}, RPS: 200, Elapsed: time.Second,
		P50: 3 * time.Millisecond, P99: 5 * time.Millisecond, Max: 30 * time.Millisecond, FirstError: io.EOF}
	got := Merge([]load.Result{a, b})
	if got.Requests != 30 || got.Errors != 1 || got.RPS != 300 || got.Status[201] != 28 || got.Status[503] != 1 {
		t.Errorf("Merge summed %+v, want 30 requests, 1 error, 300 req/s, 28×201 and 1×503", got)
	}
	if got.P50 != 3*time.Millisecond || got.P99 != 9*time.Millisecond || got.Max != 30*time.Millisecond {
		t.Errorf("Merge latencies p50 %v p99 %v max %v, want the slowest part's: 3ms 9ms 30ms", got.P50, got.P99, got.Max)
	}
	if got.FirstError != io.EOF {
		t.Errorf("Merge FirstError = %v, want the part's", got.FirstError)
	}
	if got.Unexpected(201) != 2 {
		t.Errorf("Unexpected(201) = %d, want 2 (the 503 and the error)", got.Unexpected(201))
	}
	if a.Status[201] != 9 {
		t.Error("Merge changed a part's statuses")
	}
}

// TestAlternate runs two turns for three rounds on real sockets: each
// round runs both, the order rotating; Before and After run around every
// run; a server that answers another status than the scenario's fails the
// comparison, saying which.
func TestAlternate(t *testing.T) {
	var hits [2]atomic.Int64
	newServer := func(i, status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	a, b := newServer(0, 200), newServer(1, 204)
	var order []string
	hook := func(s string) func(context.Context) error {
		return func(context.Context) error { order = append(order, s); return nil }
	}
	turns := []Turn{
		{Name: "a", Server: Server{Name: "A", Addr: a}, Scenario: Scenario{Name: "GET /", Req: load.Request{Path: "/"}, Want: 200},
			Before: hook("a<"), After: hook("a>")},
		{Name: "b", Server: Server{Name: "B", Addr: b}, Scenario: Scenario{Name: "DELETE /", Req: load.Request{Method: "DELETE", Path: "/"}, Want: 204},
			Before: hook("b<"), After: hook("b>")},
	}
	// A window long enough for some answers on a loaded machine under the
	// race detector: at 20 ms a run at load 6 once saw none.
	cfg := load.Config{Conns: 2, Duration: 250 * time.Millisecond}
	runs, err := Alternate(context.Background(), cfg, 3, turns, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs["a"]) != 3 || len(runs["b"]) != 3 {
		t.Fatalf("got %d and %d runs, want 3 each", len(runs["a"]), len(runs["b"]))
	}
	if want := []string{"a<", "a>", "b<", "b>", "b<", "b>", "a<", "a>", "a<", "a>", "b<", "b>"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if hits[0].Load() == 0 || hits[1].Load() == 0 {
		t.Errorf("servers saw %d and %d requests, want both some", hits[0].Load(), hits[1].Load())
	}
	turns[1].Scenario.Want = 200
	if _, err := Alternate(context.Background(), cfg, 1, turns, io.Discard); err == nil || !strings.Contains(err.Error(), "DELETE / on B") {
		t.Errorf("a server answering 204 where 200 is wanted: err = %v, want one naming DELETE / on B", err)
	}
}

// TestRunOnSpreadsOverReplicas runs one scenario on a server with two
// more addresses: each replica gets its share of the connections, and the
// result counts the requests of all three.
func TestRunOnSpreadsOverReplicas(t *testing.T) {
	var hits [3]atomic.Int64
	var addrs []string
	for i := range hits {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer k" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			hits[i].Add(1)
		}))
		t.Cleanup(srv.Close)
		addrs = append(addrs, strings.TrimPrefix(srv.URL, "http://"))
	}
	srv := Server{Name: "replicas", Addr: addrs[0], More: addrs[1:], Header: map[string]string{"Authorization": "Bearer k"}}
	res, err := RunOn(context.Background(), load.Config{Conns: 3, Duration: 250 * time.Millisecond}, srv, Scenario{Name: "GET /", Req: load.Request{Path: "/"}, Want: 200})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for i := range hits {
		if hits[i].Load() == 0 {
			t.Errorf("replica %d saw no request", i)
		}
		total += hits[i].Load()
	}
	if res.Requests == 0 || res.Requests > total {
		t.Errorf("result counts %d requests, the replicas saw %d; want the sum of the window's", res.Requests, total)
	}
	if _, err := RunOn(context.Background(), load.Config{Conns: 2, Duration: 10 * time.Millisecond}, srv, Scenario{Req: load.Request{Path: "/"}, Want: 200}); err == nil {
		t.Error("two connections over three replicas: no error")
	}
}
