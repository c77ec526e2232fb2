package genpets

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

func TestWriteIsDeterministicJSON(t *testing.T) {
	var a, b bytes.Buffer
	if err := Write(&a, 500); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, 500); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(a.Bytes()) != sha256.Sum256(b.Bytes()) {
		t.Fatal("two runs wrote different bytes")
	}
	var pets []map[string]any
	if err := json.Unmarshal(a.Bytes(), &pets); err != nil {
		t.Fatal(err)
	}
	if len(pets) != 500 {
		t.Fatalf("%d pets, want 500", len(pets))
	}
	counts := map[any]int{}
	for i, p := range pets {
		if p["id"] != float64(i+1) {
			t.Fatalf("pet %d has id %v", i, p["id"])
		}
		counts[p["status"]]++
	}
	// Every status, and animals without one, so filters have work to do.
	for _, st := range []any{"available", "pending", "sold", nil} {
		if counts[st] == 0 {
			t.Errorf("no pet with status %v: %v", st, counts)
		}
	}
	var empty bytes.Buffer
	if err := Write(&empty, 0); err != nil || json.Unmarshal(empty.Bytes(), &pets) != nil || len(pets) != 0 {
		t.Errorf("n=0: %q, %v", empty.String(), err)
	}
}

// TestEngineLoadsIt makes sure the file is one petctl accepts: every record
// valid against the embedded document.
func TestEngineLoadsIt(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, 5000); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := engine.New(engine.Options{Spec: s, Keys: []string{"k"},
		Fixtures: []engine.FixtureFile{{Name: "pets.json", Data: b.Bytes()}},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(srv.Collections()); got != "map[pets:5000]" {
		t.Errorf("collections %s, want 5000 pets", got)
	}
}
