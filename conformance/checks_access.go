package conformance

// The access checks: every operation answers a valid request, and the
// run's credential is accepted on every secured one. A deployment that
// refuses the right key on one operation passes every refusal check there
// (it refuses everything), so each operation must also answer the requests
// that carry the credential with something other than 401 or 403. An
// operation no other check called is sent one valid request here (for an
// item, an id no item has), so that every operation of the document is
// exercised.

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/petctl/petctl/spec"
)

func (s *suite) accessChecks(add func(*check)) {
	for _, op := range s.spec.Operations {
		text := "a valid request is answered without a server error"
		if op.Secured() {
			text = "a valid request with the credential is let through (never 401 or 403) and answered without a server error"
		}
		add(&check{group: groupAccess, op: op, skip: s.access[op].missing, writes: !safe(op), labels: []string{groupAuth},
			text: text, fn: func(t *T) {
				var carried []*Exchange
				for _, ex := range s.exchangesFor(op) {
					if ex.Auth == authKey {
						carried = append(carried, ex)
					}
				}
				// 501 says the deployment does not implement the operation,
				// which the coverage check weighs; any other 5xx is a
				// server error.
				serverError := func(ex *Exchange) bool { return ex.Status >= 500 && ex.Status != http.StatusNotImplemented }
				if len(carried) == 0 {
					ex := t.send(t.requestWithListedID(op))
					if serverError(ex) {
						t.failf(ex, "an answer without a server error")
					}
					carried = append(carried, ex)
				} else if !slices.ContainsFunc(carried, func(ex *Exchange) bool { return !serverError(ex) }) {
					// The other checks' requests carried the credential and
					// every one got a server error: the operation answers
					// none, whichever request was first.
					t.failf(carried[0], "an answer without a server error to one of the %d requests with the credential; every one got a server error", len(carried))
				}
				if !op.Secured() {
					return
				}
				t.judgeAll(carried, fmt.Sprintf("every request to %s with the valid credential is let through", op.ID), func(ex *Exchange) string {
					if refusedCredential(ex) {
						return fmt.Sprintf("%d: the credential was refused", ex.Status)
					}
					return ""
				})
			}})
	}
}

// refusedCredential reports whether ex refused the credentials it carried.
func refusedCredential(ex *Exchange) bool {
	return ex.Status == http.StatusUnauthorized || ex.Status == http.StatusForbidden
}

// scopeCheck reports whether the run checks that op refuses a token
// without a scope it requires: it fetches tokens, use requires scopes, and
// the scheme declares another scope to ask for instead.
func (s *suite) scopeCheck(op *spec.Operation, use spec.SchemeUse) bool {
	return s.client.creds.usesToken(use.Scheme) && len(use.Scopes) > 0 && len(otherScopes(use)) > 0
}
