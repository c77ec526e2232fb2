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

// twoCollections is a document with two collections, cats and dogs.
const twoCollections = `openapi: 3.1.0
info: {title: Two, version: 1.0.0}
servers: [{url: http://two.local/v1}]
paths:
  /cats:
    get:
      operationId: listCats
      responses:
        '200': {description: Cats., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Animal'}}}}}
  /dogs:
    get:
      operationId: listDogs
      responses:
        '200': {description: Dogs., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Animal'}}}}}
components:
  schemas:
    Animal:
      type: object
      required: [id, name]
      properties:
        id: {type: integer}
        name: {type: string}
`

// TestImportArrayOfRecords: PUT /__petctl/store takes the array of records
// --fixtures takes: with one collection it fills that one; with more,
// ?collection=NAME says which, and without it the error says how.
func TestImportArrayOfRecords(t *testing.T) {
	s, err := spec.Parse([]byte(twoCollections), "two.yaml")
	if err != nil {
		t.Fatal(err)
	}
	two := start(t, Options{Spec: s, Fixtures: []FixtureFile{{Name: "cats.json", Data: []byte(`[{"id":1,"name":"Tom"}]`)}}}, "", "")
	one := newPetstore(t)
	const pets = `[{"id":7,"name":"A","categoryId":1},{"id":9,"name":"B","categoryId":2}]`
	const animals = `[{"id":3,"name":"Rex"},{"id":4,"name":"Fido"}]`
	tests := []struct {
		name     string
		env      *testEnv
		query    string
		body     string
		ctype    string
		status   int
		wantMsg  []string       // in the message of a refusal
		wantSize map[string]int // collection sizes afterwards
	}{
		{"one collection", one, "", pets, "application/json", 200, nil, map[string]int{"pets": 2}},
		{"one collection, YAML", one, "", "- name: C\n  categoryId: 3\n", "application/yaml", 200, nil, map[string]int{"pets": 1}},
		{"one collection, named", one, "?collection=pets", pets, "application/json", 200, nil, map[string]int{"pets": 2}},
		{"two collections, named", two, "?collection=dogs", animals, "application/json", 200, nil, map[string]int{"cats": 1, "dogs": 2}},
		{"two collections, unnamed", two, "", animals, "application/json", 400,
			[]string{"nothing was imported", "array of records", `"cats", "dogs"`, "?collection=NAME"}, map[string]int{"cats": 1, "dogs": 0}},
		{"two collections, unnamed YAML", two, "", "- {id: 3, name: Rex}\n", "application/yaml", 400,
			[]string{"?collection=NAME"}, map[string]int{"cats": 1, "dogs": 0}},
		{"unknown collection", two, "?collection=birds", animals, "application/json", 400,
			[]string{"nothing was imported", `"birds" is not one collection`, `"cats", "dogs"`}, map[string]int{"cats": 1, "dogs": 0}},
		{"collection given twice", two, "?collection=cats&collection=dogs", animals, "application/json", 400,
			[]string{"'collection'", `"cats", "dogs"`}, map[string]int{"cats": 1, "dogs": 0}},
		{"named, but an object", two, "?collection=dogs", `{"cats":[]}`, "application/json", 400,
			[]string{"?collection=dogs is for an import that is an array", "object"}, map[string]int{"cats": 1, "dogs": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.env.admin("POST", "reset", "", "")
			r := tc.env.admin("PUT", "store"+tc.query, tc.body, tc.ctype)
			if r.status != tc.status {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tc.status)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(r.message(t), w) {
					t.Errorf("message %q lacks %q", r.message(t), w)
				}
			}
			for coll, want := range tc.wantSize {
				if got := tc.env.srv.Collections()[coll]; got != want {
					t.Errorf("%s: %d records, want %d", coll, got, want)
				}
			}
		})
	}
}
