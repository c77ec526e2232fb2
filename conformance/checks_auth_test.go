package conformance_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// schemesDocument has one operation per kind of security scheme, one that
// requires an OAuth 2 scope, and two whose alternative needs two schemes
// at once.
const schemesDocument = `openapi: 3.0.3
info: {title: Schemes, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    digest: {type: http, scheme: digest}
    hdr: {type: apiKey, in: header, name: X-Key}
    qry: {type: apiKey, in: query, name: appid}
    ck: {type: apiKey, in: cookie, name: sid}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: "https://auth.example.com/token", scopes: {"pets:read": r, "pets:write": w}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration"}
  schemas:
    Error:
      type: object
      required: [code, message, status]
      properties: {code: {type: string}, message: {type: string}, status: {type: integer}}
  responses:
    Ok:
      description: any answer
      content: {application/json: {schema: {type: object}}}
    Answer:
      description: any answer
      content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
paths:
%s`

// TestAuthChecksPerScheme: the run sends each credential as its scheme
// asks (http bearer and basic; apiKey in a header, the query or a cookie;
// an OAuth 2 token fetched with the client credentials, with the scopes
// the operation requires) and checks the refusals that fit it: for a
// scheme it cannot present (digest) it sends none and checks only that a
// request without credentials is refused. A token without a required
// scope must get 403.
func TestAuthChecksPerScheme(t *testing.T) {
	t.Parallel()
	const key, user, pass, clientID, clientSecret = "scheme-test-key-77a1", "conformer", "basic-pass-5e2a", "client-9", "client-secret-61f0"
	basic := "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	tests := []struct {
		op      string
		schemes []string // one alternative
		checks  []string // the auth checks, in order
		sent    string   // the credentials of a request with the key
	}{
		{"bearerOp", []string{"bearer"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)", "with a wrong key"}, "Authorization: Bearer " + key},
		{"headerOp", []string{"hdr"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "X-Key: " + key},
		{"queryOp", []string{"qry"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "?appid=" + key},
		{"cookieOp", []string{"ck"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "Cookie: sid=" + key},
		{"basicOp", []string{"basic"}, []string{"without credentials", "with another scheme (Bearer)", "with a wrong password"}, basic},
		{"digestOp", []string{"digest"}, []string{"without credentials"}, ""},
		{"oauthOp", []string{"oauth"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)", "with a wrong key"}, "Authorization: Bearer token-for-"},
		{"scopedOp", []string{"oauth:pets:write"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)", "with a wrong key", "with a token without the scope pets:write"}, "Authorization: Bearer token-for-pets:write"},
		{"oidcOp", []string{"oidc"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)", "with a wrong key"}, "Authorization: Bearer token-for-"},
		{"headerAndQueryOp", []string{"hdr", "qry"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "X-Key: " + key + "; ?appid=" + key},
		{"bearerAndBasicOp", []string{"basic", "bearer"}, []string{"without credentials"}, ""},
	}
	var paths strings.Builder
	for _, tc := range tests {
		var list []string
		for _, s := range tc.schemes {
			name, scope, _ := strings.Cut(s, ":")
			if scope != "" {
				list = append(list, name+": ["+scope+"]")
			} else {
				list = append(list, name+": []")
			}
		}
		fmt.Fprintf(&paths, "  /%s:\n    get:\n      operationId: %s\n      security: [{%s}]\n      responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Answer'}, '403': {$ref: '#/components/responses/Answer'}}\n",
			strings.ToLower(tc.op), tc.op, strings.Join(list, ", "))
	}
	doc, err := spec.Parse([]byte(fmt.Sprintf(schemesDocument, paths.String())), "schemes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The token endpoint gives a token naming the scopes asked for, to
	// the client that authenticates.
	var tokenAsks, leaks []string
	var mu sync.Mutex
	tokens := serveRaw(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization")+r.URL.RawQuery+r.Header.Get("Cookie"), key) {
			mu.Lock()
			leaks = append(leaks, "the token endpoint got the API key")
			mu.Unlock()
		}
		id, secret, ok := r.BasicAuth()
		if !ok || id != clientID || secret != clientSecret || r.PostFormValue("grant_type") != "client_credentials" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		mu.Lock()
		tokenAsks = append(tokenAsks, r.PostFormValue("scope"))
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"access_token": "token-for-" + r.PostFormValue("scope"), "token_type": "Bearer", "scope": r.PostFormValue("scope")})
	}))
	// The deployment lets the credentials through, refuses everything
	// else (a token without pets:write with 403), and notes the
	// credentials of each request that carries them.
	sent := map[string][]string{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, secret, ok := r.BasicAuth(); ok && (id == clientID || secret == clientSecret) {
			mu.Lock()
			leaks = append(leaks, "the deployment got the client credentials")
			mu.Unlock()
		}
		var creds []string
		for _, name := range []string{"Authorization", "X-Key", "Cookie"} {
			if v := r.Header.Get(name); strings.Contains(v, key) || v == basic[len("Authorization: "):] || strings.HasPrefix(v, "Bearer token-for-") {
				creds = append(creds, name+": "+v)
			}
		}
		if v := r.URL.Query().Get("appid"); v == key {
			creds = append(creds, "?appid="+v)
		}
		p := strings.TrimPrefix(r.URL.Path, "/v1")
		w.Header().Set("Content-Type", "application/json")
		status := http.StatusUnauthorized
		switch {
		case p == "/scopedop" && r.Header.Get("Authorization") == "Bearer token-for-pets:read":
			status = http.StatusForbidden
		case len(creds) > 0 && (p != "/headerandqueryop" || len(creds) == 2):
			mu.Lock()
			sent[p] = append(sent[p], strings.Join(creds, "; "))
			mu.Unlock()
			w.Write([]byte(`{}`))
			return
		}
		w.WriteHeader(status)
		w.Write(errorBody(status, "refused"))
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) {
		c.APIKey, c.Spec, c.Validator = key, doc, nil
		c.Basic = user + ":" + pass
		c.OAuth2ClientID, c.OAuth2ClientSecret, c.TokenURL = clientID, clientSecret, tokens+"/token"
		c.LabelFilter = "auth"
	})
	if f := o.failed(); len(f) > 0 {
		t.Errorf("failed checks: %q\n%s", f, o.out)
	}
	for _, tc := range tests {
		var got []string
		for _, sr := range o.res.Report.SpecReports {
			if len(sr.ContainerHierarchyTexts) > 2 && sr.ContainerHierarchyTexts[1] == "auth" && strings.HasPrefix(sr.ContainerHierarchyTexts[2], tc.op+" ") {
				text, _, _ := strings.Cut(sr.LeafNodeText, " gives ")
				got = append(got, text)
			}
		}
		if !slices.Equal(got, tc.checks) {
			t.Errorf("%s (%s): auth checks %q, want %q", tc.op, strings.Join(tc.schemes, " and "), got, tc.checks)
		}
		mu.Lock()
		creds := slices.Compact(sent["/"+strings.ToLower(tc.op)])
		mu.Unlock()
		if tc.sent == "" && len(creds) > 0 || tc.sent != "" && (len(creds) != 1 || !strings.HasPrefix(creds[0], tc.sent)) {
			t.Errorf("%s (%s): the credentials went as %q, want %q", tc.op, strings.Join(tc.schemes, " and "), creds, tc.sent)
		}
	}
	mu.Lock()
	if len(leaks) > 0 {
		t.Errorf("credentials went where they do not belong: %q", slices.Compact(leaks))
	}
	mu.Unlock()
	// One token per scheme and set of scopes, fetched once: none for
	// oauth and oidc, pets:write, and the other scope for the token that
	// must be refused.
	mu.Lock()
	slices.Sort(tokenAsks)
	if want := []string{"", "", "pets:read", "pets:write"}; !slices.Equal(tokenAsks, want) {
		t.Errorf("tokens asked for scopes %q, want %q", tokenAsks, want)
	}
	mu.Unlock()
	// The scheme the run has no credential for says so: the check that the
	// credential is accepted is skipped, naming the flag.
	if st, msg := o.state(t, "access digestOp"); st.String() != "skipped" || !strings.Contains(msg, "petctl cannot present it") {
		t.Errorf("digestOp's access check is %s (%q), want skipped, saying why", st, msg)
	}
	// Neither the client secret nor a token shows.
	for _, secret := range []string{clientSecret, "token-for-", pass} {
		if strings.Contains(o.out, secret) {
			t.Errorf("the console shows %q", secret)
		}
	}
}

// TestSchemesAgainstServe runs the checks against petctl serve for a
// document with every kind of scheme and requirement shape, the run
// fetching OAuth 2 tokens from serve's own token endpoint with client
// credentials: every check passes, a token without a required scope is
// refused 403, and the operations whose schemes no one can present
// (mutualTLS, digest) are skipped, saying so, never blamed.
func TestSchemesAgainstServe(t *testing.T) {
	t.Parallel()
	const clientID, secret = "conform-client", "conform-client-secret-31c7"
	load := func() *spec.Spec {
		s, err := spec.Load("../fixtures/styles/security.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	clients := engine.SchemeCredentials{Clients: map[string]string{clientID: secret}}
	// Answers configured for the operations, whose schemas carry no
	// resource for the store to serve.
	answers := map[string]engine.Stub{}
	for _, op := range load().Operations {
		answers[op.ID] = engine.Stub{Status: http.StatusOK, Body: json.RawMessage(`{}`)}
	}
	srv, err := engine.New(engine.Options{Spec: load(), Keys: []string{testKey}, Responses: answers,
		Auth: engine.AuthOptions{Schemes: map[string]engine.SchemeCredentials{"oauth": clients, "oidc": clients}, TokenLifetime: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	root := serveRaw(t, srv)
	o := conform(t, root+"/sec", func(c *conformance.Config) {
		c.Spec, c.Validator = load(), nil
		c.Basic = "conformer:" + testKey
		c.OAuth2ClientID, c.OAuth2ClientSecret, c.TokenURL = clientID, secret, root+"/__petctl/oauth/token"
	})
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if st, _ := o.state(t, "auth oauthWrite (POST /scoped) with a token without the scope pets:write gives 403"); st.String() != "passed" {
		t.Errorf("the scope check against serve's own tokens: %s", st)
	}
	for _, op := range []string{"needsClientCertificate", "needsDigest"} {
		if r := o.res.NotExercised[op]; !strings.Contains(r, "petctl cannot present it") {
			t.Errorf("%s not exercised: %q, want the reason the run has no credential", op, r)
		}
	}
	if strings.Contains(o.out, secret) {
		t.Error("the client secret shows")
	}
}

// namedDocument has one operation per apiKey place, an OAuth 2 scheme
// whose tokenUrl is relative to the deployment, and an openIdConnect one
// whose discovery document is at %s.
const namedDocument = `openapi: 3.0.3
info: {title: Named, version: "1"}
components:
  securitySchemes:
    hdr: {type: apiKey, in: header, name: X-Key}
    qry: {type: apiKey, in: query, name: appid}
    ck: {type: apiKey, in: cookie, name: sid}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: /v1/oauth/token, scopes: {"things:read": r}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: "%s/.well-known/openid-configuration"}
  schemas:
    Error:
      type: object
      required: [code, message, status]
      properties: {code: {type: string}, message: {type: string}, status: {type: integer}}
  responses:
    Ok: {description: any answer, content: {application/json: {schema: {type: object}}}}
    Refused: {description: refused, content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}}
paths:
  /hdr: {get: {operationId: headerOp, security: [{hdr: []}], responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Refused'}}}}
  /qry: {get: {operationId: queryOp, security: [{qry: []}], responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Refused'}}}}
  /ck: {get: {operationId: cookieOp, security: [{ck: []}], responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Refused'}}}}
  /oauth: {get: {operationId: oauthOp, security: [{oauth: ["things:read"]}], responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Refused'}}}}
  /oidc: {get: {operationId: oidcOp, security: [{oidc: []}], responses: {'200': {$ref: '#/components/responses/Ok'}, '401': {$ref: '#/components/responses/Refused'}}}}
`

// TestCredentialsByName: the credentials given by name (--header, --query,
// --cookie) are the credential of the apiKey scheme that travels there,
// and those no scheme takes go with every request; without --api-key or
// --token-url, the OAuth 2 token comes from the document's own tokenUrl,
// relative to --url, and the openIdConnect one from the token_endpoint
// its discovery document names. Every check passes, and no value given
// or token fetched shows on the console, the requests' URLs showing the
// variables that stand for them.
func TestCredentialsByName(t *testing.T) {
	t.Parallel()
	const (
		headerKey, queryKey, cookieKey = "named-header-key-81c3", "named-query-key-9d20", "named-cookie-key-4e77"
		tenant, session                = "tenant-acme-0f5b", "gateway-session-6a1d"
		clientID, clientSecret         = "named-client", "named-client-secret-27e9"
	)
	var mu sync.Mutex
	var base string
	sent := map[string][]string{} // path -> the credentials of each request let through
	var tokenAsks, problems []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"token_endpoint": base + "/v1/oidc/token"})
			return
		case "/v1/oauth/token", "/v1/oidc/token":
			if r.Header.Get("X-Key")+r.Header.Get("X-Tenant")+r.Header.Get("Cookie")+r.URL.RawQuery != "" {
				problems = append(problems, "the token endpoint got the deployment's credentials")
			}
			if id, secret, ok := r.BasicAuth(); !ok || id != clientID || secret != clientSecret {
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":"invalid_client"}`))
				return
			}
			kind := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/"), "/token")
			tokenAsks = append(tokenAsks, kind+" "+r.PostFormValue("scope"))
			json.NewEncoder(w).Encode(map[string]string{"access_token": "token-" + kind + "-" + r.PostFormValue("scope") + "-55c0", "token_type": "Bearer"})
			return
		}
		if id, _, ok := r.BasicAuth(); ok && id == clientID {
			problems = append(problems, "the deployment got the client credentials")
		}
		if r.Header.Get("X-Tenant") != tenant || r.URL.Query().Get("session") != session {
			problems = append(problems, fmt.Sprintf("%s %s without the values no scheme takes (X-Tenant %q, session %q)", r.Method, r.URL.Path, r.Header.Get("X-Tenant"), r.URL.Query().Get("session")))
		}
		var creds string
		switch r.URL.Path {
		case "/v1/hdr":
			creds = "X-Key: " + r.Header.Get("X-Key")
		case "/v1/qry":
			creds = "appid=" + r.URL.Query().Get("appid")
		case "/v1/ck":
			if c, err := r.Cookie("sid"); err == nil {
				creds = "sid=" + c.Value
			}
		default:
			creds = r.Header.Get("Authorization")
		}
		want := map[string]string{
			"/v1/hdr":   "X-Key: " + headerKey,
			"/v1/qry":   "appid=" + queryKey,
			"/v1/ck":    "sid=" + cookieKey,
			"/v1/oauth": "Bearer token-oauth-things:read-55c0",
			"/v1/oidc":  "Bearer token-oidc--55c0",
		}[r.URL.Path]
		if creds != want {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write(errorBody(http.StatusUnauthorized, "refused"))
			return
		}
		sent[r.URL.Path] = append(sent[r.URL.Path], creds)
		w.Write([]byte(`{}`))
	})
	base = serveRaw(t, h)
	doc, err := spec.Parse([]byte(fmt.Sprintf(namedDocument, base)), "named.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := conform(t, base+"/v1", func(c *conformance.Config) {
		c.APIKey, c.Spec, c.Validator, c.Verbose = "", doc, nil, true
		c.Headers = []conformance.NamedValue{{Name: "X-Key", Value: headerKey}, {Name: "X-Tenant", Value: tenant}}
		c.Query = []conformance.NamedValue{{Name: "appid", Value: queryKey}, {Name: "session", Value: session}}
		c.Cookies = []conformance.NamedValue{{Name: "sid", Value: cookieKey}}
		c.OAuth2ClientID, c.OAuth2ClientSecret = clientID, clientSecret
		c.RequireCoverage = true
	})
	if f := o.failed(); len(f) > 0 {
		t.Errorf("failed checks: %q\n%s", f, o.out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range []string{"/v1/hdr", "/v1/qry", "/v1/ck", "/v1/oauth", "/v1/oidc"} {
		if len(sent[p]) == 0 {
			t.Errorf("no request to %s carried its credential", p)
		}
	}
	if len(problems) > 0 {
		t.Errorf("requests went wrong: %q", slices.Compact(problems))
	}
	slices.Sort(tokenAsks)
	if want := []string{"oauth things:read", "oidc "}; !slices.Equal(tokenAsks, want) {
		t.Errorf("tokens asked for %q, want %q", tokenAsks, want)
	}
	for _, secret := range []string{headerKey, queryKey, cookieKey, tenant, session, clientSecret, "-55c0"} {
		if strings.Contains(o.out, secret) {
			t.Errorf("the console shows %q", secret)
		}
	}
	// -v shows each request's URL: the query's values as their variables.
	for _, v := range []string{"appid=$PETCTL_QUERY_APPID", "session=$PETCTL_QUERY_SESSION"} {
		if !strings.Contains(o.out, v) {
			t.Errorf("the console's requests do not show %q for the value given", v)
		}
	}
}
