package engine

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawExchange sends raw bytes as one HTTP/1.1 request on a new connection
// and reads the response, so nothing on the client side cleans the path,
// the headers or the body.
func rawExchange(t *testing.T, addr, raw string) result {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	// The server may answer (413, 431) and close before it has read all
	// that is sent; the write then fails with a reset, which is fine as long
	// as the answer arrived. So the request is written while the answer is
	// read.
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(conn, raw)
		written <- err
	}()
	// The method tells ReadResponse whether a body follows (none after HEAD).
	method, _, _ := strings.Cut(raw, " ")
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("no HTTP response: %v (writing the request: %v)", err, <-written)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return result{status: res.StatusCode, header: res.Header, body: body}
}

// hostile builds a raw request with the test key.
func hostile(method, target, ctype, body string, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: petctl.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n", method, target, testKey)
	if ctype != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", ctype)
	}
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	if (body != "" || method == "POST") && !strings.Contains(strings.Join(extra, "\n"), "Content-Length") {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	return b.String()
}

// TestHostileRequests: each is answered with a 4xx Error body, the server
// keeps serving, and the store does not change.
func TestHostileRequests(t *testing.T) {
	env := newPetstore(t)
	addr := strings.TrimPrefix(env.http.URL, "http://")
	const j = "application/json"
	deep := `{"name":"A","categoryId":1,"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}"
	cases := []struct {
		name   string
		raw    string
		status int
		code   Code
	}{
		{"malformed JSON", hostile("POST", "/v1/pets", j, `{"name":`), 400, CodeMalformedJSON},
		{"truncated JSON", hostile("POST", "/v1/pets", j, `{"name":"Rex","categoryId":1`), 400, CodeMalformedJSON},
		{"trailing data after the object", hostile("POST", "/v1/pets", j, `{"name":"Rex","categoryId":1} x`), 400, CodeMalformedJSON},
		{"two objects", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":1}{"name":"B","categoryId":1}`), 400, CodeMalformedJSON},
		{"duplicate keys", hostile("POST", "/v1/pets", j, `{"name":"A","name":"B","categoryId":1}`), 400, CodeMalformedJSON},
		{"number beyond int64", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":99999999999999999999}`), 400, CodeValidation},
		{"float for an integer", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":1.5}`), 400, CodeValidation},
		{"leading zero", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":01}`), 400, CodeMalformedJSON},
		{"null field", hostile("POST", "/v1/pets", j, `{"name":null,"categoryId":1}`), 400, CodeValidation},
		{"null body", hostile("POST", "/v1/pets", j, `null`), 400, CodeValidation},
		{"array for an object", hostile("POST", "/v1/pets", j, `[{"name":"A","categoryId":1}]`), 400, CodeValidation},
		{"object for a string", hostile("POST", "/v1/pets", j, `{"name":{"x":1},"categoryId":1}`), 400, CodeValidation},
		{"string for an integer", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":"1"}`), 400, CodeValidation},
		{"unknown status", hostile("POST", "/v1/pets", j, `{"name":"A","categoryId":1,"status":"lost"}`), 400, CodeValidation},
		{"missing name", hostile("POST", "/v1/pets", j, `{"categoryId":1}`), 400, CodeValidation},
		{"non-UTF-8 name", hostile("POST", "/v1/pets", j, "{\"name\":\"\xff\xfe\",\"categoryId\":1}"), 400, CodeMalformedJSON},
		{"byte order mark", hostile("POST", "/v1/pets", j, "\ufeff{\"name\":\"A\",\"categoryId\":1}"), 400, CodeMalformedJSON},
		{"nesting 10000 deep", hostile("POST", "/v1/pets", j, deep), 400, CodeMalformedJSON},
		{"very long name past the body limit", hostile("POST", "/v1/pets", j, `{"name":"`+strings.Repeat("n", 2<<20)+`","categoryId":1}`), 413, CodePayloadTooLarge},
		{"Content-Length past the limit", hostile("POST", "/v1/pets", j, "", "Content-Length: 99999999"), 413, CodePayloadTooLarge},
		{"empty body", hostile("POST", "/v1/pets", j, ""), 400, CodeBodyRequired},
		{"whitespace body", hostile("POST", "/v1/pets", j, "  \n "), 400, CodeBodyRequired},
		{"missing Content-Type", hostile("POST", "/v1/pets", "", `{"name":"A","categoryId":1}`), 415, CodeUnsupportedMediaType},
		{"text/plain", hostile("POST", "/v1/pets", "text/plain", `{"name":"A","categoryId":1}`), 415, CodeUnsupportedMediaType},
		{"form encoded", hostile("POST", "/v1/pets", "application/x-www-form-urlencoded", `name=A&categoryId=1`), 415, CodeUnsupportedMediaType},
		{"unparsable Content-Type", hostile("POST", "/v1/pets", "application/json; ;;=", `{"name":"A","categoryId":1}`), 415, CodeUnsupportedMediaType},
		{"repeated limit", hostile("GET", "/v1/pets?limit=1&limit=200", "", ""), 400, CodeValidation},
		{"limit not a number", hostile("GET", "/v1/pets?limit=abc", "", ""), 400, CodeValidation},
		{"bad escape in the query", hostile("GET", "/v1/pets?limit=%zz", "", ""), 400, CodeValidation},
		{"semicolon in the query", hostile("GET", "/v1/pets?limit=1;limit=200", "", ""), 400, CodeValidation},
		{"bad escape in a read's query", hostile("GET", "/v1/pets/1?x=%", "", ""), 400, CodeValidation},
		{"limit beyond int64", hostile("GET", "/v1/pets?limit=99999999999999999999", "", ""), 400, CodeValidation},
		{"encoded slash in petId", hostile("GET", "/v1/pets/1%2F2", "", ""), 400, CodeValidation},
		{"dot segments before petId", hostile("GET", "/v1/pets/../pets/1", "", ""), 404, CodeRouteNotFound},
		{"encoded dot segment as petId", hostile("GET", "/v1/pets/%2e%2e", "", ""), 404, CodeRouteNotFound},
		{"empty segment after the base path", hostile("GET", "/v1//pets", "", ""), 404, CodeRouteNotFound},
		{"empty segment before an item", hostile("GET", "/v1//pets/1", "", ""), 404, CodeRouteNotFound},
		{"petId beyond int64", hostile("GET", "/v1/pets/99999999999999999999", "", ""), 400, CodeValidation},
		{"petId not an integer", hostile("GET", "/v1/pets/1.0", "", ""), 400, CodeValidation},
		{"oversized headers", hostile("GET", "/v1/pets", "", "", "X-Filler: "+strings.Repeat("f", 64<<10)), 431, CodeHeadersTooLarge},
		{"DELETE on the collection", hostile("DELETE", "/v1/pets", "", ""), 405, CodeMethodNotAllowed},
		{"PATCH on an item", hostile("PATCH", "/v1/pets/1", j, `{"name":"B"}`), 405, CodeMethodNotAllowed},
		{"a method nobody has", hostile("BREW", "/v1/pets", "", ""), 405, CodeMethodNotAllowed},
		{"path outside the base", hostile("GET", "/pets", "", ""), 404, CodeRouteNotFound},
		{"NUL in the query", hostile("GET", "/v1/pets?status=%00", "", ""), 400, CodeValidation},
	}
	before := string(env.srv.exportForTest(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rawExchange(t, addr, c.raw)
			if r.status != c.status || r.code(t) != string(c.code) {
				t.Errorf("got %d %s, want %d %s", r.status, truncate(string(r.body), 300), c.status, c.code)
			}
			checkErrorBody(t, r)
			// The server keeps serving.
			if ok := env.get("/pets?limit=1"); ok.status != 200 {
				t.Fatalf("after %s the server answers %d", c.name, ok.status)
			}
		})
	}
	if len(cases) < 30 {
		t.Errorf("%d hostile requests; the promise is at least 30", len(cases))
	}
	if after := string(env.srv.exportForTest(t)); after != before {
		t.Error("the hostile requests changed the store")
	}
	if r := env.post("/pets", `{"name":"Fine","categoryId":1}`); r.status != 201 || r.object(t)["id"] != 151.0 {
		t.Errorf("a valid create afterwards: %d %s", r.status, r.body)
	}
}

func (s *Server) exportForTest(t *testing.T) []byte {
	t.Helper()
	var b strings.Builder
	if err := s.Export(&b); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}
