package spec

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// SchemeKind is what a security scheme asks of a request. It is the one
// classification of OpenAPI's security schemes that the engine, the
// conformance suite and the CLI read.
type SchemeKind string

// The kinds of security scheme.
const (
	SchemeBearer SchemeKind = "bearer"        // http, scheme bearer: Authorization: Bearer <token>
	SchemeBasic  SchemeKind = "basic"         // http, scheme basic: Authorization: Basic <user:password>
	SchemeAPIKey SchemeKind = "apiKey"        // a key in a header, a query parameter or a cookie
	SchemeOAuth2 SchemeKind = "oauth2"        // a bearer token from an OAuth 2 authorization server
	SchemeOpenID SchemeKind = "openIdConnect" // a bearer token from an OpenID Connect provider
	// SchemeUnsupported is a scheme petctl cannot check (mutualTLS, http
	// digest, a name the components do not declare); Scheme.Unsupported
	// says why.
	SchemeUnsupported SchemeKind = "unsupported"
)

// Scheme is one security scheme of the document, classified once.
type Scheme struct {
	Name string // its key under components.securitySchemes
	Kind SchemeKind
	// In and Param say where the credential travels: for an apiKey its
	// place (header, query or cookie) and name; for every other kind the
	// Authorization header.
	In, Param string
	// Flows are an oauth2 scheme's flows, in the document's order.
	Flows []Flow
	// OpenIDConnectURL is an openIdConnect scheme's discovery document.
	OpenIDConnectURL string
	// Unsupported says why petctl cannot check the scheme, for SchemeUnsupported.
	Unsupported string
}

// Flow is one OAuth 2 flow of a scheme.
type Flow struct {
	Kind             string // clientCredentials, password, authorizationCode, implicit, device
	TokenURL         string
	AuthorizationURL string
	Scopes           []string
}

// SchemeUse is a scheme as a requirement names it, with the scopes it asks for.
type SchemeUse struct {
	Scheme *Scheme
	Scopes []string
}

// Requirement is one security alternative: every scheme in it must hold.
type Requirement []SchemeUse

// Bearer reports whether the scheme takes a bearer token in Authorization.
func (s *Scheme) Bearer() bool {
	return s.Kind == SchemeBearer || s.Kind == SchemeOAuth2 || s.Kind == SchemeOpenID
}

// Example shows the credential carrying secret the way a person types it:
// "Authorization: Bearer k", "X-Library-Key: k", "Cookie: sid=k" (headers)
// or "?appid=k" (the query). For basic, secret is "user:password" and is
// shown as given, not encoded, so a person can read what to send.
func (s *Scheme) Example(secret string) string {
	switch {
	case s.Bearer():
		return "Authorization: Bearer " + secret
	case s.Kind == SchemeBasic:
		return "Authorization: Basic base64(" + secret + ")"
	case s.In == "query":
		return "?" + url.QueryEscape(s.Param) + "=" + secret
	case s.In == "cookie":
		return "Cookie: " + s.Param + "=" + secret
	}
	return s.Param + ": " + secret
}

// String names the scheme for messages: `"bearerAuth" (http bearer)`.
func (s *Scheme) String() string {
	switch s.Kind {
	case SchemeBearer:
		return fmt.Sprintf("%q (http bearer)", s.Name)
	case SchemeBasic:
		return fmt.Sprintf("%q (http basic)", s.Name)
	case SchemeAPIKey:
		return fmt.Sprintf("%q (apiKey in %s %s)", s.Name, s.In, s.Param)
	case SchemeUnsupported:
		return fmt.Sprintf("%q (%s)", s.Name, s.Unsupported)
	}
	return fmt.Sprintf("%q (%s)", s.Name, s.Kind)
}

// readScheme classifies a declared scheme.
func readScheme(name string, sc *v3.SecurityScheme) *Scheme {
	s := &Scheme{Name: name, In: "header", Param: "Authorization"}
	switch strings.ToLower(sc.Type) {
	case "http":
		switch strings.ToLower(sc.Scheme) {
		case "bearer":
			s.Kind = SchemeBearer
		case "basic":
			s.Kind = SchemeBasic
		default:
			s.Kind, s.Unsupported = SchemeUnsupported, fmt.Sprintf("http %s; petctl checks http bearer and basic", sc.Scheme)
		}
	case "apikey":
		s.Kind, s.In, s.Param = SchemeAPIKey, sc.In, sc.Name
		if sc.In != "header" && sc.In != "query" && sc.In != "cookie" {
			s.Kind, s.Unsupported = SchemeUnsupported, fmt.Sprintf("apiKey in %q, which is not header, query or cookie", sc.In)
		}
	case "oauth2":
		s.Kind = SchemeOAuth2
		if f := sc.Flows; f != nil {
			for _, fl := range []struct {
				kind string
				flow *v3.OAuthFlow
			}{{"clientCredentials", f.ClientCredentials}, {"password", f.Password}, {"authorizationCode", f.AuthorizationCode}, {"implicit", f.Implicit}, {"device", f.Device}} {
				if fl.flow == nil {
					continue
				}
				flow := Flow{Kind: fl.kind, TokenURL: fl.flow.TokenUrl, AuthorizationURL: fl.flow.AuthorizationUrl}
				if fl.flow.Scopes != nil {
					for sp := fl.flow.Scopes.First(); sp != nil; sp = sp.Next() {
						flow.Scopes = append(flow.Scopes, sp.Key())
					}
				}
				s.Flows = append(s.Flows, flow)
			}
		}
	case "openidconnect":
		s.Kind, s.OpenIDConnectURL = SchemeOpenID, sc.OpenIdConnectUrl
	case "mutualtls":
		s.Kind, s.Unsupported = SchemeUnsupported, "mutualTLS; a mock on plain HTTP cannot see client certificates"
	default:
		s.Kind, s.Unsupported = SchemeUnsupported, fmt.Sprintf("type %q", sc.Type)
	}
	return s
}

// readRequirements turns security requirements into alternatives. An empty
// requirement ({}) among them makes authentication optional: the result is
// then nil, as for no requirement at all. A name the components do not
// declare is a scheme petctl cannot check.
func (s *Spec) readRequirements(reqs []*base.SecurityRequirement) []Requirement {
	var out []Requirement
	for _, req := range reqs {
		if req == nil || req.Requirements == nil {
			continue
		}
		var alt Requirement
		for r := req.Requirements.First(); r != nil; r = r.Next() {
			sc := s.Schemes[r.Key()]
			if sc == nil {
				sc = &Scheme{Name: r.Key(), Kind: SchemeUnsupported, Unsupported: "not declared under components.securitySchemes"}
			}
			alt = append(alt, SchemeUse{Scheme: sc, Scopes: slices.Clone(r.Value())})
		}
		if len(alt) == 0 {
			return nil
		}
		slices.SortFunc(alt, func(a, b SchemeUse) int { return strings.Compare(a.Scheme.Name, b.Scheme.Name) })
		out = append(out, alt)
	}
	return out
}
