// Package corpus finds the shared corpus of public OpenAPI documents that
// tests run petctl against (shared/corpus beside the repository, or
// PETCTL_CORPUS), so that every test looks for it the same way.
package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/petctl/petctl/internal/race"
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

// RaceSample is the one document that the tests serving the whole corpus
// serve in a binary built with -race. The race detector multiplies their
// CPU time by four or five, and they were four fifths of the suite's:
// make test runs them again without -race over every document (the
// Makefile's NORACE_TESTS), which keeps what the corpus proves of each
// document, while this one keeps the detector on the paths a real document
// takes. Small, yet full CRUD, nested resources, an envelope, oauth2 and
// required headers.
const RaceSample = "xero-projects"

// RaceSkip is why a test serving the whole corpus leaves out the document
// named name ("lago", "resend.yaml", or its path) in this binary: under
// -race every document but RaceSample, and in make test's run without it
// (race.NoRacePassEnv) RaceSample, which the run with it served; "" when
// it serves it.
func RaceSkip(name string) string {
	base := filepath.Base(name)
	if base == "openapi.yaml" {
		base = filepath.Base(filepath.Dir(name))
	}
	sample := strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".json") == RaceSample
	switch {
	case race.Enabled && !sample:
		return "under -race only " + RaceSample + " of the corpus is served: make test serves every document in its run without -race (NORACE_TESTS)"
	case !race.Enabled && sample && os.Getenv(race.NoRacePassEnv) != "":
		return "make test served " + RaceSample + " in its run with -race"
	}
	return ""
}
