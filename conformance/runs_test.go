package conformance_test

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
)

// TestRunsAgainstOneDeployment: a pipeline runs conform against the same
// staging deployment again and again. Its values depend on the run id, so
// a second run creates anew what the first created and left: a plan's
// code (^[a-z][0-9]{2}$), which the deployment keeps unique and no check
// deletes, was the same on every run, refused 409 from the second on,
// and the checks that needed the plan skipped.
func TestRunsAgainstOneDeployment(t *testing.T) {
	t.Parallel()
	load := styleDoc(t, "crud.yaml")
	srv, err := engine.New(engine.Options{Spec: load(), Keys: []string{testKey}})
	if err != nil {
		t.Fatal(err)
	}
	root := serveRaw(t, srv)
	var skipped []int
	for _, id := range []string{"first", "second"} {
		o := conform(t, root+"/crud", func(c *conformance.Config) {
			c.Spec, c.Validator, c.RunID = load(), nil, id
		})
		if f := o.failed(); len(f) > 0 || !o.res.OK() {
			t.Fatalf("run %s: failed checks %q\n%s", id, f, o.out)
		}
		if strings.Contains(o.out, "exists already") {
			t.Errorf("run %s: a create was refused as a duplicate:\n%s", id, o.out)
		}
		skipped = append(skipped, o.res.Skipped)
	}
	if skipped[1] != skipped[0] {
		t.Errorf("the second run skipped %d checks, the first %d", skipped[1], skipped[0])
	}
}
