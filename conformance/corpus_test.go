package conformance_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// corpusDocuments are the documents of the shared corpus (internal/corpus
// finds it); the test is skipped where there is none.
func corpusDocuments(t *testing.T) []corpus.Document {
	t.Helper()
	dir, docs, err := corpus.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		t.Skip(corpus.SkipReason)
	}
	return docs
}

// TestCorpusConforms runs every check against petctl serve for each
// document of the corpus: none may fail. What serve cannot do yet (an
// operation it answers 501) is skipped and counted not exercised, never
// blamed; a document serve refuses is skipped, saying why. Each document
// runs in a process of its own, beside the others.
func TestCorpusConforms(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the corpus runs thousands of checks")
	}
	t.Parallel()
	for _, d := range corpusDocuments(t) {
		name, path := d.Name, d.Path
		t.Run(name, func(t *testing.T) {
			if why := corpus.RaceSkip(name); why != "" {
				t.Skip(why)
			}
			if !inOwnProcess(t) {
				return
			}
			served, err := spec.LoadWith(path, spec.LoadOptions{})
			if err != nil {
				t.Skipf("the document does not load: %v", err)
			}
			srv, err := engine.New(engine.Options{Spec: served, Keys: []string{testKey}})
			if err != nil {
				t.Skipf("petctl serve refuses the document: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
			}
			doc, err := spec.LoadWith(path, spec.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			// serve takes an API key for every scheme: as a bearer token
			// (a token with every scope for oauth2 and openIdConnect), as
			// an apiKey, and as the password of any user for basic.
			o := conform(t, serveRaw(t, srv)+doc.BasePath, func(c *conformance.Config) {
				c.Spec, c.Validator = doc, nil
				c.Bearer, c.Basic = testKey, "conformer:"+testKey
				// Not what is tested here: the first use of a large schema
				// compiles it, which took over 10s under -race on a loaded
				// two-core machine (adyen's POST /accountHolders).
				c.Timeout = time.Minute
				// The whole run is bounded too: sonarr's took more than
				// the default 5 minutes on a loaded machine, and the
				// checks a deadline leaves out prove nothing.
				c.Deadline = 15 * time.Minute
			})
			if o.res.Interrupted {
				t.Errorf("the run stopped before its last check: %s", o.res.StopReason)
			}
			// A failure whose answer was a server error is serve's own
			// admission that it failed, never a false alarm of the
			// checks; it fails the test as well, as a defect of serve's
			// (none of the corpus's documents gives one).
			var serverErrors, others []string
			for _, sr := range o.res.Report.SpecReports {
				if !sr.State.Is(types.SpecStateFailureStates) || sr.LeafNodeType != types.NodeTypeIt {
					continue
				}
				if serverError.MatchString(sr.Failure.Message) {
					serverErrors = append(serverErrors, sr.FullText())
				} else {
					others = append(others, sr.FullText()+"\n"+sr.Failure.Message)
				}
			}
			if len(others) > 0 {
				t.Errorf("%d checks failed against petctl serve:\n%s", len(others), strings.Join(others, "\n\n"))
			}
			if len(serverErrors) > 0 {
				t.Errorf("%d checks failed on a server error of petctl serve's own:\n  %s", len(serverErrors), strings.Join(serverErrors, "\n  "))
			}
			t.Logf("%s: %d checks, %d passed, %d skipped, %d requests in %s; %d of %d operations exercised",
				name, o.res.Passed+o.res.Failed+o.res.Skipped, o.res.Passed, o.res.Skipped, o.res.Requests, time.Since(start).Round(time.Millisecond),
				len(doc.Operations)-len(o.res.NotExercised), len(doc.Operations))
			t.Logf("skipped:\n%s", skipReasons(o))
			t.Logf("not exercised:\n%s", notExercised(o))
		})
	}
}

// serverError finds the response line of a failure message whose answer
// was a 5xx.
var serverError = regexp.MustCompile(`(?m)^\s*response: 5[0-9][0-9] `)

// skipReasons counts the reasons the run's checks were skipped for, the
// operation each names left out.
func skipReasons(o outcome) string {
	count := map[string]int{}
	for _, sr := range o.res.Report.SpecReports {
		if sr.State.String() != "skipped" {
			continue
		}
		r := sr.Failure.Message
		if h := sr.ContainerHierarchyTexts; len(h) > 2 {
			id, _, _ := strings.Cut(h[2], " (")
			r = strings.ReplaceAll(r, id, "<op>")
		}
		count[r]++
	}
	return counted(count)
}

// notExercised counts the reasons the operations were not exercised for.
func notExercised(o outcome) string {
	count := map[string]int{}
	for id, r := range o.res.NotExercised {
		count[strings.ReplaceAll(r, id, "<op>")]++
	}
	return counted(count)
}

func counted(count map[string]int) string {
	var lines []string
	for r, n := range count {
		lines = append(lines, fmt.Sprintf("  %4d  %s", n, r))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(b, a) })
	return strings.Join(lines, "\n")
}
