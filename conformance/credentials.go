package conformance

// What a request carries for its operation's security: the key, as the
// schemes of the operation's first alternative ask for it (spec.Scheme), or
// on purpose none, an empty one, a wrong one or another scheme's.

import (
	"net/url"

	"github.com/petctl/petctl/spec"
)

// authMode is the credential a request carries.
type authMode int

const (
	authKey         authMode = iota // the configured key
	authNone                        // no credentials at all
	authEmpty                       // the scheme with an empty token or value
	authOtherScheme                 // Authorization: Basic …
	authWrongKey                    // a key the deployment cannot know
)

// wrongKey is sent where a deployment must refuse the key. It is not a
// secret, so failure messages show it as it is.
const wrongKey = "petctl-conform-wrong-key-0000"

// basicCredentials is "petctl:conform", for the other-scheme check.
const basicCredentials = "cGV0Y3RsOmNvbmZvcm0="

// firstAlternative is what the suite satisfies of op's security: the
// schemes of the first alternative its requirements list.
func firstAlternative(op *spec.Operation) spec.Requirement {
	if len(op.Requirements) == 0 {
		return nil
	}
	return op.Requirements[0]
}

// sendsKey reports whether the run can present its key as sc asks: as an
// http bearer token, or as an apiKey in a header, the query or a cookie.
// For the other kinds (basic, oauth2, openIdConnect, those spec cannot
// check) it has no credential, so it sends none.
func sendsKey(sc *spec.Scheme) bool {
	return sc.Kind == spec.SchemeBearer || sc.Kind == spec.SchemeAPIKey
}

// sentHeader is a header a request carries. shown is how messages and
// reports show a value that carries the key ("Bearer $PETCTL_API_KEY",
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

// credentials returns the headers that carry r's credentials. A key in
// the query is added to r.query by the caller (see credentialQuery).
func (c *client) credentials(r *request) []sentHeader {
	var out []sentHeader
	for _, use := range firstAlternative(r.op) {
		sc := use.Scheme
		switch {
		case sc.Kind == spec.SchemeBearer:
			switch r.auth {
			case authKey:
				out = append(out, sentHeader{"Authorization", "Bearer " + c.key, "Bearer " + keyVar})
			case authEmpty:
				out = append(out, sentHeader{"Authorization", "Bearer ", ""})
			case authOtherScheme:
				out = append(out, sentHeader{"Authorization", "Basic " + basicCredentials, ""})
			case authWrongKey:
				out = append(out, sentHeader{"Authorization", "Bearer " + c.wrongKey(), ""})
			}
		case !sendsKey(sc):
		case sc.In == "header":
			switch r.auth {
			case authKey:
				out = append(out, sentHeader{sc.Param, c.key, keyVar})
			case authEmpty:
				out = append(out, sentHeader{sc.Param, "", ""})
			case authWrongKey:
				out = append(out, sentHeader{sc.Param, c.wrongKey(), ""})
			}
		case sc.In == "cookie":
			switch r.auth {
			case authKey:
				out = append(out, sentHeader{"Cookie", sc.Param + "=" + c.key, sc.Param + "=" + keyVar})
			case authEmpty:
				out = append(out, sentHeader{"Cookie", sc.Param + "=", ""})
			case authWrongKey:
				out = append(out, sentHeader{"Cookie", sc.Param + "=" + c.wrongKey(), ""})
			}
		}
	}
	return out
}

// credentialQuery adds r's key to r.query, for an apiKey scheme in the query.
func (c *client) credentialQuery(r *request) {
	for _, use := range firstAlternative(r.op) {
		sc := use.Scheme
		if sc.Kind != spec.SchemeAPIKey || sc.In != "query" {
			continue
		}
		if r.query == nil {
			r.query = url.Values{}
		}
		switch r.auth {
		case authKey:
			r.query.Set(sc.Param, c.key)
		case authEmpty:
			r.query.Set(sc.Param, "")
		case authWrongKey:
			r.query.Set(sc.Param, c.wrongKey())
		}
	}
}

// wrongKey is a key that differs from the configured one.
func (c *client) wrongKey() string {
	if c.key == wrongKey {
		return wrongKey + "-x"
	}
	return wrongKey
}
