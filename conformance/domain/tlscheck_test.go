package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance/domain"
	"github.com/petctl/petctl/conformance/domain/domaintest"
)

// loopback is the zone of base with the platform on 127.0.0.1: what the
// TLS check connects to must be on this machine.
func loopback(records ...string) []string {
	return append(append(domaintest.Zone(apex), "sites.platform.test. 3600 IN A 127.0.0.1"), records...)
}

// TestTLSCertificate connects to a local TLS server, found through a local
// DNS server (docs.example.test is 127.0.0.1), serving certificates made
// for the test by a CA the check trusts.
func TestTLSCertificate(t *testing.T) {
	ca := domaintest.NewCA(t, "petctl test CA")
	other := domaintest.NewCA(t, "placeholder CA")
	now := time.Now()
	valid := ca.Issue(t, []string{sub, "www.example.test"}, now.Add(-time.Hour), now.Add(90*24*time.Hour))
	expired := ca.Issue(t, []string{sub}, now.AddDate(0, -3, 0), now.AddDate(0, 0, -2))
	notYet := ca.Issue(t, []string{sub}, now.Add(48*time.Hour), now.AddDate(0, 3, 0))
	wrongNames := ca.Issue(t, []string{"*.platform.test", "platform.test"}, now.Add(-time.Hour), now.Add(90*24*time.Hour))
	untrusted := other.Issue(t, []string{sub}, now.Add(-time.Hour), now.Add(90*24*time.Hour))
	expiredUntrusted := other.Issue(t, []string{"www.example.test"}, now.AddDate(0, -3, 0), now.AddDate(0, 0, -2))
	tests := []struct {
		name    string
		port    int
		verdict domain.Verdict
		text    []string
		covers  bool
		several bool // the certificate has more than one problem
	}{
		{"valid", domaintest.ServeTLS(t, valid), domain.Pass, []string{"serves a valid certificate for docs.example.test, issued by petctl test CA"}, true, false},
		{"expired", domaintest.ServeTLS(t, expired), domain.Fail, []string{"expired on " + now.AddDate(0, 0, -2).UTC().Format(time.DateOnly), "30 minutes"}, true, false},
		{"not yet valid", domaintest.ServeTLS(t, notYet), domain.Fail, []string{"is not valid before " + now.Add(48*time.Hour).UTC().Format(time.DateOnly)}, true, false},
		{"wrong names", domaintest.ServeTLS(t, wrongNames), domain.Fail, []string{"is for *.platform.test, platform.test, not docs.example.test"}, false, false},
		{"untrusted issuer", domaintest.ServeTLS(t, untrusted), domain.Fail, []string{"issued by placeholder CA, which is not a trusted certificate authority"}, true, false},
		{"expired, for other names, and untrusted", domaintest.ServeTLS(t, expiredUntrusted), domain.Fail,
			[]string{"is for www.example.test, not docs.example.test; it expired on", "; it is issued by placeholder CA, which is not a trusted"}, false, true},
		{"nothing listening", domaintest.ClosedPort(t), domain.Fail, []string{"no TLS connection to docs.example.test", "connection refused"}, false, false},
		{"no handshake", domaintest.ServeMute(t), domain.Fail, []string{"no TLS handshake within 300ms"}, false, false},
	}
	dnsSrv := domaintest.NewDNSServer(t, loopback(goodCNAME)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only the mute server waits the time-out out; the others
			// answer at once, so a longer one costs them nothing and keeps
			// a handshake on a loaded machine (300ms was not enough at
			// load 9 on two cores) from reading as no handshake.
			timeout := 10 * time.Second
			if tt.name == "no handshake" {
				timeout = 300 * time.Millisecond
			}
			c, err := domain.New(domain.Config{
				Domain: sub, Target: target, Resolver: dnsSrv.Addr, NSPort: dnsSrv.Port,
				TLSPort: tt.port, Roots: ca.Pool, Timeout: timeout,
			})
			if err != nil {
				t.Fatal(err)
			}
			rep := c.TLS(context.Background())
			got := rep.Results[0]
			if len(rep.Results) != 1 || got.Rule != domain.RuleCertificate || got.Verdict != tt.verdict {
				t.Fatalf("got %+v, want one certificate result, %s", rep.Results, tt.verdict)
			}
			for _, s := range tt.text {
				if !strings.Contains(got.Detail+" | "+got.Next, s) {
					t.Errorf("got %q (next %q), want it to say %q", got.Detail, got.Next, s)
				}
			}
			// Each problem is told once and on its own: an expired
			// certificate from a trusted CA is not also untrusted.
			if !tt.several && strings.Count(got.Detail, "; it ") != 0 || strings.Contains(got.Detail, "does not verify") {
				t.Errorf("got %q, want only the case's problem", got.Detail)
			}
			if cert := rep.Certificate; cert != nil && cert.Covers != tt.covers {
				t.Errorf("Covers = %v, want %v", cert.Covers, tt.covers)
			}
			if tt.verdict == domain.Pass {
				if len(rep.Checklist) != 0 || !rep.OK() {
					t.Errorf("a valid certificate: checklist %v, OK %v; want no checklist, OK", rep.Checklist, rep.OK())
				}
				if c := rep.Certificate; c == nil || c.Issuer != "petctl test CA" || strings.Join(c.Names, " ") != sub+" www.example.test" {
					t.Errorf("certificate %+v, want the issuer and both names", c)
				}
				return
			}
			assertChecklist(t, rep, []domain.Verdict{domain.Pass, domain.Pass, domain.Note})
		})
	}
}

