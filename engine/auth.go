package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/petctl/petctl/spec"
)

// keyring holds API keys as SHA-256 digests. Comparing digests of equal
// length with subtle.ConstantTimeCompare, and always against every key,
// makes the time a check takes independent of how much of a key matched and
// of which key it was.
type keyring struct {
	digests [][sha256.Size]byte
	open    bool // any non-empty token is accepted
}

// newKeyring holds keys, and reports every key a request could not carry
// as an *OptionError at auth.keys[i]: this is the one place that rule is
// checked.
func newKeyring(keys []string, open bool) (*keyring, error) {
	k := &keyring{open: open}
	var errs []error
	bad := func(i int, format string) {
		// Worded "auth: keys: API key 2 ...", as New always has.
		errs = append(errs, &OptionError{Key: fmt.Sprintf("auth.keys[%d]", i), Err: fmt.Errorf(format, i+1), lead: "auth: keys: "})
	}
	for i, key := range keys {
		switch {
		case strings.TrimSpace(key) == "":
			bad(i, "API key %d is empty")
		case strings.ContainsAny(key, " \t\r\n"):
			bad(i, "API key %d contains white space, which a bearer token cannot carry")
		default:
			k.digests = append(k.digests, sha256.Sum256([]byte(key)))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return k, nil
}

func (k *keyring) valid(token string) bool {
	if token == "" {
		return false
	}
	if k.open {
		return true
	}
	d := sha256.Sum256([]byte(token))
	match := 0
	for i := range k.digests {
		match |= subtle.ConstantTimeCompare(d[:], k.digests[i][:])
	}
	return match == 1
}

// authFailure says why a request was refused, for the log; it never holds the credential.
type authFailure string

const (
	authMissing     authFailure = "missing credentials"
	authWrongScheme authFailure = "wrong authorization scheme"
	authEmptyToken  authFailure = "empty bearer token"
	authUnknownKey  authFailure = "unknown key"
	authUnsupported authFailure = "unsupported security scheme"
	// authRepeated: which of two Authorization headers counts is not for
	// the server to guess (RFC 9110 §5.3 does not allow the field twice).
	authRepeated authFailure = "the Authorization header is repeated; send it once"
)

// authenticator checks an operation's security requirements.
type authenticator struct {
	keys    *keyring
	schemes map[string]*v3.SecurityScheme
}

// check returns "" when r satisfies one of op's security alternatives, or why not.
func (a *authenticator) check(r *http.Request, op *spec.Operation) authFailure {
	if !op.Secured() {
		return ""
	}
	var first authFailure
	for _, alt := range op.Security {
		failure := authFailure("")
		for _, name := range alt {
			if f := a.scheme(r, a.schemes[name]); f != "" {
				failure = f
				break
			}
		}
		if failure == "" {
			return ""
		}
		if first == "" {
			first = failure
		}
	}
	return first
}

func (a *authenticator) scheme(r *http.Request, s *v3.SecurityScheme) authFailure {
	switch {
	case s == nil:
		return authUnsupported
	case strings.EqualFold(s.Type, "http") && strings.EqualFold(s.Scheme, "bearer"):
		return a.bearer(r.Header.Values("Authorization"))
	case strings.EqualFold(s.Type, "apiKey"):
		var v string
		switch s.In {
		case "header":
			v = r.Header.Get(s.Name)
		case "query":
			v = r.URL.Query().Get(s.Name)
		case "cookie":
			if c, err := r.Cookie(s.Name); err == nil {
				v = c.Value
			}
		}
		if v == "" {
			return authMissing
		}
		if !a.keys.valid(v) {
			return authUnknownKey
		}
		return ""
	}
	return authUnsupported
}

// bearer checks an Authorization header (RFC 6750 section 2.1): the scheme
// name is case-insensitive, the token follows one or more spaces.
func (a *authenticator) bearer(values []string) authFailure {
	if len(values) == 0 {
		return authMissing
	}
	if len(values) > 1 {
		return authRepeated
	}
	scheme, token, _ := strings.Cut(strings.TrimLeft(values[0], " "), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return authWrongScheme
	}
	token = strings.Trim(token, " ")
	if token == "" {
		return authEmptyToken
	}
	if !a.keys.valid(token) {
		return authUnknownKey
	}
	return ""
}

// supported reports the first scheme petctl cannot check, for start-up errors.
func (a *authenticator) unsupported(ops []*spec.Operation) error {
	for _, op := range ops {
		for _, alt := range op.Security {
			for _, name := range alt {
				s := a.schemes[name]
				if s == nil {
					return fmt.Errorf("%s: security scheme %q is not declared", op, name)
				}
				bearer := strings.EqualFold(s.Type, "http") && strings.EqualFold(s.Scheme, "bearer")
				if !bearer && !strings.EqualFold(s.Type, "apiKey") {
					return fmt.Errorf("%s: security scheme %q (%s %s) is not supported; petctl serves http bearer and apiKey schemes", op, name, s.Type, s.Scheme)
				}
			}
		}
	}
	return nil
}

// Credential is one thing a request must carry to satisfy a security
// scheme: the API key in a header, a query parameter or a cookie.
type Credential struct {
	In   string // "header", "query" or "cookie"
	Name string // the header, query parameter or cookie name
	// Bearer marks an http bearer scheme: the header is Authorization and
	// its value "Bearer <key>".
	Bearer bool
}

// Example shows the credential carrying key, the way a person types it:
// "Authorization: Bearer k", "X-Library-Key: k", "Cookie: sid=k" (headers)
// or "?appid=k" (the query).
func (c Credential) Example(key string) string {
	switch {
	case c.Bearer:
		return "Authorization: Bearer " + key
	case c.In == "query":
		return "?" + url.QueryEscape(c.Name) + "=" + key
	case c.In == "cookie":
		return "Cookie: " + c.Name + "=" + key
	}
	return c.Name + ": " + key
}

// Credentials returns what a request must send to satisfy op: one list per
// security alternative, each with every credential that alternative needs.
// It is nil when op needs none; a scheme petctl cannot check is left out.
func Credentials(s *spec.Spec, op *spec.Operation) [][]Credential {
	var out [][]Credential
	for _, alt := range op.Security {
		var cs []Credential
		for _, name := range alt {
			if c, ok := credential(s.SecuritySchemes[name]); ok {
				cs = append(cs, c)
			}
		}
		if len(cs) > 0 {
			out = append(out, cs)
		}
	}
	return out
}

func credential(s *v3.SecurityScheme) (Credential, bool) {
	switch {
	case s == nil:
	case strings.EqualFold(s.Type, "http") && strings.EqualFold(s.Scheme, "bearer"):
		return Credential{In: "header", Name: "Authorization", Bearer: true}, true
	case strings.EqualFold(s.Type, "apiKey") && (s.In == "header" || s.In == "query" || s.In == "cookie"):
		return Credential{In: s.In, Name: s.Name}, true
	}
	return Credential{}, false
}

// advice is what a 401 of one operation says, prepared at start-up.
type advice struct {
	// hint says how to send the key: "'X-Library-Key: <API_KEY>'".
	hint string
	// challenges are the WWW-Authenticate values, one per scheme; bearer
	// is the index of the Bearer one, or -1.
	challenges []string
	bearer     int
}

// newAdvice prepares the 401 of op. RFC 9110 section 11.6.1 wants at least
// one challenge on every 401. An http bearer scheme gets the RFC 6750
// Bearer challenge. An apiKey scheme has no registered HTTP authentication
// scheme, and a Bearer challenge would send clients to a header the server
// ignores, so it gets a challenge of the unregistered scheme APIKey whose
// parameters say where the key goes; clients that do not know it skip it.
func newAdvice(s *spec.Spec, op *spec.Operation) advice {
	a := advice{bearer: -1}
	var alts []string
	for _, alt := range Credentials(s, op) {
		var parts []string
		for _, c := range alt {
			parts = append(parts, "'"+c.Example("<API_KEY>")+"'")
			ch := `Bearer realm="petctl"`
			if !c.Bearer {
				ch = fmt.Sprintf(`APIKey realm="petctl", in=%s, name=%s`, quotedString(c.In), quotedString(c.Name))
			}
			if !slices.Contains(a.challenges, ch) {
				if c.Bearer {
					a.bearer = len(a.challenges)
				}
				a.challenges = append(a.challenges, ch)
			}
		}
		alts = append(alts, strings.Join(parts, " and "))
	}
	a.hint = strings.Join(alts, ", or as ")
	return a
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

// unauthorized is the 401 for a request to o that failed with f.
func (a *authenticator) unauthorized(r *http.Request, o *operation, f authFailure) *response {
	res := errorResponse(Errorf(CodeUnauthorized, "a valid API key is required: send it as %s (%s)", o.advice.hint, f))
	res.auth = f
	res.header = http.Header{}
	for i, ch := range o.advice.challenges {
		if i == o.advice.bearer {
			// RFC 6750 section 3.1: invalid_token when a token was sent
			// and refused.
			if bf := a.bearer(r.Header.Values("Authorization")); bf == authUnknownKey || bf == authEmptyToken {
				ch += `, error="invalid_token"`
			}
		}
		res.header.Add("WWW-Authenticate", ch)
	}
	return res
}
