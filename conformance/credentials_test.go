package conformance

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestCredentialsStayOnOrigin: a deployment that redirects a GET (301,
// 302, 307, 308) to another port of the same host, the query along, gets
// its redirect reported, not followed: the other port receives none of the
// credentials, whichever way the scheme sends them. A redirect that stays
// on the origin is still followed, with them.
func TestCredentialsStayOnOrigin(t *testing.T) {
	t.Parallel()
	const key = "origin-test-key-3c9d"
	// holding lists where r carries the key: any header (Authorization,
	// an apiKey header, Cookie) or the query.
	holding := func(r *http.Request) []string {
		var found []string
		for name, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, key) {
					found = append(found, name+": "+v)
				}
			}
		}
		if strings.Contains(r.URL.RawQuery, key) {
			found = append(found, "query "+r.URL.RawQuery)
		}
		return found
	}
	var mu sync.Mutex
	var received []string // what the other origin was sent of the key
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, holding(r)...)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/v1/away/"):
			code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/v1/away/"))
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), code)
		case r.URL.Path == "/v1/here":
			http.Redirect(w, r, "/v1/landed?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		case r.URL.Path == "/v1/landed" && len(holding(r)) > 0:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer first.Close()
	if o, f := strings.Split(other.URL, ":"), strings.Split(first.URL, ":"); o[1] != f[1] || o[2] == f[2] {
		t.Fatalf("the servers are %s and %s, want one host and two ports", first.URL, other.URL)
	}
	base, _ := url.Parse(first.URL + "/v1")

	kinds := []struct {
		name   string
		scheme spec.Scheme
	}{
		{"bearer", spec.Scheme{Kind: spec.SchemeBearer, In: "header", Param: "Authorization"}},
		{"apiKey header", spec.Scheme{Kind: spec.SchemeAPIKey, In: "header", Param: "X-API-Key"}},
		{"apiKey query", spec.Scheme{Kind: spec.SchemeAPIKey, In: "query", Param: "appid"}},
		{"apiKey cookie", spec.Scheme{Kind: spec.SchemeAPIKey, In: "cookie", Param: "sid"}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			c := newClient(base, keyOnly(key), 5*time.Second, time.Second, time.Minute)
			defer c.close()
			sc := k.scheme
			sc.Name = "k"
			get := func(path string) *Exchange {
				t.Helper()
				op := securedBy(&sc, &spec.Operation{ID: "op", Method: http.MethodGet, Path: path})
				r := &request{op: op, alt: op.Requirements[0], auth: authKey}
				c.credentialQuery(r)
				ex, err := c.do(t.Context(), r)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				return ex
			}
			// The control: the key reaches the origin, and holding sees it there.
			if ex := get("/here"); ex.Status != http.StatusNoContent || ex.Redirect != "" {
				t.Errorf("a redirect on the origin: %d (%q), want it followed with the credentials to 204", ex.Status, ex.Redirect)
			}
			for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
				ex := get("/away/" + strconv.Itoa(code))
				if got, want := ex.Status, code; got != want {
					t.Errorf("a %d to another port: got %d, want the redirect itself", code, got)
				}
				if !strings.Contains(ex.Redirect, "not followed") || !strings.Contains(ex.Redirect, other.URL) || !strings.Contains(ex.Redirect, "another origin") {
					t.Errorf("a %d to another port: Redirect = %q, want it to say it was not followed, and where to", code, ex.Redirect)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(received) > 0 {
				t.Errorf("another port of the host received the key: %q", received)
			}
			received = nil
		})
	}
}

// TestSameOrigin: an origin is the scheme, the host and the port, a port
// left out being the scheme's default.
func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"http://h.example/v1", "http://h.example/other?x=1", true},
		{"http://h.example/v1", "http://h.example:80/v1", true},
		{"https://h.example/v1", "https://H.EXAMPLE:443/v1", true},
		{"HTTP://h.example/v1", "http://h.example/v1", true},
		{"http://[::1]:80/", "http://[::1]/", true},
		{"http://127.0.0.1:4010/v1", "http://127.0.0.1:4011/v1", false},
		{"http://h.example/v1", "https://h.example/v1", false},
		{"http://h.example:443/v1", "https://h.example/v1", false},
		{"http://h.example/v1", "http://api.h.example/v1", false},
		{"http://h.example/v1", "http://h.example.evil/v1", false},
		{"http://user@h.example/v1", "http://h.example/v1", true},
	}
	for _, tc := range tests {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameOrigin(a, b); got != tc.want {
			t.Errorf("sameOrigin(%s, %s) = %t, want %t", tc.a, tc.b, got, tc.want)
		}
	}
}

// keyOnly is the credentials of a run given an API key alone.
func keyOnly(key string) *credentials {
	return newCredentials(Config{APIKey: key})
}

// securedBy makes op require sc alone, as spec.Parse would for a document
// whose operation lists the one scheme.
func securedBy(sc *spec.Scheme, op *spec.Operation) *spec.Operation {
	op.Security = [][]string{{sc.Name}}
	op.Requirements = []spec.Requirement{{{Scheme: sc}}}
	return op
}
