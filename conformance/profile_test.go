package conformance_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/config"
	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// TestProfileOfPetstore: the profile of petctl serve as configured: each
// open behaviour recorded as the engine's options set it.
func TestProfileOfPetstore(t *testing.T) {
	o := runAgainst(t, func(o *engine.Options) {
		o.Lists = engine.ListOptions{ClampLimit: true, CursorParam: "after"}
		o.Defaults = map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"sold"`)}}
		o.ErrorCodes = map[string]string{"not_found": "missing"}
		o.Headers = map[string]map[string]string{"*": {"X-Region": "eu"}, "getPet": {"Cache-Control": "no-store"}}
	}, nil, func(c *conformance.Config) { c.Profile = true })
	p := o.res.Profile
	if p == nil {
		t.Fatal("no profile")
	}
	got := map[string]string{}
	for _, b := range p.Behaviours() {
		got[b.Key] = b.Value
	}
	for key, want := range map[string]string{
		"lists pets: limit=0":                               "clamped: 200 with at most 1 item",
		"lists pets: limit=101":                             "clamped: 200 with at most 100 items",
		"lists pets: order":                                 conformance.OrderAscending,
		"lists pets: pagination":                            "cursor, parameter after, headers Link",
		"defaults pets: status of a new item":               `"sold"`,
		"errors getPet: an unknown id":                      "404 missing",
		"errors listPets: no credentials":                   "401 unauthorized",
		"errors createPet: malformed JSON":                  "400 malformed_json",
		"errors codes of 404 answers":                       "missing",
		"headers on every answer":                           "X-Region",
		"headers getPet: on every answer besides":           "Cache-Control, Deprecation, Link, Sunset",
		"headers listPets: on every answer besides":         "none",
		"unpublished listStoreOrders: answer":               "501 application/json, body {code: string, message: string, status: number}",
		"errors createPet: a body without a required field": "400 validation_failed",
	} {
		if got[key] != want {
			t.Errorf("%s = %q, want %q", key, got[key], want)
		}
	}
	if len(p.NotRecorded) > 0 {
		t.Errorf("not recorded: %v", p.NotRecorded)
	}
	var profiled bool
	for _, r := range o.res.Created {
		profiled = profiled || strings.HasPrefix(r.Check, "profile")
	}
	if !profiled {
		t.Errorf("the record the profile created is not listed with the run's: %v", o.res.Created)
	}
}

// TestProfileReadOnly: under --read-only the profile writes nothing and
// says what it therefore did not record.
func TestProfileReadOnly(t *testing.T) {
	o := runAgainst(t, nil, nil, func(c *conformance.Config) { c.Profile, c.ReadOnly = true, true })
	p := o.res.Profile
	if p == nil {
		t.Fatal("no profile")
	}
	if len(o.res.Created) != 0 {
		t.Errorf("a read-only run created %v", o.res.Created)
	}
	for _, e := range p.Errors {
		if e.Operation == "createPet" {
			t.Errorf("a read-only profile sent %s to createPet", e.Condition)
		}
	}
	if !strings.Contains(strings.Join(p.NotRecorded, "\n"), "--read-only creates nothing") {
		t.Errorf("not recorded: %v; want the values a new item gets named", p.NotRecorded)
	}
}

// TestCorpusProfileOfEnvelopedLists: a profile reads the lists of any document
// as the checks do (spec.Resources): resend's lists are envelopes
// ({object, has_more, data}) of uuid ids, which the profile once skipped
// for not being bare arrays, recording no order and no answer to an
// out-of-range limit. The order of uuid ids is read from where two items
// made one after the other are listed; a page size is probed only beyond
// a bound the document declares; and a new item's id is the deployment's
// to give, never a default. A corpus test: under -race it is left to make
// test's run without it, as the other corpus documents are (profiling
// resend took 25 s of the race run; the Petstore's profiles keep the
// detector on the same code).
func TestCorpusProfileOfEnvelopedLists(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: serves and profiles a corpus document")
	}
	t.Parallel()
	dir, _, err := corpus.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		t.Skip(corpus.SkipReason)
	}
	path := filepath.Join(dir, "resend.yaml")
	if why := corpus.RaceSkip(path); why != "" {
		t.Skip(why)
	}
	doc, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	profile := func(t *testing.T, lists engine.ListOptions, codes map[string]string) map[string]string {
		t.Helper()
		served, err := spec.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := engine.New(engine.Options{Spec: served, Keys: []string{testKey}, Lists: lists, ErrorCodes: codes})
		if err != nil {
			t.Fatal(err)
		}
		o := conform(t, serveRaw(t, srv)+doc.BasePath, func(c *conformance.Config) {
			c.Spec, c.Validator = doc, nil
			c.Bearer = testKey
			c.Profile = true
			c.LabelFilter = "pagination" // the profile asks its own questions; a few checks are enough
			c.Timeout = time.Minute
		})
		got := map[string]string{}
		for _, b := range o.res.Profile.Behaviours() {
			got[b.Key] = b.Value
			if strings.HasPrefix(b.Key, "defaults ") && strings.Contains(b.Key, ": id of a new item") {
				t.Errorf("%s = %s: the id is the deployment's to give, never a default", b.Key, b.Value)
			}
		}
		return got
	}
	t.Run("as configured", func(t *testing.T) {
		got := profile(t, engine.ListOptions{ClampLimit: true, NewestFirst: true}, map[string]string{"not_found": "resource_not_found"})
		for key, want := range map[string]string{
			"lists automations: limit=0":   "clamped: 200 with at most 1 item",
			"lists automations: limit=101": "clamped: 200 with at most 100 items",
			"lists automations: order":     conformance.OrderDescending,
			"lists audiences: order":       conformance.OrderDescending,
			"errors codes of 404 answers":  "resource_not_found",
		} {
			if got[key] != want {
				t.Errorf("%s = %q, want %q", key, got[key], want)
			}
		}
		if _, ok := got["lists audiences: limit=0"]; ok {
			t.Error("audiences/list takes no page size, yet one was probed")
		}
	})
	t.Run("by default", func(t *testing.T) {
		got := profile(t, engine.ListOptions{}, nil)
		for key, want := range map[string]string{
			"lists automations: limit=0": "rejected: 400 validation_failed",
			"lists automations: order":   conformance.OrderAscending,
			"lists audiences: order":     conformance.OrderAscending,
		} {
			if got[key] != want {
				t.Errorf("%s = %q, want %q", key, got[key], want)
			}
		}
	})
}

// TestProfileOfALeakyDeployment: a deployment that echoes the run's key
// and its customers' personal data wherever it can (the sample answer of
// GET /store/orders, in values, in free text and as keys; a header on
// every answer; the code of its errors; a new item's defaults) gets a
// profile, written as petctl.yaml, that holds none of them.
func TestProfileOfALeakyDeployment(t *testing.T) {
	t.Parallel()
	secrets := []string{testKey, "jane.doe", "bob@corp", "7946", "555-2671", "4111", "900123", "eyJhbGciOi"}
	orders := `[{"id": 7, "customerEmail": "jane.doe@example.org", "phone": "+44 20 7946 0958", "card": "4111 1111 1111 1111",
		"note": "call +1 (415) 555-2671 or mail bob@corp.example", "echo": "` + testKey + `",
		"byCustomer": {"jane.doe@example.org": 2}, "session": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz"}]`
	leak := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Debug", "key "+testKey+" for jane.doe@example.org, +44 7700 900123")
			if r.Method == http.MethodGet && r.URL.Path == "/v1/store/orders" {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, orders)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var e map[string]any
			if rec.Code >= 400 && json.Unmarshal(body, &e) == nil && e["code"] != nil {
				e["code"] = fmt.Sprintf("%v_for_%s", e["code"], testKey)
				body, _ = json.Marshal(e)
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
	o := runAgainst(t, func(o *engine.Options) {
		o.Defaults = map[string]map[string]json.RawMessage{"pets": {"status": json.RawMessage(`"sold"`)}}
	}, leak, func(c *conformance.Config) { c.Profile = true })
	p := o.res.Profile
	if p == nil {
		t.Fatal("no profile")
	}
	data, err := config.ProfileYAML(p, "staging.profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	t.Logf("the profile:\n%s", text)
	for _, secret := range secrets {
		if strings.Contains(text, secret) {
			t.Errorf("the profile holds %q: credentials and personal data are never recorded", secret)
		}
	}
	for _, want := range []string{"listStoreOrders:", "customerEmail: person@example.com", "note: call +1-555-0100 or mail person@example.com", "X-Debug: redacted", "not_found: redacted"} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile lacks %q", want)
		}
	}
}
