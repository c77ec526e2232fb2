package conformance

// The auth checks: every secured operation refuses a request without
// credentials, and, where the run holds the credentials it asks for, one
// with an empty, a wrong or another scheme's credential, and a token
// without a scope it requires. The status expected is the one the document
// declares for refusals: 401, or 403 where that is the one it declares,
// either where it declares neither.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// authCase is one refusal: the credential sent and how the check names it.
type authCase struct {
	mode authMode
	text string
	// want, when set, replaces the document's refusal statuses (a token
	// without a scope is forbidden, not unauthenticated).
	want []int
	// use is the scheme whose scope the token lacks (authNoScope).
	use spec.SchemeUse
}

// authCases are the refusals a request to op is checked for.
func (s *suite) authCases(op *spec.Operation) []authCase {
	cases := []authCase{{mode: authNone, text: "without credentials"}}
	alt := s.access[op].alt
	if alt == nil {
		// A wrong credential proves nothing where the run cannot send a
		// right one: a deployment that refuses everything passes.
		return cases
	}
	var bearer, basic, apiKey bool
	for _, use := range alt {
		bearer = bearer || use.Scheme.Bearer()
		basic = basic || use.Scheme.Kind == spec.SchemeBasic
		apiKey = apiKey || use.Scheme.Kind == spec.SchemeAPIKey
	}
	switch {
	case bearer:
		cases = append(cases, authCase{mode: authEmpty, text: "with an empty bearer token"}, authCase{mode: authOtherScheme, text: "with another scheme (Basic)"})
	case basic:
		cases = append(cases, authCase{mode: authOtherScheme, text: "with another scheme (Bearer)"})
	case apiKey:
		cases = append(cases, authCase{mode: authEmpty, text: "with an empty key"})
	}
	wrong := "with a wrong key"
	if basic && !bearer && !apiKey {
		wrong = "with a wrong password"
	}
	cases = append(cases, authCase{mode: authWrongKey, text: wrong})
	for _, use := range alt {
		if s.scopeCheck(op, use) {
			cases = append(cases, authCase{mode: authNoScope, use: use, want: []int{http.StatusForbidden},
				text: fmt.Sprintf("with a token without the scope %s", strings.Join(use.Scopes, " and "))})
		}
	}
	return cases
}

func (s *suite) authChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		if !op.Secured() {
			continue
		}
		for _, ac := range s.authCases(op) {
			want := ac.want
			if want == nil {
				want = refusalStatuses(op)
			}
			text := ac.text + " gives " + statusList(want)
			what := fmt.Sprintf("%s: the request must be refused", statusList(want))
			if s.removed(op) {
				what = fmt.Sprintf("%s, or 404 or 410 since %s was removed on %s", statusList(want), op.ID, op.Sunset.Format(dateText))
				want = append(slices.Clone(want), http.StatusNotFound, http.StatusGone)
			}
			add(&check{group: groupAuth, op: op, text: text, writes: !safe(op), fn: func(t *T) {
				if ac.mode == authNoScope {
					granted := s.client.tokens.grants(ac.use.Scheme, tokenScopes(ac.use, authNoScope))
					for _, sp := range ac.use.Scopes {
						if slices.Contains(granted, sp) {
							t.skipf("the token endpoint granted %s with the token asked for %s instead", sp, strings.Join(otherScopes(ac.use), " "))
						}
					}
				}
				// A 501 skips, as everywhere: the operation is not there to
				// refuse anything, and the coverage says it was not exercised.
				ex := t.send(s.validRequest(op, ac.mode))
				t.expectStatus(ex, want, what)
			}})
		}
	}
}
