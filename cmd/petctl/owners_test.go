package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// crudDoc is the document the CRUD kill and replica tests serve: its owners
// are created, replaced (PUT), merge-patched (PATCH) and deleted, paged by
// page and per_page, and its key goes in X-Key.
const crudDoc = "../../fixtures/styles/crud.yaml"

// ownerCall sends one request to a server of crudDoc with the key sig-key
// and returns the status and the answer; the error is that of a request
// that got no answer (the server was killed).
func ownerCall(client *http.Client, method, url, ctype, body string) (int, []byte, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-Key", "sig-key")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// ownerJSON decodes an owner (or any JSON object) keeping numbers as
// written, so that an answer and a later read compare equal exactly.
func ownerJSON(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// mergePatched is old with the JSON Merge Patch patch applied (RFC 7396,
// one level: an owner's fields are flat): what a PATCH makes.
func mergePatched(old, patch map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range old {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// listOwners reads every owner the server at base lists, page by page.
func listOwners(t *testing.T, client *http.Client, base string) []map[string]any {
	t.Helper()
	var all []map[string]any
	for page := 1; ; page++ {
		code, data, err := ownerCall(client, "GET", fmt.Sprintf("%s/owners?per_page=50&page=%d", base, page), "", "")
		if err != nil || code != http.StatusOK {
			t.Fatalf("list owners page %d: %d %s %v", page, code, data, err)
		}
		var answer struct {
			Owners []json.RawMessage
			Meta   struct {
				NextPage *int `json:"next_page"`
			}
		}
		if err := json.Unmarshal(data, &answer); err != nil {
			t.Fatalf("list owners page %d: %v: %s", page, err, data)
		}
		for _, raw := range answer.Owners {
			o, err := ownerJSON(raw)
			if err != nil {
				t.Fatalf("list owners page %d: %v: %s", page, err, raw)
			}
			all = append(all, o)
		}
		if answer.Meta.NextPage == nil {
			return all
		}
	}
}

// ownerSchema returns a check of an owner against crudDoc's item schema:
// nil when the owner is valid, else what is wrong.
func ownerSchema(t *testing.T) func(owner map[string]any) error {
	t.Helper()
	s, err := spec.Load(crudDoc)
	if err != nil {
		t.Fatal(err)
	}
	val, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for _, def := range s.Resources {
		if def.Key != "owners" {
			continue
		}
		return func(owner map[string]any) error {
			raw, err := json.Marshal(owner)
			if err != nil {
				return err
			}
			if ps := val.Record(def.Item, raw); len(ps) > 0 {
				return ps
			}
			return nil
		}
	}
	t.Fatalf("%s has no owners resource", crudDoc)
	return nil
}
