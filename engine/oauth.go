package engine

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/petctl/petctl/spec"
)

// OAuthPrefix is where petctl serves itself as the authorization server of
// the document's oauth2 and openIdConnect schemes: the token endpoint
// (token), the JSON Web Key Set (jwks) and the OpenID Connect discovery
// document (.well-known/openid-configuration). The admin endpoints' access
// rules do not apply here: any client may ask for a token, with its
// credentials.
const OAuthPrefix = AdminPrefix + "oauth/"

// The authorization server's own paths.
const (
	TokenPath     = OAuthPrefix + "token"
	JWKSPath      = OAuthPrefix + "jwks"
	DiscoveryPath = OAuthPrefix + ".well-known/openid-configuration"
)

// maxTokenRequestBytes bounds a token request's body, a form of a few
// short fields.
const maxTokenRequestBytes = 16 << 10

// issuer is petctl as an OAuth 2 authorization server: it issues signed
// JWT bearer tokens at its token endpoints and verifies them on every
// request.
type issuer struct {
	signer crypto.Signer
	method jwt.SigningMethod
	kid    string
	jwk    map[string]string
	// iss and aud are configured, or "" to derive from the request.
	iss, aud string
	basePath string
	lifetime time.Duration
	now      func() time.Time
	// endpoints are the token endpoints by path, each with the schemes it
	// issues tokens for; discovery the paths of the discovery document.
	endpoints map[string][]*guard
	discovery []string
	// scopes are each scheme's scopes: its flows', those the operations'
	// requirements name, and openid for openIdConnect.
	scopes map[string][]string
}

// tokenClaims are the claims of an issued token. Schemes binds it to the
// schemes whose credentials obtained it, so that a scheme restricted to its
// own clients never takes a token another scheme's credentials obtained.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope    string   `json:"scope,omitempty"`
	ClientID string   `json:"client_id,omitempty"`
	Schemes  []string `json:"petctl_schemes"`
}

// newIssuer prepares the authorization server when the document has oauth2
// or openIdConnect schemes; it is nil otherwise. The token endpoint is
// always at TokenPath; a flow's tokenUrl that is local (relative, on the
// host of the document's first server, or on loopback) serves it too,
// unless an operation or petctl's own endpoints have that path.
func newIssuer(o Options, guards map[string]*guard, routes *router, now func() time.Time, log *slog.Logger) (*issuer, error) {
	var oauth []*guard
	for _, name := range slices.Sorted(maps.Keys(guards)) {
		if k := guards[name].scheme.Kind; k == spec.SchemeOAuth2 || k == spec.SchemeOpenID {
			oauth = append(oauth, guards[name])
		}
	}
	if len(oauth) == 0 {
		return nil, nil
	}
	is := &issuer{
		iss: o.Auth.Issuer, aud: o.Auth.Audience, basePath: o.Spec.BasePath,
		lifetime: o.Auth.TokenLifetime, now: now,
		endpoints: map[string][]*guard{TokenPath: oauth},
		discovery: []string{DiscoveryPath},
		scopes:    schemeScopes(o.Spec, oauth),
	}
	var err error
	if len(o.Auth.SigningKey) > 0 {
		if is.signer, is.method, err = parseSigningKey(o.Auth.SigningKey); err != nil {
			return nil, wholeError("auth.oauth.signingKey", err)
		}
	} else {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("auth: a signing key could not be generated: %w", err)
		}
		is.signer, is.method = key, jwt.SigningMethodES256
	}
	if is.jwk, is.kid, err = publicJWK(is.signer, is.method.Alg()); err != nil {
		return nil, wholeError("auth.oauth.signingKey", err)
	}
	taken := func(path string) string {
		if _, _, ok := routes.match(path); ok {
			return "an operation of the document has that path"
		}
		if strings.HasPrefix(path, AdminPrefix) {
			return "petctl reserves " + AdminPrefix + " for its own endpoints"
		}
		return ""
	}
	for _, g := range oauth {
		for _, f := range g.scheme.Flows {
			path, ok := localPath(o.Spec, f.TokenURL)
			if !ok || path == TokenPath || slices.Contains(is.endpoints[path], g) {
				continue
			}
			if why := taken(path); why != "" {
				log.Warn("token endpoint served at "+TokenPath+" only", "scheme", g.scheme.Name, "tokenUrl", f.TokenURL, "reason", why)
				continue
			}
			is.endpoints[path] = append(is.endpoints[path], g)
		}
		if path, ok := localPath(o.Spec, g.scheme.OpenIDConnectURL); ok && !slices.Contains(is.discovery, path) {
			if why := taken(path); why != "" || is.endpoints[path] != nil {
				log.Warn("discovery document served at "+DiscoveryPath+" only", "scheme", g.scheme.Name, "openIdConnectUrl", g.scheme.OpenIDConnectURL, "reason", why)
				continue
			}
			is.discovery = append(is.discovery, path)
		}
	}
	return is, nil
}

