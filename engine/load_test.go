package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentWritersAndReaders: 64 writers and 64 readers at once. No
// acknowledged create is lost, ids are unique and increase for every
// writer, and lists and reads agree with each other throughout.
func TestConcurrentWritersAndReaders(t *testing.T) {
	env := newPetstore(t)
	const writers, readers, perWriter = 64, 64, 13
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: writers + readers}}
	do := func(method, path, body string) (int, []byte, error) {
		req, _ := http.NewRequest(method, env.base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testKey)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, b, err
	}
	var mu sync.Mutex
	acked := map[int64][]byte{} // id -> the created record as answered
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	var wg, rg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			last := int64(0)
			for i := 0; i < perWriter; i++ {
				status, body, err := do("POST", "/pets", fmt.Sprintf(`{"name":"w%d-%d","categoryId":%d,"status":"pending"}`, w, i, w+1))
				if err != nil || status != 201 {
					errs <- fmt.Errorf("writer %d create %d: %d %v %s", w, i, status, err, body)
					return
				}
				var p struct{ ID int64 }
				json.Unmarshal(body, &p)
				if p.ID <= last {
					errs <- fmt.Errorf("writer %d: id %d after %d", w, p.ID, last)
					return
				}
				last = p.ID
				mu.Lock()
				if _, dup := acked[p.ID]; dup {
					errs <- fmt.Errorf("id %d given twice", p.ID)
				}
				acked[p.ID] = body
				mu.Unlock()
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		rg.Add(1)
		go func(r int) {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, body, err := do("GET", "/pets?status=pending&limit=100", "")
				if err != nil || status != 200 {
					errs <- fmt.Errorf("reader %d list: %d %v", r, status, err)
					return
				}
				var items []json.RawMessage
				if err := json.Unmarshal(body, &items); err != nil {
					errs <- fmt.Errorf("reader %d: list is not JSON: %v", r, err)
					return
				}
				prev := int64(0)
				for _, raw := range items {
					var p struct {
						ID     int64
						Status string
					}
					json.Unmarshal(raw, &p)
					if p.ID <= prev || p.Status != "pending" {
						errs <- fmt.Errorf("reader %d: list out of order or unfiltered at id %d", r, p.ID)
						return
					}
					prev = p.ID
				}
				if len(items) > 0 {
					var p struct{ ID int64 }
					json.Unmarshal(items[len(items)-1], &p)
					status, one, err := do("GET", fmt.Sprintf("/pets/%d", p.ID), "")
					if err != nil || status != 200 || !bytes.Equal(one, items[len(items)-1]) {
						errs <- fmt.Errorf("reader %d: read of %d disagrees with the list: %d %s vs %s", r, p.ID, status, one, items[len(items)-1])
						return
					}
				}
			}
		}(r)
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	if len(acked) != writers*perWriter {
		t.Fatalf("%d creates acknowledged, want %d", len(acked), writers*perWriter)
	}
	if n := env.srv.Collections()["pets"]; n != 150+len(acked) {
		t.Errorf("the store holds %d records, want %d", n, 150+len(acked))
	}
	for id := int64(151); id <= int64(150+len(acked)); id++ {
		body, ok := acked[id]
		if !ok {
			t.Fatalf("id %d was never given: ids are not dense", id)
		}
		if r := env.get(fmt.Sprintf("/pets/%d", id)); r.status != 200 || !bytes.Equal(r.body, body) {
			t.Fatalf("acknowledged create %d reads back as %d %s, answered %s", id, r.status, r.body, body)
		}
	}
}

// TestSlowClientsDoNotStarveOthers: connections that send their headers
// slowly, or a body that never ends, are cut at the time-outs, and a normal
// client is served meanwhile.
func TestSlowClientsDoNotStarveOthers(t *testing.T) {
	env := newPetstore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, env.srv, Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Shutdown: time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	defer func() {
		cancel()
		<-done
	}()
	addr := ln.Addr().String()
	client := &http.Client{Timeout: 5 * time.Second}
	get := func() (*http.Response, error) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/v1/pets?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		return client.Do(req)
	}
	// A first request alone: what the wait below measures is the slow
	// clients' share, not the first use of the operation's validators
	// (compiled then, seconds under -race on a loaded machine).
	if res, err := get(); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	client.CloseIdleConnections()
	const slow = 100
	var conns []net.Conn
	for i := 0; i < slow; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i%2 == 0 { // headers that never end
			io.WriteString(c, "GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		} else { // a body that never comes
			io.WriteString(c, fmt.Sprintf("POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"na", testKey))
		}
		conns = append(conns, c)
	}
	start := time.Now()
	res, err := get() // on a new connection, beside the slow ones
	if err != nil {
		t.Fatalf("a normal client was not served beside %d slow ones: %v", slow, err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("normal client: %d", res.StatusCode)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a normal client waited %v beside slow ones", d)
	}
	// Every slow connection is cut by the server within its time-out.
	deadline := time.Now().Add(5 * time.Second)
	for i, c := range conns {
		c.SetReadDeadline(deadline)
		b, err := io.ReadAll(c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("slow connection %d still open after the time-outs", i)
		}
		if i%2 == 1 && len(b) > 0 && !bytes.Contains(b, []byte("HTTP/1.1 4")) {
			t.Errorf("slow body %d answered with %q", i, b)
		}
	}
	if time.Now().After(deadline) {
		t.Error("the slow connections were not cut in time")
	}
}
