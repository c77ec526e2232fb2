package engine

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// securityDocument is fixtures/styles/security.yaml: every kind of
// security scheme and every requirement shape, one operation each.
const securityDocument = "../fixtures/styles/security.yaml"

// newSecurity serves securityDocument with testKey as the development key.
// Its operations are no collections, so each gets a configured answer: a
// request that passes authentication gets 200.
func newSecurity(t *testing.T, mutate ...func(*Options)) *testEnv {
	t.Helper()
	s, err := spec.Load(securityDocument)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}, Responses: map[string]Stub{}}
	for _, op := range s.Operations {
		o.Responses[op.ID] = Stub{Status: http.StatusOK, Body: json.RawMessage(`{"ok":true}`)}
	}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "Authorization", "Bearer ")
}

// basicAuth is an Authorization value for user and password.
func basicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// authCase is one request to an operation of securityDocument and what it
// must get.
type authCase struct {
	name    string
	method  string
	path    string
	headers map[string]string
	status  int
	code    string // the Error body's code, for a refusal
	// challenges are the WWW-Authenticate values of a refusal, when set.
	challenges []string
}

func (c authCase) run(t *testing.T, env *testEnv) {
	t.Helper()
	r := env.do(request{method: c.method, path: c.path, key: "-", headers: c.headers})
	if r.status != c.status {
		t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		return
	}
	if c.code != "" {
		if got := r.code(t); got != c.code {
			t.Errorf("%s: code %q, want %q", c.name, got, c.code)
		}
	}
	if c.challenges != nil {
		if got := r.header.Values("WWW-Authenticate"); !slices.Equal(got, c.challenges) {
			t.Errorf("%s: WWW-Authenticate %q, want %q", c.name, got, c.challenges)
		}
	}
}

const (
	bearerChallenge  = `Bearer realm="petctl"`
	invalidToken     = `Bearer realm="petctl", error="invalid_token"`
	basicChallenge   = `Basic realm="petctl", charset="UTF-8"`
	headerKeyChallen = `APIKey realm="petctl", in="header", name="X-Api-Key"`
)