// schemeScopes are the scopes a token for each scheme may carry.
func schemeScopes(s *spec.Spec, oauth []*guard) map[string][]string {
	out := map[string][]string{}
	for _, g := range oauth {
		var all []string
		if g.scheme.Kind == spec.SchemeOpenID {
			all = append(all, "openid")
		}
		for _, f := range g.scheme.Flows {
			all = append(all, f.Scopes...)
		}
		for _, op := range s.Operations {
			for _, alt := range op.Requirements {
				for _, use := range alt {
					if use.Scheme == g.scheme {
						all = append(all, use.Scopes...)
					}
				}
			}
		}
		slices.Sort(all)
		out[g.scheme.Name] = slices.Compact(all)
	}
	return out
}

// localPath is the path of a URL the document gives (a tokenUrl, an
// openIdConnectUrl) when petctl can serve it: relative ones are resolved
// against the first server's URL (OpenAPI §4.3), and an absolute one must
// name that server's host or loopback.
func localPath(s *spec.Spec, ref string) (string, bool) {
	if ref == "" {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	base := &url.URL{Path: "/"}
	if len(s.Servers) > 0 {
		if b, err := url.Parse(s.Servers[0]); err == nil {
			base = b
		}
	}
	abs := base.ResolveReference(u)
	if abs.Host != "" && !strings.EqualFold(abs.Host, base.Host) && !loopbackHost(abs.Host) {
		return "", false
	}
	if !strings.HasPrefix(abs.Path, "/") {
		return "", false
	}
	return abs.Path, true
}

// parseSigningKey reads a PEM private key: PKCS #8, SEC 1 (EC) or PKCS #1
// (RSA).
func parseSigningKey(data []byte) (crypto.Signer, jwt.SigningMethod, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, nil, errors.New("signing key: not a PEM block; give a PEM private key (RSA, ECDSA or Ed25519)")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, nil, fmt.Errorf("signing key: a PEM %q block; give a private key (PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY), unencrypted", block.Type)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("signing key: %v", err)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, nil, fmt.Errorf("signing key: an RSA key of %d bits; RS256 needs 2048 or more", k.N.BitLen())
		}
		return k, jwt.SigningMethodRS256, nil
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return k, jwt.SigningMethodES256, nil
		case elliptic.P384():
			return k, jwt.SigningMethodES384, nil
		case elliptic.P521():
			return k, jwt.SigningMethodES512, nil
		}
		return nil, nil, fmt.Errorf("signing key: an ECDSA key on %s; give one on P-256, P-384 or P-521", k.Curve.Params().Name)
	case ed25519.PrivateKey:
		return k, jwt.SigningMethodEdDSA, nil
	}
	return nil, nil, fmt.Errorf("signing key: a %T; give an RSA, ECDSA or Ed25519 key", key)
}

