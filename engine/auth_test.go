package engine

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestUnauthorizedNamesTheScheme: a 401 says where the operation's security
// scheme takes the key, and a client that does what it says is let in; the
// challenge is Bearer only for http bearer schemes.
func TestUnauthorizedNamesTheScheme(t *testing.T) {
	either := []string{
		"security:\n  - bearerAuth: []\n", "security:\n  - bearerAuth: []\n  - appKey: []\n",
		bearerScheme, bearerScheme + "    appKey:\n      type: apiKey\n      in: query\n      name: appid\n",
	}
	for _, c := range []struct {
		name       string
		env        func(*testing.T) *testEnv
		path       string
		hints      []string
		challenges []string
	}{
		{"http bearer", func(t *testing.T) *testEnv { return newPetstore(t) }, "/pets",
			[]string{"'Authorization: Bearer <API_KEY>'"}, []string{`Bearer realm="petctl"`}},
		{"apiKey header", func(t *testing.T) *testEnv { return newLibrary(t) }, "/books",
			[]string{"'X-Library-Key: <API_KEY>'"}, []string{`APIKey realm="petctl", in="header", name="X-Library-Key"`}},
		{"apiKey query", appidEnv, "/pets",
			[]string{"'?appid=<API_KEY>'"}, []string{`APIKey realm="petctl", in="query", name="appid"`}},
		{"apiKey cookie", func(t *testing.T) *testEnv {
			return petstoreVariant(t, "cookie.yaml", bearerScheme, "    bearerAuth:\n      type: apiKey\n      in: cookie\n      name: sid\n")
		}, "/pets", []string{"'Cookie: sid=<API_KEY>'"}, []string{`APIKey realm="petctl", in="cookie", name="sid"`}},
		{"either", func(t *testing.T) *testEnv { return petstoreVariant(t, "either.yaml", either...) }, "/pets",
			[]string{"'Authorization: Bearer <API_KEY>'", "'?appid=<API_KEY>'"},
			[]string{`Bearer realm="petctl"`, `APIKey realm="petctl", in="query", name="appid"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env(t)
			r := env.do(request{path: c.path, key: "-"})
			if r.status != 401 {
				t.Fatalf("no key: %d %s, want 401", r.status, r.body)
			}
			if ch := r.header.Get("WWW-Authenticate"); strings.Contains(ch, "invalid_token") {
				t.Errorf("no key sent, yet the challenge is %q", ch)
			}
			msg := r.message(t)
			for _, h := range c.hints {
				if !strings.Contains(msg, h) {
					t.Errorf("message %q does not name %s", msg, h)
				}
			}
			if got := r.header.Values("WWW-Authenticate"); !slices.Equal(got, c.challenges) {
				t.Errorf("WWW-Authenticate = %q, want %q", got, c.challenges)
			}
			bearer := strings.HasPrefix(c.challenges[0], "Bearer")
			if !bearer && strings.Contains(msg, "Bearer") {
				t.Errorf("message %q names Bearer for a scheme that is not", msg)
			}
			// Do what the message says, with the right key and a wrong one.
			hints := regexp.MustCompile(`'[^']*'`).FindAllString(msg, -1)
			if len(hints) == 0 {
				t.Fatalf("message %q quotes no instruction", msg)
			}
			for _, h := range hints {
				if got := env.do(follow(t, c.path, h, testKey)); got.status != 200 {
					t.Errorf("following %s: %d %s, want 200", h, got.status, got.body)
				}
				got := env.do(follow(t, c.path, h, "wrong-key"))
				if got.status != 401 {
					t.Errorf("following %s with a wrong key: %d, want 401", h, got.status)
				}
				// RFC 6750: invalid_token when a bearer token was refused, not otherwise.
				sentToken := strings.Contains(h, "Bearer")
				if ch := got.header.Get("WWW-Authenticate"); bearer && sentToken != strings.Contains(ch, `error="invalid_token"`) {
					t.Errorf("following %s with a wrong key: challenge %q, want error=\"invalid_token\" %v", h, ch, sentToken)
				}
			}
		})
	}
}

// follow turns an instruction such as 'X-Key: <API_KEY>' or '?appid=<API_KEY>'
// into a request for path carrying key.
func follow(t *testing.T, path, hint, key string) request {
	t.Helper()
	h := strings.ReplaceAll(strings.Trim(hint, "'"), "<API_KEY>", key)
	if q, ok := strings.CutPrefix(h, "?"); ok {
		name, _, _ := strings.Cut(q, "=")
		return request{path: path + "?" + name + "=" + url.QueryEscape(key), key: "-"}
	}
	name, value, ok := strings.Cut(h, ": ")
	if !ok {
		t.Fatalf("instruction %s is neither a header nor a query", hint)
	}
	return request{path: path, key: "-", headers: map[string]string{name: value}}
}
