package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/petctl/petctl/spec"
)

// AuthOptions say which credentials each security scheme of the document
// accepts, and how petctl acts as the authorization server of its oauth2
// and openIdConnect schemes.
type AuthOptions struct {
	// Schemes restrict a scheme, by its name under
	// components.securitySchemes, to its own credentials. A scheme without
	// an entry accepts the development credentials, Options.Keys (any
	// non-empty one with OpenAuth): as an API key, as a bearer token with
	// every scope, as the password of any user name and as the secret of
	// any client at the token endpoint.
	Schemes map[string]SchemeCredentials
	// Issuer and Audience are the iss and aud of the tokens petctl issues,
	// and the only ones it accepts. Empty, each is derived from the request
	// (its Host): Issuer is the origin followed by OAuthPrefix without its
	// closing slash, Audience the origin followed by the base path. A token
	// is then accepted where it was issued.
	Issuer, Audience string
	// TokenLifetime is how long an issued token is valid (see
	// DefaultOptions).
	TokenLifetime time.Duration
	// SigningKey is a PEM private key (RSA of 2048 bits or more, ECDSA on
	// P-256, P-384 or P-521, or Ed25519) that signs the issued tokens. Empty:
	// a P-256 key generated at start-up, so tokens do not outlive the process.
	SigningKey []byte
}

// SchemeCredentials are the only credentials one security scheme accepts
// once configured. Which fields apply depends on the scheme's kind: keys
// for apiKey; users for http basic; tokens for http bearer; clients, users
// (the password grant) and tokens for oauth2 and openIdConnect.
type SchemeCredentials struct {
	Keys    []string
	Users   map[string]string // user name -> password
	Clients map[string]string // client id -> secret
	Tokens  []StaticToken
}

// StaticToken is a bearer token given in the configuration (for CI), with
// the scopes it carries.
type StaticToken struct {
	Token string
	// Scopes are the scopes the token carries; none means every scope.
	Scopes []string
}

// DefaultTokenLifetime is how long a token from the token endpoint is valid
// unless AuthOptions say otherwise (see DefaultOptions).
const DefaultTokenLifetime = time.Hour

// grant is what a valid credential allows: every scope, or these.
type grant struct {
	all    bool
	scopes []string
}