// publicJWK is the public key as a JWK (RFC 7517), with its RFC 7638
// thumbprint as the key id.
func publicJWK(signer crypto.Signer, alg string) (map[string]string, string, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	var jwk map[string]string
	switch pub := signer.Public().(type) {
	case *ecdsa.PublicKey:
		point, err := pub.Bytes() // 0x04 || X || Y
		if err != nil {
			return nil, "", fmt.Errorf("signing key: %v", err)
		}
		n := (len(point) - 1) / 2
		jwk = map[string]string{"kty": "EC", "crv": pub.Curve.Params().Name, "x": b64(point[1 : 1+n]), "y": b64(point[1+n:])}
	case *rsa.PublicKey:
		jwk = map[string]string{"kty": "RSA", "n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())}
	case ed25519.PublicKey:
		jwk = map[string]string{"kty": "OKP", "crv": "Ed25519", "x": b64(pub)}
	default:
		return nil, "", fmt.Errorf("signing key: a %T public key", pub)
	}
	// The thumbprint hashes the required members only, in lexicographic
	// order and without white space: what json.Marshal writes for a map.
	canonical, err := json.Marshal(jwk)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(canonical)
	kid := b64(sum[:])
	jwk["kid"], jwk["alg"], jwk["use"] = kid, alg, "sig"
	return jwk, kid, nil
}

// origin is the server's origin as the request names it.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// issuerOf is the iss of tokens issued and accepted for r.
func (is *issuer) issuerOf(r *http.Request) string {
	if is.iss != "" {
		return is.iss
	}
	return origin(r) + strings.TrimSuffix(OAuthPrefix, "/")
}

// audienceOf is the aud of tokens issued and accepted for r.
func (is *issuer) audienceOf(r *http.Request) string {
	if is.aud != "" {
		return is.aud
	}
	return origin(r) + is.basePath
}

// verify checks a token petctl may have issued for scheme: its signature,
// expiry, issuer, audience and scheme; it grants the token's scopes.
func (is *issuer) verify(r *http.Request, token, scheme string) (grant, authFailure) {
	claims := &tokenClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		if kid, _ := t.Header["kid"].(string); kid != is.kid {
			return nil, errors.New("not signed with this server's key")
		}
		return is.signer.Public(), nil
	},
		jwt.WithValidMethods([]string{is.method.Alg()}),
		jwt.WithIssuer(is.issuerOf(r)),
		jwt.WithAudience(is.audienceOf(r)),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(is.now),
	)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired):
		return grant{}, authExpired
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return grant{}, authBadSig
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return grant{}, authAudience
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return grant{}, authIssuer
	default:
		return grant{}, authBadToken
	}
	if !slices.Contains(claims.Schemes, scheme) {
		return grant{}, authOtherScheme
	}
	return grant{scopes: strings.Fields(claims.Scope)}, ""
}

// issue signs a token for subject with scopes, valid for the schemes named.
func (is *issuer) issue(r *http.Request, subject, clientID string, scopes, schemes []string) (string, error) {
	now := is.now()
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	t := jwt.NewWithClaims(is.method, tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    is.issuerOf(r),
			Subject:   subject,
			Audience:  jwt.ClaimStrings{is.audienceOf(r)},
			ExpiresAt: jwt.NewNumericDate(now.Add(is.lifetime)),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        base64.RawURLEncoding.EncodeToString(id),
		},
		Scope:    strings.Join(scopes, " "),
		ClientID: clientID,
		Schemes:  schemes,
	})
	t.Header["kid"] = is.kid
	return t.SignedString(is.signer)
}

// serves reports whether path is one of the authorization server's.
func (a *authenticator) serves(path string) bool {
	is := a.issuer
	if is == nil {
		return false
	}
	_, token := is.endpoints[path]
	return token || path == JWKSPath || slices.Contains(is.discovery, path)
}

// serveOAuth answers a request to the authorization server, with the CORS
// headers the API's answers get, and logs it like them.
func (s *Server) serveOAuth(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	res := s.oauthAnswer(r)
	s.cors.decorate(r, res)
	writeResponse(w, r, res)
	s.logRequest(r, res, time.Since(start))
}

func (s *Server) oauthAnswer(r *http.Request) *response {
	is := s.auth.issuer
	methods := []string{http.MethodGet, http.MethodHead}
	if _, token := is.endpoints[r.URL.Path]; token {
		methods = []string{http.MethodPost}
	}
	allow := strings.Join(append(slices.Clip(methods), http.MethodOptions), ", ")
	switch {
	case r.Method == http.MethodOptions && s.cors.isPreflight(r):
		return s.cors.preflight(r, methods)
	case r.Method == http.MethodOptions:
		res := &response{status: http.StatusNoContent}
		res.set("Allow", allow)
		return res
	case !slices.Contains(methods, r.Method):
		res := errorResponse(Errorf(CodeMethodNotAllowed, "%s is not allowed at %s; allowed: %s", r.Method, r.URL.Path, allow))
		res.set("Allow", allow)
		return res
	case r.URL.Path == JWKSPath:
		return noCache(adminJSON(map[string]any{"keys": []map[string]string{is.jwk}}))
	case slices.Contains(is.discovery, r.URL.Path):
		return noCache(adminJSON(is.discoveryDocument(r)))
	}
	return is.token(r)
}

