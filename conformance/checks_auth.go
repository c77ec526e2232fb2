package conformance

// The auth checks: every secured operation refuses a request without
// credentials, with an empty one, with another scheme and with a wrong key.

import (
	"fmt"
	"net/http"

	"github.com/petctl/petctl/spec"
)

// authChecks adds, for each secured operation, the requests it must refuse
// with 401: the cases depend on the schemes of its first alternative.
func (s *suite) authChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		if !op.Secured() {
			continue
		}
		alt := firstAlternative(op)
		var bearer, apiKey, keyless bool
		for _, use := range alt {
			bearer = bearer || use.Scheme.Kind == spec.SchemeBearer
			apiKey = apiKey || use.Scheme.Kind == spec.SchemeAPIKey
			keyless = keyless || !sendsKey(use.Scheme)
		}
		type authCase struct {
			mode authMode
			text string
		}
		cases := []authCase{{authNone, "without credentials gives 401"}}
		if bearer {
			cases = append(cases, authCase{authEmpty, "with an empty bearer token gives 401"}, authCase{authOtherScheme, "with another scheme (Basic) gives 401"})
		} else if apiKey {
			cases = append(cases, authCase{authEmpty, "with an empty key gives 401"})
		}
		// A wrong key proves nothing where the run cannot send a right one.
		if len(alt) > 0 && !keyless {
			cases = append(cases, authCase{authWrongKey, "with a wrong key gives 401"})
		}
		for _, ac := range cases {
			add(&check{group: groupAuth, op: op, text: ac.text, writes: !safe(op), fn: func(t *T) {
				r := s.validRequest(op, ac.mode)
				ex := t.send(r)
				want := []int{http.StatusUnauthorized}
				what := "401: the request must be refused"
				if s.removed(op) {
					want = []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusGone}
					what = fmt.Sprintf("401, or 404 or 410 since %s was removed on %s", op.ID, op.Sunset.Format(dateText))
				}
				t.expectStatus(ex, want, what)
			}})
		}
	}
}
