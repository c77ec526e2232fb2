package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/petctl/petctl/spec"
)

// tokenAnswer is the answer of the token endpoint, read in full.
type tokenAnswer struct {
	status int
	header http.Header
	body   map[string]any
}

func (a tokenAnswer) token(t *testing.T) string {
	t.Helper()
	tok, _ := a.body["access_token"].(string)
	if a.status != 200 || tok == "" {
		t.Fatalf("token endpoint: %d %v, want 200 with an access_token", a.status, a.body)
	}
	return tok
}

// postForm sends a form to path (a full path, base path included), with
// HTTP Basic client credentials when user is not empty.
func (e *testEnv) postForm(path string, form url.Values, user, password string) tokenAnswer {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.http.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	return e.send(req)
}

func (e *testEnv) send(req *http.Request) tokenAnswer {
	e.t.Helper()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	a := tokenAnswer{status: res.StatusCode, header: res.Header}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &a.body); err != nil {
			e.t.Fatalf("%s %s: the answer is not a JSON object: %v: %s", req.Method, req.URL.Path, err, data)
		}
	}
	return a
}

// form is a url.Values from pairs.
func form(pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	return v
}

// TestTokenEndpoint: the token endpoint serves the client credentials and
// password grants, at the flow's local tokenUrl and under /__petctl/oauth,
// with the client in HTTP Basic or in the form; every refusal is an RFC
// 6749 §5.2 error that is also petctl's Error body.
func TestTokenEndpoint(t *testing.T) {
	env := newSecurity(t)
	type tc struct {
		name          string
		path          string
		form          url.Values
		user, secret  string
		status        int
		oauthError    string
		scope         string // of a granted token
		wantChallenge bool
	}
	for _, c := range []tc{
		{name: "client credentials in Basic", path: TokenPath, form: form("grant_type", "client_credentials", "scope", "pets:read"), user: "any-client", secret: testKey, status: 200, scope: "pets:read"},
		{name: "at the flow's tokenUrl", path: "/sec/oauth/token", form: form("grant_type", "client_credentials", "scope", "pets:write"), user: "c", secret: testKey, status: 200, scope: "pets:write"},
		{name: "client credentials in the form", path: TokenPath, form: form("grant_type", "client_credentials", "client_id", "c", "client_secret", testKey, "scope", "openid"), status: 200, scope: "openid"},
		{name: "password grant", path: TokenPath, form: form("grant_type", "password", "username", "anyone", "password", testKey, "scope", "pets:read pets:write"), status: 200, scope: "pets:read pets:write"},
		{name: "no scope: every scope the endpoint's schemes have", path: "/sec/oauth/token", form: form("grant_type", "client_credentials"), user: "c", secret: testKey, status: 200, scope: "pets:read pets:write"},
		{name: "wrong secret", path: TokenPath, form: form("grant_type", "client_credentials"), user: "c", secret: "wrong", status: 401, oauthError: "invalid_client", wantChallenge: true},
		{name: "no client", path: TokenPath, form: form("grant_type", "client_credentials"), status: 401, oauthError: "invalid_client", wantChallenge: true},
		{name: "wrong password", path: TokenPath, form: form("grant_type", "password", "username", "u", "password", "wrong"), status: 400, oauthError: "invalid_grant"},
		{name: "password grant without a password", path: TokenPath, form: form("grant_type", "password", "username", "u"), status: 400, oauthError: "invalid_request"},
		{name: "unknown scope", path: TokenPath, form: form("grant_type", "client_credentials", "scope", "pets:delete"), user: "c", secret: testKey, status: 400, oauthError: "invalid_scope"},
		{name: "a scope of another endpoint's scheme", path: "/sec/oauth/token", form: form("grant_type", "client_credentials", "scope", "openid"), user: "c", secret: testKey, status: 400, oauthError: "invalid_scope"},
		{name: "authorization code", path: TokenPath, form: form("grant_type", "authorization_code", "code", "x"), user: "c", secret: testKey, status: 400, oauthError: "unsupported_grant_type"},
		{name: "no grant type", path: TokenPath, form: form("scope", "openid"), user: "c", secret: testKey, status: 400, oauthError: "invalid_request"},
		{name: "Basic and the form at once", path: TokenPath, form: form("grant_type", "client_credentials", "client_secret", testKey), user: "c", secret: testKey, status: 400, oauthError: "invalid_request"},
		{name: "a repeated parameter", path: TokenPath, form: url.Values{"grant_type": {"client_credentials", "password"}}, user: "c", secret: testKey, status: 400, oauthError: "invalid_request"},
	} {
		a := env.postForm(c.path, c.form, c.user, c.secret)
		if a.status != c.status {
			t.Errorf("%s: %d %v, want %d", c.name, a.status, a.body, c.status)
			continue
		}
		if cc := a.header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store (RFC 6749 §5.1)", c.name, cc)
		}
		if c.status != 200 {
			if a.body["error"] != c.oauthError || a.body["code"] != c.oauthError || a.body["status"] != float64(c.status) || a.body["message"] != a.body["error_description"] {
				t.Errorf("%s: %v, want error and code %s, status %d, message the description", c.name, a.body, c.oauthError, c.status)
			}
			if got := a.header.Get("WWW-Authenticate") != ""; got != c.wantChallenge {
				t.Errorf("%s: WWW-Authenticate %q, want one: %v", c.name, a.header.Get("WWW-Authenticate"), c.wantChallenge)
			}
			continue
		}
		if a.body["token_type"] != "Bearer" || a.body["expires_in"] != float64(DefaultTokenLifetime/time.Second) || a.body["scope"] != c.scope {
			t.Errorf("%s: %v, want a Bearer token for an hour with scope %q", c.name, a.body, c.scope)
		}
	}
	// Not a form; not a POST; too large.
	req, _ := http.NewRequest(http.MethodPost, env.http.URL+TokenPath, strings.NewReader(`{"grant_type":"client_credentials"}`))
	req.Header.Set("Content-Type", "application/json")
	if a := env.send(req); a.status != 400 || a.body["error"] != "invalid_request" {
		t.Errorf("a JSON body: %d %v, want 400 invalid_request", a.status, a.body)
	}
	for _, ct := range []string{"text/plain", "", "multipart/form-data; boundary=x"} {
		req, _ := http.NewRequest(http.MethodPost, env.http.URL+TokenPath, strings.NewReader("grant_type=client_credentials"))
		req.SetBasicAuth("c", testKey)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		if a := env.send(req); a.status != 400 || a.body["error"] != "invalid_request" {
			t.Errorf("Content-Type %q: %d %v, want 400 invalid_request", ct, a.status, a.body)
		}
	}
	// Chunked, so that no Content-Length announces the size: the limit
	// holds while the body is read.
	chunked := io.MultiReader(strings.NewReader("grant_type=client_credentials&scope="), strings.NewReader(strings.Repeat("x", 4*maxTokenRequestBytes)))
	req, _ = http.NewRequest(http.MethodPost, env.http.URL+TokenPath, chunked)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("c", testKey)
	if req.ContentLength != 0 {
		t.Fatalf("the request announces %d bytes; the test wants a body of unknown length", req.ContentLength)
	}
	if a := env.send(req); a.status != 413 {
		t.Errorf("a chunked body of %d bytes: %d %v, want 413", 4*maxTokenRequestBytes, a.status, a.body)
	}
	req, _ = http.NewRequest(http.MethodGet, env.http.URL+TokenPath, nil)
	if a := env.send(req); a.status != 405 || a.header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("GET: %d Allow %q, want 405 with Allow: POST, OPTIONS", a.status, a.header.Get("Allow"))
	}
	big := form("grant_type", "client_credentials", "scope", strings.Repeat("x", maxTokenRequestBytes))
	if a := env.postForm(TokenPath, big, "c", testKey); a.status != 413 {
		t.Errorf("a body of %d bytes: %d, want 413", len(big.Encode()), a.status)
	}
}