func noCache(res *response) *response {
	res.set("Cache-Control", "no-cache")
	return res
}

// discoveryDocument is the OpenID Connect discovery document (and RFC 8414
// metadata) of the authorization server, as the request names the server.
func (is *issuer) discoveryDocument(r *http.Request) map[string]any {
	var scopes []string
	for _, s := range is.scopes {
		scopes = append(scopes, s...)
	}
	slices.Sort(scopes)
	return map[string]any{
		"issuer":                                is.issuerOf(r),
		"token_endpoint":                        origin(r) + TokenPath,
		"jwks_uri":                              origin(r) + JWKSPath,
		"grant_types_supported":                 []string{"client_credentials", "password"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      slices.Compact(scopes),
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{is.method.Alg()},
		"claims_supported":                      []string{"iss", "sub", "aud", "exp", "iat", "jti", "scope", "client_id"},
	}
}

// oauthError is an RFC 6749 §5.2 error: {error, error_description}, with
// petctl's code, message and status beside them, so that the promise of
// an Error body on every refusal holds here too.
func oauthError(status int, code, description string) *response {
	body, err := json.Marshal(map[string]any{
		"error": code, "error_description": description,
		"code": code, "message": description, "status": status,
	})
	if err != nil {
		panic(err) // strings and an int always marshal
	}
	res := jsonResponse(status, body)
	res.problem = description
	res.set("Content-Type", spec.JSON)
	res.set("Cache-Control", "no-store")
	if status == http.StatusUnauthorized {
		res.set("WWW-Authenticate", `Basic realm="petctl"`)
	}
	return res
}

// token answers a token request (RFC 6749 §4.3, §4.4): the client
// credentials and password grants, the client authenticated with HTTP
// Basic or in the form. No credential it receives is ever written to the
// answer or the log.
func (is *issuer) token(r *http.Request) *response {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/x-www-form-urlencoded" {
		return oauthError(http.StatusBadRequest, "invalid_request", "send the parameters as application/x-www-form-urlencoded (RFC 6749 §4.4.2)")
	}
	if r.ContentLength > maxTokenRequestBytes {
		res := errorResponse(Errorf(CodePayloadTooLarge, "the token request has %d bytes; the limit is %d", r.ContentLength, maxTokenRequestBytes))
		res.set("Connection", "close")
		return res
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxTokenRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		res := oauthError(http.StatusBadRequest, "invalid_request", "the body could not be read")
		if errors.As(err, &tooBig) {
			res = errorResponse(Errorf(CodePayloadTooLarge, "the token request exceeds the limit of %d bytes", maxTokenRequestBytes))
		}
		res.set("Connection", "close") // the rest of the body may still be on its way
		return res
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return oauthError(http.StatusBadRequest, "invalid_request", "the form cannot be decoded")
	}
	for _, name := range slices.Sorted(maps.Keys(form)) {
		if len(form[name]) > 1 {
			return oauthError(http.StatusBadRequest, "invalid_request", fmt.Sprintf("parameter %s is repeated (RFC 6749 §3.2)", truncate(name, 50)))
		}
	}
	id, secret, how, e := clientCredentials(r, form)
	if e != nil {
		return e
	}
	endpoint := is.endpoints[r.URL.Path]
	var eligible []*guard
	var subject string
	var failure authFailure
	switch grantType := form.Get("grant_type"); grantType {
	case "client_credentials":
		if how == "" {
			return oauthError(http.StatusUnauthorized, "invalid_client", "the client credentials grant needs the client's id and secret: HTTP Basic (client_secret_basic) or client_id and client_secret in the form")
		}
		for _, g := range endpoint {
			if g.clients.valid(id, secret) {
				eligible = append(eligible, g)
			}
		}
		subject, failure = id, authBadClient
	case "password":
		user, password := form.Get("username"), form.Get("password")
		if user == "" || password == "" {
			return oauthError(http.StatusBadRequest, "invalid_request", "the password grant needs username and password")
		}
		var clientOK bool
		for _, g := range endpoint {
			client := how == "" || g.clients.valid(id, secret)
			clientOK = clientOK || client
			if client && g.users.valid(user, password) {
				eligible = append(eligible, g)
			}
		}
		if !clientOK {
			return withAuth(oauthError(http.StatusUnauthorized, "invalid_client", "the client credentials are not valid"), authBadClient)
		}
		if len(eligible) == 0 {
			return withAuth(oauthError(http.StatusBadRequest, "invalid_grant", "the user name or password is not valid"), authBadUser)
		}
		subject = user
	case "":
		return oauthError(http.StatusBadRequest, "invalid_request", "grant_type is required: client_credentials or password")
	default:
		return oauthError(http.StatusBadRequest, "unsupported_grant_type", fmt.Sprintf("grant_type %q is not served; petctl issues tokens for client_credentials and password", truncate(grantType, 50)))
	}
	if len(eligible) == 0 {
		return withAuth(oauthError(http.StatusUnauthorized, "invalid_client", "the client credentials are not valid"), failure)
	}
	var allowed, schemes []string
	for _, g := range eligible {
		allowed = append(allowed, is.scopes[g.scheme.Name]...)
		schemes = append(schemes, g.scheme.Name)
	}
	slices.Sort(allowed)
	allowed = slices.Compact(allowed)
	scopes := strings.Fields(form.Get("scope"))
	if len(scopes) == 0 {
		scopes = allowed // RFC 6749 §3.3: the server's default when none is asked for
	}
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	for _, sc := range scopes {
		if !slices.Contains(allowed, sc) {
			return oauthError(http.StatusBadRequest, "invalid_scope", fmt.Sprintf("scope %q is not one this endpoint issues; it issues %s", truncate(sc, 100), strings.Join(allowed, " ")))
		}
	}
	token, err := is.issue(r, subject, id, scopes, schemes)
	if err != nil {
		return errorResponse(Errorf(CodeInternal, "the token could not be signed: %v", err))
	}
	out, _ := json.Marshal(map[string]any{
		"access_token": token, "token_type": "Bearer",
		"expires_in": int64(is.lifetime / time.Second), "scope": strings.Join(scopes, " "),
	})
	res := jsonResponse(http.StatusOK, out)
	res.set("Content-Type", spec.JSON)
	res.set("Cache-Control", "no-store") // RFC 6749 §5.1
	res.set("Pragma", "no-cache")
	return res
}