func assertChecklist(t *testing.T, rep *domain.Report, want []domain.Verdict) {
	t.Helper()
	wantRules := []domain.Rule{domain.RuleVerifies, domain.RuleCAA, domain.RuleReverify}
	if len(rep.Checklist) != len(wantRules) {
		t.Fatalf("checklist %+v, want the three steps", rep.Checklist)
	}
	for i, step := range rep.Checklist {
		if step.Rule != wantRules[i] || step.Verdict != want[i] {
			t.Errorf("step %d: got %s %s (%s), want %s %s", i+1, step.Rule, step.Verdict, step.Detail, wantRules[i], want[i])
		}
	}
	if rep.OK() {
		t.Error("OK() without a valid certificate")
	}
}

// TestTLSChecklistResults: the three steps carry the current results of
// the rules they stand on.
func TestTLSChecklistResults(t *testing.T) {
	ca := domaintest.NewCA(t, "petctl test CA")
	now := time.Now()
	port := domaintest.ServeTLS(t, ca.Issue(t, []string{"platform.test"}, now.Add(-time.Hour), now.Add(time.Hour)))
	tests := []struct {
		name    string
		cfg     domain.Config
		records []string
		want    []domain.Verdict
		text    string
	}{
		{
			name:    "a conflicting record and CAA forbidding",
			cfg:     domain.Config{Domain: sub, Target: target, CAs: []string{"letsencrypt.org"}},
			records: loopback(goodCNAME, `docs.example.test. 3600 IN TXT "x"`, `example.test. 3600 IN CAA 0 issue "pki.goog"`),
			want:    []domain.Verdict{domain.Fail, domain.Fail, domain.Note},
			text:    `TXT "x"`,
		},
		{
			name:    "without --target the first step cannot tell",
			cfg:     domain.Config{Domain: sub},
			records: loopback(goodCNAME),
			want:    []domain.Verdict{domain.CannotTell, domain.Pass, domain.Note},
			text:    "--target",
		},
		{
			name:    "an apex checks its addresses",
			cfg:     domain.Config{Domain: apex, Target: target, Apex: true},
			records: loopback("example.test. 3600 IN A 127.0.0.2"),
			want:    []domain.Verdict{domain.Fail, domain.Pass, domain.Note},
			text:    "example.test resolves to 127.0.0.2, sites.platform.test to 127.0.0.1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := domaintest.NewDNSServer(t, tt.records...)
			tt.cfg.Resolver, tt.cfg.NSPort, tt.cfg.TLSPort, tt.cfg.Roots = srv.Addr, srv.Port, port, ca.Pool
			c, err := domain.New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rep := c.TLS(context.Background())
			assertChecklist(t, rep, tt.want)
			var b strings.Builder
			rep.Write(&b)
			if !strings.Contains(b.String(), tt.text) {
				t.Errorf("the report does not say %q:\n%s", tt.text, b.String())
			}
		})
	}
}

// TestTLSNoAddress: a domain without an address has no certificate to show.
func TestTLSNoAddress(t *testing.T) {
	srv := domaintest.NewDNSServer(t, loopback()...)
	c, err := domain.New(domain.Config{Domain: sub, Target: target, Resolver: srv.Addr, NSPort: srv.Port, TLSPort: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep := c.TLS(context.Background())
	if got := rep.Results[0]; got.Verdict != domain.Fail || !strings.Contains(got.Detail, "docs.example.test has no address") {
		t.Errorf("got %s %q, want a failure for the missing address", got.Verdict, got.Detail)
	}
	assertChecklist(t, rep, []domain.Verdict{domain.Fail, domain.Pass, domain.Note})
}
