package conformance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
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
		"headers getPet: on every answer besides":           "Cache-Control",
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