func withAuth(res *response, f authFailure) *response {
	res.auth = f
	return res
}

// clientCredentials reads the client's id and secret from HTTP Basic
// (RFC 6749 §2.3.1: each form-encoded first) or the form; how says which,
// "" when the request carries none. Using both is refused (§2.3).
func clientCredentials(r *http.Request, form url.Values) (id, secret, how string, e *response) {
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		return "", "", "", withAuth(oauthError(http.StatusBadRequest, "invalid_request", string(authRepeated)), authRepeated)
	}
	if len(values) == 1 {
		if form.Has("client_secret") {
			return "", "", "", oauthError(http.StatusBadRequest, "invalid_request", "the client authenticates both with HTTP Basic and in the form; use one")
		}
		user, password, f := basicCredential(values[0])
		if f != "" {
			return "", "", "", withAuth(oauthError(http.StatusUnauthorized, "invalid_client", "the Authorization header is not HTTP Basic client credentials"), f)
		}
		id, err1 := url.QueryUnescape(user)
		secret, err2 := url.QueryUnescape(password)
		if err1 != nil || err2 != nil {
			return "", "", "", withAuth(oauthError(http.StatusUnauthorized, "invalid_client", "the HTTP Basic client credentials are not form-encoded"), authBadBasic)
		}
		if form.Has("client_id") && form.Get("client_id") != id {
			return "", "", "", oauthError(http.StatusBadRequest, "invalid_request", "client_id in the form differs from the one in HTTP Basic")
		}
		return id, secret, "client_secret_basic", nil
	}
	if form.Has("client_secret") {
		return form.Get("client_id"), form.Get("client_secret"), "client_secret_post", nil
	}
	return form.Get("client_id"), "", "", nil
}
