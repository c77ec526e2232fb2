package domain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// maxNameservers bounds how many of a zone's authoritative servers are
// asked; a zone rarely has more, and each one that does not answer costs a
// time-out.
const maxNameservers = 8

// conflictTypes are the record types looked for at a subdomain besides its
// CNAME. A CNAME cannot share its name with any other data (RFC 1034
// §3.6.2), so the description's "existing A record" is the common case of a
// wider rule; there is no ANY query to ask for them all (RFC 8482).
var conflictTypes = []uint16{dns.TypeA, dns.TypeAAAA, dns.TypeMX, dns.TypeTXT, dns.TypeCAA, dns.TypeHTTPS}

// DNS applies the procedure's DNS rules to the domain: for a subdomain the
// CNAME and conflicting records, for an apex the ALIAS/ANAME note and its
// addresses; then the TTL, CAA and propagation. It needs the target.
func (c *Checker) DNS(ctx context.Context) (*Report, error) {
	if c.target == "" {
		return nil, &ConfigError{Field: "target", Msg: "required: the platform host the dashboard shows (such as sites.platform.example)"}
	}
	rep := c.newReport()
	zone := c.findZone(ctx)
	if c.apex {
		records := c.apexRecords(ctx)
		auth := c.askAuthoritative(ctx, zone, records.types)
		want, err := c.resolve(ctx, c.target)
		addr := c.apexAddressRule(records, want, err)
		if addr.Verdict == Fail && len(want) > 0 {
			c.waitForPropagation(&addr, auth, func(v recordView) bool { return slices.Equal(addresses(v.rrs), want) })
		}
		rep.Results = append(rep.Results, c.aliasRule(zone), addr,
			c.ttlRule(zone, records, auth), c.caaRule(ctx), c.propagationRule(zone, records, auth))
		return rep, nil
	}
	records := c.cnameRecords(ctx)
	auth := c.askAuthoritative(ctx, zone, records.types)
	cname := c.subdomainCNAMERule(ctx, records, zone)
	if cname.Verdict == Fail {
		c.waitForPropagation(&cname, auth, func(v recordView) bool { return c.cnameRule(v, zone).Verdict == Pass })
	}
	rep.Results = append(rep.Results, cname, c.conflictRule(ctx),
		c.ttlRule(zone, records, auth), c.caaRule(ctx), c.propagationRule(zone, records, auth))
	return rep, nil
}

// waitForPropagation changes the next step of a failed rule, judged on the
// resolver's answer, when the authoritative servers already hold what the
// rule wants: the record is right at its source and the fix is to wait for
// resolvers to catch up, not to change it. The verdict stays a failure, as
// verification sees what resolvers see.
func (c *Checker) waitForPropagation(r *Result, auth []authAnswer, right func(recordView) bool) {
	var holders []string
	for _, a := range auth {
		if a.view.err == nil && right(a.view) {
			holders = append(holders, show(a.ns))
		}
	}
	if len(holders) == 0 {
		return
	}
	r.Next = fmt.Sprintf("the authoritative servers (%s) already hold the right record: resolvers pick it up within %d hours; run again later, then click Verify",
		strings.Join(holders, ", "), int(PropagationWindow.Hours()))
}

func (c *Checker) newReport() *Report {
	return &Report{Domain: show(c.domain), Target: show(c.target), Resolver: c.resolver, At: time.Now()}
}

// recordView is the records a rule judges (the CNAME at a subdomain, the
// addresses at an apex) as one server answers them.
type recordView struct {
	kind  string   // "CNAME" or "address", for the messages
	types []uint16 // the query types that make up the view
	rrs   []dns.RR // the records owned by the domain
	nx    bool
	err   error
}

