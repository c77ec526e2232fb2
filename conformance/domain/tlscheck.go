package domain

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// TLS connects to the domain on the TLS port, as a browser would (the
// domain's addresses from the resolver, the domain as server name), and
// reports the certificate it is served and whether it is valid for the
// domain. Without a valid certificate the report also holds the
// description's three steps with their current results.
func (c *Checker) TLS(ctx context.Context) *Report {
	rep := c.newReport()
	res, cert := c.certificateRule(ctx, rep.At)
	rep.Results, rep.Certificate = []Result{res}, cert
	if res.Verdict != Pass {
		rep.Checklist = c.checklist(ctx)
	}
	return rep
}

func (c *Checker) certificateRule(ctx context.Context, now time.Time) (Result, *Certificate) {
	r := Result{Rule: RuleCertificate}
	domain := show(c.domain)
	steps := fmt.Sprintf("a certificate is usually issued within minutes of verification; if %d minutes have passed, work through the steps below", int(CertificateWait.Minutes()))
	addrs, err := c.resolve(ctx, c.domain)
	if err != nil {
		r.Verdict, r.Detail, r.Next = CannotTell, err.Error(), retryNext
		return r, nil
	}
	if len(addrs) == 0 {
		r.Verdict = Fail
		r.Detail = fmt.Sprintf("%s has no address: its DNS record is missing or has not propagated yet", domain)
		r.Next = "check the DNS rules with: petctl domain check " + domain + " --target PLATFORM_HOST"
		return r, nil
	}
	state, addr, err := c.handshake(ctx, addrs)
	if err != nil {
		r.Verdict, r.Detail, r.Next = Fail, err.Error(), steps
		return r, nil
	}
	leaf := state.PeerCertificates[0]
	cert := &Certificate{
		Addr:      addr,
		Subject:   leaf.Subject.CommonName,
		Issuer:    issuerName(leaf),
		Names:     leaf.DNSNames,
		NotBefore: leaf.NotBefore,
		NotAfter:  leaf.NotAfter,
		Covers:    leaf.VerifyHostname(domain) == nil,
	}
	// Each problem is found on its own, so that the report names them all:
	// x509's Verify stops at the first (an expired certificate for the
	// wrong names would only say it expired).
	var problems []string
	if !cert.Covers {
		problems = append(problems, fmt.Sprintf("is for %s, not %s", namesOf(leaf), domain))
	}
	switch {
	case now.After(leaf.NotAfter):
		problems = append(problems, "expired on "+leaf.NotAfter.UTC().Format(time.DateOnly))
	case now.Before(leaf.NotBefore):
		problems = append(problems, "is not valid before "+leaf.NotBefore.UTC().Format(time.DateOnly))
	}
	if err := c.verifyChain(leaf, state.PeerCertificates[1:], now); err != nil {
		var ua x509.UnknownAuthorityError
		if errors.As(err, &ua) {
			problems = append(problems, fmt.Sprintf("is issued by %s, which is not a trusted certificate authority (a placeholder or self-signed certificate)", cert.Issuer))
		} else {
			problems = append(problems, "does not verify: "+err.Error())
		}
	}
	if len(problems) == 0 {
		r.Verdict = Pass
		r.Detail = fmt.Sprintf("%s serves a valid certificate for %s, issued by %s, until %s", addr, domain, cert.Issuer, leaf.NotAfter.UTC().Format(time.DateOnly))
		return r, cert
	}
	r.Verdict = Fail
	r.Detail = fmt.Sprintf("%s serves a certificate that %s", addr, strings.Join(problems, "; it "))
	r.Next = steps
	return r, cert
}

