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

	"github.com/petctl/petctl/spec"
)

// serveSocket serves srv on a loopback port with Serve, as petctl serve
// does, and returns its address; the server stops when the test ends.
func serveSocket(t *testing.T, srv *Server, to Timeouts) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Serve(ctx, ln, srv, to, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// TestImportOutlastingWriteTimeout: an import that takes longer than the
// write time-out (here its body arrives slowly) is answered, not applied
// and left without an answer.
func TestImportOutlastingWriteTimeout(t *testing.T) {
	env := newPetstore(t)
	addr := serveSocket(t, env.srv, Timeouts{Write: 300 * time.Millisecond, Read: 10 * time.Second, Shutdown: time.Second})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"pets":[{"id":7,"name":"Imported","categoryId":1}]}`
	head := fmt.Sprintf("PUT /__petctl/store HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := io.WriteString(conn, head+body[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond) // past the write time-out
	if _, err := io.WriteString(conn, body[10:]); err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	applied := env.srv.Collections()["pets"] == 1
	if err != nil {
		t.Fatalf("no answer (%v); the import was applied: %v", err, applied)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.Contains(string(got), `"imported":true`) {
		t.Errorf("answer %d %s, want 200 imported", res.StatusCode, got)
	}
	if !applied {
		t.Error("the import was answered 200 but not applied")
	}
}

// TestStalledExportHoldsNoLock: a client that asks for the export of a
// large store and stops reading holds only its own answer; a reset and an
// import from other connections complete at once.
func TestStalledExportHoldsNoLock(t *testing.T) {
	name := strings.Repeat("n", 1<<20-100)
	var fixture strings.Builder
	fixture.WriteString("[")
	for i := 1; i <= 8; i++ { // 8 MiB: twice what the sockets buffer (tcp_wmem 4 MiB at most)
		if i > 1 {
			fixture.WriteString(",")
		}
		fmt.Fprintf(&fixture, `{"id":%d,"name":"%s","categoryId":1}`, i, name)
	}
	fixture.WriteString("]")
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: []byte(fixture.String())}}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSocket(t, srv, Timeouts{Write: 30 * time.Second, Shutdown: 500 * time.Millisecond})

	raddr, _ := net.ResolveTCPAddr("tcp", addr)
	stalled, err := net.DialTCP("tcp", nil, raddr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	stalled.SetReadBuffer(4 << 10)
	if _, err := io.WriteString(stalled, "GET /__petctl/store HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// One byte says the export is being written; then the client reads no more.
	stalled.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := stalled.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the writer fills the buffers and blocks

	client := &http.Client{Timeout: 5 * time.Second}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/__petctl/reset", ""},
		{"PUT", "/__petctl/store", `{"pets":[{"id":1,"name":"Small","categoryId":1}]}`},
	} {
		req, _ := http.NewRequest(c.method, "http://"+addr+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		res, err := client.Do(req)
		took := time.Since(t0)
		if err != nil {
			t.Fatalf("%s %s beside a stalled export: %v after %s", c.method, c.path, err, took.Round(time.Millisecond))
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || took > 2*time.Second {
			t.Errorf("%s %s beside a stalled export: %d after %s, want 200 at once", c.method, c.path, res.StatusCode, took.Round(time.Millisecond))
		}
	}
	if n := srv.Collections()["pets"]; n != 1 {
		t.Errorf("after the import: %d pets, want 1", n)
	}
}
