package engine

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// serveStyleLogged serves a document of fixtures/styles over a real
// socket and returns its URL and its log. These documents' errors are not
// petctl's {code, message, status}, which start's requests assert.
func serveStyleLogged(t *testing.T, name string) (string, *syncBuffer) {
	t.Helper()
	s, err := spec.Load("../fixtures/styles/" + name)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL, logs
}

// sendJSON sends a JSON body (none where empty) and returns the answer.
func sendJSON(t *testing.T, method, url, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, data
}

// TestErrorsTheSchemaClosesTo serves fixtures/styles/closed-allof-errors.yaml,
// whose error schema (NSwag's ApiException) refuses every body that
// carries an error's fields, as each part of its allOf allows no property
// but its own. The document starts, saying so in one warning; a 400 is
// the least value the schema takes, {}, and passes the check before it
// leaves (a failed check would be a 500); the 404, whose schema takes a
// message, still says it; a create still creates.
func TestErrorsTheSchemaClosesTo(t *testing.T) {
	base, logs := serveStyleLogged(t, "closed-allof-errors.yaml")
	for _, tt := range []struct {
		name, method, path, body string
		status                   int
		want                     func(body string) bool
	}{
		{"malformed JSON", "POST", "/articles", `{"title":`, 400, func(b string) bool { return b == "{}" }},
		{"a refused field", "POST", "/articles", `{"title":"t","colour":"red"}`, 400, func(b string) bool { return b == "{}" }},
		{"created", "POST", "/articles", `{"title":"Hello"}`, 201, func(b string) bool { return strings.Contains(b, `"title":"Hello"`) }},
		{"not found keeps its message", "GET", "/articles/99", "", 404, func(b string) bool { return strings.Contains(b, `"message":"`) }},
	} {
		res, body := sendJSON(t, tt.method, base+tt.path, tt.body)
		if res.StatusCode != tt.status || !tt.want(string(body)) || res.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s (%s), want %d and the document's body", tt.name, res.StatusCode, body, res.Header.Get("Content-Type"), tt.status)
		}
	}
	text := logs.String()
	if n := strings.Count(text, "error answers written as the least value"); n != 1 || !strings.Contains(text, "400, ") {
		t.Errorf("want one warning naming status 400, got %d:\n%s", n, text)
	}
	if strings.Contains(text, "response failed validation") {
		t.Errorf("an answer failed its check:\n%s", text)
	}
}

// TestErrorsOfOverlappingAlternatives serves
// fixtures/styles/overlapping-oneof-errors.yaml, whose 422 is oneOf two
// schemas that the error's fields alone both match. The document starts;
// a 422 carries petctl's message over a value with every field, which
// matches one alternative alone, and passes its check.
func TestErrorsOfOverlappingAlternatives(t *testing.T) {
	base, logs := serveStyleLogged(t, "overlapping-oneof-errors.yaml")
	res, body := sendJSON(t, "PATCH", base+"/orgs/acme", `{"name":"a name longer than twenty characters"}`)
	var got struct {
		Message string
		Errors  []map[string]any
	}
	if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != 422 || !strings.Contains(got.Message, "name") || len(got.Errors) == 0 {
		t.Errorf("422 answer %d %s, want petctl's message naming the field beside errors of objects", res.StatusCode, body)
	}
	text := logs.String()
	if strings.Count(text, "error answers carry every field") != 1 || strings.Contains(text, "response failed validation") {
		t.Errorf("want one warning and no failed check:\n%s", text)
	}
}

// TestErrorsOfAlternativesAlike serves fixtures/styles/alike-oneof-errors.yaml,
// whose 422 is oneOf two schemas that differ in their descriptions alone:
// no body passes. The document starts, saying so; the 422 carries
// petctl's message, and is not turned into a 500 by its check.
func TestErrorsOfAlternativesAlike(t *testing.T) {
	base, logs := serveStyleLogged(t, "alike-oneof-errors.yaml")
	res, body := sendJSON(t, "POST", base+"/network-unblock", `{"network":"a network name past ten"}`)
	if res.StatusCode != 422 || !strings.Contains(string(body), "network") {
		t.Errorf("422 answer %d %s, want petctl's message naming the field", res.StatusCode, body)
	}
	text := logs.String()
	if strings.Count(text, "error answers sent unchecked") != 1 || strings.Contains(text, "response failed validation") {
		t.Errorf("want one warning and no failed check (answer %s):\n%s", body, text)
	}
}
