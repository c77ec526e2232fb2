package main

import (
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/petctl/petctl/conformance/domain"
	"github.com/spf13/cobra"
)

func newDomainCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "domain",
		Short: "Check a custom domain and its redirects before publishing the reference on it",
	}
	redirects := &cobra.Command{
		Use:   "redirects",
		Short: "Check the redirect entries of a custom domain",
	}
	redirects.AddCommand(newDomainRedirectsValidateCmd(a, nil))
	cmd.AddCommand(newDomainCheckCmd(a, nil), redirects)
	return cmd
}

type domainCheckOptions struct {
	domain   string
	target   string
	apex     bool
	resolver string
	cas      []string
	timeout  time.Duration
	nsPort   int
	tls      bool
	port     int
	roots    string
}

func newDomainCheckCmd(a *app, runF func(*domainCheckOptions) error) *cobra.Command {
	opts := &domainCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check DOMAIN (--target PLATFORM_HOST | --tls)",
		Short: "Check a custom domain's DNS records, or its certificate, against the publishing procedure",
		Long: fmt.Sprintf(`Check a custom domain against the description's publishing procedure, rule by
rule, each pass, FAIL, cannot tell or note, with the next step:

  subdomain  a CNAME whose value is PLATFORM_HOST exactly, and no other record
             at the name, which blocks verification
  apex       (--apex) an ALIAS or ANAME record, which the DNS provider must
             support and DNS cannot show, giving the target's addresses
  both       the TTL (%d suggested; another is a note), CAA records that let
             a certificate authority of --ca issue, and whether the resolver
             sees what the zone's authoritative servers hold (propagation can
             take up to %d hours)

With --tls, after verification: connect on port %d and report the certificate
(issuer, names, expiry, whether it covers DOMAIN); without a valid one, the
description's three steps with their current results.

Every DNS query has the --timeout. Exit status: 0 every rule passed (notes
allowed), 1 a rule failed or could not be told, 2 a usage error.`,
			domain.SuggestedTTL, int(domain.PropagationWindow.Hours()), domain.DefaultTLSPort),
		Example: `  petctl domain check docs.example.com --target sites.platform.example
  petctl domain check example.com --apex --target sites.platform.example --resolver 1.1.1.1
  petctl domain check docs.example.com --target sites.platform.example --ca letsencrypt.org
  petctl domain check docs.example.com --tls --target sites.platform.example`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want one DOMAIN, got %d arguments (see 'petctl domain check --help')", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.domain = args[0]
			if runF != nil {
				return runF(opts)
			}
			return domainCheckRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.target, "target", "", "the platform host the dashboard shows, which the CNAME must name (required without --tls)")
	f.BoolVar(&opts.apex, "apex", false, "DOMAIN is an apex domain, served through an ALIAS or ANAME record")
	f.StringVar(&opts.resolver, "resolver", "", "resolver to ask: an IP address with an optional port (default: the first of /etc/resolv.conf)")
	f.StringSliceVar(&opts.cas, "ca", domain.DefaultCAs(), "certificate authorities the platform may use, as CAA issuer domains")
	f.DurationVar(&opts.timeout, "timeout", domain.DefaultTimeout, "time-out of each DNS query and of the TLS connection")
	f.IntVar(&opts.nsPort, "ns-port", domain.DefaultDNSPort, "port to ask the zone's authoritative servers on")
	f.BoolVar(&opts.tls, "tls", false, "check the certificate served for DOMAIN instead of the DNS records")
	f.IntVar(&opts.port, "port", domain.DefaultTLSPort, "port of the TLS check")
	f.StringVar(&opts.roots, "roots", "", "PEM file of the root certificates the TLS check trusts (default: the system's)")
	return cmd
}

func domainCheckRun(a *app, opts *domainCheckOptions) error {
	cfg := domain.Config{
		Domain:   opts.domain,
		Target:   opts.target,
		Apex:     opts.apex,
		Resolver: opts.resolver,
		CAs:      opts.cas,
		Timeout:  opts.timeout,
		NSPort:   opts.nsPort,
		TLSPort:  opts.port,
	}
	if cfg.CAs == nil {
		cfg.CAs = []string{} // --ca "" names none: New says so, rather than taking the defaults
	}
	if cfg.Timeout == 0 {
		return usageErrorf("--timeout 0s: want a positive duration such as 5s")
	}
	if opts.roots != "" {
		pool, err := readRoots(opts.roots)
		if err != nil {
			return usageError(err)
		}
		cfg.Roots = pool
	}
	c, err := domain.New(cfg)
	if err != nil {
		return usageError(err)
	}
	var rep *domain.Report
	if opts.tls {
		rep = c.TLS(a.ctx)
	} else if rep, err = c.DNS(a.ctx); err != nil {
		return usageError(err)
	}
	if err := rep.Write(a.out); err != nil {
		return failure(err)
	}
	if !rep.OK() {
		return failure(fmt.Errorf("%s: %s", rep.Domain, rep.Summary()))
	}
	return nil
}

// readRoots reads a PEM file of trusted root certificates.
func readRoots(path string) (*x509.CertPool, error) {
	data, err := readBounded(path, maxRootsFile)
	if err != nil {
		return nil, fmt.Errorf("--roots: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("--roots %s: no PEM certificate in it", path)
	}
	return pool, nil
}

// maxRootsFile bounds a roots file; the system's whole bundle is about 200 KB.
const maxRootsFile = 4 << 20

type redirectsValidateOptions struct {
	file string
}

func newDomainRedirectsValidateCmd(a *app, runF func(*redirectsValidateOptions) error) *cobra.Command {
	opts := &redirectsValidateOptions{}
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a redirects file: a YAML or JSON list of {from, to, status}",
		Long: `Check a redirects file, a YAML or JSON list of entries {from, to, status}
(status 301 when not given): host names that are valid, statuses among 301,
302, 307 and 308, no from-domain given twice, no loop and no chain (a → b → c:
point a at c). Every problem is printed with its line and entry.

Exit status: 0 valid, 1 a problem in the file, 2 the file cannot be read.`,
		Example: `  petctl domain redirects validate redirects.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want one FILE, got %d arguments (see 'petctl domain redirects validate --help')", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.file = args[0]
			if runF != nil {
				return runF(opts)
			}
			return redirectsValidateRun(a, opts)
		},
	}
}

func redirectsValidateRun(a *app, opts *redirectsValidateOptions) error {
	data, err := readBounded(opts.file, domain.MaxRedirectsFile)
	if err != nil {
		return usageError(err)
	}
	entries, problems := domain.ValidateRedirects(data)
	if len(problems) == 0 {
		fmt.Fprintf(a.out, "%s: %d %s, valid\n", opts.file, len(entries), plural(len(entries), "redirect", "redirects"))
		return nil
	}
	var b strings.Builder
	for _, p := range problems {
		if p.Line > 0 {
			fmt.Fprintf(&b, "%s:%s\n", opts.file, p)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", opts.file, p)
		}
	}
	if _, err := io.WriteString(a.out, b.String()); err != nil {
		return failure(err)
	}
	return failure(fmt.Errorf("%s: %d %s", opts.file, len(problems), plural(len(problems), "problem", "problems")))
}

// readBounded reads a file of at most limit bytes, saying so when it is larger.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", path, unwrapPathErr(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return data, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
