package reference

import (
	"net/http"
	"testing"
)

// Renders says how many times the page Mount returned was rendered.
func Renders(h http.Handler) int32 { return h.(*mount).renders.Load() }

// LargestCorpusDocument is the corpus document of the most bytes, for the
// browser test; it skips where there is no corpus.
func LargestCorpusDocument(t *testing.T) string {
	t.Helper()
	var best string
	var most int64
	for _, d := range corpusDocs(t) {
		if n := docSize(t, d.path); n > most {
			best, most = d.path, n
		}
	}
	return best
}

// CorpusDocuments are the paths of the corpus's documents; it skips where
// there is no corpus.
func CorpusDocuments(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, d := range corpusDocs(t) {
		paths = append(paths, d.path)
	}
	return paths
}