// TestIssuedTokensCarryTheirScopes: a token from the endpoint opens the
// operations whose scopes it carries, gets 403 insufficient_scope on those
// whose scopes it lacks, and 401 on a scheme it was not issued for.
func TestIssuedTokensCarryTheirScopes(t *testing.T) {
	env := newSecurity(t)
	get := func(scope, path string) string {
		return env.postForm(path, form("grant_type", "client_credentials", "scope", scope), "c", testKey).token(t)
	}
	write, read := get("pets:write", TokenPath), get("pets:read", TokenPath)
	oauthOnly := get("pets:read pets:write", "/sec/oauth/token") // that endpoint issues for "oauth" only
	oidc := get("openid profile", TokenPath)
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	for _, c := range []authCase{
		{name: "write token, write", method: "POST", path: "/scoped", headers: bearer(write), status: 200},
		{name: "read token, read", path: "/read", headers: bearer(read), status: 200},
		{name: "read token, write", method: "POST", path: "/scoped", headers: bearer(read), status: 403, code: "insufficient_scope",
			challenges: []string{`Bearer realm="petctl", error="insufficient_scope", scope="pets:write"`}},
		{name: "write token, read", path: "/read", headers: bearer(write), status: 403, code: "insufficient_scope"},
		{name: "openid token, openIdConnect", path: "/oidc", headers: bearer(oidc), status: 200},
		{name: "openid profile is not pets:read", path: "/read", headers: bearer(oidc), status: 403, code: "insufficient_scope"},
		{name: "tokenUrl token, openIdConnect", path: "/oidc", headers: bearer(oauthOnly), status: 401, challenges: []string{invalidToken}},
		{name: "a token is no http bearer key", path: "/global", headers: bearer(write), status: 401},
		{name: "AND: key and token", method: "POST", path: "/key-and-token", headers: map[string]string{"X-Api-Key": testKey, "Authorization": "Bearer " + write}, status: 200},
		{name: "AND: key and a token without the scope", method: "POST", path: "/key-and-token", headers: map[string]string{"X-Api-Key": testKey, "Authorization": "Bearer " + read}, status: 403, code: "insufficient_scope"},
	} {
		c.run(t, env)
	}
}

