package domain_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/petctl/petctl/conformance/domain"
	"github.com/petctl/petctl/conformance/domain/domaintest"
)

// The names every case uses: the zone example.test with its name server,
// and the platform's host with two addresses.
const (
	sub    = "docs.example.test"
	apex   = "example.test"
	target = "sites.platform.test"
)

func base(records ...string) []string {
	rs := append(domaintest.Zone(apex),
		"sites.platform.test. 3600 IN A 198.51.100.7",
		"sites.platform.test. 3600 IN AAAA 2001:db8::7",
	)
	return append(rs, records...)
}

const goodCNAME = "docs.example.test. 3600 IN CNAME sites.platform.test."

// want is what a case expects of one rule: its verdict and words its
// detail (or next step) holds.
type want struct {
	verdict domain.Verdict
	text    []string
}

// checkDNS runs the DNS rules with resolver as the resolver and the zone's
// name server answering on authPort.
func checkDNS(t *testing.T, cfg domain.Config, resolver string, authPort int) *domain.Report {
	t.Helper()
	cfg.Resolver, cfg.NSPort = resolver, authPort
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	c, err := domain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.DNS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func assertRules(t *testing.T, rep *domain.Report, wants map[domain.Rule]want) {
	t.Helper()
	for rule, w := range wants {
		got, ok := rep.Get(rule)
		if !ok {
			t.Errorf("%s: no result; the report has %v", rule, rep.Results)
			continue
		}
		if got.Verdict != w.verdict {
			t.Errorf("%s: got %s (%s; next: %s), want %s", rule, got.Verdict, got.Detail, got.Next, w.verdict)
		}
		text := got.Detail + " | " + got.Next
		for _, s := range w.text {
			if !strings.Contains(text, s) {
				t.Errorf("%s: got %q, want it to say %q", rule, text, s)
			}
		}
	}
}

// TestDNSRules runs each case against two real DNS servers on loopback:
// one standing for the resolver, one for the zone's authoritative server
// (the same records unless the case is about them disagreeing).
func TestDNSRules(t *testing.T) {
	tests := []struct {
		name     string
		cfg      domain.Config
		resolver []string
		auth     []string // nil: the resolver's records
		ok       bool
		wants    map[domain.Rule]want
	}{
		{
			name:     "good CNAME",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME),
			ok:       true,
			wants: map[domain.Rule]want{
				domain.RuleCNAME:       {domain.Pass, []string{"docs.example.test is a CNAME for sites.platform.test"}},
				domain.RuleConflict:    {domain.Pass, nil},
				domain.RuleTTL:         {domain.Pass, []string{"3600"}},
				domain.RuleCAA:         {domain.Pass, []string{"no CAA record"}},
				domain.RulePropagation: {domain.Pass, []string{"agree"}},
			},
		},
		{
			name:     "case and the final dot aside",
			cfg:      domain.Config{Domain: "Docs.Example.Test.", Target: "SITES.platform.test."},
			resolver: base("docs.example.test. 3600 IN CNAME Sites.Platform.TEST."),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleCNAME: {domain.Pass, nil}},
		},
		{
			name:     "CNAME at another target",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME old.platform.test."),
			wants: map[domain.Rule]want{
				domain.RuleCNAME: {domain.Fail, []string{"points at old.platform.test, not at sites.platform.test", "change the CNAME's value to sites.platform.test"}},
			},
		},
		{
			name:     "CNAME at a host that merely ends like the target",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME eu.sites.platform.test."),
			wants:    map[domain.Rule]want{domain.RuleCNAME: {domain.Fail, []string{"eu.sites.platform.test"}}},
		},
		{
			name:     "a CNAME chain that reaches the target",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME hop.example.test.", "hop.example.test. 3600 IN CNAME sites.platform.test."),
			wants: map[domain.Rule]want{
				domain.RuleCNAME: {domain.Fail, []string{
					"points at hop.example.test, not at sites.platform.test; it is a chain, docs.example.test → hop.example.test → sites.platform.test, which reaches the target through hop.example.test",
					"point the CNAME at sites.platform.test directly, not through hop.example.test",
				}},
				domain.RuleConflict: {domain.Pass, nil},
			},
		},
		{
			name:     "a CNAME chain that leads elsewhere",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME hop.example.test.", "hop.example.test. 3600 IN CNAME old.platform.test.", "old.platform.test. 3600 IN A 192.0.2.9"),
			wants: map[domain.Rule]want{
				domain.RuleCNAME: {domain.Fail, []string{"; it leads on: docs.example.test → hop.example.test → old.platform.test", "change the CNAME's value to sites.platform.test"}},
			},
		},
		{
			name:     "a CNAME loop",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME hop.example.test.", "hop.example.test. 3600 IN CNAME docs.example.test."),
			wants: map[domain.Rule]want{
				domain.RuleCNAME: {domain.Fail, []string{"the chain it starts loops: docs.example.test → hop.example.test → docs.example.test"}},
			},
		},
		{
			name:     "an A record instead of the CNAME",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN A 192.0.2.1"),
			wants: map[domain.Rule]want{
				domain.RuleCNAME:    {domain.Fail, []string{"has no CNAME record", "add a CNAME record at docs.example.test with the value sites.platform.test (TTL 3600)"}},
				domain.RuleConflict: {domain.Fail, []string{"A 192.0.2.1", "blocks verification", "remove every record"}},
			},
		},
		{
			name:     "a TXT record beside the CNAME",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME, `docs.example.test. 3600 IN TXT "old-verification"`),
			wants: map[domain.Rule]want{
				domain.RuleCNAME:    {domain.Pass, nil},
				domain.RuleConflict: {domain.Fail, []string{`TXT "old-verification"`}},
			},
		},
		{
			name:     "NXDOMAIN",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(),
			wants: map[domain.Rule]want{
				domain.RuleCNAME:       {domain.Fail, []string{"does not exist (NXDOMAIN)", "add a CNAME record"}},
				domain.RuleConflict:    {domain.Pass, nil},
				domain.RuleTTL:         {domain.CannotTell, []string{"no CNAME record to read a TTL from"}},
				domain.RulePropagation: {domain.Pass, []string{"NXDOMAIN"}},
			},
		},
		{
			name:     "a TTL other than 3600 is a note",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 300 IN CNAME sites.platform.test."),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleTTL: {domain.Note, []string{"TTL is 300", "suggests 3600"}}},
		},
		{
			name:     "the TTL is the authoritative one, not the resolver's countdown",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 2917 IN CNAME sites.platform.test."),
			auth:     base(goodCNAME),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleTTL: {domain.Pass, nil}, domain.RulePropagation: {domain.Pass, nil}},
		},
		{
			name:     "authoritative and resolver disagree: a new CNAME",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base("docs.example.test. 3600 IN CNAME old.platform.test."),
			auth:     base(goodCNAME),
			wants: map[domain.Rule]want{
				domain.RuleCNAME:       {domain.Fail, []string{"old.platform.test", "already hold the right record", "48 hours"}},
				domain.RulePropagation: {domain.Note, []string{"the resolver answers CNAME old.platform.test, but ns1.example.test answers CNAME sites.platform.test", "up to 48 hours"}},
			},
		},
		{
			name:     "authoritative and resolver disagree: the resolver has not seen the name",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(),
			auth:     base(goodCNAME),
			wants: map[domain.Rule]want{
				domain.RulePropagation: {domain.Note, []string{"the resolver answers no such name (NXDOMAIN)"}},
			},
		},
		{
			name:     "a subdomain that is the apex of its zone",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: append(base(), domaintest.Zone(sub)...),
			wants: map[domain.Rule]want{
				domain.RuleCNAME: {domain.Fail, []string{"apex of its zone", "--apex"}},
			},
		},
		{
			name:     "apex with the target's addresses",
			cfg:      domain.Config{Domain: apex, Target: target, Apex: true},
			resolver: base("example.test. 3600 IN A 198.51.100.7", "example.test. 3600 IN AAAA 2001:db8::7"),
			ok:       true,
			wants: map[domain.Rule]want{
				domain.RuleAlias:       {domain.Note, []string{"ALIAS or ANAME", "DNS shows only the addresses"}},
				domain.RuleApexAddress: {domain.Pass, []string{"198.51.100.7, 2001:db8::7"}},
				domain.RuleTTL:         {domain.Pass, nil},
				domain.RulePropagation: {domain.Pass, nil},
			},
		},
		{
			name:     "apex with other addresses",
			cfg:      domain.Config{Domain: apex, Target: target, Apex: true},
			resolver: base("example.test. 3600 IN A 192.0.2.1"),
			wants: map[domain.Rule]want{
				domain.RuleApexAddress: {domain.Fail, []string{"example.test resolves to 192.0.2.1, sites.platform.test to 198.51.100.7, 2001:db8::7", "point the ALIAS"}},
			},
		},
		{
			name:     "apex with only some of the target's addresses",
			cfg:      domain.Config{Domain: apex, Target: target, Apex: true},
			resolver: base("example.test. 3600 IN A 198.51.100.7"),
			wants:    map[domain.Rule]want{domain.RuleApexAddress: {domain.Fail, nil}},
		},
		{
			name:     "apex addresses changed at the source, not yet at the resolver",
			cfg:      domain.Config{Domain: apex, Target: target, Apex: true},
			resolver: base("example.test. 3600 IN A 192.0.2.1"),
			auth:     base("example.test. 3600 IN A 198.51.100.7", "example.test. 3600 IN AAAA 2001:db8::7"),
			wants: map[domain.Rule]want{
				domain.RuleApexAddress: {domain.Fail, []string{"resolves to 192.0.2.1", "(ns1.example.test) already hold the right record"}},
				domain.RulePropagation: {domain.Note, []string{"the resolver answers A 192.0.2.1, but ns1.example.test answers A 198.51.100.7, AAAA 2001:db8::7"}},
			},
		},
		{
			name:     "apex without an address",
			cfg:      domain.Config{Domain: apex, Target: target, Apex: true},
			resolver: base(),
			wants: map[domain.Rule]want{
				domain.RuleApexAddress: {domain.Fail, []string{"has no A or AAAA record", "add an ALIAS or ANAME record at example.test"}},
			},
		},
		{
			name:     "apex whose target does not resolve",
			cfg:      domain.Config{Domain: apex, Target: "nowhere.platform.test", Apex: true},
			resolver: base("example.test. 3600 IN A 198.51.100.7"),
			wants:    map[domain.Rule]want{domain.RuleApexAddress: {domain.Fail, []string{"nowhere.platform.test has no address", "--target"}}},
		},
		{
			name:     "--apex on a name that is not an apex",
			cfg:      domain.Config{Domain: sub, Target: target, Apex: true},
			resolver: base("docs.example.test. 3600 IN A 198.51.100.7", "docs.example.test. 3600 IN AAAA 2001:db8::7"),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleAlias: {domain.Note, []string{"not the apex of its zone (example.test)", "run without --apex"}}},
		},
		{
			name:     "CAA allowing one of the authorities",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME, `example.test. 3600 IN CAA 0 issue "letsencrypt.org"`, `example.test. 3600 IN CAA 0 iodef "mailto:sec@example.test"`),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleCAA: {domain.Pass, []string{"at example.test allow letsencrypt.org", "not pki.goog"}}},
		},
		{
			name:     "CAA forbidding the configured authority",
			cfg:      domain.Config{Domain: sub, Target: target, CAs: []string{"letsencrypt.org"}},
			resolver: base(goodCNAME, `example.test. 3600 IN CAA 0 issue "digicert.com; account=12"`),
			wants: map[domain.Rule]want{
				domain.RuleCAA: {domain.Fail, []string{"allow only digicert.com, not letsencrypt.org", `add a CAA record at example.test: 0 issue "letsencrypt.org"`}},
			},
		},
		{
			name:     "CAA found further up the tree",
			cfg:      domain.Config{Domain: sub, Target: target, CAs: []string{"letsencrypt.org"}},
			resolver: base(goodCNAME, `test. 3600 IN CAA 0 issue "pki.goog"`),
			wants:    map[domain.Rule]want{domain.RuleCAA: {domain.Fail, []string{"at test allow only pki.goog"}}},
		},
		{
			name:     "the closest CAA set wins over the parent's",
			cfg:      domain.Config{Domain: sub, Target: target, CAs: []string{"letsencrypt.org"}},
			resolver: base(goodCNAME, `example.test. 3600 IN CAA 0 issue "letsencrypt.org"`, `test. 3600 IN CAA 0 issue ";"`),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleCAA: {domain.Pass, nil}},
		},
		{
			name:     "CAA at the CNAME's target, as a CA chases it",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME, `sites.platform.test. 3600 IN CAA 0 issue ";"`, `example.test. 3600 IN CAA 0 issue "letsencrypt.org"`),
			wants: map[domain.Rule]want{
				domain.RuleCAA: {domain.Fail, []string{"sites.platform.test (through the CNAME at docs.example.test)", "no certificate authority at all"}},
			},
		},
		{
			name:     "a critical CAA property no authority knows",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME, `example.test. 3600 IN CAA 0 issue "letsencrypt.org"`, `example.test. 3600 IN CAA 128 tbs "unknown"`),
			wants:    map[domain.Rule]want{domain.RuleCAA: {domain.Fail, []string{`critical property "tbs"`}}},
		},
		{
			name:     "CAA with issuewild only restricts wildcards",
			cfg:      domain.Config{Domain: sub, Target: target},
			resolver: base(goodCNAME, `example.test. 3600 IN CAA 0 issuewild ";"`),
			ok:       true,
			wants:    map[domain.Rule]want{domain.RuleCAA: {domain.Pass, []string{"no issue property"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolver := domaintest.NewDNSServer(t, tt.resolver...)
			auth := resolver
			if tt.auth != nil {
				auth = domaintest.NewDNSServer(t, tt.auth...)
			}
			rep := checkDNS(t, tt.cfg, resolver.Addr, auth.Port)
			assertRules(t, rep, tt.wants)
			for _, r := range rep.Results {
				if (r.Verdict == domain.Fail || r.Verdict == domain.CannotTell) && r.Next == "" {
					t.Errorf("%s: %s (%s) with no next step", r.Rule, r.Verdict, r.Detail)
				}
			}
			if rep.OK() != tt.ok {
				t.Errorf("OK() = %v, want %v; %s", rep.OK(), tt.ok, rep.Summary())
			}
		})
	}
}

