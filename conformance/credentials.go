package conformance

// The credentials a run presents. They are resolved once, from Config, for
// each security scheme of the document (spec.Scheme): for each operation the
// run meets the first alternative of its requirements it has every
// credential for, and a request carries those credentials, or on purpose
// none, empty ones, another scheme's, wrong ones or a token without a scope
// the operation requires. An operation whose alternatives the run cannot
// meet is not sent a request that needs them: its checks are skipped,
// naming the flag that would give the credential.

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// The environment variables petctl conform reads the secrets from when no
// flag gives them. The same names, with a $, stand for the secrets in every
// message and curl command, so a pasted command sends them.
const (
	EnvAPIKey       = "PETCTL_API_KEY"
	EnvBearer       = "PETCTL_BEARER"
	EnvBasic        = "PETCTL_BASIC"
	EnvClientSecret = "PETCTL_OAUTH2_CLIENT_SECRET"
	// envToken stands for an access token fetched with the client
	// credentials; no one sets it, a person pastes the token there.
	envToken = "PETCTL_OAUTH2_TOKEN"
)

// NamedValue is a credential given by its name: a header, a cookie or a
// query parameter.
type NamedValue struct{ Name, Value string }

// authMode is the credential a request carries.
type authMode int

const (
	authKey         authMode = iota // the run's credentials for the operation
	authNone                        // no credentials at all
	authEmpty                       // the scheme with an empty token or value
	authOtherScheme                 // another scheme in Authorization (Basic for a bearer, Bearer for basic)
	authWrongKey                    // a key, token or password the deployment cannot know
	authNoScope                     // an access token without a scope the operation requires
)

// wrongKey is sent where a deployment must refuse the key. It is not a
// secret, so failure messages show it as it is.
const wrongKey = "petctl-conform-wrong-key-0000"

// basicCredentials is "petctl:conform", for the other-scheme check.
const basicCredentials = "cGV0Y3RsOmNvbmZvcm0="

// place is where an apiKey travels: header (canonical name), query or cookie.
type place struct{ in, name string }

// credentials are the secrets of a run, as Config gives them.
type credentials struct {
	apiKey, bearer, basic string
	// named are the values given with --header, --cookie and --query.
	// Those an apiKey scheme of the document names are its credential;
	// the others (a gateway's key, a tenant header) go with every request.
	named map[place]string
	oauth *oauthClient
}

func newCredentials(cfg Config) *credentials {
	c := &credentials{apiKey: cfg.APIKey, bearer: cfg.Bearer, basic: cfg.Basic, named: map[place]string{}}
	for _, h := range cfg.Headers {
		c.named[place{"header", textproto.CanonicalMIMEHeaderKey(h.Name)}] = h.Value
	}
	for _, v := range cfg.Cookies {
		c.named[place{"cookie", v.Name}] = v.Value
	}
	for _, v := range cfg.Query {
		c.named[place{"query", v.Name}] = v.Value
	}
	if cfg.OAuth2ClientID != "" {
		c.oauth = &oauthClient{id: cfg.OAuth2ClientID, secret: cfg.OAuth2ClientSecret, tokenURL: cfg.TokenURL}
	}
	return c
}

// none reports whether no credential at all was given.
func (c *credentials) none() bool {
	return c.apiKey == "" && c.bearer == "" && c.basic == "" && len(c.named) == 0 && c.oauth == nil
}

// varFor is the variable that stands for a value given by name:
// $PETCTL_HEADER_X_API_KEY, $PETCTL_QUERY_APPID.
func varFor(p place) string {
	return "$PETCTL_" + strings.ToUpper(p.in) + "_" + strings.ToUpper(strings.Trim(unsafeVarChars.ReplaceAllString(p.name, "_"), "_"))
}

var unsafeVarChars = regexp.MustCompile(`[^A-Za-z0-9]+`)

// register makes every secret of c one the output never shows.
func (c *credentials) register(r *redactor) {
	r.add(c.apiKey, "$"+EnvAPIKey)
	r.add(c.bearer, "$"+EnvBearer)
	if c.basic != "" {
		r.add(c.basic, "$"+EnvBasic)
		r.add(base64.StdEncoding.EncodeToString([]byte(c.basic)), "$"+EnvBasic)
		if _, pass, ok := strings.Cut(c.basic, ":"); ok {
			r.add(pass, "$"+EnvBasic)
		}
	}
	for _, p := range slices.SortedFunc(func(yield func(place) bool) {
		for p := range c.named {
			if !yield(p) {
				return
			}
		}
	}, func(a, b place) int { return strings.Compare(a.in+a.name, b.in+b.name) }) {
		r.add(c.named[p], varFor(p))
	}
	if c.oauth != nil {
		r.add(c.oauth.secret, "$"+EnvClientSecret)
	}
}

// takes reports whether an apiKey scheme of doc travels at p.
func takes(doc *spec.Spec, p place) bool {
	for _, sc := range doc.Schemes {
		if sc.Kind == spec.SchemeAPIKey && placeOf(sc) == p {
			return true
		}
	}
	return false
}

