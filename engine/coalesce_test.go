package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener counts the writes its connections make to the socket.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestAnswerInOneWrite: through Serve, over a real socket, an answer of
// any size up to maxJoined leaves in one write, whole, answer after
// answer on one keep-alive connection; without coalescing, one past
// net/http's 4 KiB buffer takes two or more. Large, pipelined, HEAD and
// last answers arrive whole too.
func TestAnswerInOneWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var writes atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		w.Write(body(n))
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, countingListener{ln, &writes}, h, Timeouts{Shutdown: time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	defer func() {
		cancel()
		<-done
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	// Sizes around the buffer's: the header and the body fill it exactly
	// for one of them, whatever the header's length.
	sizes := []int{0, 100, 3900, 4000, 4096, 4300, 8800, 20000, maxJoined - 1024}
	for n := 3950; n <= 4100; n += 7 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for range 2 {
			before := writes.Load()
			fmt.Fprintf(conn, "GET /?n=%d HTTP/1.1\r\nHost: x\r\n\r\n", n)
			readBody(t, br, n)
			if w := writes.Load() - before; w != 1 {
				t.Errorf("%d bytes: the answer took %d writes, want 1", n, w)
			}
		}
	}
	// A large answer goes out whole too, in as few writes as net.Buffers
	// makes; then pipelined requests, each answered whole and in order;
	// then an answer the client asked to be the last, the connection
	// closed after it.
	fmt.Fprintf(conn, "GET /?n=%d HTTP/1.1\r\nHost: x\r\n\r\n", 1<<20)
	readBody(t, br, 1<<20)
	fmt.Fprintf(conn, "GET /?n=8800 HTTP/1.1\r\nHost: x\r\n\r\nGET /?n=4300 HTTP/1.1\r\nHost: x\r\n\r\nHEAD /?n=9000 HTTP/1.1\r\nHost: x\r\n\r\n")
	readBody(t, br, 8800)
	readBody(t, br, 4300)
	if res, err := http.ReadResponse(br, &http.Request{Method: http.MethodHead}); err != nil || res.ContentLength != 9000 {
		t.Fatalf("HEAD: %v, Content-Length %d", err, res.ContentLength)
	}
	fmt.Fprintf(conn, "GET /?n=8800 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	readBody(t, br, 8800)
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("after the last answer: read %d bytes (%v), want the connection closed", n, err)
	}
}

// readBody reads an answer from br and checks that its body is body(n).
func readBody(t *testing.T, br *bufio.Reader, n int) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%d bytes: %v", n, err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || !bytes.Equal(got, body(n)) {
		t.Fatalf("%d bytes: got %d bytes (%v), not the body", n, len(got), err)
	}
}

// body is n bytes that differ from one position to the next.
func body(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

// pipe is a coalescingConn and the other end, whose reads each return
// what one write sent (net.Pipe).
func pipe(t *testing.T) (*coalescingConn, net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return &coalescingConn{Conn: a}, b
}

// readOne reads what one write sent, within a second.
func readOne(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 2*maxJoined)
	n, err := c.Read(buf)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return buf[:n]
}

// writeAsync writes p to c and reports the error; net.Pipe's writes wait
// for the reader.
func writeAsync(c net.Conn, p []byte) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(p)
		errc <- err
	}()
	return errc
}

