package domain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/miekg/dns"
)

// knownCAATags are the CAA property tags certificate authorities
// understand (RFC 8659 §4, RFC 9495, the CA/Browser Forum's contact tags).
// A critical property with another tag forbids every issuance: a CA that
// does not understand a critical property must refuse (RFC 8659 §4.1).
var knownCAATags = []string{"issue", "issuewild", "iodef", "issuemail", "issuevmc", "contactemail", "contactphone"}

// relevantCAA finds the CAA set that governs the domain as RFC 8659 §3 has
// a certificate authority find it: ask the resolver for CAA at the domain
// (which chases a CNAME to its target), then at each parent up to but not
// including the root, and stop at the first non-empty set.
func (c *Checker) relevantCAA(ctx context.Context) (set []*dns.CAA, owner string, err error) {
	for name := c.domain; name != "."; name = parent(name) {
		ans, err := c.dns.query(ctx, c.resolver, name, dns.TypeCAA, true)
		if err != nil {
			return nil, name, err
		}
		for _, rr := range ans.rrs {
			if caa, ok := rr.(*dns.CAA); ok {
				set = append(set, caa)
			}
		}
		if len(set) > 0 {
			return set, name, nil
		}
	}
	return nil, "", nil
}

// caaDecision is what a CAA set says about the configured authorities.
type caaDecision struct {
	restricted bool     // the set has an issue property (otherwise any CA may issue)
	critical   string   // a critical property no CA knows, which forbids all
	issuers    []string // the issuer domains the issue properties name
	allowed    []string // the configured authorities the set allows
	denied     []string // the configured authorities it does not
}

// decideCAA applies RFC 8659 §4 to a non-wildcard name: issuewild does not
// apply; an issue property with an empty issuer ("issue ;") allows nobody;
// tags are compared without case.
func decideCAA(set []*dns.CAA, cas []string) caaDecision {
	var d caaDecision
	for _, rr := range set {
		tag := strings.ToLower(rr.Tag)
		if rr.Flag&128 != 0 && !slices.Contains(knownCAATags, tag) && d.critical == "" {
			d.critical = rr.Tag
		}
		if tag != "issue" {
			continue
		}
		d.restricted = true
		issuer, _, _ := strings.Cut(rr.Value, ";")
		if issuer = strings.ToLower(strings.TrimSpace(issuer)); issuer != "" {
			d.issuers = append(d.issuers, issuer)
		}
	}
	d.issuers = sortedSet(d.issuers)
	for _, ca := range cas {
		if !d.restricted || slices.Contains(d.issuers, ca) {
			d.allowed = append(d.allowed, ca)
		} else {
			d.denied = append(d.denied, ca)
		}
	}
	return d
}

// caaRule: the CAA records that govern the domain let one of the
// configured certificate authorities issue.
func (c *Checker) caaRule(ctx context.Context) Result {
	r := Result{Rule: RuleCAA}
	set, owner, err := c.relevantCAA(ctx)
	if err != nil {
		r.Verdict, r.Detail = CannotTell, err.Error()
		r.Next = "run again, or ask another resolver with --resolver (a certificate authority that cannot read CAA does not issue)"
		return r
	}
	if len(set) == 0 {
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("no CAA record at %s or above it: any certificate authority may issue", show(c.domain))
		return r
	}
	d := decideCAA(set, c.cas)
	at := show(owner)
	if got := canon(set[0].Hdr.Name); got != owner {
		at = fmt.Sprintf("%s (through the CNAME at %s)", show(got), show(owner))
	}
	addRecord := fmt.Sprintf("add a CAA record at %s: 0 issue \"%s\" (the platform's authority; --ca names it)", at, c.cas[0])
	switch {
	case d.critical != "":
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("the CAA records at %s hold the critical property %q, which certificate authorities do not know, so none may issue", at, d.critical)
		r.Next = fmt.Sprintf("remove that record at %s, or clear its critical flag (128)", at)
	case !d.restricted:
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("the CAA records at %s hold no issue property: any certificate authority may issue", at)
	case len(d.allowed) > 0:
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("the CAA records at %s allow %s", at, strings.Join(d.allowed, ", "))
		if len(d.denied) > 0 {
			r.Detail += fmt.Sprintf(" (not %s: if the platform uses one of those, add an issue record for it)", strings.Join(d.denied, ", "))
		}
	case len(d.issuers) == 0:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("the CAA records at %s allow no certificate authority at all (issue \";\")", at)
		r.Next = addRecord
	default:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("the CAA records at %s allow only %s, not %s", at, strings.Join(d.issuers, ", "), strings.Join(d.denied, ", "))
		r.Next = addRecord
	}
	return r
}
