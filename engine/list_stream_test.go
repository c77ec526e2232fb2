package engine

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// TestListNotBuiltWhole: a proven list answer is written from the store's
// own bytes as it is composed; answering a page of large records allocates
// a small part of its size, not a copy of it.
func TestListNotBuiltWhole(t *testing.T) {
	skipIfPlain(t)
	env := newPetstore(t, func(o *Options) { o.Fixtures = nil })
	name := strings.Repeat("n", 200<<10)
	for i := 0; i < 20; i++ {
		if r := env.post("/pets", `{"name":"`+name+`","categoryId":1}`); r.status != 201 {
			t.Fatalf("create: %d", r.status)
		}
	}
	req := httptest.NewRequest("GET", "/v1/pets?limit=100", nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	w := &countingWriter{header: http.Header{}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	env.srv.ServeHTTP(w, req)
	runtime.ReadMemStats(&after)
	if w.status != 200 {
		t.Fatalf("status %d", w.status)
	}
	if cl := w.header.Get("Content-Length"); cl != fmt.Sprint(w.n) {
		t.Errorf("Content-Length %s, want the %d bytes written", cl, w.n)
	}
	if w.n < 20*int64(len(name)) {
		t.Fatalf("the answer has %d bytes, want the 20 large records", w.n)
	}
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(w.n/8); got > limit {
		t.Errorf("answering a %d-byte list allocated %d bytes, want at most %d", w.n, got, limit)
	}
}

// countingWriter is a ResponseWriter that counts the body and keeps none of it.
type countingWriter struct {
	header http.Header
	status int
	n      int64
}

func (w *countingWriter) Header() http.Header { return w.header }
func (w *countingWriter) WriteHeader(s int)   { w.status = s }
func (w *countingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += int64(len(p))
	return len(p), nil
}

// TestWriteArray: what writeArray writes is what joinArray builds, and it
// is the length arrayLen says, for records small and large beside the
// chunk it gathers them in.
func TestWriteArray(t *testing.T) {
	rec := func(n int) []byte { return bytes.Repeat([]byte("x"), n) }
	tests := []struct {
		name  string
		items [][]byte
	}{
		{"empty", [][]byte{}},
		{"one small", [][]byte{rec(10)}},
		{"many small", slicesOf(rec(100), 1000)},
		{"chunk sized", [][]byte{rec(arrayChunk - 2), rec(arrayChunk - 1), rec(arrayChunk), rec(1)}},
		{"half chunk", [][]byte{rec(arrayChunk / 2), rec(arrayChunk/2 + 1), rec(arrayChunk/2 - 1), rec(3)}},
		{"large", [][]byte{rec(5), rec(3 * arrayChunk), rec(7), rec(2 * arrayChunk)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeArray(&b, nil, tc.items, nil); err != nil {
				t.Fatal(err)
			}
			if want := joinArray(tc.items); !bytes.Equal(b.Bytes(), want) {
				t.Errorf("writeArray wrote %d bytes that differ from joinArray's %d", b.Len(), len(want))
			}
			if got, want := arrayLen(tc.items), b.Len(); got != want {
				t.Errorf("arrayLen = %d, want %d", got, want)
			}
			// In an envelope, a small or a large one.
			for _, env := range [][2][]byte{{[]byte(`{"data":`), []byte(`,"more":true}`)}, {rec(arrayChunk), rec(arrayChunk / 3)}} {
				var e bytes.Buffer
				if err := writeArray(&e, env[0], tc.items, env[1]); err != nil {
					t.Fatal(err)
				}
				if want := joinEnvelope(env[0], tc.items, env[1]); !bytes.Equal(e.Bytes(), want) {
					t.Errorf("writeArray in an envelope of %d and %d bytes wrote %d bytes that differ from joinEnvelope's %d", len(env[0]), len(env[1]), e.Len(), len(want))
				}
			}
		})
	}
	// A page in its envelope, within a chunk, is one write: the
	// connection sends it as one.
	writes := 0
	counting := writerFunc(func(p []byte) (int, error) { writes++; return len(p), nil })
	if err := writeArray(counting, []byte(`{"data":`), slicesOf(rec(400), 20), []byte(`,"has_more":true}`)); err != nil || writes != 1 {
		t.Errorf("a page of 8 KB in an envelope took %d writes (%v), want 1", writes, err)
	}
	failing := writerFunc(func(p []byte) (int, error) { return 0, io.ErrClosedPipe })
	if err := writeArray(failing, nil, [][]byte{rec(3 * arrayChunk)}, nil); err != io.ErrClosedPipe {
		t.Errorf("a failing writer: %v, want its error", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func slicesOf(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
