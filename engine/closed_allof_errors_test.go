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

// TestErrorsTheSchemaClosesTo serves fixtures/styles/closed-allof-errors.yaml,
// whose error schema (NSwag's ApiException) refuses every body that
// carries an error's fields, as each part of its allOf allows no property
// but its own. The document starts, saying so in one warning; a 400 is
// the least value the schema takes, {}, and passes the check before it
// leaves (a failed check would be a 500); the 404, whose schema takes a
// message, still says it; a create still creates.
func TestErrorsTheSchemaClosesTo(t *testing.T) {
	s, err := spec.Load("../fixtures/styles/closed-allof-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
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
		req, _ := http.NewRequest(tt.method, hs.URL+tt.path, strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
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
	s, err := spec.Load("../fixtures/styles/overlapping-oneof-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	req, _ := http.NewRequest("PATCH", hs.URL+"/orgs/acme", strings.NewReader(`{"name":"a name longer than twenty characters"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
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
	s, err := spec.Load("../fixtures/styles/alike-oneof-errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	res, err := http.Post(hs.URL+"/network-unblock", "application/json", strings.NewReader(`{"network":"a network name past ten"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 422 || !strings.Contains(string(body), "network") {
		t.Errorf("422 answer %d %s, want petctl's message naming the field", res.StatusCode, body)
	}
	text := logs.String()
	if strings.Count(text, "error answers sent unchecked") != 1 || strings.Contains(text, "response failed validation") {
		t.Errorf("want one warning and no failed check (answer %s):\n%s", body, text)
	}
}
