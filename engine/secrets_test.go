package engine

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSecretsNeverLeak: API keys, Authorization headers and the admin key
// appear in no log line, no error body and no request-log entry, whatever
// the request does with them; failed auth is logged, without the token.
func TestSecretsNeverLeak(t *testing.T) {
	const adminKey = "admin-key-SECRET-3"
	env := newPetstore(t, func(o *Options) { o.AdminKey = adminKey })
	secrets := []string{testKey, adminKey, "wrong-key-SECRET-1", "basic-SECRET-2", "query-SECRET-4"}
	var bodies []string
	for _, rq := range []request{
		{path: "/pets"},
		{path: "/pets", key: "-"},
		{path: "/pets", key: "Bearer wrong-key-SECRET-1"},
		{path: "/pets", key: "Basic basic-SECRET-2"},
		{path: "/pets", key: "Bearer " + adminKey},
		{path: "/pets?limit=0&api_key=query-SECRET-4&token=query-SECRET-4"},
		{path: "/pets/abc", key: "Bearer wrong-key-SECRET-1"},
		{method: "POST", path: "/pets", body: `{"name":"x"}`},
		{method: "POST", path: "/pets", body: `{"name":"x","categoryId":1}`, key: "Bearer wrong-key-SECRET-1"},
		{path: "/nowhere", key: "Bearer wrong-key-SECRET-1"},
		{method: "DELETE", path: "/pets", key: "Bearer " + testKey},
	} {
		r := env.do(rq)
		bodies = append(bodies, string(r.body), strings.Join(r.header.Values("WWW-Authenticate"), " "))
	}
	// The admin endpoints from another host, with wrong and right keys.
	for _, auth := range []string{"Bearer wrong-key-SECRET-1", "Bearer " + adminKey} {
		req := httptest.NewRequest(http.MethodGet, "/__petctl/requests", nil)
		req.RemoteAddr = "192.0.2.9:4000"
		req.Header.Set("Authorization", auth)
		w := httptest.NewRecorder()
		env.srv.ServeHTTP(w, req)
		bodies = append(bodies, w.Body.String())
	}
	bodies = append(bodies, string(env.admin("GET", "requests", "", "").body))
	logs := env.log.String()
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the log contains %q:\n%s", s, logs)
		}
		for _, b := range bodies {
			if strings.Contains(b, s) {
				t.Errorf("a response contains %q: %s", s, b)
			}
		}
	}
	for _, f := range []authFailure{authUnknownKey, authWrongScheme, authMissing} {
		if want := `auth="` + string(f) + `"`; !strings.Contains(logs, want) {
			t.Errorf("failed auth is not logged as %s:\n%s", want, logs)
		}
	}
}

// TestCORSNeverReflectsArbitraryOriginsWithCredentials.
func TestCORSNeverReflectsArbitraryOriginsWithCredentials(t *testing.T) {
	for _, o := range []CORSOptions{
		{Origins: []string{"https://app.example.com"}, Credentials: true},
		{Credentials: true},
		{Origins: []string{"*"}},
	} {
		env := newPetstore(t, func(opts *Options) { opts.CORS = o })
		for _, origin := range []string{"https://evil.example", "null", "https://app.example.com.evil.example"} {
			r := env.do(request{path: "/pets?limit=1", headers: map[string]string{"Origin": origin}})
			acao, creds := r.header.Get("Access-Control-Allow-Origin"), r.header.Get("Access-Control-Allow-Credentials")
			if acao == origin {
				t.Errorf("%+v: origin %q reflected", o, origin)
			}
			if creds != "" && acao == "*" {
				t.Errorf("%+v: credentials allowed for any origin", o)
			}
		}
	}
	if _, err := newCORS(CORSOptions{Origins: []string{"*"}, Credentials: true}); err == nil {
		t.Error("* with credentials accepted")
	}
}
