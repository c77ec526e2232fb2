package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListCorpusAndLargest(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("small.yaml", 10)
	write("big.json", 30)
	write("notes.txt", 99) // not a document
	write("wide/openapi.yaml", 1)
	write("wide/a.yaml", 1)
	write("wide/sub/b.yaml", 1)
	write("heavy/openapi.yaml", 50)
	write("heavy/a.yaml", 50)
	write("loose/a.yaml", 500) // a folder without openapi.yaml is not a document
	docs, err := ListCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Name)
	}
	if want := "big heavy small wide"; strings.Join(got, " ") != want {
		t.Fatalf("ListCorpus named %v, want %s", got, want)
	}
	wide := docs[3]
	if !wide.Folder || wide.Files != 3 || wide.Size != 3 || wide.Path != filepath.Join(dir, "wide", "openapi.yaml") {
		t.Errorf("wide = %+v, want a folder of 3 files, 3 bytes, entered at its openapi.yaml", wide)
	}
	single, multi, ok1, ok2 := Largest(docs)
	if !ok1 || single.Name != "big" || !ok2 || multi.Name != "wide" {
		t.Errorf("Largest = %s, %s (%v %v), want big (most bytes) and wide (most files)", single.Name, multi.Name, ok1, ok2)
	}
	if _, _, ok1, ok2 := Largest(docs[2:3]); !ok1 || ok2 {
		t.Errorf("Largest of one file: %v %v, want a single-file one and no multi-file one", ok1, ok2)
	}
	if _, err := ListCorpus(filepath.Join(dir, "absent")); err == nil {
		t.Error("ListCorpus of a missing folder: no error")
	}
}