// TestDNSRuleOrder: a report lists the rules of its kind of domain, each once, in order.
func TestDNSRuleOrder(t *testing.T) {
	srv := domaintest.NewDNSServer(t, base(goodCNAME, "example.test. 3600 IN A 198.51.100.7")...)
	tests := []struct {
		cfg  domain.Config
		want []domain.Rule
	}{
		{domain.Config{Domain: sub, Target: target}, []domain.Rule{domain.RuleCNAME, domain.RuleConflict, domain.RuleTTL, domain.RuleCAA, domain.RulePropagation}},
		{domain.Config{Domain: apex, Target: target, Apex: true}, []domain.Rule{domain.RuleAlias, domain.RuleApexAddress, domain.RuleTTL, domain.RuleCAA, domain.RulePropagation}},
	}
	for _, tt := range tests {
		rep := checkDNS(t, tt.cfg, srv.Addr, srv.Port)
		var got []domain.Rule
		for _, r := range rep.Results {
			got = append(got, r.Rule)
		}
		if strings.Join(rulesText(got), " ") != strings.Join(rulesText(tt.want), " ") {
			t.Errorf("%s: got rules %v, want %v", tt.cfg.Domain, got, tt.want)
		}
	}
}

func rulesText(rs []domain.Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// TestDNSTruncatedAnswerOverTCP: an answer too large for UDP comes back
// truncated and is asked again over TCP. Without the retry the empty
// truncated answer would read as "no CAA" and pass.
func TestDNSTruncatedAnswerOverTCP(t *testing.T) {
	srv := domaintest.NewDNSServer(t, base(goodCNAME, `example.test. 3600 IN CAA 0 issue "digicert.com"`)...)
	srv.TruncateUDP("example.test.")
	rep := checkDNS(t, domain.Config{Domain: sub, Target: target, CAs: []string{"letsencrypt.org"}}, srv.Addr, srv.Port)
	assertRules(t, rep, map[domain.Rule]want{
		domain.RuleCAA:         {domain.Fail, []string{"allow only digicert.com"}},
		domain.RulePropagation: {domain.Pass, nil},
	})
}

// TestDNSServerNotAnswering: a resolver that never answers makes every rule
// "cannot tell", and the check ends after about one time-out, not one per
// query.
func TestDNSServerNotAnswering(t *testing.T) {
	silent := domaintest.SilentServer(t)
	const timeout = 300 * time.Millisecond
	for _, apexMode := range []bool{false, true} {
		start := time.Now()
		rep := checkDNS(t, domain.Config{Domain: sub, Target: target, Apex: apexMode, Timeout: timeout}, silent, 53)
		elapsed := time.Since(start)
		for _, r := range rep.Results {
			if r.Rule == domain.RuleAlias {
				continue // a note whatever DNS says
			}
			if r.Verdict != domain.CannotTell || !strings.Contains(r.Detail, "no answer within 300ms") {
				t.Errorf("apex %v: %s: got %s (%s), want cannot tell with the time-out", apexMode, r.Rule, r.Verdict, r.Detail)
			}
		}
		if rep.OK() {
			t.Errorf("apex %v: OK() with no answer", apexMode)
		}
		if elapsed > 4*timeout {
			t.Errorf("apex %v: took %s with a %s time-out; want about one time-out", apexMode, elapsed, timeout)
		}
	}
}

// TestDNSAuthoritativeNotAnswering: the resolver answers but the zone's
// name server does not: the rules that need it cannot tell, the others pass.
func TestDNSAuthoritativeNotAnswering(t *testing.T) {
	resolver := domaintest.NewDNSServer(t, base(goodCNAME)...)
	silent := domaintest.SilentServer(t)
	_, port, _ := net.SplitHostPort(silent)
	authPort, _ := strconv.Atoi(port)
	rep := checkDNS(t, domain.Config{Domain: sub, Target: target, Timeout: 300 * time.Millisecond}, resolver.Addr, authPort)
	assertRules(t, rep, map[domain.Rule]want{
		domain.RuleCNAME:       {domain.Pass, nil},
		domain.RuleConflict:    {domain.Pass, nil},
		domain.RuleCAA:         {domain.Pass, nil},
		domain.RuleTTL:         {domain.CannotTell, []string{"no authoritative server answered", "no answer within 300ms"}},
		domain.RulePropagation: {domain.CannotTell, []string{"no authoritative server of example.test answered"}},
	})
}

// TestDNSLameDelegation: an answer from a zone's name server without the
// authoritative bit does not count as the zone's.
func TestDNSLameDelegation(t *testing.T) {
	resolver := domaintest.NewDNSServer(t, base(goodCNAME)...)
	auth := domaintest.NewDNSServer(t, base(goodCNAME)...)
	auth.Lame()
	rep := checkDNS(t, domain.Config{Domain: sub, Target: target}, resolver.Addr, auth.Port)
	assertRules(t, rep, map[domain.Rule]want{
		domain.RuleCNAME:       {domain.Pass, nil},
		domain.RuleTTL:         {domain.CannotTell, []string{"not authoritative (a lame delegation)"}},
		domain.RulePropagation: {domain.CannotTell, []string{"not authoritative"}},
	})
}

// TestDNSServerFailure: a SERVFAIL is an answer without the records: cannot tell.
func TestDNSServerFailure(t *testing.T) {
	srv := domaintest.NewDNSServer(t, base(goodCNAME)...)
	srv.Answer(sub+".", dns.RcodeServerFailure)
	rep := checkDNS(t, domain.Config{Domain: sub, Target: target}, srv.Addr, srv.Port)
	assertRules(t, rep, map[domain.Rule]want{
		domain.RuleCNAME:    {domain.CannotTell, []string{"the answer is SERVFAIL", "--resolver"}},
		domain.RuleConflict: {domain.CannotTell, []string{"SERVFAIL"}},
		domain.RuleCAA:      {domain.CannotTell, []string{"SERVFAIL"}},
	})
}

// TestDNSNeedsTarget: the DNS rules compare against the target.
func TestDNSNeedsTarget(t *testing.T) {
	c, err := domain.New(domain.Config{Domain: sub, Resolver: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DNS(context.Background()); err == nil || err.Error() != "--target: required: the platform host the dashboard shows (such as sites.platform.example)" {
		t.Errorf("got %v, want the --target error", err)
	}
}