// TestRestrictedTokenEndpoint: with clients and users configured for a
// scheme, only they obtain its tokens, and the development key no longer
// does.
func TestRestrictedTokenEndpoint(t *testing.T) {
	env := newSecurity(t, func(o *Options) {
		o.Auth.Schemes = map[string]SchemeCredentials{"oauth": {
			Clients: map[string]string{"ci": "ci-secret"},
			Users:   map[string]string{"alice": "alice-password"},
		}}
	})
	for _, c := range []struct {
		name         string
		form         url.Values
		user, secret string
		status       int
	}{
		{"the client", form("grant_type", "client_credentials", "scope", "pets:write"), "ci", "ci-secret", 200},
		{"the client, the development key", form("grant_type", "client_credentials"), "ci", testKey, 401},
		{"another client", form("grant_type", "client_credentials"), "cd", "ci-secret", 401},
		{"the user", form("grant_type", "password", "username", "alice", "password", "alice-password", "scope", "pets:write"), "", "", 200},
		{"the user and the client", form("grant_type", "password", "username", "alice", "password", "alice-password"), "ci", "ci-secret", 200},
		{"the user, the development key", form("grant_type", "password", "username", "alice", "password", testKey), "", "", 400},
		{"the user, a wrong client", form("grant_type", "password", "username", "alice", "password", "alice-password"), "ci", "wrong", 401},
	} {
		a := env.postForm("/sec/oauth/token", c.form, c.user, c.secret)
		if a.status != c.status {
			t.Errorf("%s: %d %v, want %d", c.name, a.status, a.body, c.status)
			continue
		}
		if a.status == 200 {
			r := env.do(request{method: "POST", path: "/scoped", key: "Bearer " + a.token(t)})
			if r.status != 200 {
				t.Errorf("%s: the token gets %d %s, want 200", c.name, r.status, r.body)
			}
		}
	}
}

