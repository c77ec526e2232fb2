package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestStoreLimits: a create or an import that would take a collection past
// store.maxRecords or store.maxBytes gets 507 store_full, naming the
// setting, and stores nothing; after a reset creates work again.
func TestStoreLimits(t *testing.T) {
	petsJSON := func(n int, name string) string {
		var b strings.Builder
		b.WriteString(`{"pets":[`)
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"P%d%s","categoryId":1}`, i, i, name)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	// fixtureBytes is the record JSON the embedded fixtures take in the
	// store: the records the export holds, each as it is stored.
	var exported map[string][]json.RawMessage
	if err := json.Unmarshal(newPetstore(t).srv.exportForTest(t), &exported); err != nil {
		t.Fatal(err)
	}
	var fixtureBytes int64
	for _, rec := range exported["pets"] {
		fixtureBytes += int64(len(rec))
	}
	long := strings.Repeat("x", 1000)
	tests := []struct {
		name      string
		records   int   // StoreMaxRecords
		bytes     int64 // StoreMaxBytes, over the fixtures' own
		method    string
		path      string
		body      string
		wantFirst int    // the status of the call before the limit, 0 for none
		want      string // the setting the refusal names
		wantMsg   string
	}{
		{"create past maxRecords", 151, 0, "POST", "/pets", `{"name":"Over","categoryId":1}`, 201, "store.maxRecords", "pets would hold 152 records, past the limit of 151; nothing was stored"},
		{"create past maxBytes", 0, 600, "POST", "/pets", `{"name":"` + long + `","categoryId":1}`, 0, "store.maxBytes", "nothing was stored"},
		{"import past maxRecords", 150, 0, "PUT", "//__petctl/store", petsJSON(151, ""), 0, "store.maxRecords", "pets would hold 151 records, past the limit of 150; nothing was imported"},
		{"import past maxBytes", 0, 100, "PUT", "//__petctl/store", petsJSON(10, long), 0, "store.maxBytes", fmt.Sprintf("past the limit of %d; nothing was imported", fixtureBytes+100)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newPetstore(t, func(o *Options) {
				o.StoreMaxRecords = tc.records
				if tc.bytes != 0 {
					o.StoreMaxBytes = fixtureBytes + tc.bytes
				}
			})
			call := func() result {
				t.Helper()
				rq := request{method: tc.method, path: tc.path, body: tc.body}
				if strings.HasPrefix(tc.path, "//__petctl/") {
					rq.key = "-"
				}
				return env.do(rq)
			}
			if tc.wantFirst != 0 {
				if r := call(); r.status != tc.wantFirst {
					t.Fatalf("the call within the limit: %d %s, want %d", r.status, r.body, tc.wantFirst)
				}
			}
			before := string(env.admin("GET", "store", "", "").body)
			r := call()
			if r.status != http.StatusInsufficientStorage || r.code(t) != "store_full" {
				t.Fatalf("got %d %s, want 507 store_full", r.status, r.body)
			}
			if msg := r.message(t); !strings.HasPrefix(msg, tc.want+": ") || !strings.Contains(msg, tc.wantMsg) || !strings.Contains(msg, "raise "+tc.want) {
				t.Errorf("message %q, want it to start with %q, contain %q and say to raise the setting", msg, tc.want, tc.wantMsg)
			}
			if after := string(env.admin("GET", "store", "", "").body); after != before {
				t.Error("the refused call changed the store")
			}
			if tc.method != "POST" {
				return
			}
			// A reset makes room again.
			if r := env.admin("POST", "reset", "", ""); r.status != 200 {
				t.Fatalf("reset: %d", r.status)
			}
			if r := env.post("/pets", `{"name":"AfterReset","categoryId":1}`); r.status != 201 {
				t.Errorf("create after reset: %d %s, want 201", r.status, r.body)
			}
		})
	}
}

// TestStoreLimitsAtStartup: fixtures or generated records beyond a limit
// stop start-up with an error that names the setting.
func TestStoreLimitsAtStartup(t *testing.T) {
	tests := []struct {
		name string
		opts func(*Options)
		want []string
	}{
		{"fixtures past maxRecords", func(o *Options) { o.StoreMaxRecords = 100 },
			[]string{"store: maxRecords: pets would hold 150 records, past the limit of 100", "raise store.maxRecords"}},
		{"fixtures past maxBytes", func(o *Options) { o.StoreMaxBytes = 1000 },
			[]string{"store: maxBytes: pets would hold", "past the limit of 1000", "raise store.maxBytes"}},
		{"generate past maxRecords", func(o *Options) { o.Fixtures, o.Generate, o.StoreMaxRecords = nil, 1_000_000_000, 10 },
			[]string{"store: maxRecords: fixtures.generate adds 1000000000 records", "past the limit of 10", "raise store.maxRecords"}},
		{"fixtures and generated together", func(o *Options) { o.Generate, o.StoreMaxRecords = 10, 155 },
			[]string{"store: maxRecords: pets would hold 160 records, past the limit of 155"}},
	}
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}
			tc.opts(&o)
			_, err := New(o)
			if err == nil {
				t.Fatal("New accepted a store past its limit")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// At the limit is within it.
	o := Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}, StoreMaxRecords: 150}
	if _, err := New(o); err != nil {
		t.Errorf("150 fixtures with store.maxRecords 150: %v", err)
	}
}

// TestStoreLimitsOnReplaceAndPatch: a replace or a merge patch that would
// grow a collection past store.maxBytes gets 507 store_full, naming the
// setting, and leaves the item as it was; one within the limit is applied.
func TestStoreLimitsOnReplaceAndPatch(t *testing.T) {
	env := newCRUD(t, func(o *Options) { o.StoreMaxBytes = 2000 })
	r := env.post("/owners", `{"name":"Ann","city":"Oslo"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	item := fmt.Sprintf("/owners/%v", r.object(t)["id"])
	big := strings.Repeat("x", 3000)
	for _, w := range []struct{ method, ctype, body string }{
		{"PUT", "application/json", `{"name":"Ann","city":"` + big + `"}`},
		{"PATCH", "application/merge-patch+json", `{"city":"` + big + `"}`},
	} {
		r := env.do(request{method: w.method, path: item, ctype: w.ctype, body: w.body})
		if r.status != http.StatusInsufficientStorage || r.code(t) != "store_full" || !strings.HasPrefix(r.message(t), "store.maxBytes: ") {
			t.Errorf("%s past maxBytes: %d %s, want 507 store_full naming store.maxBytes", w.method, r.status, r.body)
		}
		if got := env.do(request{path: item}); got.status != 200 || got.object(t)["city"] != "Oslo" {
			t.Errorf("after the refused %s: %d %s, want the item unchanged", w.method, got.status, got.body)
		}
	}
	if r := env.do(request{method: "PATCH", path: item, ctype: "application/merge-patch+json", body: `{"city":"Bergen"}`}); r.status != 200 {
		t.Errorf("a patch within the limit: %d %s, want 200", r.status, r.body)
	}
}