// describe says what the view holds, the same way for every server, so
// that two views can be compared by their descriptions.
func (v recordView) describe() string {
	if v.err != nil {
		return "no answer"
	}
	if len(v.rrs) == 0 {
		if v.nx {
			return "no such name (NXDOMAIN)"
		}
		return "no " + v.kind + " record"
	}
	var parts []string
	for _, rr := range v.rrs {
		if cname, ok := rr.(*dns.CNAME); ok {
			parts = append(parts, "CNAME "+show(canon(cname.Target))) // DNS ignores case and the final dot
			continue
		}
		parts = append(parts, rdata(rr))
	}
	return strings.Join(sortedSet(parts), ", ")
}

// view asks server the view's types at the domain.
func (c *Checker) view(ctx context.Context, server, kind string, types []uint16, recurse bool) recordView {
	v := recordView{kind: kind, types: types}
	for _, t := range types {
		ans, err := c.dns.query(ctx, server, c.domain, t, recurse)
		if err == nil && !recurse && !ans.aa {
			err = &QueryError{Server: server, Name: c.domain, Type: dns.TypeToString[t], Reason: "the answer is not authoritative (a lame delegation)"}
		}
		if err != nil {
			v.err = err
			return v
		}
		v.nx = ans.nx
		v.rrs = append(v.rrs, owned(ans.rrs, c.domain, t)...)
	}
	return v
}

func (c *Checker) cnameRecords(ctx context.Context) recordView {
	return c.view(ctx, c.resolver, "CNAME", []uint16{dns.TypeCNAME}, true)
}

func (c *Checker) apexRecords(ctx context.Context) recordView {
	return c.view(ctx, c.resolver, "address", []uint16{dns.TypeA, dns.TypeAAAA}, true)
}

// zoneInfo is the zone that holds the domain, with its authoritative servers.
type zoneInfo struct {
	name string   // "example.com."; empty when it could not be found
	ns   []string // the NS records' host names, sorted
	err  error
}

// findZone climbs from the domain towards the root until a name has NS
// records of its own: that name is the apex of the domain's zone. NS
// records in an answer that belong to a CNAME's target are not the name's.
func (c *Checker) findZone(ctx context.Context) zoneInfo {
	for name := c.domain; name != "."; name = parent(name) {
		ans, err := c.dns.query(ctx, c.resolver, name, dns.TypeNS, true)
		if err != nil {
			return zoneInfo{err: err}
		}
		var hosts []string
		for _, rr := range owned(ans.rrs, name, dns.TypeNS) {
			hosts = append(hosts, canon(rr.(*dns.NS).Ns))
		}
		if len(hosts) > 0 {
			return zoneInfo{name: name, ns: sortedSet(hosts)}
		}
	}
	return zoneInfo{err: errors.New("no name from the domain up to the root has NS records")}
}

// authAnswer is one authoritative server's view of the domain.
type authAnswer struct {
	ns   string // the server's host name
	view recordView
}

// askAuthoritative asks each of the zone's servers (at most
// maxNameservers) directly, without recursion, for the same records as the
// resolver. A server's addresses come from the resolver; the first of them
// that answers counts.
func (c *Checker) askAuthoritative(ctx context.Context, z zoneInfo, types []uint16) []authAnswer {
	if z.err != nil {
		return nil
	}
	kind := "CNAME"
	if c.apex {
		kind = "address"
	}
	var out []authAnswer
	for _, ns := range z.ns[:min(len(z.ns), maxNameservers)] {
		a := authAnswer{ns: ns}
		addrs, err := c.resolve(ctx, ns)
		if err == nil && len(addrs) == 0 {
			err = fmt.Errorf("the name server %s has no address", show(ns))
		}
		if err != nil {
			a.view = recordView{kind: kind, types: types, err: err}
		}
		for _, addr := range addrs {
			a.view = c.view(ctx, net.JoinHostPort(addr, c.nsPort), kind, types, false)
			if a.view.err == nil {
				break
			}
		}
		out = append(out, a)
	}
	return out
}

// resolve returns name's addresses as the resolver gives them, IPv4 first
// (a machine without IPv6 then wastes no time-out on it).
func (c *Checker) resolve(ctx context.Context, name string) ([]string, error) {
	var out []string
	for _, t := range []uint16{dns.TypeA, dns.TypeAAAA} {
		ans, err := c.dns.query(ctx, c.resolver, name, t, true)
		if err != nil {
			return nil, err
		}
		out = append(out, addresses(ans.rrs)...)
	}
	return out, nil
}

