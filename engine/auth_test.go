package engine

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestRepeatedAuthorizationHeader: two Authorization headers are refused
// with a 401 that says the header is repeated, whatever they hold; no
// credential appears in the answer or the log.
func TestRepeatedAuthorizationHeader(t *testing.T) {
	const other = "other-key-SECRET-7"
	env := newPetstore(t, func(o *Options) { o.Keys = []string{testKey, other} })
	tests := []struct {
		name   string
		values []string
	}{
		{"two valid keys", []string{"Bearer " + testKey, "Bearer " + other}},
		{"the same valid key twice", []string{"Bearer " + testKey, "Bearer " + testKey}},
		{"valid, then unknown", []string{"Bearer " + testKey, "Bearer unknown-SECRET-8"}},
		{"unknown, then valid", []string{"Bearer unknown-SECRET-8", "Bearer " + testKey}},
		{"basic and bearer", []string{"Basic YmFzaWMtU0VDUkVULTk=", "Bearer " + testKey}},
	}
	secrets := []string{testKey, other, "unknown-SECRET-8", "YmFzaWMtU0VDUkVULTk="}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, env.base+"/pets?limit=1", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tc.values {
				req.Header.Add("Authorization", v)
			}
			res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			r := result{status: res.StatusCode, header: res.Header, body: body}
			checkErrorBody(t, r)
			if r.status != http.StatusUnauthorized || r.code(t) != string(CodeUnauthorized) {
				t.Fatalf("got %d %s, want 401 unauthorized", r.status, r.body)
			}
			msg := r.message(t)
			if !strings.Contains(msg, "Authorization header is repeated") || strings.Contains(msg, string(authWrongScheme)) {
				t.Errorf("message %q, want it to say that the header is repeated", msg)
			}
			answer := string(body) + strings.Join(res.Header.Values("WWW-Authenticate"), " ")
			for _, s := range secrets {
				if strings.Contains(answer, s) {
					t.Errorf("the answer contains the credential %q: %s", s, answer)
				}
			}
		})
	}
	logs := env.log.String()
	if want := `auth="` + string(authRepeated) + `"`; strings.Count(logs, want) != len(tests) {
		t.Errorf("the log records %s %d times, want %d:\n%s", want, strings.Count(logs, want), len(tests), logs)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the log contains the credential %q", s)
		}
	}
}