// TestHeldPieceGoesWithTheNext: a write of the buffer's size is held and
// leaves with the next write as one; any other write leaves at once.
func TestHeldPieceGoesWithTheNext(t *testing.T) {
	c, peer := pipe(t)
	first := body(heldWrite)
	if n, err := c.Write(first); n != heldWrite || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	errc := writeAsync(c, []byte("rest"))
	if got := readOne(t, peer); !bytes.Equal(got, append(body(heldWrite), "rest"...)) {
		t.Fatalf("got %d bytes, want the held piece and the rest in one write", len(got))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	errc = writeAsync(c, []byte("alone"))
	if got := readOne(t, peer); string(got) != "alone" {
		t.Fatalf("got %q, want a write of another size sent at once", got)
	}
	<-errc
}

// TestHeldPieceIsNeverLeft: a held piece leaves when a deadline changes
// and on close.
func TestHeldPieceIsNeverLeft(t *testing.T) {
	for _, c := range []struct {
		name string
		then func(*coalescingConn) error
	}{
		{"a read deadline", func(c *coalescingConn) error { return c.SetReadDeadline(time.Now().Add(time.Minute)) }},
		{"a write deadline", func(c *coalescingConn) error { return c.SetWriteDeadline(time.Time{}) }},
		{"a deadline", func(c *coalescingConn) error { return c.SetDeadline(time.Time{}) }},
		{"close", func(c *coalescingConn) error { return c.Close() }},
		{"a half-close", func(c *coalescingConn) error { return c.CloseWrite() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, peer := pipe(t)
			if _, err := conn.Write(body(heldWrite)); err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() { errc <- c.then(conn) }()
			if got := readOne(t, peer); !bytes.Equal(got, body(heldWrite)) {
				t.Fatalf("got %d bytes, want the held piece", len(got))
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHeldPieceLargeRest: past maxJoined the held piece and the rest leave
// in order, uncopied.
func TestHeldPieceLargeRest(t *testing.T) {
	c, peer := pipe(t)
	c.Write(body(heldWrite))
	rest := body(maxJoined + 1)
	errc := writeAsync(c, rest)
	var got []byte
	for len(got) < heldWrite+len(rest) {
		got = append(got, readOne(t, peer)...)
	}
	if !bytes.Equal(got, append(body(heldWrite), rest...)) {
		t.Fatal("the held piece and the rest arrived out of order or changed")
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestHeldPieceErrorReported: when the held piece cannot be sent, the
// write that would send it with the rest fails.
func TestHeldPieceErrorReported(t *testing.T) {
	c, peer := pipe(t)
	c.Write(body(heldWrite))
	peer.Close()
	if _, err := c.Write([]byte("rest")); err == nil {
		t.Fatal("the rest of an answer whose held piece could not be sent was reported written")
	}
}

// TestCloseEndsABlockedWrite: closing from another goroutine ends a write
// the client does not read, at once: it does not wait for the write to
// finish or its deadline to pass (http.Server.Close after the shutdown
// grace, a ResponseController's deadline).
func TestCloseEndsABlockedWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close() // never read: the server's write fills the socket and blocks
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c := &coalescingConn{Conn: raw}
	c.Write(body(heldWrite))
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write(make([]byte, 48<<20))
		wrote <- err
	}()
	// Until the write holds the connection (it is blocked by then, or soon).
	for c.mu.TryLock() {
		c.mu.Unlock()
		select {
		case err := <-wrote:
			t.Fatalf("a 48 MiB write (past the largest socket buffers) to a client that does not read returned (%v)", err)
		case <-time.After(time.Millisecond):
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the blocked write")
	}
	select {
	case err := <-wrote:
		if err == nil {
			t.Error("the blocked write succeeded after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the blocked write did not end at Close")
	}
}

// TestLostHeldPieceClosesTheConnection: a held piece that cannot be sent
// when the deadline changes (its write deadline passed) closes the
// connection, so that the client sees it end instead of waiting for an
// answer net/http took as written, and later writes fail.
func TestLostHeldPieceClosesTheConnection(t *testing.T) {
	c, peer := pipe(t)
	c.Write(body(heldWrite))
	c.Conn.SetWriteDeadline(time.Now().Add(-time.Second)) // passed while the answer was written
	c.SetWriteDeadline(time.Time{})                       // as net/http does after every answer
	peer.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the client's read: %v, want the connection closed (EOF)", err)
	}
	if _, err := c.Write([]byte("next answer")); err == nil {
		t.Error("a write after the lost piece succeeded")
	}
}
