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