// cnameRule: for a subdomain, a CNAME whose value is the target exactly
// (case and the final dot aside: DNS ignores both).
func (c *Checker) cnameRule(v recordView, z zoneInfo) Result {
	r := Result{Rule: RuleCNAME}
	domain, target := show(c.domain), show(c.target)
	add := fmt.Sprintf("add a CNAME record at %s with the value %s (TTL %d)", domain, target, SuggestedTTL)
	switch {
	case v.err != nil:
		r.Verdict, r.Detail, r.Next = CannotTell, v.err.Error(), retryNext
	case len(v.rrs) == 0 && z.name == c.domain:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s is the apex of its zone, which cannot hold a CNAME", domain)
		r.Next = fmt.Sprintf("an apex needs an ALIAS or ANAME record pointing at %s: run again with --apex", target)
	case v.nx:
		r.Verdict, r.Detail, r.Next = Fail, fmt.Sprintf("%s does not exist (NXDOMAIN)", domain), add
	case len(v.rrs) == 0:
		r.Verdict, r.Detail, r.Next = Fail, fmt.Sprintf("%s has no CNAME record", domain), add
	case len(v.rrs) > 1:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s has %d CNAME records (%s); a name holds at most one", domain, len(v.rrs), v.describe())
		r.Next = fmt.Sprintf("keep only the CNAME with the value %s", target)
	default:
		got := v.rrs[0].(*dns.CNAME).Target
		if canon(got) == c.target {
			r.Verdict, r.Detail = Pass, fmt.Sprintf("%s is a CNAME for %s", domain, target)
			break
		}
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("the CNAME at %s points at %s, not at %s", domain, show(got), target)
		r.Next = fmt.Sprintf("change the CNAME's value to %s, exactly as the dashboard shows it", target)
	}
	return r
}

// subdomainCNAMERule is cnameRule on the resolver's view, with where a
// CNAME that names another host leads (chainNote).
func (c *Checker) subdomainCNAMERule(ctx context.Context, v recordView, z zoneInfo) Result {
	r := c.cnameRule(v, z)
	if r.Verdict == Fail && v.err == nil && len(v.rrs) == 1 {
		c.chainNote(ctx, &r)
	}
	return r
}

// maxChain bounds the CNAME chain followed in a resolver's answer.
const maxChain = 16

// chainNote says where a CNAME that is not the target's leads, from the
// resolver's answer for the domain's address: a chain that reaches the
// target resolves, but the description asks for the CNAME's own value to
// be the one the dashboard shows, and verification reads that value.
func (c *Checker) chainNote(ctx context.Context, r *Result) {
	ans, err := c.dns.query(ctx, c.resolver, c.domain, dns.TypeA, true)
	if err != nil {
		return // the rule's verdict stands on the CNAME alone
	}
	chain := cnameChain(ans.rrs, c.domain)
	if len(chain) < 3 {
		return // the CNAME's target is the end: nothing to add
	}
	hops := make([]string, len(chain))
	for i, n := range chain {
		hops[i] = show(n)
	}
	path := strings.Join(hops, " → ")
	switch {
	case slices.Index(chain, chain[len(chain)-1]) < len(chain)-1:
		r.Detail += "; the chain it starts loops: " + path
	case slices.Contains(chain, c.target):
		r.Detail += fmt.Sprintf("; it is a chain, %s, which reaches the target through %s, but verification reads the CNAME's own value", path, strings.Join(hops[1:slices.Index(chain, c.target)], ", "))
		r.Next = fmt.Sprintf("point the CNAME at %s directly, not through %s", show(c.target), hops[1])
	default:
		r.Detail += "; it leads on: " + path
	}
}

