package conformance

import (
	"net/url"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestBrokenBodiesOfKinds: on a body that is a choice of kinds (a cat or a
// dog), every body a create check sends as breaking the schema is one the
// document's validator refuses, whichever kind the draw made: a cat's
// field of the wrong type in a dog is a field a dog may hold, and a check
// that expected it refused would fail a correct deployment.
func TestBrokenBodiesOfKinds(t *testing.T) {
	doc, err := spec.Load("../fixtures/styles/polymorphic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	val, err := doc.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("http://127.0.0.1:1")
	s := newSuite(Config{Timeout: time.Second}, base, doc, val)
	seen := map[string]bool{}
	for _, op := range doc.Operations {
		r, ro := s.resourceOf(op)
		if r == nil || ro.Kind != spec.KindCreate {
			continue
		}
		for _, m := range s.mutations(op, ro) {
			seen[op.ID+": "+m.text] = true
			for i := 0; i < 20; i++ { // twenty draws, of either kind
				req := s.brokenRequest(op, ro, m)
				if req == nil {
					continue // skipped, not sent
				}
				if m.raw == nil && len(s.problems(req)) == 0 {
					t.Errorf("%s, %s: sent %s as breaking the schema; the document accepts it", op.ID, m.text, req.body)
					break
				}
			}
		}
	}
	for _, want := range []string{"createPet: huntingSkill of the wrong type (a number)", "createPet: packSize of the wrong type (a string)", "createShape: radius of the wrong type (a string)"} {
		if !seen[want] {
			t.Errorf("no check %q; checks: %v", want, seen)
		}
	}
}