// TestEverySchemeWithTheDevelopmentKey: with no scheme restricted, the
// development key is accepted wherever a credential is a secret string (an
// apiKey in a header, the query or a cookie, an http bearer token, a token
// with every scope for oauth2 and openIdConnect, the password of any basic
// user), and every requirement shape is honoured: the global requirement,
// an operation's own, OR, AND, security: [] and an optional {}.
func TestEverySchemeWithTheDevelopmentKey(t *testing.T) {
	env := newSecurity(t)
	bearer := map[string]string{"Authorization": "Bearer " + testKey}
	key := map[string]string{"X-Api-Key": testKey}
	for _, c := range []authCase{
		// The global requirement: http bearer.
		{name: "global bearer", path: "/global", headers: bearer, status: 200},
		{name: "global, none", path: "/global", status: 401, code: "unauthorized", challenges: []string{bearerChallenge}},
		{name: "global, wrong token", path: "/global", headers: map[string]string{"Authorization": "Bearer wrong"}, status: 401, challenges: []string{invalidToken}},
		{name: "global, basic instead", path: "/global", headers: map[string]string{"Authorization": basicAuth("me", testKey)}, status: 401, challenges: []string{bearerChallenge}},
		// OR: an apiKey header or http basic, with any user name.
		{name: "OR, the key", path: "/either", headers: key, status: 200},
		{name: "OR, basic", path: "/either", headers: map[string]string{"Authorization": basicAuth("anyone", testKey)}, status: 200},
		{name: "OR, basic, another user", path: "/either", headers: map[string]string{"Authorization": basicAuth("someone-else", testKey)}, status: 200},
		{name: "OR, basic, wrong password", path: "/either", headers: map[string]string{"Authorization": basicAuth("anyone", "wrong")}, status: 401},
		{name: "OR, basic, not base64", path: "/either", headers: map[string]string{"Authorization": "Basic %%%"}, status: 401},
		{name: "OR, basic, no colon", path: "/either", headers: map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(testKey))}, status: 401},
		{name: "OR, basic, the scheme word only", path: "/either", headers: map[string]string{"Authorization": "Basic"}, status: 401},
		{name: "OR, bearer is neither", path: "/either", headers: bearer, status: 401},
		{name: "OR, none", path: "/either", status: 401, challenges: []string{headerKeyChallen, basicChallenge}},
		// AND: a key in the query and a key in a cookie, both at once.
		{name: "AND, both", path: "/both?apikey=" + testKey, headers: map[string]string{"Cookie": "session=" + testKey}, status: 200},
		{name: "AND, query only", path: "/both?apikey=" + testKey, status: 401},
		{name: "AND, cookie only", path: "/both", headers: map[string]string{"Cookie": "session=" + testKey}, status: 401},
		{name: "AND, one wrong", path: "/both?apikey=wrong", headers: map[string]string{"Cookie": "session=" + testKey}, status: 401},
		// security: [] overrides the global requirement.
		{name: "empty", path: "/open", status: 200},
		{name: "empty, a wrong token is no matter", path: "/open", headers: map[string]string{"Authorization": "Bearer wrong"}, status: 200},
		// An optional requirement ({} among the alternatives).
		{name: "optional, none", path: "/optional", status: 200},
		{name: "optional, the key", path: "/optional", headers: key, status: 200},
		// oauth2 and openIdConnect: the development key has every scope.
		{name: "oauth2", method: "POST", path: "/scoped", headers: bearer, status: 200},
		{name: "oauth2, none", method: "POST", path: "/scoped", status: 401, challenges: []string{bearerChallenge}},
		{name: "openIdConnect", path: "/oidc", headers: bearer, status: 200},
		{name: "AND of a key and oauth2", method: "POST", path: "/key-and-token", headers: map[string]string{"X-Api-Key": testKey, "Authorization": "Bearer " + testKey}, status: 200},
		{name: "AND of a key and oauth2, the token only", method: "POST", path: "/key-and-token", headers: bearer, status: 401},
		// The document declares 403, not 401: its refusals follow it.
		{name: "403 only, none", path: "/forbidden-only", status: 403, code: "forbidden", challenges: []string{headerKeyChallen}},
		{name: "403 only, wrong", path: "/forbidden-only", headers: map[string]string{"X-Api-Key": "wrong"}, status: 403, code: "forbidden"},
		{name: "403 only, the key", path: "/forbidden-only", headers: key, status: 200},
		// Schemes petctl cannot check: only their operations answer 501.
		{name: "mutualTLS", path: "/certificate", headers: bearer, status: 501, code: "security_scheme_unsupported"},
		{name: "http digest", path: "/digest", headers: bearer, status: 501, code: "security_scheme_unsupported"},
		{name: "mutualTLS or a key, the key", path: "/certificate-or-key", headers: key, status: 200},
		{name: "mutualTLS or a key, none", path: "/certificate-or-key", status: 401, challenges: []string{headerKeyChallen}},
	} {
		c.run(t, env)
	}
}

// TestRestrictedSchemesTakeOnlyTheirOwn: a scheme given its own
// credentials accepts those and no longer the development key; the schemes
// without an entry still accept it.
func TestRestrictedSchemesTakeOnlyTheirOwn(t *testing.T) {
	env := newSecurity(t, func(o *Options) {
		o.Auth.Schemes = map[string]SchemeCredentials{
			"basic":     {Users: map[string]string{"alice": "alice-password"}},
			"headerKey": {Keys: []string{"header-only-key"}},
			"bearer":    {Tokens: []StaticToken{{Token: "bearer-only-token"}}},
			"oauth":     {Tokens: []StaticToken{{Token: "read-token", Scopes: []string{"pets:read"}}, {Token: "all-token"}}},
		}
	})
	auth := func(v string) map[string]string { return map[string]string{"Authorization": v} }
	scope := `Bearer realm="petctl", error="insufficient_scope", scope="pets:write"`
	for _, c := range []authCase{
		{name: "basic, the user", path: "/either", headers: auth(basicAuth("alice", "alice-password")), status: 200},
		{name: "basic, the development key", path: "/either", headers: auth(basicAuth("alice", testKey)), status: 401},
		{name: "basic, another user", path: "/either", headers: auth(basicAuth("bob", "alice-password")), status: 401},
		{name: "basic, the user's name in another case", path: "/either", headers: auth(basicAuth("Alice", "alice-password")), status: 401},
		{name: "apiKey, its key", path: "/either", headers: map[string]string{"X-Api-Key": "header-only-key"}, status: 200},
		{name: "apiKey, the development key", path: "/either", headers: map[string]string{"X-Api-Key": testKey}, status: 401},
		{name: "bearer, its token", path: "/global", headers: auth("Bearer bearer-only-token"), status: 200},
		{name: "bearer, the development key", path: "/global", headers: auth("Bearer " + testKey), status: 401},
		{name: "bearer, another scheme's token", path: "/global", headers: auth("Bearer all-token"), status: 401},
		{name: "oauth2, a static token with every scope", method: "POST", path: "/scoped", headers: auth("Bearer all-token"), status: 200},
		{name: "oauth2, a static token with the scope", path: "/read", headers: auth("Bearer read-token"), status: 200},
		{name: "oauth2, a static token without the scope", method: "POST", path: "/scoped", headers: auth("Bearer read-token"), status: 403, code: "insufficient_scope", challenges: []string{scope}},
		{name: "oauth2, the development key", method: "POST", path: "/scoped", headers: auth("Bearer " + testKey), status: 401},
		// Unrestricted: the development key still works.
		{name: "queryKey and cookieKey", path: "/both?apikey=" + testKey, headers: map[string]string{"Cookie": "session=" + testKey}, status: 200},
		{name: "openIdConnect", path: "/oidc", headers: auth("Bearer " + testKey), status: 200},
	} {
		c.run(t, env)
	}
}