// cnameChain follows the CNAME records of a resolver's answer from name:
// name, each CNAME's target in turn, and a name again where they loop.
func cnameChain(rrs []dns.RR, name string) []string {
	chain := []string{name}
	for range maxChain {
		var next string
		for _, rr := range owned(rrs, name, dns.TypeCNAME) {
			next = canon(rr.(*dns.CNAME).Target)
		}
		if next == "" {
			break
		}
		chain = append(chain, next)
		if slices.Contains(chain[:len(chain)-1], next) {
			break
		}
		name = next
	}
	return chain
}

// conflictRule: no other record at the subdomain, which blocks verification.
func (c *Checker) conflictRule(ctx context.Context) Result {
	r := Result{Rule: RuleConflict}
	domain := show(c.domain)
	var found []string
	var unasked []string
	var firstErr error
	for _, t := range conflictTypes {
		ans, err := c.dns.query(ctx, c.resolver, c.domain, t, true)
		if err != nil {
			unasked = append(unasked, dns.TypeToString[t])
			firstErr = firstErrOf(firstErr, err)
			continue
		}
		for _, rr := range owned(ans.rrs, c.domain, t) {
			found = append(found, rdata(rr))
		}
	}
	switch {
	case len(found) > 0:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s also holds %s, which blocks verification", domain, strings.Join(found, ", "))
		r.Next = fmt.Sprintf("remove every record at %s other than the CNAME (a CNAME cannot share its name)", domain)
	case len(unasked) > 0:
		r.Verdict, r.Detail = CannotTell, fmt.Sprintf("no answer for %s: %v", strings.Join(unasked, ", "), firstErr)
		r.Next = retryNext
	default:
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("no %s record at %s", typeNames(conflictTypes), domain)
	}
	return r
}

// aliasRule is a note, always: an ALIAS or ANAME record is resolved by the
// DNS provider and published as plain addresses, so DNS cannot show it
// exists; the apex address rule checks what it gives.
func (c *Checker) aliasRule(z zoneInfo) Result {
	r := Result{Rule: RuleAlias, Verdict: Note}
	r.Detail = fmt.Sprintf("an apex cannot hold a CNAME: the DNS provider must support ALIAS or ANAME records (some call it CNAME flattening), pointing at %s; DNS shows only the addresses such a record gives, not the record", show(c.target))
	r.Next = fmt.Sprintf("check that your DNS provider supports ALIAS or ANAME; if it does not, move the zone to one that does, or publish on a subdomain (www.%s) with a CNAME", show(c.domain))
	if z.name != "" && z.name != c.domain {
		r.Detail += fmt.Sprintf("; note that %s is not the apex of its zone (%s), so a CNAME is what the description asks for: run without --apex", show(c.domain), show(z.name))
	}
	return r
}

// apexAddressRule: the apex resolves to the same addresses as the target
// (want, or why they could not be found).
func (c *Checker) apexAddressRule(v recordView, want []string, err error) Result {
	r := Result{Rule: RuleApexAddress}
	domain, target := show(c.domain), show(c.target)
	if v.err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, v.err.Error(), retryNext
		return r
	}
	if err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, err.Error(), retryNext
		return r
	}
	got := addresses(v.rrs)
	switch {
	case len(want) == 0:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("the target %s has no address, so nothing can point at it", target)
		r.Next = "check --target against the host the dashboard shows"
	case len(got) == 0:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s has no A or AAAA record", domain)
		r.Next = fmt.Sprintf("add an ALIAS or ANAME record at %s pointing at %s", domain, target)
	case slices.Equal(got, want):
		r.Verdict, r.Detail = Pass, fmt.Sprintf("%s and %s both resolve to %s", domain, target, strings.Join(got, ", "))
	default:
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s resolves to %s, %s to %s", domain, strings.Join(got, ", "), target, strings.Join(want, ", "))
		r.Next = fmt.Sprintf("point the ALIAS or ANAME record at %s and remove any other A or AAAA record at %s", target, domain)
	}
	return r
}

