package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
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

func newKeyring(keys []string, open bool) (*keyring, error) {
	k := &keyring{open: open}
	for i, key := range keys {
		if strings.TrimSpace(key) == "" {
			return nil, fmt.Errorf("API key %d is empty", i+1)
		}
		if strings.ContainsAny(key, " \t\r\n") {
			return nil, fmt.Errorf("API key %d contains white space, which a bearer token cannot carry", i+1)
		}
		k.digests = append(k.digests, sha256.Sum256([]byte(key)))
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
		return authWrongScheme // two Authorization headers are never valid
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
