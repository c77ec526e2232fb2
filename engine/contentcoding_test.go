package engine

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

func gzipped(t *testing.T, data string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func zlibbed(t *testing.T, data string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	io.WriteString(zw, data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func deflated(t *testing.T, data string) string {
	t.Helper()
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.DefaultCompression)
	io.WriteString(zw, data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// codedBody is a request body sent with a Content-Encoding, and the answer
// it gets: its status, and for a refusal its code and what its message says.
type codedBody struct {
	name     string
	coding   string
	body     string
	status   int
	code     Code
	mentions string
}

// TestContentEncoding: a request body in gzip or deflate is decoded and
// served as the JSON it holds; any other coding is 415 with
// Accept-Encoding, data that is not what its coding says is 400, and
// nothing is stored when the answer is not 201.
func TestContentEncoding(t *testing.T) {
	env := newPetstore(t)
	const pet = `{"name":"Zipped","categoryId":1}`
	tests := []codedBody{
		{"gzip", "gzip", gzipped(t, pet), 201, "", ""},
		{"x-gzip", "x-gzip", gzipped(t, pet), 201, "", ""},
		{"upper case", "GZIP", gzipped(t, pet), 201, "", ""},
		{"deflate is zlib", "deflate", zlibbed(t, pet), 201, "", ""},
		{"identity", "identity", pet, 201, "", ""},
		{"identity and gzip", "identity, gzip", gzipped(t, pet), 201, "", ""},
		{"brotli", "br", pet, 415, CodeUnsupportedContentEncoding, `"br" is not supported`},
		{"unknown coding", "zstd", pet, 415, CodeUnsupportedContentEncoding, "gzip, deflate"},
		{"gzip twice", "gzip, gzip", gzipped(t, gzipped(t, pet)), 415, CodeUnsupportedContentEncoding, "encoded 2 times"},
		{"plain JSON labelled gzip", "gzip", pet, 400, CodeMalformedContentEncoding, "is not gzip data"},
		{"truncated gzip", "gzip", gzipped(t, pet)[:20], 400, CodeMalformedContentEncoding, "ends too early"},
		{"gzip, then other data", "gzip", gzipped(t, pet) + "trailing", 400, CodeMalformedContentEncoding, "is not gzip data"},
		{"corrupt gzip checksum", "gzip", corruptTail(gzipped(t, pet)), 400, CodeMalformedContentEncoding, "checksum"},
		{"bare deflate labelled deflate", "deflate", deflated(t, pet), 400, CodeMalformedContentEncoding, "zlib data (RFC 1950)"},
		{"zlib, then other data", "deflate", zlibbed(t, pet) + "trailing", 400, CodeMalformedContentEncoding, "data after the end"},
		{"decoded past the limit", "gzip", gzipped(t, `{"name":"`+strings.Repeat("x", 2<<20)+`","categoryId":1}`), 413, CodePayloadTooLarge, "once decoded (Content-Encoding: gzip)"},
		{"decodes to bad JSON", "gzip", gzipped(t, `{"name":`), 400, CodeMalformedJSON, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := env.srv.Collections()["pets"]
			r := env.do(request{method: http.MethodPost, path: "/pets", body: tc.body, headers: map[string]string{"Content-Encoding": tc.coding}})
			if r.status != tc.status {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tc.status)
			}
			after := env.srv.Collections()["pets"]
			if tc.status == 201 {
				if name := r.object(t)["name"]; name != "Zipped" || after != before+1 {
					t.Errorf("stored name %v (store %d -> %d), want Zipped, one more", name, before, after)
				}
				return
			}
			if after != before {
				t.Errorf("the store went from %d to %d on a %d", before, after, r.status)
			}
			checkCodingRefusal(t, r, tc.code, tc.mentions)
		})
	}
	// A 415 for the media type is not about the coding: no Accept-Encoding.
	r := env.do(request{method: http.MethodPost, path: "/pets", body: pet, ctype: "text/plain"})
	if r.status != 415 || r.header.Get("Accept-Encoding") != "" {
		t.Errorf("a wrong Content-Type: %d, Accept-Encoding %q; want 415 without it", r.status, r.header.Get("Accept-Encoding"))
	}
}

// TestImportContentEncoding: the store import (PUT /__petctl/store) reads
// its body as the API's operations do: gzip and deflate decoded, under
// the import's limit once decoded; any other coding is 415 with
// Accept-Encoding; nothing is imported unless the answer is 200.
func TestImportContentEncoding(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.MaxImportBytes = 1 << 20 })
	const pets = `{"pets":[{"id":7,"name":"Zipped","categoryId":1}]}`
	tests := []codedBody{
		{"gzip", "gzip", gzipped(t, pets), 200, "", ""},
		{"deflate", "deflate", zlibbed(t, pets), 200, "", ""},
		{"plain JSON labelled br", "br", pets, 415, CodeUnsupportedContentEncoding, `"br" is not supported`},
		{"plain JSON labelled gzip", "gzip", pets, 400, CodeMalformedContentEncoding, "the import is labelled Content-Encoding: gzip but is not gzip data"},
		{"decoded past the import's limit", "gzip", gzipped(t, `{"pets":[{"id":7,"name":"`+strings.Repeat("x", 2<<20)+`","categoryId":1}]}`), 413, CodePayloadTooLarge, "the import exceeds the limit of 1048576 bytes once decoded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := env.admin("POST", "reset", "", ""); r.status != 200 {
				t.Fatalf("reset: %d", r.status)
			}
			r := env.do(request{method: http.MethodPut, path: "//__petctl/store", key: "-", body: tc.body, headers: map[string]string{"Content-Encoding": tc.coding}})
			if r.status != tc.status {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tc.status)
			}
			pets := env.srv.Collections()["pets"]
			if tc.status == 200 {
				if pets != 1 {
					t.Errorf("%d pets after the import, want the one it holds", pets)
				}
				return
			}
			if pets != 150 {
				t.Errorf("%d pets after a refused import, want the 150 fixtures", pets)
			}
			checkCodingRefusal(t, r, tc.code, tc.mentions)
		})
	}
}

