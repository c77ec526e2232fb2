package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveOnSocket serves srv the way petctl serve does (Serve on a TCP
// listener, with its time-outs) and returns the address; the server stops
// when the test ends.
func serveOnSocket(t *testing.T, srv *Server, to Timeouts) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, srv, to, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}

// rawRequest is the header of a request to the Petstore, as a client writes
// it on the wire; headers are extra lines, each ending in CRLF.
func rawRequest(method, path, headers string) string {
	return method + " " + path + " HTTP/1.1\r\nHost: petctl.test\r\nContent-Type: application/json\r\n" + headers + "\r\n"
}

// readAnswer reads one response from c and checks that it is the Error
// body; it returns the response, its body and how the connection ended
// after it ("EOF", or the error).
func readAnswer(t *testing.T, c net.Conn, br *bufio.Reader) (*http.Response, []byte, error) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return res, body, err
	}
	checkErrorBody(t, result{status: res.StatusCode, header: res.Header, body: body})
	return res, body, nil
}

// TestBodyOverLimitIsAnsweredBeforeClose: a client that writes its whole
// body before it reads (Python's urllib and requests, many HTTP libraries)
// reads the answer, the Error body, not a connection reset, when the body
// is over the limit or petctl answers without reading it; also over a slow
// link, where the body takes longer to arrive than net/http waits before
// it closes.
func TestBodyOverLimitIsAnsweredBeforeClose(t *testing.T) {
	env := newPetstore(t)
	addr := serveOnSocket(t, env.srv, Timeouts{})
	const size = 6 << 20
	withKey := "Authorization: Bearer " + testKey + "\r\n"
	length := func(n int) string { return fmt.Sprintf("Content-Length: %d\r\n", n) }
	chunked := func(n int) string { // one chunk, then the end
		return fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", n, strings.Repeat("x", n))
	}
	tests := []struct {
		name    string
		headers string
		body    string
		pace    time.Duration // between writes of 64 KiB; 0 writes at once
		status  int
		code    Code
	}{
		{"6 MiB, Content-Length", withKey + length(size), strings.Repeat("x", size), 0, 413, CodePayloadTooLarge},
		{"6 MiB, no key", length(size), strings.Repeat("x", size), 0, 401, CodeUnauthorized},
		{"6 MiB, chunked, slow link", withKey + "Transfer-Encoding: chunked\r\n", chunked(size), 10 * time.Millisecond, 413, CodePayloadTooLarge},
		{"just over 1 MiB, slow link", withKey + length(1<<20+64<<10), strings.Repeat("x", 1<<20+64<<10), 40 * time.Millisecond, 413, CodePayloadTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.WriteString(c, rawRequest("POST", "/v1/pets", tc.headers)); err != nil {
				t.Fatal(err)
			}
			for rest := tc.body; rest != ""; {
				n := len(rest)
				if tc.pace > 0 {
					n = min(n, 64<<10)
					time.Sleep(tc.pace)
				}
				if _, err := io.WriteString(c, rest[:n]); err != nil {
					t.Fatalf("writing the body, %d bytes before its end: %v; want it read (and discarded) by the server", len(rest), err)
				}
				rest = rest[n:]
			}
			br := bufio.NewReader(c)
			res, body, err := readAnswer(t, c, br)
			if err != nil {
				t.Fatalf("reading the answer: %v; want %d with the Error body", err, tc.status)
			}
			if res.StatusCode != tc.status || !strings.Contains(string(body), string(tc.code)) {
				t.Errorf("got %d %s, want %d %s", res.StatusCode, body, tc.status, tc.code)
			}
			if !res.Close { // ReadResponse takes the header out
				t.Error("no Connection: close, want it")
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Errorf("after the answer: %v, want EOF (the server closes)", err)
			}
		})
	}
	if r := env.post("/pets", `{"name":"Rex","categoryId":1}`); r.status != http.StatusCreated {
		t.Errorf("a small body after the large ones: %d, want 201", r.status)
	}
}

