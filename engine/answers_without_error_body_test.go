package engine

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAnswersWithoutErrorBody checks, over a raw socket, each answer of
// docs/reliability.md's "Answers without the Error body": what net/http
// answers on its own, before petctl sees the request, and the answers
// HTTP itself leaves without content. It keeps that table in step with
// what is served: each answer here has its row, and each row its answer.
// Every other non-2xx answer is the Error body (TestHostileRequests and the
// rest).
func TestAnswersWithoutErrorBody(t *testing.T) {
	env := newPetstore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Served as petctl serves, with Serve's http.Server settings.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, env.srv, Timeouts{}, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() { cancel(); <-done })
	addr := ln.Addr().String()

	const json = "application/json"
	type answer struct {
		name   string
		raw    string
		status int
		ctype  string // Content-Type of the answer; "" for none
		body   string // the whole body, or its start when it ends in "…"
		row    string // how the answer's row in docs/reliability.md begins
	}
	tests := []answer{
		{"a request line net/http cannot parse", "GARBAGE\r\n\r\n", 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"a malformed HTTP version", "GET /v1/pets HTTP/1.x\r\nHost: petctl.test\r\n\r\n", 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"HTTP/1.1 without Host", "GET /v1/pets HTTP/1.1\r\n\r\n", 400, "text/plain; charset=utf-8", "400 Bad Request: missing required Host header", "`400 Bad Request`"},
		{"Host twice", "GET /v1/pets HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n", 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"a Content-Length that is not a number", hostile("POST", "/v1/pets", json, "", "Content-Length: x"), 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"a control byte in a header value", hostile("GET", "/v1/pets", "", "", "X-Note: a\x01b"), 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"two different Content-Lengths", hostile("POST", "/v1/pets", json, "", "Content-Length: 1", "Content-Length: 2"), 400, "text/plain; charset=utf-8", "400 Bad Request", "`400 Bad Request`"},
		{"an invalid header name", hostile("GET", "/v1/pets", "", "", "Bad Name: x"), 400, "text/plain; charset=utf-8", "400 Bad Request: invalid header name", "`400 Bad Request`"},
		{"header fields past 1 MiB", hostile("GET", "/v1/pets", "", "", "X-Filler: "+strings.Repeat("f", 2<<20)), 431, "text/plain; charset=utf-8", "431 Request Header Fields Too Large", "`431 Request Header Fields Too Large`"},
		{"a transfer coding other than chunked", hostile("POST", "/v1/pets", json, "", "Transfer-Encoding: gzip"), 501, "text/plain; charset=utf-8", "Unsupported transfer encoding", "`501 Not Implemented`"},
		{"Transfer-Encoding twice", hostile("POST", "/v1/pets", json, "", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"), 501, "text/plain; charset=utf-8", "Unsupported transfer encoding", "`501 Not Implemented`"},
		{"HTTP/2.0 in an HTTP/1 request line", "GET /v1/pets HTTP/2.0\r\nHost: petctl.test\r\n\r\n", 505, "text/plain; charset=utf-8", "505 HTTP Version Not Supported: unsupported protocol version", "`505 HTTP Version Not Supported: unsupported protocol version`"},
		{"HTTP/3.0", "GET /v1/pets HTTP/3.0\r\nHost: petctl.test\r\n\r\n", 505, "text/plain; charset=utf-8", "505 HTTP Version Not Supported: unsupported protocol version", "`505 HTTP Version Not Supported: unsupported protocol version`"},
		{"HTTP/0.9", "GET /v1/pets HTTP/0.9\r\nHost: petctl.test\r\n\r\n", 505, "text/plain; charset=utf-8", "505 HTTP Version Not Supported: unsupported protocol version", "`505 HTTP Version Not Supported: unsupported protocol version`"},
		{"an Expect other than 100-continue", hostile("GET", "/v1/pets", "", "", "Expect: teapot"), 417, "", "", "`417 Expectation Failed`"},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: petctl.test\r\n\r\n", 200, "", "", "`200 OK`"},
		{"Expect: 100-continue", hostile("POST", "/v1/pets", json, `{"name":"Rex","categoryId":1}`, "Expect: 100-continue"), 100, "", "", "`100 Continue`"},
		{"HEAD of an error", hostile("HEAD", "/v1/nope", "", ""), 404, json, "", "any error, without its content"},
	}
	rows := documentedAnswers(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !slices.ContainsFunc(rows, func(row string) bool { return strings.HasPrefix(row, tc.row) }) {
				t.Errorf("docs/reliability.md's answers without the Error body have no row for %s beginning %s", tc.name, tc.row)
			}
			r := rawExchange(t, addr, tc.raw)
			if r.status != tc.status {
				t.Errorf("status %d, want %d (%s)", r.status, tc.status, truncate(string(r.body), 200))
			}
			if got := r.header.Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type %q, want %q", got, tc.ctype)
			}
			if got := string(r.body); got != tc.body {
				t.Errorf("body %q, want %q", truncate(got, 200), tc.body)
			}
		})
	}
	// A HEAD answer has the Error body's headers.
	head := rawExchange(t, addr, hostile("HEAD", "/v1/nope", "", ""))
	get := rawExchange(t, addr, hostile("GET", "/v1/nope", "", ""))
	if h, g := head.header.Get("Content-Length"), get.header.Get("Content-Length"); h != g || g == "" {
		t.Errorf("HEAD Content-Length %q, the GET's %q", h, g)
	}
	// What reaches petctl gets the Error body: the HTTP/2 preface, and a
	// Transfer-Encoding on HTTP/1.0, which net/http ignores.
	for _, raw := range []string{
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"POST /v1/pets HTTP/1.0\r\nAuthorization: Bearer " + testKey + "\r\nTransfer-Encoding: gzip\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
	} {
		r := rawExchange(t, addr, raw)
		if r.status < 400 {
			t.Errorf("%.20q: %d, want an error", raw, r.status)
		}
		checkErrorBody(t, r)
	}
	if r := rawExchange(t, addr, hostile("GET", "/v1/pets?limit=1", "", "")); r.status != http.StatusOK {
		t.Errorf("afterwards: %d, want 200", r.status)
	}
	// Every row of the doc is an answer checked here, but the configured
	// 3xx, which TestConfiguredErrorAndRedirect checks.
	for _, row := range rows {
		checked := strings.HasPrefix(row, "a configured 3xx") || slices.ContainsFunc(tests, func(tc answer) bool { return strings.HasPrefix(row, tc.row) })
		if !checked {
			t.Errorf("docs/reliability.md lists an answer without the Error body that no case checks: %s", row)
		}
	}
}

// documentedAnswers are the rows of the table in docs/reliability.md's
// "Answers without the Error body", each without its leading "| ".
func documentedAnswers(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Answers without the Error body\n")
	if !ok {
		t.Fatal(`docs/reliability.md has no section "Answers without the Error body"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if row, ok := strings.CutPrefix(line, "| "); ok && !strings.HasPrefix(row, "answer |") {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		t.Fatal("docs/reliability.md's answers without the Error body: no rows")
	}
	return rows
}
