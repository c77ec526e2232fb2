package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNotAcceptable: an Accept header that takes none of the media types
// an operation's successes are sent as is answered 406 not_acceptable, in
// the document's error format, naming what to ask for; weights and the
// most specific range count (RFC 9110 §12.5.1); an absent or unreadable
// Accept takes anything, and an answer without a body is not negotiated.
func TestNotAcceptable(t *testing.T) {
	env := newPetstore(t)
	client := &http.Client{Timeout: 10 * time.Second}
	for _, c := range []struct {
		accept []string // nil: none sent
		status int
	}{
		{nil, http.StatusOK},
		{[]string{"application/json"}, http.StatusOK},
		{[]string{"*/*"}, http.StatusOK},
		{[]string{"application/*"}, http.StatusOK},
		{[]string{"Application/JSON; charset=utf-8"}, http.StatusOK},
		{[]string{"text/html, application/json;q=0.1"}, http.StatusOK},
		{[]string{"text/html", "application/json"}, http.StatusOK}, // two header fields
		{[]string{"application/json, text/plain, */*"}, http.StatusOK},
		{[]string{"json"}, http.StatusOK},                 // no readable range: as if absent
		{[]string{"application/json;q=2"}, http.StatusOK}, // a weight past 1 is unreadable
		{[]string{""}, http.StatusOK},                     // empty
		{[]string{"text/html"}, http.StatusNotAcceptable},
		{[]string{"text/*, image/png"}, http.StatusNotAcceptable},
		{[]string{"application/json;q=0"}, http.StatusNotAcceptable},
		{[]string{"application/json;q=0, */*"}, http.StatusNotAcceptable}, // the most specific range decides
		{[]string{"application/*;q=0, */*;q=1"}, http.StatusNotAcceptable},
		{[]string{"application/xml, json"}, http.StatusNotAcceptable}, // the unreadable one left out
	} {
		req, _ := http.NewRequest("GET", env.base+"/pets", nil)
		for _, a := range c.accept {
			req.Header.Add("Accept", a)
		}
		req.Header.Set("Authorization", "Bearer "+testKey)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.status {
			t.Errorf("Accept %q: status %d, want %d", c.accept, res.StatusCode, c.status)
		}
	}

	r := env.do(request{path: "/pets", headers: map[string]string{"Accept": "text/html"}})
	if r.status != http.StatusNotAcceptable || r.code(t) != string(CodeNotAcceptable) || !strings.Contains(r.message(t), "send Accept: application/json") ||
		r.header.Get("Content-Type") != "application/json" || !strings.Contains(string(r.body), `"status":406`) {
		t.Errorf("406: %d %s %s, want the Petstore's error body naming application/json", r.status, r.header.Get("Content-Type"), r.body)
	}
	// Nothing was read or done: a create refused so stores nothing.
	before := len(env.do(request{path: "/pets?limit=100"}).list(t))
	r = env.do(request{method: "POST", path: "/pets", body: `{"name": "Rex", "species": "dog"}`, headers: map[string]string{"Accept": "image/png"}})
	if r.status != http.StatusNotAcceptable {
		t.Errorf("create with Accept: image/png: %d %s, want 406", r.status, r.body)
	}
	if after := len(env.do(request{path: "/pets?limit=100"}).list(t)); after != before {
		t.Errorf("a create refused 406 stored a pet: %d pets, then %d", before, after)
	}
}

// TestNotAcceptableElsewhere: in another document the 406 is written in
// the document's error format, and an operation whose success has no body
// (a 204 delete) takes any Accept.
func TestNotAcceptableElsewhere(t *testing.T) {
	env, s := serveStyle(t, "errors.yaml")
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	url := env.base + "/nested"
	r := rawDo(t, "GET", url, "", map[string]string{"X-Key": testKey, "Accept": "text/html"})
	checkAnswer(t, r, http.StatusNotAcceptable, "application/json",
		`{"error":{"code":406,"status":"Not Acceptable","message":"Accept \"text/html\" takes none of the media types nestedError answers with; send Accept: application/json","reason":"not_acceptable"}}`)
	validError(t, s, v, s.Operation("nestedError"), "GET", url, r)
	// An operation that declares no 406 nor default: the document's most
	// common error format.
	url = env.base + "/text"
	r = rawDo(t, "GET", url, "", map[string]string{"X-Key": testKey, "Accept": "text/plain"})
	checkAnswer(t, r, http.StatusNotAcceptable, "application/problem+json", `{"type":"about:blank","title":"Not Acceptable","status":406,…`)
	validError(t, s, v, s.Operation("plainText"), "GET", url, r)

	crud, _ := serveStyle(t, "crud.yaml")
	made := rawDo(t, "POST", crud.base+"/owners", `{"name": "Ann"}`, map[string]string{"X-Key": testKey, "Content-Type": "application/json"})
	if made.status != http.StatusCreated {
		t.Fatalf("create: %d %s", made.status, made.body)
	}
	var owner struct{ ID any }
	if err := json.Unmarshal(made.body, &owner); err != nil {
		t.Fatal(err)
	}
	r = rawDo(t, "DELETE", fmt.Sprintf("%s/owners/%v", crud.base, owner.ID), "", map[string]string{"X-Key": testKey, "Accept": "text/html"})
	if r.status != http.StatusNoContent {
		t.Errorf("a 204 delete with Accept: text/html: %d %s, want 204", r.status, r.body)
	}
}