func placeOf(sc *spec.Scheme) place {
	if sc.In == "header" {
		return place{"header", textproto.CanonicalMIMEHeaderKey(sc.Param)}
	}
	return place{sc.In, sc.Param}
}

// extras are the named values no apiKey scheme of doc takes: they go with
// every request, in sorted order.
func (c *credentials) extras(doc *spec.Spec) []place {
	var out []place
	for p := range c.named {
		if !takes(doc, p) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b place) int { return strings.Compare(a.in+a.name, b.in+b.name) })
	return out
}

// lacks says why the run has no credential for sc, with the flag that
// would give one; "" when it has one.
func (c *credentials) lacks(sc *spec.Scheme) string {
	switch sc.Kind {
	case spec.SchemeBearer:
		if c.bearer != "" || c.apiKey != "" {
			return ""
		}
		return "give --bearer TOKEN (or --api-key)"
	case spec.SchemeBasic:
		if c.basic != "" {
			return ""
		}
		return "give --basic USER:PASSWORD"
	case spec.SchemeAPIKey:
		if c.named[placeOf(sc)] != "" || c.apiKey != "" {
			return ""
		}
		switch sc.In {
		case "query":
			return fmt.Sprintf("give --query %s=VALUE (or --api-key)", sc.Param)
		case "cookie":
			return fmt.Sprintf("give --cookie %s=VALUE (or --api-key)", sc.Param)
		}
		return fmt.Sprintf("give --header '%s: VALUE' (or --api-key)", sc.Param)
	case spec.SchemeOAuth2, spec.SchemeOpenID:
		if c.usesToken(sc) || c.bearer != "" {
			return ""
		}
		if c.oauth != nil {
			_, why := c.oauth.endpoint(sc)
			return why + ": give --token-url, or --bearer TOKEN"
		}
		return "give --oauth2-client-id and --oauth2-client-secret, or --bearer TOKEN"
	}
	return "petctl cannot present it: " + sc.Unsupported
}

// usesToken reports whether the run fetches sc's tokens with the client
// credentials.
func (c *credentials) usesToken(sc *spec.Scheme) bool {
	if c.oauth == nil || sc.Kind != spec.SchemeOAuth2 && sc.Kind != spec.SchemeOpenID {
		return false
	}
	_, why := c.oauth.endpoint(sc)
	return why == ""
}

// access is how the run meets an operation's security.
type access struct {
	// alt is the alternative the run meets (nil for an operation that
	// requires no authentication, or one the run cannot meet).
	alt spec.Requirement
	// missing says why the run meets none of the alternatives; "" when it
	// meets one or none is required.
	missing string
}

// accessFor picks the first alternative of op's requirements the run has
// every credential for.
func (c *credentials) accessFor(op *spec.Operation) access {
	if len(op.Requirements) == 0 {
		return access{}
	}
	for _, alt := range op.Requirements {
		ok := authorizations(alt) < 2
		for _, use := range alt {
			ok = ok && c.lacks(use.Scheme) == ""
		}
		if ok {
			return access{alt: alt}
		}
	}
	first := op.Requirements[0]
	if authorizations(first) > 1 {
		return access{missing: "its schemes all travel in the one Authorization header, so no request can carry them together"}
	}
	var why []string
	for _, use := range first {
		if l := c.lacks(use.Scheme); l != "" {
			why = append(why, fmt.Sprintf("%s: %s", use.Scheme, l))
		}
	}
	return access{missing: "no credential for " + strings.Join(why, "; ")}
}

// authorizations counts the schemes of alt that travel in the
// Authorization header: a request carries one.
func authorizations(alt spec.Requirement) int {
	n := 0
	for _, use := range alt {
		if use.Scheme.Bearer() || use.Scheme.Kind == spec.SchemeBasic {
			n++
		}
	}
	return n
}

// sentHeader is a header a request carries. shown is how messages and
// reports show a value that carries a secret ("Bearer $PETCTL_API_KEY",
// the variable a person would set to repeat the request); it is empty for
// a value that carries none, shown as it is.
type sentHeader struct{ name, value, shown string }

// display is the header's value as messages and reports show it.
func (h sentHeader) display() string {
	if h.shown != "" {
		return h.shown
	}
	return h.value
}

// bearerFor is the token a bearer-like scheme takes, and its variable.
func (c *client) bearerFor(use spec.SchemeUse, mode authMode) (string, string) {
	switch {
	case use.Scheme.Kind == spec.SchemeBearer && c.creds.bearer == "":
		return c.creds.apiKey, "$" + EnvAPIKey
	case c.creds.usesToken(use.Scheme):
		return c.tokens.get(use.Scheme, tokenScopes(use, mode)), "$" + envToken
	}
	return c.creds.bearer, "$" + EnvBearer
}

// keyFor is the value an apiKey scheme takes, and its variable.
func (c *client) keyFor(sc *spec.Scheme) (string, string) {
	if v := c.creds.named[placeOf(sc)]; v != "" {
		return v, varFor(placeOf(sc))
	}
	return c.creds.apiKey, "$" + EnvAPIKey
}

