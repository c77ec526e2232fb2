// Package corpus finds the shared corpus of public OpenAPI documents that
// tests run petctl against (shared/corpus beside the repository, or
// PETCTL_CORPUS), so that every test looks for it the same way.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Document is one document of the corpus: a single file, or a folder whose
// entry document is openapi.yaml.
type Document struct {
	Name string // the file or folder name without .yaml: "resend", "lago"
	Path string // the entry document
}

// SkipReason is what a test says when it finds no corpus.
const SkipReason = "no shared/corpus folder beside the repository or above it (set PETCTL_CORPUS to its path)"

// Find returns the corpus's documents, sorted by name, and its folder:
// PETCTL_CORPUS, else the first shared/corpus folder in from or one of its
// parents. It returns no folder when there is none.
func Find(from string) (string, []Document, error) {
	dir := os.Getenv("PETCTL_CORPUS")
	if dir == "" {
		abs, err := filepath.Abs(from)
		if err != nil {
			return "", nil, err
		}
		for d := abs; ; d = filepath.Dir(d) {
			if fi, err := os.Stat(filepath.Join(d, "shared", "corpus")); err == nil && fi.IsDir() {
				dir = filepath.Join(d, "shared", "corpus")
				break
			}
			if d == filepath.Dir(d) {
				return "", nil, nil
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, err
	}
	var docs []Document
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".json")):
			docs = append(docs, Document{strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".yaml"), ".json"), p})
		case e.IsDir():
			if _, err := os.Stat(filepath.Join(p, "openapi.yaml")); err == nil {
				docs = append(docs, Document{e.Name(), filepath.Join(p, "openapi.yaml")})
			}
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })
	return dir, docs, nil
}
