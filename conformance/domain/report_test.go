package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance/domain"
)

// TestReportWrite: the text of a TLS report with its certificate and
// checklist, whole, so that a change to the layout shows here.
func TestReportWrite(t *testing.T) {
	at := time.Date(2031, 3, 10, 12, 0, 0, 0, time.UTC)
	rep := &domain.Report{
		Domain: "docs.example.com", Target: "sites.platform.example", Resolver: "192.0.2.53:53", At: at,
		Results: []domain.Result{{
			Rule: domain.RuleCertificate, Verdict: domain.Fail,
			Detail: "192.0.2.7:443 serves a certificate that expired on 2031-03-08",
			Next:   "work through the steps below",
		}},
		Certificate: &domain.Certificate{
			Addr: "192.0.2.7:443", Issuer: "Example CA", Names: []string{"docs.example.com", "www.example.com"},
			NotBefore: at.AddDate(0, -3, 0), NotAfter: at.Add(-50 * time.Hour), Covers: true,
		},
		Checklist: []domain.Result{
			{Rule: domain.RuleVerifies, Verdict: domain.Pass, Detail: "the DNS record is in place", Checks: []domain.Result{
				{Rule: domain.RuleCNAME, Verdict: domain.Pass, Detail: "docs.example.com is a CNAME for sites.platform.example"},
			}},
			{Rule: domain.RuleCAA, Verdict: domain.Fail, Detail: "the CAA records at example.com allow only pki.goog", Next: `add a CAA record`},
			{Rule: domain.RuleReverify, Verdict: domain.Note, Next: "use Re-verify"},
		},
	}
	want := `docs.example.com → sites.platform.example (resolver 192.0.2.53:53)

FAIL         certificate   192.0.2.7:443 serves a certificate that expired on 2031-03-08
                           next: work through the steps below

certificate served at 192.0.2.7:443
  issuer   Example CA
  names    docs.example.com, www.example.com
  valid    2030-12-10 to 2031-03-08 (expired 2 days ago)
  covers   docs.example.com: yes

no valid certificate: one is usually issued within minutes of verification;
if 30 minutes have passed, the description's three steps:
  1. [pass] confirm the domain still verifies
       the DNS record is in place
       pass         cname         docs.example.com is a CNAME for sites.platform.example
  2. [FAIL] check that CAA records do not block the certificate authority
       the CAA records at example.com allow only pki.goog
       next: add a CAA record
  3. [note] use Re-verify
       next: use Re-verify

1 rule: 1 FAIL
`
	var b strings.Builder
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestReportOK(t *testing.T) {
	tests := []struct {
		verdicts []domain.Verdict
		ok       bool
		summary  string
	}{
		{[]domain.Verdict{domain.Pass, domain.Note}, true, "2 rules: 1 pass, 1 note"},
		{[]domain.Verdict{domain.Pass, domain.Fail}, false, "2 rules: 1 pass, 1 FAIL"},
		{[]domain.Verdict{domain.Pass, domain.CannotTell}, false, "2 rules: 1 pass, 1 cannot tell"},
	}
	for _, tt := range tests {
		rep := &domain.Report{}
		for _, v := range tt.verdicts {
			rep.Results = append(rep.Results, domain.Result{Verdict: v})
		}
		if rep.OK() != tt.ok || rep.Summary() != tt.summary {
			t.Errorf("%v: OK %v, %q; want %v, %q", tt.verdicts, rep.OK(), rep.Summary(), tt.ok, tt.summary)
		}
	}
}

// TestReportNamesAnInternationalisedDomain: the header gives the name a
// person wrote beside the ASCII form DNS carries, which the rules use.
func TestReportNamesAnInternationalisedDomain(t *testing.T) {
	rep := &domain.Report{Domain: "xn--bcher-kva.example", Target: "sites.platform.example", Resolver: "192.0.2.53:53"}
	var b strings.Builder
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.SplitN(b.String(), "\n", 2)[0], "xn--bcher-kva.example (bücher.example) → sites.platform.example (resolver 192.0.2.53:53)"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
}
