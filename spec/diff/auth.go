package diff

// Authentication, compared per operation on petctl's reading of the
// document (spec.Requirement): a client of the old document holds a
// credential that satisfied one of the operation's alternatives; the
// change breaks it unless one of the new alternatives asks for no more.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// auth compares the security of every operation in both documents.
func (w *walker) auth() {
	for _, newOp := range w.new.Operations {
		oldOp := w.old.Find(newOp.Method, newOp.Path)
		if oldOp == nil {
			continue
		}
		before, after := alternatives(oldOp.Requirements), alternatives(newOp.Requirements)
		if sameAlternatives(before, after) {
			continue
		}
		what := fmt.Sprintf("auth %s → %s", describeAlternatives(before), describeAlternatives(after))
		at := place{op: opName(newOp), where: "security"}
		broken := slices.ContainsFunc(before, func(a spec.Requirement) bool {
			return !slices.ContainsFunc(after, func(b spec.Requirement) bool { return satisfies(a, b) })
		})
		if broken {
			w.add(at, Breaking, what, whyAuthChanged, nil)
		} else {
			w.add(at, Safe, what, whyAuthCompatible, nil)
		}
	}
}

// alternatives are an operation's requirements, with no requirement (a
// public operation) as the one empty alternative.
func alternatives(reqs []spec.Requirement) []spec.Requirement {
	if len(reqs) == 0 {
		return []spec.Requirement{nil}
	}
	return reqs
}

// satisfies reports whether a credential that met alternative a meets b:
// every scheme b asks for is one a asked for, with no more scopes.
func satisfies(a, b spec.Requirement) bool {
	for _, u := range b {
		if !slices.ContainsFunc(a, func(v spec.SchemeUse) bool {
			return signature(v.Scheme) == signature(u.Scheme) && subset(u.Scopes, v.Scopes)
		}) {
			return false
		}
	}
	return true
}

func sameAlternatives(a, b []spec.Requirement) bool {
	key := func(rs []spec.Requirement) []string {
		var out []string
		for _, r := range rs {
			var uses []string
			for _, u := range r {
				scopes := slices.Sorted(slices.Values(u.Scopes))
				uses = append(uses, signature(u.Scheme)+" ["+strings.Join(scopes, " ")+"]")
			}
			slices.Sort(uses)
			out = append(out, strings.Join(uses, " & "))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// signature is what a client must know of a scheme to send its
// credential: the kind, where it goes, and for OAuth 2 where tokens come
// from. The scheme's name in the document is not part of it.
func signature(s *spec.Scheme) string {
	sig := string(s.Kind) + " " + s.In + " " + strings.ToLower(s.Param)
	for _, f := range s.Flows {
		sig += " " + f.Kind + " " + f.TokenURL + " " + f.AuthorizationURL
	}
	sig += " " + s.OpenIDConnectURL
	if s.Kind == spec.SchemeUnsupported {
		sig += " " + s.Name + " " + s.Unsupported
	}
	return sig
}

func describeAlternatives(rs []spec.Requirement) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = describeRequirement(r)
	}
	return strings.Join(parts, " or ")
}

func describeRequirement(r spec.Requirement) string {
	if len(r) == 0 {
		return "none"
	}
	parts := make([]string, len(r))
	for i, u := range r {
		s := u.Scheme
		switch s.Kind {
		case spec.SchemeAPIKey:
			parts[i] = fmt.Sprintf("apiKey in %s %s", s.In, s.Param)
		default:
			parts[i] = string(s.Kind)
		}
		for _, f := range s.Flows {
			parts[i] += " (" + f.Kind + " " + f.TokenURL + ")"
		}
		if len(u.Scopes) > 0 {
			parts[i] += " [" + strings.Join(u.Scopes, " ") + "]"
		}
	}
	return strings.Join(parts, " and ")
}
