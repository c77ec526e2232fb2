package conformance

// OAuth 2 client credentials (RFC 6749 §4.4): the run fetches an access
// token for each set of scopes its operations require, before the first
// check, from the scheme's clientCredentials tokenUrl (an openIdConnect
// scheme's token_endpoint), or from --token-url. The client secret goes to
// the token endpoint only, the tokens to --url's origin only; neither
// follows a redirect.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/petctl/petctl/spec"
)

// maxTokenBytes bounds a token endpoint's answer.
const maxTokenBytes = 64 << 10

// oauthClient fetches access tokens with the client credentials.
type oauthClient struct {
	id, secret string
	// tokenURL, from --token-url, replaces the document's.
	tokenURL string
	base     *url.URL
	http     *http.Client
}

// endpoint is where sc's tokens come from: --token-url, the
// clientCredentials flow's tokenUrl (relative to --url), or for
// openIdConnect the discovery document's URL, marked "discover:"; why says
// why there is none.
func (o *oauthClient) endpoint(sc *spec.Scheme) (string, string) {
	if o.tokenURL != "" {
		return o.tokenURL, ""
	}
	switch sc.Kind {
	case spec.SchemeOAuth2:
		for _, f := range sc.Flows {
			if f.Kind == "clientCredentials" && f.TokenURL != "" {
				return f.TokenURL, ""
			}
		}
		return "", fmt.Sprintf("%s declares no clientCredentials flow with a tokenUrl", sc)
	case spec.SchemeOpenID:
		if u, err := url.Parse(sc.OpenIDConnectURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
			return "discover:" + sc.OpenIDConnectURL, ""
		}
		return "", fmt.Sprintf("%s has no usable openIdConnectUrl (%q)", sc, sc.OpenIDConnectURL)
	}
	return "", fmt.Sprintf("%s takes no OAuth 2 token", sc)
}

// resolve makes a token or discovery URL absolute against --url, and
// refuses one the client secret must not travel to: plain http to another
// host than the loopback.
func (o *oauthClient) resolve(raw string) (*url.URL, error) {
	u, err := o.base.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
		return nil, fmt.Errorf("%s: the client secret travels only over https (or http to the loopback)", redactURL(u.String()))
	}
	return u, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenAnswer is a token endpoint's JSON answer (RFC 6749 §5.1, §5.2).
type tokenAnswer struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// token fetches an access token for scopes from endpoint.
func (o *oauthClient) token(ctx context.Context, endpoint string, scopes []string) (string, []string, error) {
	if rest, ok := strings.CutPrefix(endpoint, "discover:"); ok {
		var err error
		if endpoint, err = o.discover(ctx, rest); err != nil {
			return "", nil, err
		}
	}
	u, err := o.resolve(endpoint)
	if err != nil {
		return "", nil, err
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", spec.JSON)
	// client_secret_basic: the method every authorization server supports
	// (RFC 6749 §2.3.1), names and secrets form-encoded first.
	req.SetBasicAuth(url.QueryEscape(o.id), url.QueryEscape(o.secret))
	res, err := o.http.Do(req)
	if err != nil {
		return "", nil, &tokenError{url: u.String(), err: err, transport: true}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxTokenBytes))
	if err != nil {
		return "", nil, &tokenError{url: u.String(), err: err, transport: true}
	}
	var a tokenAnswer
	_ = json.Unmarshal(body, &a)
	switch {
	case res.StatusCode != http.StatusOK && a.Error != "":
		return "", nil, &tokenError{url: u.String(), err: fmt.Errorf("%d %s: %s", res.StatusCode, a.Error, a.Description)}
	case res.StatusCode != http.StatusOK:
		return "", nil, &tokenError{url: u.String(), err: fmt.Errorf("answered %d", res.StatusCode)}
	case a.AccessToken == "":
		return "", nil, &tokenError{url: u.String(), err: errors.New("the answer holds no access_token")}
	case a.TokenType != "" && !strings.EqualFold(a.TokenType, "bearer"):
		return "", nil, &tokenError{url: u.String(), err: fmt.Errorf("token_type is %q; petctl sends bearer tokens", a.TokenType)}
	}
	granted := scopes
	if a.Scope != "" {
		granted = strings.Fields(a.Scope)
	}
	return a.AccessToken, granted, nil
}

