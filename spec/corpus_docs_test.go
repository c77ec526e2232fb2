package spec

import (
	"testing"

	"github.com/petctl/petctl/internal/corpus"
)

// corpusDocs is the corpus's documents; it skips tb, saying why, where
// there is no corpus.
func corpusDocs(tb testing.TB) []corpus.Document {
	tb.Helper()
	_, docs, err := corpus.Find("..")
	if err != nil {
		tb.Fatal(err)
	}
	if len(docs) == 0 {
		tb.Skip(corpus.SkipReason)
	}
	return docs
}

// eachCorpusValidator runs fn in a subtest per corpus document (under
// -race, RaceSample alone), with the document loaded and its validator.
func eachCorpusValidator(t *testing.T, fn func(t *testing.T, s *Spec, v *Validator)) {
	t.Helper()
	for _, d := range corpusDocs(t) {
		t.Run(d.Name, func(t *testing.T) {
			if why := corpus.RaceSkip(d.Path); why != "" {
				t.Skip(why)
			}
			s, err := Load(d.Path)
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.NewValidator()
			if err != nil {
				t.Fatal(err)
			}
			fn(t, s, v)
		})
	}
}
