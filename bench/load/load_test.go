package load

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunCountsResponses(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == "POST" && string(body) == `{"a":1}` && r.Header.Get("X-Test") == "yes" {
			posts.Add(1)
			w.WriteHeader(http.StatusCreated)
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	req := Request{Method: "POST", Path: "/x", Header: http.Header{"X-Test": {"yes"}}, Body: []byte(`{"a":1}`)}
	res, err := Run(context.Background(), Config{Addr: addr, Conns: 3, Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond}, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Status[201] != res.Requests {
		t.Fatalf("got %s, want only 201s", res)
	}
	if got := res.Unexpected(201); got != 0 {
		t.Errorf("Unexpected(201) = %d, want 0", got)
	}
	if got := res.Unexpected(200); got != res.Requests {
		t.Errorf("Unexpected(200) = %d, want %d", got, res.Requests)
	}
	// The warm-up requests reached the server but are not counted.
	if posts.Load() <= res.Requests {
		t.Errorf("server saw %d requests, the window %d; want the warm-up excluded", posts.Load(), res.Requests)
	}
	if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max {
		t.Errorf("percentiles out of order: %s", res)
	}
}

func TestRunRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := strings.TrimPrefix(srv.URL, "http://")
	srv.Close()
	if _, err := Run(context.Background(), Config{Addr: addr, Conns: 1, Duration: 50 * time.Millisecond}, Request{Path: "/"}); err == nil {
		t.Fatal("no error from a closed port")
	}
}

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name, raw  string
		status     int
		keep       bool
		body       string
		wantErr    bool
		restOfConn string
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", 200, true, "hello", false, "NEXT"},
		{"chunked", "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nTrailer: 1\r\n\r\nNEXT", 201, true, "abcde", false, "NEXT"},
		{"close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 200, false, "", false, ""},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", 200, false, "x", false, ""},
		{"unframed", "HTTP/1.1 200 OK\r\n\r\nto the end", 200, false, "to the end", false, ""},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\nNEXT", 204, true, "", false, "NEXT"},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", 0, false, "", true, ""},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, false, "", true, ""},
		{"truncated", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 200, true, "abc", true, ""},
		{"empty", "", 0, false, "", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tc.raw))
			var body strings.Builder
			status, keep, err := ReadResponse(br, &body)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			rest, _ := io.ReadAll(br)
			if status != tc.status || keep != tc.keep || body.String() != tc.body || string(rest) != tc.restOfConn {
				t.Errorf("got %d keep=%v body %q rest %q, want %d keep=%v body %q rest %q",
					status, keep, body.String(), rest, tc.status, tc.keep, tc.body, tc.restOfConn)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 50}, {99, 99}, {100, 100}, {0, 1}, {99.9, 100}} {
		if got := Percentile(ds, tc.p); got != tc.want {
			t.Errorf("Percentile(1..100, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
}

func TestEncode(t *testing.T) {
	got := string(Encode(Request{Method: "POST", Path: "/v1/pets", Header: http.Header{"B": {"2"}, "A": {"1"}}, Body: []byte("{}")}, "h:1"))
	want := "POST /v1/pets HTTP/1.1\r\nHost: h:1\r\nA: 1\r\nB: 2\r\nContent-Length: 2\r\n\r\n{}"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRunNumbersRequests sends a request whose path and body hold the
// mark: every request the server sees carries the next number of the
// caller's count, the same in path and body, with a Content-Length that
// fits the rendered body as the numbers grow a digit.
func TestRunNumbersRequests(t *testing.T) {
	var mu sync.Mutex
	seen := map[int64]int{}
	bad := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ N int64 }
		err := json.NewDecoder(r.Body).Decode(&body)
		n, perr := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/x/"), 10, 64)
		mu.Lock()
		defer mu.Unlock()
		if err != nil || perr != nil || n != body.N {
			bad = fmt.Sprintf("path %s, body n %d, errors %v %v", r.URL.Path, body.N, err, perr)
		}
		seen[n]++
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	var seq atomic.Int64
	seq.Store(5) // the first request is 6: the numbers pass from one digit to two
	req := Request{Method: "PUT", Path: "/x/" + SeqMark, Body: []byte(`{"n":` + SeqMark + `}`), Seq: &seq}
	res, err := Run(context.Background(), Config{Addr: strings.TrimPrefix(srv.URL, "http://"), Conns: 3, Duration: 300 * time.Millisecond}, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unexpected(http.StatusNoContent) != 0 {
		t.Fatalf("got %s, want only 204s", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if bad != "" {
		t.Fatalf("a request did not carry its number in both places: %s", bad)
	}
	last := seq.Load()
	if got, want := int64(len(seen)), last-5; got != want || last < 15 {
		t.Errorf("server saw %d numbers, the count went from 5 to %d; want one request per number, and past 15", got, last)
	}
	for n := int64(6); n <= last; n++ {
		if seen[n] != 1 {
			t.Errorf("number %d sent %d times, want once", n, seen[n])
		}
	}
}
