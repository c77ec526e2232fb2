package engine

import (
	"net/http"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestConfiguredHeaders: the "*" headers come with every answer, errors
// and unknown paths included; an operation's own add to them; a header
// the answer has already (the document's Sunset) is kept.
func TestConfiguredHeaders(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Headers = map[string]map[string]string{
			"*":      {"X-RateLimit-Limit": "100", "x-request-source": "staging"},
			"getPet": {"X-Cache": "hit", "Sunset": "Mon, 01 Jan 2029 00:00:00 GMT", "X-RateLimit-Limit": "10"},
		}
	})
	tests := []struct {
		name string
		rq   request
		want map[string]string // "" means absent
	}{
		{"a list", request{path: "/pets"}, map[string]string{"X-RateLimit-Limit": "100", "X-Request-Source": "staging", "X-Cache": ""}},
		{"an operation's own", request{path: "/pets/1"}, map[string]string{"X-RateLimit-Limit": "10", "X-Cache": "hit", "X-Request-Source": "staging", "Sunset": "Thu, 05 Dec 2030 00:00:00 GMT"}},
		{"a 401", request{path: "/pets", key: "-"}, map[string]string{"X-RateLimit-Limit": "100", "WWW-Authenticate": `Bearer realm="petctl"`}},
		{"a 404 of an unknown path", request{path: "/nowhere"}, map[string]string{"X-RateLimit-Limit": "100", "X-Cache": ""}},
		{"a 400", request{path: "/pets?limit=0"}, map[string]string{"X-RateLimit-Limit": "100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.do(tt.rq)
			for name, want := range tt.want {
				if got := r.header.Get(name); got != want {
					t.Errorf("%s: %s = %q, want %q", tt.rq.path, name, got, want)
				}
			}
		})
	}
}

// TestConfiguredHeadersRefused: a header HTTP cannot carry, or one petctl
// writes itself, stops start-up, every one named.
func TestConfiguredHeadersRefused(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Spec: s, Keys: []string{testKey}, Headers: map[string]map[string]string{
		"*":          {"Bad Name": "x", "Content-Length": "3", "Content-Type": "text/plain", "Access-Control-Allow-Origin": "*", "X-Line": "a\nb"},
		"getPets":    {"X-A": "1"},
		"listPets":   {"X-Twice": "1", "x-twice": "2"},
		"createPet":  {"Connection": "close"},
		"getPet":     {"Content-Encoding": "gzip"},
		"listOrders": nil,
	}})
	if err == nil {
		t.Fatal("New accepted impossible headers")
	}
	for _, want := range []string{
		`headers: *.Bad Name: not a header name`,
		`headers: *.Content-Length: a framing header`,
		`headers: *.Content-Type: the body decides its Content-Type`,
		`headers: *.Access-Control-Allow-Origin: the cors settings decide the Access-Control-* headers`,
		`headers: *.X-Line: the value holds a control character`,
		`headers: no operation "getPets"`,
		`headers: no operation "listOrders"`,
		`headers: listPets.x-twice: given twice (X-Twice, x-twice)`,
		`headers: createPet.Connection: a hop-by-hop header`,
		`headers: getPet.Content-Encoding: the body is sent as written`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	for key := range optionErrors(t, err) {
		if !strings.HasPrefix(key, "headers.") {
			t.Errorf("a problem at %s, want one at a headers key", key)
		}
	}
}

// TestConfiguredErrorCodes: a renamed code is sent in place of petctl's,
// with its status, message and headers; others stay.
func TestConfiguredErrorCodes(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.ErrorCodes = map[string]string{"validation_failed": "invalid_request", "unauthorized": "invalid_token", "route_not_found": "NOT-FOUND"}
	})
	tests := []struct {
		name       string
		rq         request
		status     int
		code       string
		wantHeader string
	}{
		{"an out-of-range limit", request{path: "/pets?limit=0"}, http.StatusBadRequest, "invalid_request", ""},
		{"a body that breaks the schema", request{method: http.MethodPost, path: "/pets", body: `{"name": 1}`}, http.StatusBadRequest, "invalid_request", ""},
		{"no key", request{path: "/pets", key: "-"}, http.StatusUnauthorized, "invalid_token", "WWW-Authenticate"},
		{"an unknown path", request{path: "/nowhere"}, http.StatusNotFound, "NOT-FOUND", ""},
		{"malformed JSON, not renamed", request{method: http.MethodPost, path: "/pets", body: `{`}, http.StatusBadRequest, "malformed_json", ""},
		{"an unknown animal, not renamed", request{path: "/pets/999999"}, http.StatusNotFound, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := env.do(tt.rq)
			if r.status != tt.status || r.code(t) != tt.code {
				t.Errorf("got %d %s, want %d %s: %s", r.status, r.code(t), tt.status, tt.code, r.body)
			}
			if r.message(t) == "" {
				t.Errorf("the message is lost: %s", r.body)
			}
			if tt.wantHeader != "" && r.header.Get(tt.wantHeader) == "" {
				t.Errorf("%s is lost", tt.wantHeader)
			}
			if strings.Contains(string(r.body), `\u003c`) {
				t.Errorf("the body is written with HTML escapes, unlike every other error: %s", r.body)
			}
		})
	}
}

// TestConfiguredErrorCodesRefused: a code petctl does not have, or one
// that is not a token, stops start-up.
func TestConfiguredErrorCodesRefused(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Spec: s, Keys: []string{testKey}, ErrorCodes: map[string]string{
		"no_such_code": "x", "not_found": "", "unauthorized": "two words", "gone": strings.Repeat("g", 101),
	}})
	if err == nil {
		t.Fatal("New accepted impossible error codes")
	}
	for _, want := range []string{
		`errorCodes: petctl has no error code "no_such_code"`,
		`errorCodes: not_found: "": want a code of 1 to 100 characters`,
		`errorCodes: unauthorized: "two words": want a code`,
		`errorCodes: gone: "ggg`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}
