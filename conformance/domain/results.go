package domain

import (
	"fmt"
	"strings"
	"time"
)

// Verdict is a rule's outcome.
type Verdict int

// The verdicts. A report passes when no rule fails and none cannot tell;
// notes are information (a TTL other than the suggested one, something that
// cannot be seen in DNS, propagation in progress) and never fail it.
const (
	Pass Verdict = iota
	Fail
	CannotTell
	Note
)

var verdictNames = [...]string{Pass: "pass", Fail: "FAIL", CannotTell: "cannot tell", Note: "note"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Rule names one rule of the procedure.
type Rule string

// The rules, in the order a report lists them.
const (
	RuleCNAME       Rule = "cname"        // a subdomain's CNAME names the target exactly
	RuleConflict    Rule = "conflict"     // no other record at the subdomain
	RuleAlias       Rule = "alias"        // an apex needs ALIAS/ANAME support
	RuleApexAddress Rule = "apex address" // the apex resolves to the target's addresses
	RuleTTL         Rule = "ttl"          // the record's TTL, 3600 suggested
	RuleCAA         Rule = "caa"          // CAA lets the certificate authority issue
	RulePropagation Rule = "propagation"  // the resolver sees what the authoritative servers hold
	RuleCertificate Rule = "certificate"  // a valid certificate covers the domain
	RuleVerifies    Rule = "verifies"     // step 1: the domain still verifies
	RuleReverify    Rule = "re-verify"    // step 3: Re-verify in the dashboard
)

// Result is one rule's verdict, what was seen, and what to do next (empty
// when there is nothing to do).
type Result struct {
	Rule    Rule
	Verdict Verdict
	Detail  string
	Next    string
	// Checks are the results a checklist step stands on.
	Checks []Result
}

// Report is the outcome of one check of a domain.
type Report struct {
	Domain   string
	Target   string // empty when not given
	Resolver string
	At       time.Time // when the check ran; expiry is counted from it
	Results  []Result
	// Certificate is what the TLS check was served; nil for the DNS
	// check, or when no certificate was served.
	Certificate *Certificate
	// Checklist holds the description's three steps when the TLS check
	// found no valid certificate.
	Checklist []Result
}

// Certificate describes a served certificate.
type Certificate struct {
	Addr      string // where it was served: host:port
	Subject   string
	Issuer    string
	Names     []string // DNS names it is for (subject alternative names)
	NotBefore time.Time
	NotAfter  time.Time
	// Covers says whether the certificate is for the checked domain.
	Covers bool
}

// OK reports whether no rule failed and every rule could be told.
func (r *Report) OK() bool {
	for _, res := range r.Results {
		if res.Verdict == Fail || res.Verdict == CannotTell {
			return false
		}
	}
	return true
}

// Count returns how many results have verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, res := range r.Results {
		if res.Verdict == v {
			n++
		}
	}
	return n
}

// Summary is one line of counts: "5 rules: 3 pass, 1 FAIL, 1 note".
func (r *Report) Summary() string {
	parts := []string{}
	for _, v := range []Verdict{Pass, Fail, CannotTell, Note} {
		if n := r.Count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	noun := "rules"
	if len(r.Results) == 1 {
		noun = "rule"
	}
	return fmt.Sprintf("%d %s: %s", len(r.Results), noun, strings.Join(parts, ", "))
}

// Get returns the result of rule, if the report has one.
func (r *Report) Get(rule Rule) (Result, bool) {
	for _, res := range r.Results {
		if res.Rule == rule {
			return res, true
		}
	}
	return Result{}, false
}

// worst combines verdicts for a checklist step: any failure fails it, then
// any unknown makes it unknown; notes do not count against it.
func worst(rs []Result) Verdict {
	v := Pass
	for _, r := range rs {
		switch {
		case r.Verdict == Fail:
			return Fail
		case r.Verdict == CannotTell:
			v = CannotTell
		}
	}
	return v
}