// ttlRule reads the TTL from an authoritative server: a resolver's TTL
// counts down from its cache and does not show the configured value.
func (c *Checker) ttlRule(z zoneInfo, v recordView, auth []authAnswer) Result {
	r := Result{Rule: RuleTTL}
	if z.err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, zoneNotFound(z), retryNext
		return r
	}
	var first error
	for _, a := range auth {
		if a.view.err != nil {
			first = firstErrOf(first, a.view.err)
			continue
		}
		if len(a.view.rrs) == 0 {
			r.Verdict = CannotTell
			r.Detail = fmt.Sprintf("%s holds no %s record to read a TTL from", show(a.ns), v.kind)
			r.Next = fmt.Sprintf("add the %s record the rules above ask for (TTL %d suggested), then run again", v.kind, SuggestedTTL)
			return r
		}
		ttl := a.view.rrs[0].Header().Ttl
		if ttl == SuggestedTTL {
			r.Verdict, r.Detail = Pass, fmt.Sprintf("the %s record's TTL is %d, as suggested", v.kind, ttl)
			return r
		}
		r.Verdict = Note
		r.Detail = fmt.Sprintf("the %s record's TTL is %d; the description suggests %d", v.kind, ttl, SuggestedTTL)
		r.Next = fmt.Sprintf("nothing blocks: set it to %d if you follow the suggestion (a lower TTL lets changes reach resolvers sooner)", SuggestedTTL)
		return r
	}
	r.Verdict = CannotTell
	r.Detail = "no authoritative server answered, and a resolver's TTL counts down from its cache"
	if first != nil {
		r.Detail += ": " + first.Error()
	}
	r.Next = "run again; check that the zone's NS records name servers that answer"
	return r
}

// propagationRule compares the resolver's view with each authoritative
// server's: a difference is propagation in progress, which the description
// says can take up to 48 hours.
func (c *Checker) propagationRule(z zoneInfo, v recordView, auth []authAnswer) Result {
	r := Result{Rule: RulePropagation}
	if z.err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, zoneNotFound(z), retryNext
		return r
	}
	if v.err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, v.err.Error(), retryNext
		return r
	}
	byAnswer := map[string][]string{} // what is answered → who answers it
	var silent []string
	var first error
	for _, a := range auth {
		if a.view.err != nil {
			silent = append(silent, show(a.ns))
			first = firstErrOf(first, a.view.err)
			continue
		}
		d := a.view.describe()
		byAnswer[d] = append(byAnswer[d], show(a.ns))
	}
	if len(byAnswer) == 0 {
		r.Verdict = CannotTell
		r.Detail = fmt.Sprintf("no authoritative server of %s answered", show(z.name))
		if first != nil {
			r.Detail += ": " + first.Error()
		}
		r.Next = "run again; check that the zone's NS records name servers that answer"
		return r
	}
	resolved := v.describe()
	_, agree := byAnswer[resolved]
	var notes []string
	if len(silent) > 0 {
		notes = append(notes, fmt.Sprintf("%s did not answer", strings.Join(silent, ", ")))
	}
	if len(byAnswer) == 1 && agree {
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("the resolver and the authoritative servers of %s agree: %s", show(z.name), resolved)
		if len(notes) > 0 {
			r.Detail += " (" + strings.Join(notes, "; ") + ")"
		}
		return r
	}
	answers := make([]string, 0, len(byAnswer))
	for d, who := range byAnswer {
		answers = append(answers, fmt.Sprintf("%s answers %s", strings.Join(who, ", "), d))
	}
	sort.Strings(answers)
	r.Verdict = Note
	r.Detail = fmt.Sprintf("the resolver answers %s, but %s", resolved, strings.Join(append(answers, notes...), "; "))
	r.Next = fmt.Sprintf("DNS changes can take up to %d hours to reach every resolver (an old answer stays cached for its TTL): run again later, before clicking Verify", int(PropagationWindow.Hours()))
	return r
}

func zoneNotFound(z zoneInfo) string {
	return "the zone's authoritative servers could not be found: " + z.err.Error()
}

// firstErrOf keeps the first error of several.
func firstErrOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func typeNames(ts []uint16) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = dns.TypeToString[t]
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