// discover reads an OpenID Connect discovery document's token_endpoint.
func (o *oauthClient) discover(ctx context.Context, raw string) (string, error) {
	u, err := o.resolve(raw)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", spec.JSON)
	res, err := o.http.Do(req)
	if err != nil {
		return "", &tokenError{url: u.String(), err: err, transport: true}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxTokenBytes))
	if err != nil {
		return "", &tokenError{url: u.String(), err: err, transport: true}
	}
	var doc struct {
		TokenEndpoint string `json:"token_endpoint"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil || doc.TokenEndpoint == "" {
		return "", &tokenError{url: u.String(), err: fmt.Errorf("answered %d without a token_endpoint", res.StatusCode)}
	}
	return doc.TokenEndpoint, nil
}

// tokenError is a token endpoint that did not give a token: transport
// when it could not be reached.
type tokenError struct {
	url       string
	err       error
	transport bool
}

func (e *tokenError) Error() string {
	return fmt.Sprintf("the token endpoint %s: %v", redactURL(e.url), e.err)
}

func (e *tokenError) Unwrap() error { return e.err }

// tokenKey names a token: its scheme and the scopes asked for.
type tokenKey struct{ scheme, scopes string }

// tokens are the access tokens of a run, fetched before its first check.
type tokens struct {
	mu      sync.Mutex
	byKey   map[tokenKey]string
	granted map[tokenKey][]string
}

func (ts *tokens) get(sc *spec.Scheme, scopes []string) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.byKey[tokenKey{sc.Name, strings.Join(scopes, " ")}]
}

// grants reports the scopes the endpoint said it granted for the token of
// sc and scopes.
func (ts *tokens) grants(sc *spec.Scheme, scopes []string) []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.granted[tokenKey{sc.Name, strings.Join(scopes, " ")}]
}

// tokenScopes are the scopes a request's token is asked for: those use
// requires, or for a token that must lack them (authNoScope), the scheme's
// other scopes.
func tokenScopes(use spec.SchemeUse, mode authMode) []string {
	if mode != authNoScope || len(use.Scopes) == 0 {
		return slices.Sorted(slices.Values(use.Scopes))
	}
	return otherScopes(use)
}

// otherScopes are the scopes sc's flows declare that use does not require,
// sorted; nil when there are none (a token asked for none may well hold
// all of them).
func otherScopes(use spec.SchemeUse) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range use.Scheme.Flows {
		for _, sp := range f.Scopes {
			if !slices.Contains(use.Scopes, sp) && !seen[sp] {
				seen[sp] = true
				out = append(out, sp)
			}
		}
	}
	slices.Sort(out)
	return out
}

// fetchTokens gets every token the planned checks send, before the first
// check: a token endpoint that refuses the client is a usage error, one
// that cannot be reached an UnreachableError.
func (s *suite) fetchTokens(ctx context.Context) error {
	o := s.client.creds.oauth
	if o == nil {
		return nil
	}
	type want struct {
		sc     *spec.Scheme
		scopes []string
	}
	var wants []want
	seen := map[tokenKey]bool{}
	add := func(sc *spec.Scheme, scopes []string) {
		k := tokenKey{sc.Name, strings.Join(scopes, " ")}
		if !seen[k] {
			seen[k] = true
			wants = append(wants, want{sc, scopes})
		}
	}
	for _, op := range s.spec.Operations {
		for _, use := range s.access[op].alt {
			if !s.client.creds.usesToken(use.Scheme) {
				continue
			}
			add(use.Scheme, tokenScopes(use, authKey))
			if s.scopeCheck(op, use) {
				add(use.Scheme, tokenScopes(use, authNoScope))
			}
		}
	}
	for _, w := range wants {
		endpoint, why := o.endpoint(w.sc)
		if why != "" {
			return &UsageError{Err: errors.New(why)}
		}
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		tok, granted, err := o.token(ctx, endpoint, w.scopes)
		cancel()
		var te *tokenError
		switch {
		case errors.As(err, &te) && te.transport:
			return &UnreachableError{URL: redactURL(te.url), Err: s.client.redactError(te.err)}
		case err != nil:
			return &UsageError{Err: fmt.Errorf("--oauth2-client-id %s: %v", o.id, s.client.redactError(err))}
		}
		s.client.secrets.add(tok, "$"+envToken)
		k := tokenKey{w.sc.Name, strings.Join(w.scopes, " ")}
		s.client.tokens.mu.Lock()
		s.client.tokens.byKey[k], s.client.tokens.granted[k] = tok, granted
		s.client.tokens.mu.Unlock()
	}
	return nil
}

// newTokenHTTP is the token endpoint's client: bounded, and it follows no
// redirect, so the client secret goes nowhere else.
func newTokenHTTP(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