// TestLingerIsBounded: after the answer, petctl reads what is left of the
// body for at most LingerBytes and LingerTime, then closes, so a client
// that sends without end, or a few bytes at a time, is cut off. Each case
// makes the other bound too large to end the test in time.
func TestLingerIsBounded(t *testing.T) {
	tests := []struct {
		name        string
		lingerBytes int64
		lingerTime  time.Duration
		chunk       int           // bytes written at a time
		pause       time.Duration // between writes
	}{
		{"more than the byte bound", 1 << 20, time.Minute, 64 << 10, 0},
		{"dribbling past the time bound", 1 << 30, 400 * time.Millisecond, 16, 20 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newPetstore(t, func(o *Options) { o.LingerBytes = tc.lingerBytes; o.LingerTime = tc.lingerTime })
			c, err := net.Dial("tcp", serveOnSocket(t, env.srv, Timeouts{}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			head := rawRequest("POST", "/v1/pets", fmt.Sprintf("Authorization: Bearer %s\r\nContent-Length: %d\r\n", testKey, int64(1)<<40))
			if _, err := io.WriteString(c, head); err != nil {
				t.Fatal(err)
			}
			writerDone := make(chan struct{})
			go func() { // the client sends without end, until the server stops it
				defer close(writerDone)
				chunk := []byte(strings.Repeat("x", tc.chunk))
				for {
					if _, err := c.Write(chunk); err != nil {
						return
					}
					time.Sleep(tc.pause)
				}
			}()
			br := bufio.NewReader(c)
			res, _, err := readAnswer(t, c, br)
			if err != nil {
				t.Fatalf("reading the answer: %v; want 413", err)
			}
			answered := time.Now()
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("status = %d, want 413", res.StatusCode)
			}
			_, err = br.ReadByte()
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the connection is still open after 20 s")
			}
			// Within the bound, plus net/http's 500 ms between its FIN and
			// the close, plus the margin of a loaded machine.
			want := 3 * time.Second
			if tc.lingerTime < want {
				want = tc.lingerTime + 2*time.Second
			}
			if d := time.Since(answered); d > want {
				t.Errorf("the connection ended %v after the answer, want within %v", d, want)
			}
			<-writerDone // the writer was cut off too
		})
	}
}

// TestLingerEndsAtShutdown: a body being discarded does not hold a clean
// stop for the linger time.
func TestLingerEndsAtShutdown(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.LingerTime = time.Minute })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, env.srv, Timeouts{Shutdown: 30 * time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, rawRequest("POST", "/v1/pets", fmt.Sprintf("Authorization: Bearer %s\r\nContent-Length: %d\r\n", testKey, int64(1)<<40)))
	go func() { // a few bytes at a time, without end
		for {
			if _, err := io.WriteString(c, "xxxx"); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if res, _, err := readAnswer(t, c, bufio.NewReader(c)); err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("answer: %v, %v; want 413", res, err)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want a clean stop", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("the stop took %v, want the discarding to end at once", d)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return within 15 s of the stop")
	}
}

// TestExpectContinueRefusedClosesAtOnce: a request that waits for
// 100 Continue and is answered without its body being read (401, 413 from
// Content-Length) gets the answer with Connection: close, and the
// connection ends at once, not after the read time-out.
func TestExpectContinueRefusedClosesAtOnce(t *testing.T) {
	const readTimeout = 6 * time.Second
	env := newPetstore(t)
	addr := serveOnSocket(t, env.srv, Timeouts{Read: readTimeout})
	tests := []struct {
		name    string
		headers string
		status  int
	}{
		{"no key", "Content-Length: 30\r\n", 401},
		{"wrong key", "Authorization: Bearer wrong\r\nContent-Length: 30\r\n", 401},
		{"over the limit", "Authorization: Bearer " + testKey + "\r\nContent-Length: 6291456\r\n", 413},
		{"unknown path", "Content-Length: 30\r\n", 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(2 * readTimeout))
			path := "/v1/pets"
			if tc.status == 404 {
				path = "/v1/owners"
			}
			start := time.Now()
			if _, err := io.WriteString(c, rawRequest("POST", path, "Expect: 100-continue\r\n"+tc.headers)); err != nil {
				t.Fatal(err)
			}
			// The client waits for 100 Continue, as curl and Go's client do;
			// it never sends the body.
			br := bufio.NewReader(c)
			res, _, err := readAnswer(t, c, br)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if res.StatusCode != tc.status {
				t.Errorf("status = %d, want %d", res.StatusCode, tc.status)
			}
			if !res.Close { // ReadResponse takes the header out
				t.Error("no Connection: close, want it")
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Errorf("after the answer: %v, want EOF", err)
			}
			// Half the read time-out tells "closed at once" from "waited
			// for the time-out" on a loaded 2-core machine, where a second
			// is not always enough to answer.
			if d := time.Since(start); d > readTimeout/2 {
				t.Errorf("the connection ended after %v, want at once (the read time-out is %v)", d, readTimeout)
			}
		})
	}
	// A request that waits for 100 Continue and is accepted still gets it.
	tr := &http.Transport{ExpectContinueTimeout: 5 * time.Second}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":1}`))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	start := time.Now()
	res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || time.Since(start) > 4*time.Second {
		t.Errorf("with a key: %d after %v, want 201 at once (after 100 Continue)", res.StatusCode, time.Since(start))
	}
}
