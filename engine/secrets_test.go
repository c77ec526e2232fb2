package engine

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
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
	if _, err := newCORS(CORSOptions{Origins: []string{"*"}, Credentials: true}, nil); err == nil {
		t.Error("* with credentials accepted")
	}
}

// bearerScheme is how the Petstore declares its scheme; variants replace it.
const bearerScheme = "    bearerAuth:\n      type: http\n      scheme: bearer\n"

// petstoreVariant serves the Petstore document with each old string
// replaced by the new one that follows it.
func petstoreVariant(t *testing.T, name string, oldNew ...string) *testEnv {
	t.Helper()
	doc := petstoreDoc(t)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(doc, oldNew[i]) {
			t.Fatalf("the Petstore no longer contains %q", oldNew[i])
		}
		doc = strings.Replace(doc, oldNew[i], oldNew[i+1], 1)
	}
	s, err := spec.Parse([]byte(doc), name)
	if err != nil {
		t.Fatal(err)
	}
	return start(t, Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{embeddedFixture(t, "petstore/pets.json")}}, "X-Unused", "")
}

// appidEnv serves the Petstore with its bearer scheme replaced by an apiKey
// read from the query parameter appid, a name no heuristic takes for a
// credential (OpenWeatherMap uses it).
func appidEnv(t *testing.T) *testEnv {
	t.Helper()
	return petstoreVariant(t, "appid.yaml", bearerScheme, "    bearerAuth:\n      type: apiKey\n      in: query\n      name: appid\n")
}

// TestQueryAPIKeyNeverLogged: a key sent in the query parameter an apiKey
// scheme names is redacted in the log and the request log, whether it is
// accepted or not, however the name is spelled.
func TestQueryAPIKeyNeverLogged(t *testing.T) {
	env := appidEnv(t)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/pets?limit=1&appid=" + testKey, 200},
		{"/pets?appid=wrong-key-SECRET-1", 401},
		{"/pets?app%69d=" + testKey + "&limit=1", 200}, // Go decodes the name, so this is a credential
		{"/pets?appid=" + testKey + "&appid=wrong-key-SECRET-1", 200},
		{"/pets?APPID=upper-SECRET-5", 401},
		{"/pets/abc?appid=" + testKey, 400},
	} {
		if r := env.do(request{path: c.path, key: "-"}); r.status != c.status {
			t.Errorf("GET %s: status %d, want %d: %s", c.path, r.status, c.status, r.body)
		}
	}
	logs := env.log.String()
	reqs := string(env.admin("GET", "requests", "", "").body)
	for _, s := range []string{testKey, "wrong-key-SECRET-1", "upper-SECRET-5"} {
		if strings.Contains(logs, s) {
			t.Errorf("the log contains %q:\n%s", s, logs)
		}
		if strings.Contains(reqs, s) {
			t.Errorf("the request log contains %q: %s", s, reqs)
		}
	}
	// The requests were logged, with the parameter kept and its value hidden.
	if got := strings.Count(logs, "appid=REDACTED"); got < 4 {
		t.Errorf("the log shows appid=REDACTED %d times, want at least 4:\n%s", got, logs)
	}
	if !strings.Contains(reqs, `app%69d=REDACTED`) || !strings.Contains(reqs, `APPID=REDACTED`) {
		t.Errorf("the request log does not show the redacted spellings: %s", reqs)
	}
}

// TestSemicolonQueryRedacted: a query that uses ';' as a separator gets a
// 400, even when the key is in the part Go cannot read, and the credential
// after the ';' is in neither log.
func TestSemicolonQueryRedacted(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    func(*testing.T) *testEnv
		path   string
		key    string
		status int
	}{
		{"bearer", func(t *testing.T) *testEnv { return newPetstore(t) }, "/pets?limit=1;access_token=semi-SECRET-6", "", 400},
		{"appid", appidEnv, "/pets?limit=1;appid=" + testKey, "-", 400},
		{"appid", appidEnv, "/pets?appid=" + testKey + "&limit=1;appid=semi-SECRET-6", "-", 400},
	} {
		env := c.env(t)
		if r := env.do(request{path: c.path, key: c.key}); r.status != c.status {
			t.Errorf("%s: GET %s: status %d, want %d: %s", c.name, c.path, r.status, c.status, r.body)
		}
		logs := env.log.String()
		reqs := string(env.admin("GET", "requests", "", "").body)
		for _, s := range []string{testKey, "semi-SECRET-6"} {
			if strings.Contains(logs, s) || strings.Contains(reqs, s) {
				t.Errorf("%s: GET %s: %q is logged:\n%s\n%s", c.name, c.path, s, logs, reqs)
			}
		}
		if !strings.Contains(logs, "=REDACTED") {
			t.Errorf("%s: GET %s: the log shows no redacted value:\n%s", c.name, c.path, logs)
		}
	}
}

// TestDeclaredKeyParameterNotEchoed: a document may also declare its key
// parameter, with a pattern; the validator's message then quotes the value.
// The key is in neither log nor the Error body, as a query or a header key.
func TestDeclaredKeyParameterNotEchoed(t *testing.T) {
	const list = "      parameters:\n        - name: limit\n"
	for _, c := range []struct{ in, name string }{{"query", "appid"}, {"header", "X-Api-Key"}} {
		t.Run(c.in, func(t *testing.T) {
			env := petstoreVariant(t, c.in+".yaml",
				bearerScheme, "    bearerAuth:\n      type: apiKey\n      in: "+c.in+"\n      name: "+c.name+"\n",
				list, "      parameters:\n        - name: "+c.name+"\n          in: "+c.in+"\n          schema:\n            type: string\n            pattern: '^[a-z]+$'\n"+list[len("      parameters:\n"):])
			rq := request{path: "/pets?limit=1", key: "-", headers: map[string]string{c.name: testKey}}
			if c.in == "query" {
				rq = request{path: "/pets?limit=1&" + c.name + "=" + testKey, key: "-"}
			}
			r := env.do(rq)
			if r.status != 400 || !strings.Contains(r.message(t), c.name) {
				t.Fatalf("a key that breaks the declared pattern: %d %s, want 400 naming %s", r.status, r.body, c.name)
			}
			logs, reqs := env.log.String(), string(env.admin("GET", "requests", "", "").body)
			for what, text := range map[string]string{"the log": logs, "the request log": reqs, "the Error body": string(r.body)} {
				if strings.Contains(text, testKey) {
					t.Errorf("%s contains the key: %s", what, text)
				}
			}
		})
	}
}