// testClock is a clock a test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *testClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// pemKey is key as a PKCS #8 PEM block.
func pemKey(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// TestTokenVerification: every request checks a token's signature, expiry,
// issuer, audience and scheme; a token that fails any of them gets 401
// with error="invalid_token", and a valid one without the scope 403.
func TestTokenVerification(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Now()}
	env := newSecurity(t, func(o *Options) {
		o.Auth.SigningKey = pemKey(t, key)
		o.Auth.TokenLifetime = 10 * time.Minute
		o.Now = clock.Now
	})
	jwks := env.send(mustRequest(t, http.MethodGet, env.http.URL+JWKSPath))
	keys, _ := jwks.body["keys"].([]any)
	if jwks.status != 200 || len(keys) != 1 {
		t.Fatalf("JWKS: %d %v, want one key", jwks.status, jwks.body)
	}
	kid, _ := keys[0].(map[string]any)["kid"].(string)
	issuer, audience := env.http.URL+"/__petctl/oauth", env.http.URL+"/sec"
	type claims = jwt.MapClaims
	valid := func() claims {
		now := clock.Now()
		return claims{"iss": issuer, "aud": audience, "sub": "c", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix(),
			"scope": "pets:read pets:write", "petctl_schemes": []string{"oauth"}}
	}
	sign := func(c claims, method jwt.SigningMethod, signer any, kid string) string {
		tok := jwt.NewWithClaims(method, c)
		if kid != "" {
			tok.Header["kid"] = kid
		}
		s, err := tok.SignedString(signer)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The public key as an HMAC secret: the algorithm confusion attack on
	// servers that take the algorithm from the token.
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	// Another petctl, with a key of its own, issues a token for the same
	// scheme and scopes.
	elsewhere := newSecurity(t).postForm(TokenPath, form("grant_type", "client_credentials", "scope", "pets:write"), "c", testKey).token(t)
	with := func(k string, v any) claims { c := valid(); c[k] = v; return c }
	without := func(k string) claims { c := valid(); delete(c, k); return c }
	for _, c := range []struct {
		name   string
		token  string
		status int
		reason string // in the message of a 401
	}{
		{"a valid token (the control)", sign(valid(), jwt.SigningMethodES256, key, kid), 200, ""},
		{"expired", sign(with("exp", clock.Now().Add(-time.Minute).Unix()), jwt.SigningMethodES256, key, kid), 401, "token expired"},
		{"without an expiry", sign(without("exp"), jwt.SigningMethodES256, key, kid), 401, "invalid token"},
		{"issued in the future", sign(with("iat", clock.Now().Add(time.Hour).Unix()), jwt.SigningMethodES256, key, kid), 401, "invalid token"},
		{"signed by another key, with this key's id", sign(valid(), jwt.SigningMethodES256, other, kid), 401, "token signature invalid"},
		{"signed by another key", sign(valid(), jwt.SigningMethodES256, other, "another-kid"), 401, "token signature invalid"},
		{"alg none", sign(valid(), jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid), 401, "token signature invalid"},
		{"HS256 with the public key as the secret", sign(valid(), jwt.SigningMethodHS256, pubPEM, kid), 401, "token signature invalid"},
		{"HS256 with the public key's DER as the secret", sign(valid(), jwt.SigningMethodHS256, pub, kid), 401, "token signature invalid"},
		{"from another petctl", elsewhere, 401, "token signature invalid"},
		{"without an audience", sign(without("aud"), jwt.SigningMethodES256, key, kid), 401, "invalid token"},
		{"without an issuer", sign(without("iss"), jwt.SigningMethodES256, key, kid), 401, "invalid token"},
		{"for another audience", sign(with("aud", "https://elsewhere.example/sec"), jwt.SigningMethodES256, key, kid), 401, "token for another audience"},
		{"from another issuer", sign(with("iss", "https://issuer.example"), jwt.SigningMethodES256, key, kid), 401, "token from another issuer"},
		{"for another scheme", sign(with("petctl_schemes", []string{"oidc"}), jwt.SigningMethodES256, key, kid), 401, "token issued for another security scheme"},
		{"a tampered payload", tamper(t, sign(with("scope", "pets:read"), jwt.SigningMethodES256, key, kid)), 401, "token signature invalid"},
		{"without scopes", sign(without("scope"), jwt.SigningMethodES256, key, kid), 403, ""},
	} {
		r := env.do(request{method: "POST", path: "/scoped", key: "Bearer " + c.token})
		if r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
			continue
		}
		switch c.status {
		case 401:
			if !strings.HasSuffix(r.message(t), "("+c.reason+")") {
				t.Errorf("%s: message %q, want the reason (%s)", c.name, r.message(t), c.reason)
			}
			if ch := r.header.Get("WWW-Authenticate"); ch != invalidToken {
				t.Errorf("%s: WWW-Authenticate %q, want %q", c.name, ch, invalidToken)
			}
		case 403:
			if r.code(t) != "insufficient_scope" {
				t.Errorf("%s: code %q, want insufficient_scope", c.name, r.code(t))
			}
		}
	}
	// A token from the endpoint expires with the configured lifetime.
	tok := env.postForm(TokenPath, form("grant_type", "client_credentials", "scope", "pets:write"), "c", testKey).token(t)
	if r := env.do(request{method: "POST", path: "/scoped", key: "Bearer " + tok}); r.status != 200 {
		t.Fatalf("a fresh token: %d %s", r.status, r.body)
	}
	clock.advance(10*time.Minute + time.Second)
	if r := env.do(request{method: "POST", path: "/scoped", key: "Bearer " + tok}); r.status != 401 || !strings.Contains(r.message(t), "token expired") {
		t.Errorf("a token past its lifetime: %d %s, want 401 token expired", r.status, r.body)
	}
}

