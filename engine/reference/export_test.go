package reference

import "testing"

// LargestCorpusDocument is the corpus document of the most bytes, for the
// browser test; it skips where there is no corpus.
func LargestCorpusDocument(t *testing.T) string {
	t.Helper()
	var best string
	var most int64
	for _, d := range corpus(t) {
		if n := docSize(t, d.path); n > most {
			best, most = d.path, n
		}
	}
	return best
}