// checkCodingRefusal checks a refused body's answer: its code, a message
// that says mentions, and for a 415 the codings petctl decodes.
func checkCodingRefusal(t *testing.T, r result, code Code, mentions string) {
	t.Helper()
	if got := r.code(t); got != string(code) {
		t.Errorf("code = %s, want %s", got, code)
	}
	if msg := r.message(t); !strings.Contains(msg, mentions) {
		t.Errorf("message %q does not say %q", msg, mentions)
	}
	if got, want := r.header.Get("Accept-Encoding"), "gzip, deflate"; r.status == 415 && got != want {
		t.Errorf("Accept-Encoding = %q, want %q", got, want)
	}
}

// corruptTail flips a bit of the CRC-32 at the end of a gzip stream.
func corruptTail(s string) string {
	b := []byte(s)
	b[len(b)-8] ^= 1
	return string(b)
}

// TestGzipBombIsHarmless: 1 GiB of zeros, gzipped to about 1 MiB, is
// refused with 413 after the limit's worth of decoding, in little time and
// memory, whether the limit on the bytes as sent or once decoded is met
// first.
func TestGzipBombIsHarmless(t *testing.T) {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	bomb := bytes.Repeat(member.Bytes(), 1024) // gzip members in a row are one stream
	tests := []struct {
		name    string
		limit   int64
		chunked bool
	}{
		{"default limit, chunked", 0, true},
		{"limit above its size, Content-Length", 2 << 20, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newPetstore(t, func(o *Options) { o.MaxBodyBytes = tc.limit })
			var body io.Reader = bytes.NewReader(bomb)
			if tc.chunked {
				body = struct{ io.Reader }{body} // no length: sent chunked
			}
			req, _ := http.NewRequest(http.MethodPost, env.base+"/pets", body)
			req.Header.Set("Authorization", "Bearer "+testKey)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", "gzip")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			allocated := ms.TotalAlloc
			start := time.Now()
			res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			took := time.Since(start)
			runtime.ReadMemStats(&ms)
			r := result{status: res.StatusCode, header: res.Header, body: data}
			checkErrorBody(t, r)
			if r.status != http.StatusRequestEntityTooLarge {
				t.Fatalf("got %d %s, want 413", r.status, data)
			}
			if took > 5*time.Second {
				t.Errorf("answered after %v, want at once", took)
			}
			// Decoding it whole would allocate more than 1 GiB.
			if n := ms.TotalAlloc - allocated; n > 64<<20 {
				t.Errorf("the request allocated %d MiB, want a few", n>>20)
			}
		})
	}
}
