package conformance_test

import (
	"net/http"
	"testing"

	"github.com/petctl/petctl/engine"
)

// oneItemCheck is the check of a collection whose path answers its one
// item (fixtures/styles/settings.yaml): that item reads back at its id.
const oneItemCheck = "read getUiConfig (GET /config/ui) the item the collection's path answers reads back the same by its id"

// conformSettings runs the suite against serve on the settings document,
// its answers changed by wrap (nil for none).
func conformSettings(t *testing.T, wrap func(http.Handler) http.Handler) outcome {
	t.Helper()
	return conformServed(t, styleDoc(t, "settings.yaml"), engine.Options{Keys: []string{testKey}}, wrap)
}

// TestOneItemAgainstServe: serve passes every check on the settings
// document, the one item's read-back among them.
func TestOneItemAgainstServe(t *testing.T) {
	t.Parallel()
	o := conformSettings(t, nil)
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if st, msg := o.state(t, oneItemCheck); st.String() != "passed" {
		t.Errorf("%s: %s %s, want passed", oneItemCheck, st, msg)
	}
}

// TestOneItemBroken: a deployment whose item path answers another item
// than its collection's path, or whose collection's path answers an id
// its item path does not know, fails the read-back, and nothing else.
func TestOneItemBroken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wrap func(http.Handler) http.Handler
	}{
		{"the item path answers other settings", func(h http.Handler) http.Handler {
			return editResponse(h, isPrefix(http.MethodGet, "/api/v3/config/ui/"), func(_ *http.Request, res *recorded) {
				if res.status != http.StatusOK {
					return
				}
				editJSON(res, eachObject(func(it map[string]any) {
					if it["theme"] == "auto" {
						it["theme"] = "light"
					} else {
						it["theme"] = "auto"
					}
				}))
			})
		}},
		{"the collection's path answers an id the item path does not know", func(h http.Handler) http.Handler {
			return editResponse(h, is(http.MethodGet, "/api/v3/config/ui"), func(_ *http.Request, res *recorded) {
				editJSON(res, eachObject(func(it map[string]any) { it["id"] = 777 }))
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			onlyFailed(t, conformSettings(t, tc.wrap), []string{oneItemCheck})
		})
	}
}

// TestOneItemWithoutItsID: settings answered without their id, which the
// schema does not require, are no failure of the read-back (nothing to
// read back by): it skips, and the run passes.
func TestOneItemWithoutItsID(t *testing.T) {
	t.Parallel()
	o := conformSettings(t, func(h http.Handler) http.Handler {
		return editResponse(h, is(http.MethodGet, "/api/v3/config/ui"), func(_ *http.Request, res *recorded) {
			editJSON(res, eachObject(func(it map[string]any) { delete(it, "id") }))
		})
	})
	if f := o.failed(); len(f) > 0 || !o.res.OK() {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if st, msg := o.state(t, oneItemCheck); st.String() != "skipped" {
		t.Errorf("%s: %s %s, want skipped", oneItemCheck, st, msg)
	}
}