// TestOpenAuthTakesAnyCredential: in open mode every unrestricted scheme
// takes any non-empty credential, a basic password too; an empty one is
// still refused.
func TestOpenAuthTakesAnyCredential(t *testing.T) {
	env := newSecurity(t, func(o *Options) { o.Keys, o.OpenAuth = nil, true })
	for _, c := range []authCase{
		{name: "bearer", path: "/global", headers: map[string]string{"Authorization": "Bearer anything"}, status: 200},
		{name: "basic", path: "/either", headers: map[string]string{"Authorization": basicAuth("u", "anything")}, status: 200},
		{name: "basic, empty password", path: "/either", headers: map[string]string{"Authorization": basicAuth("u", "")}, status: 401},
		{name: "oauth2", method: "POST", path: "/scoped", headers: map[string]string{"Authorization": "Bearer anything"}, status: 200},
		{name: "none", path: "/global", status: 401},
	} {
		c.run(t, env)
	}
}

// TestUnservableSchemesDoNotRefuseTheDocument: a document whose operations
// need mutualTLS, http digest or a scheme it never declares starts, serves
// its other operations, warns once per operation that cannot be served,
// and answers those 501 with a message that names the scheme.
func TestUnservableSchemesDoNotRefuseTheDocument(t *testing.T) {
	doc := `openapi: 3.1.0
info: {title: Unservable, version: "1"}
paths:
  /cert:
    get:
      operationId: cert
      security: [{mtls: []}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /ghost:
    get:
      operationId: ghost
      security: [{ghostScheme: []}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
  /key:
    get:
      operationId: key
      security: [{key: []}]
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
components:
  securitySchemes:
    mtls: {type: mutualTLS}
    key: {type: apiKey, in: header, name: X-Key}
`
	s, err := spec.Parse([]byte(doc), "unservable.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}, Responses: map[string]Stub{}}
	for _, id := range []string{"cert", "ghost", "key"} {
		o.Responses[id] = Stub{Status: 200, Body: json.RawMessage(`{}`)}
	}
	env := start(t, o, "X-Key", "")
	for _, c := range []struct {
		path, scheme string
		status       int
	}{
		{"/cert", `"mtls" (mutualTLS`, 501},
		{"/ghost", `"ghostScheme" (not declared under components.securitySchemes)`, 501},
		{"/key", "", 200},
	} {
		r := env.get(c.path)
		if r.status != c.status {
			t.Errorf("GET %s: %d %s, want %d", c.path, r.status, r.body, c.status)
			continue
		}
		if c.scheme != "" && !strings.Contains(r.message(t), c.scheme) {
			t.Errorf("GET %s: message %q does not name %s", c.path, r.message(t), c.scheme)
		}
	}
	logs := env.log.String()
	for _, op := range []string{"cert (GET /cert)", "ghost (GET /ghost)"} {
		if n := strings.Count(logs, `it answers 501" operation="`+op+`"`); n != 1 {
			t.Errorf("operation %s: %d start-up warnings, want 1:\n%s", op, n, logs)
		}
	}
}

// TestTheDevelopmentKeyIsNeededOnlyWhereUsed: without a key, start-up is
// refused while an unrestricted scheme would need one, and allowed once
// every scheme the operations use has its own credentials.
func TestTheDevelopmentKeyIsNeededOnlyWhereUsed(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: Own credentials, version: "1"}
security: [{basic: []}]
paths:
  /x:
    get:
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
components:
  securitySchemes:
    basic: {type: http, scheme: basic}
`
	s, err := spec.Parse([]byte(doc), "own.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Spec: s}); err == nil || !strings.Contains(err.Error(), "no API key") {
		t.Errorf("no key and an unrestricted scheme: %v, want the no API key error", err)
	}
	own := AuthOptions{Schemes: map[string]SchemeCredentials{"basic": {Users: map[string]string{"u": "p"}}}}
	if _, err := New(Options{Spec: s, Auth: own}); err != nil {
		t.Errorf("every scheme restricted: %v, want none", err)
	}
}

// TestCredentialsNeverLogged: no credential appears in the log, the
// request log or an answer, wherever it travels: a basic password, an
// apiKey in a header, the query or a cookie, a bearer token, an issued
// JWT, and the client secret and password in a token request's body, its
// Authorization header or (by mistake) its query.
func TestCredentialsNeverLogged(t *testing.T) {
	env := newSecurity(t, func(o *Options) {
		o.Auth.Schemes = map[string]SchemeCredentials{
			"basic": {Users: map[string]string{"alice": "basic-SECRET-1"}},
			"oauth": {Clients: map[string]string{"ci": "client-SECRET-2"}, Users: map[string]string{"bob": "password-SECRET-3"}},
		}
	})
	secrets := []string{testKey, "basic-SECRET-1", "client-SECRET-2", "password-SECRET-3", "query-SECRET-4", "cookie-SECRET-5", "header-SECRET-6", "bearer-SECRET-7", "wrong-SECRET-8"}
	var answers []string
	for _, rq := range []request{
		{path: "/either", headers: map[string]string{"Authorization": basicAuth("alice", "basic-SECRET-1")}},
		{path: "/either", headers: map[string]string{"Authorization": basicAuth("alice", "wrong-SECRET-8")}},
		{path: "/both?apikey=query-SECRET-4", headers: map[string]string{"Cookie": "session=cookie-SECRET-5"}},
		{path: "/both?apikey=" + testKey + "&x=1", headers: map[string]string{"Cookie": "session=" + testKey}},
		{path: "/either", headers: map[string]string{"X-Api-Key": "header-SECRET-6"}},
		{path: "/global", headers: map[string]string{"Authorization": "Bearer bearer-SECRET-7"}},
		{path: "/global"},
	} {
		rq.key = "-"
		r := env.do(rq)
		answers = append(answers, string(r.body), strings.Join(r.header.Values("WWW-Authenticate"), " "))
	}
	var issued []string
	for _, tr := range []struct {
		path         string
		form         url.Values
		user, secret string
	}{
		{TokenPath, form("grant_type", "client_credentials"), "ci", "client-SECRET-2"},
		{TokenPath, form("grant_type", "client_credentials", "client_id", "ci", "client_secret", "client-SECRET-2"), "", ""},
		{TokenPath, form("grant_type", "password", "username", "bob", "password", "password-SECRET-3"), "", ""},
		{TokenPath, form("grant_type", "password", "username", "bob", "password", "wrong-SECRET-8"), "", ""},
		{TokenPath, form("grant_type", "client_credentials"), "ci", "wrong-SECRET-8"},
		{TokenPath + "?client_secret=client-SECRET-2&password=password-SECRET-3", form("grant_type", "client_credentials"), "ci", "client-SECRET-2"},
	} {
		a := env.postForm(tr.path, tr.form, tr.user, tr.secret)
		if tok, ok := a.body["access_token"].(string); ok {
			issued = append(issued, tok)
			delete(a.body, "access_token") // given to the client that asked: that is its purpose
		}
		out, _ := json.Marshal(a.body)
		answers = append(answers, string(out), a.header.Get("WWW-Authenticate"))
	}
	if len(issued) != 4 {
		t.Fatalf("%d tokens issued, want 4", len(issued))
	}
	for _, tok := range issued {
		env.do(request{method: "POST", path: "/scoped", key: "Bearer " + tok})
		env.do(request{path: "/oidc", key: "Bearer " + tok}) // refused: issued for another scheme
	}
	answers = append(answers, string(env.admin("GET", "requests", "", "").body))
	logs := env.log.String()
	for _, s := range append(secrets, issued...) {
		if strings.Contains(logs, s) {
			t.Errorf("the log contains %q:\n%s", s, logs)
		}
		for _, a := range answers {
			if strings.Contains(a, s) {
				t.Errorf("an answer contains %q: %s", s, a)
			}
		}
	}
	for _, want := range []string{`path=/__petctl/oauth/token status=200`, `query="client_secret=REDACTED&password=REDACTED"`, `auth="unknown user or wrong password"`, `auth="token issued for another security scheme"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}
}
