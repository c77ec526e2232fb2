package corpusload

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// benchKey is the API key the test server accepts.
const benchKey = "bench-key-0123456789"

// TestWorkloads plans and prepares, over HTTP, the Workload of every
// collection of the CRUD styles document: a flat one, one nested under
// its parent, one whose client-chosen ids follow a pattern (refused: a
// number cannot make them unique) and one created without an answer body.
func TestWorkloads(t *testing.T) {
	s, err := spec.Load("../../fixtures/styles/crud.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.New(engine.Options{Spec: s, Keys: []string{benchKey}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	addr := strings.TrimPrefix(hs.URL, "http://")
	tests := map[string]struct {
		list   string // ShownList
		items  int
		status int
		err    string
	}{
		"owners": {list: "GET /crud/owners?per_page=20", items: 20, status: 201},
		"pets":   {list: "GET /crud/owners/{ownerId}/pets?limit=20", items: 20, status: 201},
		"plans":  {err: "a number cannot make unique"},
		"labels": {list: "GET /crud/labels?limit=10", items: 10, status: 201},
	}
	seen := 0
	for _, r := range Candidates(s) {
		tc, ok := tests[r.Key]
		if !ok {
			continue
		}
		seen++
		t.Run(r.Key, func(t *testing.T) {
			w, err := Plan(s, r, benchKey)
			if err == nil {
				err = w.Prepare(context.Background(), addr)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := w.ShownList(); got != tc.list {
				t.Errorf("list %q, want %q", got, tc.list)
			}
			if w.Items != tc.items || w.CreateStatus != tc.status {
				t.Errorf("%d items listed, create answered %d; want %d and %d", w.Items, w.CreateStatus, tc.items, tc.status)
			}
			if got := w.header.Get("X-Key"); got != benchKey {
				t.Errorf("X-Key = %q, want the key (the document's apiKey scheme)", got)
			}
		})
	}
	if seen != len(tests) {
		t.Errorf("%d of the %d collections are Candidates", seen, len(tests))
	}
}