// lacks returns the scopes of want the grant does not carry.
func (g grant) lacks(want []string) []string {
	if g.all {
		return nil
	}
	var out []string
	for _, s := range want {
		if !slices.Contains(g.scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

// keyring holds secret strings (API keys, static bearer tokens) as SHA-256
// digests, each with what it grants. Comparing digests of equal length
// with subtle.ConstantTimeCompare, and always against every entry, makes
// the time a check takes independent of how much of a secret matched and
// of which one it was.
type keyring struct {
	digests [][sha256.Size]byte
	grants  []grant
	open    bool // any non-empty secret is accepted, with every scope
}

// newKeyring holds the development keys, and reports every key a request
// could not carry as an *OptionError at auth.keys[i]: this is the one place
// that rule is checked for them.
func newKeyring(keys []string, open bool) (*keyring, error) {
	k := &keyring{open: open}
	var errs []error
	for i, key := range keys {
		if why := secretProblem(key); why != "" {
			// Worded "auth: keys: API key 2 ...", as New always has.
			errs = append(errs, &OptionError{Key: fmt.Sprintf("auth.keys[%d]", i), Err: fmt.Errorf("API key %d %s", i+1, why), lead: "auth: keys: "})
			continue
		}
		k.add(key, grant{all: true})
	}
	return k, errors.Join(errs...)
}

// secretProblem says why a secret string cannot travel as an API key or a
// bearer token, or "".
func secretProblem(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "is empty"
	case strings.ContainsAny(s, " \t\r\n"):
		return "contains white space, which a bearer token cannot carry"
	}
	return ""
}

func (k *keyring) add(secret string, g grant) {
	k.digests = append(k.digests, sha256.Sum256([]byte(secret)))
	k.grants = append(k.grants, g)
}

// match returns what secret grants, when it is one of the ring's.
func (k *keyring) match(secret string) (grant, bool) {
	if secret == "" {
		return grant{}, false
	}
	if k.open {
		return grant{all: true}, true
	}
	d := sha256.Sum256([]byte(secret))
	found, at := 0, 0
	for i := range k.digests {
		eq := subtle.ConstantTimeCompare(d[:], k.digests[i][:])
		at = subtle.ConstantTimeSelect(eq, i, at)
		found |= eq
	}
	if found != 1 {
		return grant{}, false
	}
	return k.grants[at], true
}

// userSet holds name and password pairs (basic users, password-grant users,
// token-endpoint clients) as digests, compared in constant time against
// every pair. With any set, every name is accepted with a password the
// development keyring holds.
type userSet struct {
	names, passwords [][sha256.Size]byte
	any              *keyring
}

func newUserSet(pairs map[string]string) *userSet {
	u := &userSet{}
	for _, name := range slices.Sorted(maps.Keys(pairs)) {
		u.names = append(u.names, sha256.Sum256([]byte(name)))
		u.passwords = append(u.passwords, sha256.Sum256([]byte(pairs[name])))
	}
	return u
}

func (u *userSet) valid(name, password string) bool {
	if u.any != nil {
		_, ok := u.any.match(password)
		return ok
	}
	if password == "" {
		return false
	}
	n, p := sha256.Sum256([]byte(name)), sha256.Sum256([]byte(password))
	ok := 0
	for i := range u.names {
		ok |= subtle.ConstantTimeCompare(n[:], u.names[i][:]) & subtle.ConstantTimeCompare(p[:], u.passwords[i][:])
	}
	return ok == 1
}

// authFailure says why a request was refused, for the log; it never holds the credential.
type authFailure string

const (
	authMissing     authFailure = "missing credentials"
	authWrongScheme authFailure = "wrong authorization scheme"
	authEmptyToken  authFailure = "empty bearer token"
	authUnknownKey  authFailure = "unknown key"
	authBadBasic    authFailure = "malformed basic credentials"
	authBadUser     authFailure = "unknown user or wrong password"
	authBadClient   authFailure = "unknown client or wrong secret"
	authScope       authFailure = "insufficient scope"
	authUnsupported authFailure = "unsupported security scheme"
	// authRepeated: which of two Authorization headers counts is not for
	// the server to guess (RFC 9110 §5.3 does not allow the field twice).
	authRepeated authFailure = "the Authorization header is repeated; send it once"
	// The ways a token that looks issued by petctl (a JWT) can fail.
	authExpired     authFailure = "token expired"
	authBadSig      authFailure = "token signature invalid"
	authAudience    authFailure = "token for another audience"
	authIssuer      authFailure = "token from another issuer"
	authOtherScheme authFailure = "token issued for another security scheme"
	authBadToken    authFailure = "invalid token"
)

// sent reports whether the failure is about a credential the request
// carried, as opposed to one it lacks.
func (f authFailure) sent() bool {
	return f != authMissing && f != authUnsupported && f != ""
}

// guard checks the credentials of one security scheme.
type guard struct {
	scheme *spec.Scheme
	// restricted is set when the configuration gives the scheme its own
	// credentials; the development ones then no longer work for it.
	restricted bool
	secrets    *keyring // apiKey keys; static bearer tokens
	users      *userSet // basic users; the password grant's users
	clients    *userSet // the token endpoint's clients
	// userNames and clientNames are the configured names, for the banner.
	userNames, clientNames []string
}

// outcome is what one scheme concluded about a request.
type outcome struct {
	failure authFailure // "" when a valid credential was found
	grant   grant
}

// check looks for the scheme's credential in r, whose query the pipeline
// parsed once.
func (g *guard) check(r *http.Request, query url.Values, a *authenticator) outcome {
	switch g.scheme.Kind {
	case spec.SchemeAPIKey:
		v, f := g.apiKey(r, query)
		if f != "" {
			return outcome{failure: f}
		}
		if gr, ok := g.secrets.match(v); ok {
			return outcome{grant: gr}
		}
		return outcome{failure: authUnknownKey}
	case spec.SchemeBasic:
		return g.basic(r)
	case spec.SchemeBearer, spec.SchemeOAuth2, spec.SchemeOpenID:
		token, f := bearerCredential(r.Header.Values("Authorization"))
		if f != "" {
			return outcome{failure: f}
		}
		if gr, ok := g.secrets.match(token); ok {
			return outcome{grant: gr}
		}
		if g.scheme.Kind != spec.SchemeBearer && a.issuer != nil && looksLikeJWT(token) {
			gr, f := a.issuer.verify(r, token, g.scheme.Name)
			return outcome{failure: f, grant: gr}
		}
		return outcome{failure: authUnknownKey}
	}
	return outcome{failure: authUnsupported}
}

// apiKey returns the key where the scheme takes it. An apiKey scheme in
// the Authorization header (Ory's, and many generated documents') is sent
// with an authentication scheme before the key as often as without
// ("Authorization: Bearer <key>"): the word before the key is skipped.
func (g *guard) apiKey(r *http.Request, query url.Values) (string, authFailure) {
	var v string
	switch g.scheme.In {
	case "header":
		vs := r.Header.Values(g.scheme.Param)
		if len(vs) > 1 && strings.EqualFold(g.scheme.Param, "Authorization") {
			return "", authRepeated
		}
		if len(vs) > 0 {
			v = strings.TrimSpace(vs[0])
		}
		if _, key, ok := strings.Cut(v, " "); ok && strings.EqualFold(g.scheme.Param, "Authorization") {
			v = strings.TrimSpace(key)
		}
	case "query":
		v = query.Get(g.scheme.Param)
	case "cookie":
		if c, err := r.Cookie(g.scheme.Param); err == nil {
			v = c.Value
		}
	}
	if v == "" {
		return "", authMissing
	}
	return v, ""
}

// basic checks "Authorization: Basic base64(user:password)" (RFC 7617).
func (g *guard) basic(r *http.Request) outcome {
	values := r.Header.Values("Authorization")
	switch {
	case len(values) == 0:
		return outcome{failure: authMissing}
	case len(values) > 1:
		return outcome{failure: authRepeated}
	}
	user, password, f := basicCredential(values[0])
	if f != "" {
		return outcome{failure: f}
	}
	if !g.users.valid(user, password) {
		return outcome{failure: authBadUser}
	}
	return outcome{grant: grant{all: true}}
}

// basicCredential reads the user and password of a Basic Authorization
// value. The scheme name is case-insensitive (RFC 9110 §11.1).
func basicCredential(value string) (user, password string, f authFailure) {
	scheme, b64, _ := strings.Cut(strings.TrimSpace(value), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", authWrongScheme
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", authBadBasic
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", authBadBasic
	}
	return user, password, ""
}

// bearerCredential reads an Authorization header (RFC 6750 section 2.1):
// the scheme name is case-insensitive, the token follows one or more spaces.
func bearerCredential(values []string) (string, authFailure) {
	if len(values) == 0 {
		return "", authMissing
	}
	if len(values) > 1 {
		return "", authRepeated
	}
	scheme, token, _ := strings.Cut(strings.TrimLeft(values[0], " "), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", authWrongScheme
	}
	token = strings.Trim(token, " ")
	if token == "" {
		return "", authEmptyToken
	}
	return token, ""
}

// looksLikeJWT reports whether a token has the three dot-separated parts
// of a signed JWT, so that a plain wrong key is told as unknown.
func looksLikeJWT(token string) bool { return strings.Count(token, ".") == 2 }

// authenticator checks the operations' security requirements: every
// scheme's guard, and what each operation's refusals say, prepared at
// start-up.
type authenticator struct {
	guards map[string]*guard // by scheme name
	ops    map[*spec.Operation]*opAuth
	// issuer is petctl as the authorization server of the oauth2 and
	// openIdConnect schemes; nil when the document has none.
	issuer *issuer
}

// opAuth is what one operation's security needs, prepared at start-up.
type opAuth struct {
	// alts are the alternatives petctl can check; an operation that is
	// secured and has none answers 501 with unservable.
	alts       []spec.Requirement
	unservable string
	// hint says how to send a credential: "'X-Library-Key: <API_KEY>'";
	// ask is what a refusal says before it.
	hint, ask string
	// challenges are the WWW-Authenticate values, one per kind of scheme;
	// bearer is the index of the Bearer one, or -1.
	challenges []string
	bearer     int
	// forbidden is set when the document declares 403 and not 401 for the
	// operation: its refusals are then 403, as the document says.
	forbidden bool
}

// newAuthenticator prepares the guards of every scheme and the security of
// every operation. Every problem with the options is reported at once, as
// an *OptionError at its key. routes are the document's, so that a token
// endpoint never takes an operation's path.
func newAuthenticator(o Options, routes *router, now func() time.Time, log *slog.Logger) (*authenticator, error) {
	s := o.Spec
	a := &authenticator{guards: map[string]*guard{}, ops: map[*spec.Operation]*opAuth{}}
	dev, err := newKeyring(o.Keys, o.OpenAuth)
	errs := []error{err}
	for _, name := range slices.Sorted(maps.Keys(o.Auth.Schemes)) {
		if s.Schemes[name] == nil {
			errs = append(errs, sectionError("auth.schemes."+name, "the document declares no security scheme %q; its schemes are %s", name, schemeNames(s)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Schemes)) {
		sc := s.Schemes[name]
		g := &guard{scheme: sc, secrets: dev, users: &userSet{any: dev}, clients: &userSet{any: dev}}
		if c, ok := o.Auth.Schemes[name]; ok {
			errs = append(errs, g.restrict(c)...)
		}
		a.guards[name] = g
	}
	needDev := false
	for _, op := range s.Operations {
		a.ops[op] = a.prepare(op)
		for _, alt := range a.ops[op].alts {
			for _, use := range alt {
				needDev = needDev || !a.guards[use.Scheme.Name].restricted
			}
		}
		if u := a.ops[op].unservable; u != "" {
			log.Warn("operation needs a security scheme petctl cannot check; it answers 501", "operation", op.String(), "reason", u)
		}
	}
	if needDev && len(o.Keys) == 0 && !o.OpenAuth {
		errs = append(errs, wholeError("auth.keys", errors.New("no API key: give at least one, or use open authentication")))
	}
	if a.issuer, err = newIssuer(o, a.guards, routes, now, log); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return a, nil
}

func schemeNames(s *spec.Spec) string {
	names := slices.Sorted(maps.Keys(s.Schemes))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// restrict gives the scheme its own credentials, checking that each fits
// the scheme's kind and can travel in a request.
func (g *guard) restrict(c SchemeCredentials) []error {
	key := "auth.schemes." + g.scheme.Name
	var errs []error
	kind := g.scheme.Kind
	takes := map[string]bool{
		"keys":    kind == spec.SchemeAPIKey,
		"users":   kind == spec.SchemeBasic || kind == spec.SchemeOAuth2 || kind == spec.SchemeOpenID,
		"clients": kind == spec.SchemeOAuth2 || kind == spec.SchemeOpenID,
		"tokens":  kind == spec.SchemeBearer || kind == spec.SchemeOAuth2 || kind == spec.SchemeOpenID,
	}
	given := map[string]bool{"keys": len(c.Keys) > 0, "users": len(c.Users) > 0, "clients": len(c.Clients) > 0, "tokens": len(c.Tokens) > 0}
	var fits []string
	for _, f := range []string{"keys", "users", "clients", "tokens"} {
		if takes[f] {
			fits = append(fits, f)
		}
	}
	for _, f := range []string{"keys", "users", "clients", "tokens"} {
		if given[f] && !takes[f] {
			if len(fits) == 0 {
				errs = append(errs, keyError(key+"."+f, "%s takes no credentials petctl can check", g.scheme))
			} else {
				errs = append(errs, keyError(key+"."+f, "%s takes %s, not %s", g.scheme, strings.Join(fits, " and "), f))
			}
		}
	}
	if len(fits) > 0 && !slices.ContainsFunc(fits, func(f string) bool { return given[f] }) {
		errs = append(errs, keyError(key, "no credentials: give %s (an entry replaces the development keys for this scheme)", strings.Join(fits, " or ")))
	}
	g.restricted = true
	g.secrets = &keyring{}
	for i, k := range c.Keys {
		if why := secretProblem(k); why != "" {
			errs = append(errs, keyError(fmt.Sprintf("%s.keys[%d]", key, i), "the key %s", why))
			continue
		}
		g.secrets.add(k, grant{all: true})
	}
	for i, t := range c.Tokens {
		if why := secretProblem(t.Token); why != "" {
			errs = append(errs, keyError(fmt.Sprintf("%s.tokens[%d].token", key, i), "the token %s", why))
			continue
		}
		g.secrets.add(t.Token, grant{all: len(t.Scopes) == 0, scopes: slices.Clone(t.Scopes)})
	}
	errs = append(errs, pairProblems(key+".users", "user name", c.Users)...)
	errs = append(errs, pairProblems(key+".clients", "client id", c.Clients)...)
	g.users, g.clients = newUserSet(c.Users), newUserSet(c.Clients)
	g.userNames, g.clientNames = slices.Sorted(maps.Keys(c.Users)), slices.Sorted(maps.Keys(c.Clients))
	return errs
}

// pairProblems checks names and their passwords or secrets. A user name
// cannot hold a colon: Basic credentials end the name at the first one
// (RFC 7617 §2).
func pairProblems(key, what string, pairs map[string]string) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(pairs)) {
		switch {
		case name == "" || strings.ContainsFunc(name, unicode.IsControl):
			errs = append(errs, keyError(key, "%s %q: want a non-empty name without control characters", what, name))
		case what == "user name" && strings.Contains(name, ":"):
			errs = append(errs, keyError(key+"."+name, "a user name cannot hold ':', where Basic credentials end the name"))
		case pairs[name] == "":
			errs = append(errs, keyError(key+"."+name, "empty; give a password or secret"))
		}
	}
	return errs
}

// prepare works out what op's security needs and what its refusals say.
// RFC 9110 §11.6.1 wants at least one challenge on every 401. Bearer-type
// schemes (http bearer, oauth2, openIdConnect) share the RFC 6750 Bearer
// challenge, basic gets the RFC 7617 one. An apiKey scheme has no
// registered HTTP authentication scheme, and a Bearer challenge would send
// clients to a header the server ignores, so it gets a challenge of the
// unregistered scheme APIKey whose parameters say where the key goes;
// clients that do not know it skip it.
func (a *authenticator) prepare(op *spec.Operation) *opAuth {
	p := &opAuth{bearer: -1}
	if p.alts, p.unservable = checkable(op); p.unservable != "" {
		return p
	}
	var hints []string
	for _, alt := range p.alts {
		var parts []string
		for _, use := range alt {
			parts = append(parts, a.hint(use))
			ch := challenge(use.Scheme)
			if !slices.Contains(p.challenges, ch) {
				if use.Scheme.Bearer() {
					p.bearer = len(p.challenges)
				}
				p.challenges = append(p.challenges, ch)
			}
		}
		hints = append(hints, strings.Join(parts, " and "))
	}
	// Where every credential is an API key (http bearer, apiKey) the words
	// are those petctl has always used, which scripts and docs quote.
	keysOnly := !slices.ContainsFunc(p.alts, func(alt spec.Requirement) bool {
		return slices.ContainsFunc(alt, func(u spec.SchemeUse) bool {
			return u.Scheme.Kind != spec.SchemeAPIKey && u.Scheme.Kind != spec.SchemeBearer
		})
	})
	p.ask, p.hint = "a valid credential is required: send ", strings.Join(hints, ", or ")
	if keysOnly {
		p.ask, p.hint = "a valid API key is required: send it as ", strings.Join(hints, ", or as ")
	}
	p.forbidden = op.Response(http.StatusForbidden) != nil && op.Response(http.StatusUnauthorized) == nil
	return p
}

// checkable splits an operation's security alternatives: alts are those
// petctl can check; unservable names the schemes it cannot, when no
// alternative is left, and the operation then answers 501 (the server and
// `petctl inspect` both read it here).
func checkable(op *spec.Operation) (alts []spec.Requirement, unservable string) {
	var cannot []string
	for _, alt := range op.Requirements {
		i := slices.IndexFunc(alt, func(u spec.SchemeUse) bool { return u.Scheme.Kind == spec.SchemeUnsupported })
		if i >= 0 {
			cannot = append(cannot, alt[i].Scheme.String())
			continue
		}
		alts = append(alts, alt)
	}
	if len(alts) == 0 && len(cannot) > 0 {
		unservable = strings.Join(slices.Compact(cannot), ", or ")
	}
	return alts, unservable
}

// hint is how to send the credential of one use, quoted: "'X-Api-Key:
// <API_KEY>'", with the scopes it needs.
func (a *authenticator) hint(use spec.SchemeUse) string {
	sc := use.Scheme
	var h string
	switch sc.Kind {
	case spec.SchemeBasic:
		h = "'Authorization: Basic base64(<USER>:<PASSWORD>)'"
	case spec.SchemeOAuth2, spec.SchemeOpenID:
		h = "'" + sc.Example("<TOKEN>") + "'"
	default:
		h = "'" + sc.Example("<API_KEY>") + "'"
	}
	if len(use.Scopes) > 0 {
		h += " with scope " + strings.Join(use.Scopes, " ")
	}
	return h
}

// challenge is the WWW-Authenticate challenge of a scheme.
func challenge(sc *spec.Scheme) string {
	switch {
	case sc.Bearer():
		return `Bearer realm="petctl"`
	case sc.Kind == spec.SchemeBasic:
		return `Basic realm="petctl", charset="UTF-8"`
	}
	return fmt.Sprintf(`APIKey realm="petctl", in=%s, name=%s`, quotedString(sc.In), quotedString(sc.Param))
}

// check is the one call the pipeline makes: nil when r satisfies one of
// op's security alternatives, or else the complete refusal (401, 403 or
// 501, with its challenges).
func (a *authenticator) check(r *http.Request, query url.Values, op *spec.Operation) *response {
	p := a.ops[op]
	if p == nil || len(op.Requirements) == 0 {
		return nil
	}
	if p.unservable != "" {
		res := errorResponse(Errorf(CodeSchemeUnsupported, "%s needs the security scheme %s, which petctl cannot check, so no request can meet its security requirement here; the document's other operations are served", op, p.unservable))
		res.auth = authUnsupported
		return res
	}
	outcomes := make(map[string]outcome, 2)
	var best authFailure
	var scope struct {
		missing, granted []string
		found            bool
	}
	for _, alt := range p.alts {
		failure := authFailure("")
		for _, use := range alt {
			out, seen := outcomes[use.Scheme.Name]
			if !seen {
				out = a.guards[use.Scheme.Name].check(r, query, a)
				outcomes[use.Scheme.Name] = out
			}
			if out.failure != "" {
				failure = out.failure
				break
			}
			if missing := out.grant.lacks(use.Scopes); len(missing) > 0 {
				failure = authScope
				if !scope.found {
					scope.missing, scope.granted, scope.found = missing, out.grant.scopes, true
				}
				break
			}
		}
		if failure == "" {
			return nil
		}
		best = worse(best, failure)
	}
	if best == authScope {
		return a.insufficientScope(p, scope.missing, scope.granted)
	}
	return a.unauthorized(op, p, best, outcomes)
}

// worse picks the failure that says most about the request: a valid token
// without the scope, then a credential that was sent and refused, then a
// credential of another scheme, then none at all.
func worse(a, b authFailure) authFailure {
	rank := func(f authFailure) int {
		switch {
		case f == authScope:
			return 4
		case f == authWrongScheme:
			return 2
		case f.sent():
			return 3
		case f == "":
			return 0
		}
		return 1
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// unauthorized is the 401 (or the document's 403) for a request to op that
// failed with f.
func (a *authenticator) unauthorized(op *spec.Operation, p *opAuth, f authFailure, outcomes map[string]outcome) *response {
	e := Errorf(CodeUnauthorized, "%s%s (%s)", p.ask, p.hint, f)
	if p.forbidden {
		e = Errorf(CodeForbidden, "%s%s (%s); the document declares 403, not 401, for %s's refusals", p.ask, p.hint, f, op.ID)
	}
	res := errorResponse(e)
	res.auth = f
	res.header = http.Header{}
	for i, ch := range p.challenges {
		if i == p.bearer {
			ch += bearerError(outcomes, a.guards)
		}
		res.header.Add("WWW-Authenticate", ch)
	}
	return res
}

// bearerError is the error parameter of the Bearer challenge (RFC 6750
// §3.1): invalid_request for a repeated Authorization header,
// invalid_token when a bearer token was sent and refused, and nothing
// when none was (or one of another scheme, such as Basic, was).
func bearerError(outcomes map[string]outcome, guards map[string]*guard) string {
	var invalid bool
	for name, out := range outcomes {
		if !guards[name].scheme.Bearer() {
			continue
		}
		switch out.failure {
		case authRepeated:
			return `, error="invalid_request"`
		case authMissing, authWrongScheme, "":
		default:
			invalid = true
		}
	}
	if invalid {
		return `, error="invalid_token"`
	}
	return ""
}

// insufficientScope is the 403 of RFC 6750 §3.1 for a valid token that
// lacks a scope the operation needs.
func (a *authenticator) insufficientScope(p *opAuth, missing, granted []string) *response {
	has := "none"
	if len(granted) > 0 {
		has = strings.Join(granted, " ")
	}
	res := errorResponse(Errorf(CodeInsufficientScope, "the token is valid but lacks the scope this operation needs: %s (it carries %s); send %s", strings.Join(missing, " "), has, p.hint))
	res.auth = authScope
	res.set("WWW-Authenticate", `Bearer realm="petctl", error="insufficient_scope", scope=`+quotedString(strings.Join(missing, " ")))
	return res
}

// quotedString is s as an RFC 9110 quoted-string, control characters dropped.
func quotedString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			continue
		case r == '"' || r == '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// SchemeAccess says how a client obtains a credential for one security
// scheme, for the start-up banner. It holds names, never secrets.
type SchemeAccess struct {
	Scheme *spec.Scheme
	// Restricted is set when the configuration gives the scheme its own
	// credentials; Users and Clients are then the configured names.
	Restricted     bool
	Users, Clients []string
	// TokenPath is where an oauth2 or openIdConnect scheme's tokens are
	// issued: its flow's local tokenUrl, else TokenPath. DiscoveryPath is
	// an openIdConnect scheme's discovery document.
	TokenPath, DiscoveryPath string
	// Scopes are those a token for the scheme may carry.
	Scopes []string
}

// Access lists, by scheme name, how to obtain a credential for each
// security scheme the document's operations use.
func (s *Server) Access() []SchemeAccess {
	a := s.auth
	used := map[string]bool{}
	for _, op := range s.spec.Operations {
		for _, alt := range op.Requirements {
			for _, use := range alt {
				used[use.Scheme.Name] = true
			}
		}
	}
	var out []SchemeAccess
	for _, name := range slices.Sorted(maps.Keys(used)) {
		g := a.guards[name]
		if g == nil { // not declared: its own kind of unsupported scheme
			out = append(out, SchemeAccess{Scheme: &spec.Scheme{Name: name, Kind: spec.SchemeUnsupported, Unsupported: "not declared under components.securitySchemes"}})
			continue
		}
		acc := SchemeAccess{Scheme: g.scheme, Restricted: g.restricted, Users: g.userNames, Clients: g.clientNames}
		if is := a.issuer; is != nil && (g.scheme.Kind == spec.SchemeOAuth2 || g.scheme.Kind == spec.SchemeOpenID) {
			acc.TokenPath, acc.Scopes = TokenPath, is.scopes[name]
			for _, path := range slices.Sorted(maps.Keys(is.endpoints)) {
				if path != TokenPath && slices.Contains(is.endpoints[path], g) {
					acc.TokenPath = path
					break
				}
			}
			if g.scheme.Kind == spec.SchemeOpenID {
				acc.DiscoveryPath = DiscoveryPath
			}
		}
		out = append(out, acc)
	}
	return out
}