// handshake connects to the first of addrs that completes a TLS handshake.
// It accepts any certificate: the point is to report what is served, and
// certificateRule verifies it afterwards.
func (c *Checker) handshake(ctx context.Context, addrs []string) (tls.ConnectionState, string, error) {
	var errs []string
	for _, ip := range addrs {
		addr := net.JoinHostPort(ip, strconv.Itoa(c.tlsPort))
		hctx, cancel := context.WithTimeout(ctx, c.timeout)
		d := &tls.Dialer{
			NetDialer: &net.Dialer{Timeout: c.timeout},
			Config: &tls.Config{
				ServerName:         show(c.domain),
				InsecureSkipVerify: true, // verified by certificateRule, which reports why it fails
				MinVersion:         tls.VersionTLS12,
			},
		}
		conn, err := d.DialContext(hctx, "tcp", addr)
		cancel()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("no TLS handshake within %s", c.timeout)
			}
			errs = append(errs, fmt.Sprintf("%s: %v", addr, err))
			continue
		}
		state := conn.(*tls.Conn).ConnectionState()
		conn.Close()
		if len(state.PeerCertificates) == 0 {
			errs = append(errs, addr+": no certificate served")
			continue
		}
		return state, addr, nil
	}
	return tls.ConnectionState{}, "", fmt.Errorf("no TLS connection to %s: %s", show(c.domain), strings.Join(errs, "; "))
}

// verifyChain checks that the certificate chains to a trusted root. The
// leaf's dates are reported on their own, so an expired leaf is verified
// again at a moment inside its validity, to tell also whether it is
// trusted; if the chain is out of date then too, the dates already said it.
func (c *Checker) verifyChain(leaf *x509.Certificate, intermediates []*x509.Certificate, now time.Time) error {
	pool := x509.NewCertPool()
	for _, ic := range intermediates {
		pool.AddCert(ic)
	}
	verify := func(at time.Time) error {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: c.roots, Intermediates: pool, CurrentTime: at})
		return err
	}
	err := verify(now)
	var ie x509.CertificateInvalidError
	if !errors.As(err, &ie) || ie.Reason != x509.Expired || (!now.After(leaf.NotAfter) && !now.Before(leaf.NotBefore)) {
		return err
	}
	at := leaf.NotAfter
	if now.Before(leaf.NotBefore) {
		at = leaf.NotBefore
	}
	if err := verify(at); !errors.As(err, &ie) || ie.Reason != x509.Expired {
		return err
	}
	return nil
}

// checklist is the description's three steps for a certificate that has not
// appeared, each with its current result.
func (c *Checker) checklist(ctx context.Context) []Result {
	verifies := Result{Rule: RuleVerifies}
	if c.target == "" {
		verifies.Verdict = CannotTell
		verifies.Detail = "the DNS rules need the platform host"
		verifies.Next = "run again with --target PLATFORM_HOST"
	} else {
		zone := c.findZone(ctx)
		if c.apex {
			want, err := c.resolve(ctx, c.target)
			verifies.Checks = []Result{c.apexAddressRule(c.apexRecords(ctx), want, err)}
		} else {
			verifies.Checks = []Result{c.subdomainCNAMERule(ctx, c.cnameRecords(ctx), zone), c.conflictRule(ctx)}
		}
		verifies.Verdict = worst(verifies.Checks)
		if verifies.Verdict == Pass {
			verifies.Detail = "the DNS record is in place as the dashboard verified it"
		} else {
			verifies.Next = "fix the DNS record first (below); the certificate follows verification"
		}
	}
	reverify := Result{
		Rule:    RuleReverify,
		Verdict: Note,
		Detail:  "done in the dashboard; nothing outside it shows whether it was",
		Next:    "in the project settings under Domains, use Re-verify",
	}
	return []Result{verifies, c.caaRule(ctx), reverify}
}

// issuerName is the issuer's common name, or its organisation.
func issuerName(cert *x509.Certificate) string {
	switch {
	case cert.Issuer.CommonName != "":
		return cert.Issuer.CommonName
	case len(cert.Issuer.Organization) > 0:
		return cert.Issuer.Organization[0]
	}
	return cert.Issuer.String()
}

func namesOf(cert *x509.Certificate) string {
	if len(cert.DNSNames) == 0 {
		return "no DNS name"
	}
	return strings.Join(cert.DNSNames, ", ")
}