// tamper changes the payload of a signed token without signing it again.
func tamper(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	payload = []byte(strings.Replace(string(payload), `"pets:read"`, `"pets:write"`, 1))
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestDiscoveryAndJWKS: a client that knows only the discovery document
// finds the token endpoint and the key set there, and the key set verifies
// the tokens it gets; a document whose openIdConnectUrl is local gets the
// discovery document at that path too.
func TestDiscoveryAndJWKS(t *testing.T) {
	doc := `openapi: 3.0.3
info: {title: OIDC, version: "1"}
servers: [{url: /api}]
security: [{oidc: [openid]}]
paths:
  /me:
    get:
      operationId: me
      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}
components:
  securitySchemes:
    oidc: {type: openIdConnect, openIdConnectUrl: /.well-known/openid-configuration}
`
	env := startDoc(t, doc, func(o *Options) { o.Responses = map[string]Stub{"me": {Status: 200, Body: json.RawMessage(`{}`)}} })
	for _, path := range []string{DiscoveryPath, "/.well-known/openid-configuration"} {
		d := env.send(mustRequest(t, http.MethodGet, env.http.URL+path))
		if d.status != 200 || d.body["issuer"] != env.http.URL+"/__petctl/oauth" {
			t.Fatalf("discovery at %s: %d %v", path, d.status, d.body)
		}
		tokenURL, _ := d.body["token_endpoint"].(string)
		jwksURL, _ := d.body["jwks_uri"].(string)
		u, err := url.Parse(tokenURL)
		if err != nil {
			t.Fatal(err)
		}
		tok := env.postForm(u.Path, form("grant_type", "client_credentials", "scope", "openid"), "c", testKey).token(t)
		set := env.send(mustRequest(t, http.MethodGet, jwksURL))
		keys, _ := set.body["keys"].([]any)
		if len(keys) != 1 {
			t.Fatalf("JWKS: %v", set.body)
		}
		pub := ecPublicKey(t, keys[0].(map[string]any))
		parsed, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return pub, nil }, jwt.WithValidMethods([]string{"ES256"}))
		if err != nil || !parsed.Valid {
			t.Errorf("the JWKS key does not verify the token: %v", err)
		}
		if r := env.do(request{path: "/me", key: "Bearer " + tok}); r.status != 200 {
			t.Errorf("the token on /me: %d %s", r.status, r.body)
		}
	}
}

// ecPublicKey reads an EC JWK.
func ecPublicKey(t *testing.T, jwk map[string]any) *ecdsa.PublicKey {
	t.Helper()
	if jwk["kty"] != "EC" || jwk["crv"] != "P-256" {
		t.Fatalf("JWK %v, want an EC key on P-256", jwk)
	}
	coord := func(name string) *big.Int {
		s, _ := jwk[name].(string)
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(b)
	}
	return &ecdsa.PublicKey{Curve: elliptic.P256(), X: coord("x"), Y: coord("y")}
}

// startDoc serves a document given as text, with testKey.
func startDoc(t *testing.T, doc string, mutate ...func(*Options)) *testEnv {
	t.Helper()
	s, err := spec.Parse([]byte(doc), "doc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Spec: s, Keys: []string{testKey}}
	for _, m := range mutate {
		m(&o)
	}
	return start(t, o, "Authorization", "Bearer ")
}

// TestSigningKeyProblems: a signing key petctl cannot use stops start-up
// at auth.oauth.signingKey, saying why.
func TestSigningKeyProblems(t *testing.T) {
	weak, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		key  []byte
		want string
	}{
		{"not PEM", []byte("secret"), "not a PEM block"},
		{"a certificate", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), `a PEM "CERTIFICATE" block`},
		{"RSA of 1024 bits", pemKey(t, weak), "an RSA key of 1024 bits"},
	} {
		s, err := spec.Load(securityDocument)
		if err != nil {
			t.Fatal(err)
		}
		_, err = New(Options{Spec: s, Keys: []string{testKey}, Auth: AuthOptions{SigningKey: c.key}})
		var oe *OptionError
		if err == nil || !errors.As(err, &oe) || oe.Key != "auth.oauth.signingKey" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error at auth.oauth.signingKey saying %q", c.name, err, c.want)
		}
	}
}

// TestReloadKeepsGeneratedKey: without a configured signing key, the
// server a reload builds (Options.Previous) signs and verifies with the
// key its predecessor generated, so the tokens issued before the reload
// are still taken; a server built afresh generates its own.
func TestReloadKeepsGeneratedKey(t *testing.T) {
	fixed := func(o *Options) { o.Auth.Issuer, o.Auth.Audience = "https://issuer.example", "https://api.example" }
	first := newSecurity(t, fixed)
	token := first.postForm(TokenPath, form("grant_type", "client_credentials", "scope", "pets:read"), "c", testKey).token(t)
	tests := []struct {
		name     string
		previous *Server
		want     int
	}{
		{"reloaded", first.srv, http.StatusOK},
		{"started afresh", nil, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := newSecurity(t, fixed, func(o *Options) { o.Previous = tc.previous })
			if got := next.do(request{path: "/read", key: "Bearer " + token}); got.status != tc.want {
				t.Errorf("a token issued before: %d %s, want %d", got.status, got.body, tc.want)
			}
		})
	}
}