// credentials returns the headers that carry r's credentials; a credential
// in the query is added to r.query by credentialQuery.
func (c *client) credentials(r *request) []sentHeader {
	var out []sentHeader
	var cookies, shownCookies []string
	for _, use := range r.alt {
		sc := use.Scheme
		mode := r.auth
		if mode == authNoScope && !sc.Bearer() {
			mode = authKey // only the token lacks a scope; the rest is right
		}
		switch {
		case sc.Bearer():
			switch mode {
			case authKey, authNoScope:
				tok, v := c.bearerFor(use, r.auth)
				out = append(out, sentHeader{"Authorization", "Bearer " + tok, "Bearer " + v})
			case authEmpty:
				out = append(out, sentHeader{"Authorization", "Bearer ", ""})
			case authOtherScheme:
				out = append(out, sentHeader{"Authorization", "Basic " + basicCredentials, ""})
			case authWrongKey:
				out = append(out, sentHeader{"Authorization", "Bearer " + c.wrongKey(), ""})
			}
		case sc.Kind == spec.SchemeBasic:
			switch mode {
			case authKey:
				out = append(out, sentHeader{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(c.creds.basic)), basicShown})
			case authEmpty:
				out = append(out, sentHeader{"Authorization", "Basic ", ""})
			case authOtherScheme:
				out = append(out, sentHeader{"Authorization", "Bearer " + c.wrongKey(), ""})
			case authWrongKey:
				user, _, _ := strings.Cut(c.creds.basic, ":")
				out = append(out, sentHeader{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+c.wrongKey())), ""})
			}
		case sc.Kind != spec.SchemeAPIKey:
		case sc.In == "header":
			switch mode {
			case authKey:
				v, shown := c.keyFor(sc)
				out = append(out, sentHeader{sc.Param, v, shown})
			case authEmpty:
				out = append(out, sentHeader{sc.Param, "", ""})
			case authWrongKey:
				out = append(out, sentHeader{sc.Param, c.wrongKey(), ""})
			}
		case sc.In == "cookie":
			switch mode {
			case authKey:
				v, shown := c.keyFor(sc)
				cookies, shownCookies = append(cookies, sc.Param+"="+v), append(shownCookies, sc.Param+"="+shown)
			case authEmpty:
				cookies, shownCookies = append(cookies, sc.Param+"="), append(shownCookies, sc.Param+"=")
			case authWrongKey:
				cookies, shownCookies = append(cookies, sc.Param+"="+c.wrongKey()), append(shownCookies, sc.Param+"="+c.wrongKey())
			}
		}
	}
	for _, p := range c.extras {
		v := c.creds.named[p]
		switch p.in {
		case "header":
			out = append(out, sentHeader{p.name, v, varFor(p)})
		case "cookie":
			cookies, shownCookies = append(cookies, p.name+"="+v), append(shownCookies, p.name+"="+varFor(p))
		}
	}
	if len(cookies) > 0 {
		out = append(out, sentHeader{"Cookie", strings.Join(cookies, "; "), strings.Join(shownCookies, "; ")})
	}
	return out
}

// basicShown stands for a Basic Authorization header: the curl command
// sends the credentials with -u "$PETCTL_BASIC".
const basicShown = "Basic $" + EnvBasic

// credentialQuery adds r's credentials in the query to r.query: an apiKey
// scheme's, and the values given with --query that no scheme takes.
func (c *client) credentialQuery(r *request) {
	if r.query == nil {
		r.query = url.Values{}
	}
	for _, use := range r.alt {
		sc := use.Scheme
		if sc.Kind != spec.SchemeAPIKey || sc.In != "query" {
			continue
		}
		switch r.auth {
		case authKey, authNoScope:
			v, _ := c.keyFor(sc)
			r.query.Set(sc.Param, v)
		case authEmpty:
			r.query.Set(sc.Param, "")
		case authWrongKey:
			r.query.Set(sc.Param, c.wrongKey())
		}
	}
	for _, p := range c.extras {
		if p.in == "query" {
			r.query.Set(p.name, c.creds.named[p])
		}
	}
}

// wrongKey is a key that differs from every credential given.
func (c *client) wrongKey() string {
	k := wrongKey
	for c.creds.apiKey == k || c.creds.bearer == k || strings.HasSuffix(c.creds.basic, ":"+k) {
		k += "-x"
	}
	return k
}

// refusalStatuses are the statuses op answers a request it refuses for its
// credentials, by the document: 401 where op declares it, 403 where that
// is the one of the two it declares, else either (the document leaves it
// open).
func refusalStatuses(op *spec.Operation) []int {
	declared := func(st int) bool {
		return slices.ContainsFunc(op.Responses, func(r *spec.Response) bool { return r.Status == st })
	}
	switch {
	case declared(http.StatusUnauthorized):
		return []int{http.StatusUnauthorized}
	case declared(http.StatusForbidden):
		return []int{http.StatusForbidden}
	}
	return []int{http.StatusUnauthorized, http.StatusForbidden}
}
