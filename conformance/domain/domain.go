// Package domain is the preflight for serving the published reference on a
// custom domain: it checks a domain's DNS records, its certificate and a
// redirects file against the publishing procedure of the API description
// (CNAME or ALIAS/ANAME at the target, no conflicting record, TTL, CAA,
// propagation, the certificate after verification, redirect entries).
//
// It only reads: every answer comes from DNS queries (miekg/dns, each with a
// time-out) and one TLS handshake. It has nothing to do with the Ginkgo
// suite of package conformance, which checks the API itself.
package domain

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// The procedure's figures, each declared once.
const (
	// SuggestedTTL is the TTL the description suggests for the CNAME.
	SuggestedTTL = 3600
	// PropagationWindow is how long the description says DNS changes can
	// take to reach every resolver.
	PropagationWindow = 48 * time.Hour
	// CertificateWait is how long after verification the description says
	// to wait for the certificate before working through its three steps.
	CertificateWait = 30 * time.Minute
)

// Defaults of Config.
const (
	// DefaultTimeout bounds each DNS query and the TLS connection.
	DefaultTimeout = 5 * time.Second
	// DefaultDNSPort is the port of resolvers and authoritative servers.
	DefaultDNSPort = 53
	// DefaultTLSPort is where the platform serves the domain over HTTPS.
	DefaultTLSPort = 443
)

// DefaultCAs are the certificate authorities (as CAA issuer domain names)
// that hosting platforms commonly obtain certificates from: Let's Encrypt,
// Google Trust Services, Sectigo, DigiCert, Amazon. The description does not
// name the platform's authority, so a CAA set that allows one of these
// passes; --ca narrows it to the platform's own.
func DefaultCAs() []string {
	return []string{"letsencrypt.org", "pki.goog", "sectigo.com", "digicert.com", "amazon.com"}
}

// Config is one preflight. Zero values take the defaults above.
type Config struct {
	// Domain is the custom domain or subdomain to check.
	Domain string
	// Target is the platform host the dashboard shows ({platform_host}); the
	// DNS rules need it, the TLS check uses it for its first step.
	Target string
	// Apex says Domain is an apex domain, served through an ALIAS or ANAME
	// record instead of a CNAME.
	Apex bool
	// Resolver is the recursive resolver to ask, an IP address with an
	// optional port; empty means the first of /etc/resolv.conf.
	Resolver string
	// CAs are the CAA issuer domain names the platform may use; nil means DefaultCAs.
	CAs []string
	// Timeout bounds each DNS query and the TLS connection with its handshake.
	Timeout time.Duration
	// NSPort is the port the zone's authoritative servers are asked on.
	NSPort int
	// TLSPort is the port the TLS check connects to.
	TLSPort int
	// Roots verify the served certificate; nil means the system's roots.
	Roots *x509.CertPool
}

// Checker runs the checks of one Config, normalised and validated.
type Checker struct {
	domain   string // fully qualified, lower case, ASCII: "docs.example.com."
	target   string // same form; empty when not given
	apex     bool
	resolver string // host:port
	cas      []string
	nsPort   string
	tlsPort  int
	timeout  time.Duration
	roots    *x509.CertPool
	dns      *dnsClient
}

// New validates cfg and returns its Checker, or every problem at once in one
// error (each a *ConfigError), before any query is sent.
func New(cfg Config) (*Checker, error) {
	var problems []error
	bad := func(field, format string, args ...any) {
		problems = append(problems, &ConfigError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	c := &Checker{apex: cfg.Apex, timeout: cfg.Timeout, roots: cfg.Roots}
	if host, err := NormalizeHost(cfg.Domain); err != nil {
		bad("domain", "%v", err)
	} else {
		c.domain = dns.Fqdn(host)
	}
	if cfg.Target != "" {
		if host, err := NormalizeHost(cfg.Target); err != nil {
			bad("target", "%v", err)
		} else {
			c.target = dns.Fqdn(host)
		}
		if c.target != "" && c.target == c.domain {
			bad("target", "%s is the domain itself: want the platform host the dashboard shows", cfg.Target)
		}
	}
	c.cas = DefaultCAs()
	if cfg.CAs != nil {
		c.cas = slices.Clone(cfg.CAs) // normalised below, in place
	}
	if len(c.cas) == 0 {
		bad("ca", "no certificate authority: want at least one issuer domain such as letsencrypt.org")
	}
	for i, ca := range c.cas {
		host, err := NormalizeHost(ca)
		if err != nil {
			bad("ca", "%v", err)
			continue
		}
		c.cas[i] = host
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	} else if c.timeout < 0 {
		bad("timeout", "%s: want a positive duration such as 5s", cfg.Timeout)
	}
	c.nsPort = strconv.Itoa(DefaultDNSPort)
	if cfg.NSPort != 0 {
		if cfg.NSPort < 0 || cfg.NSPort > 65535 {
			bad("ns-port", "%d: want a port from 1 to 65535", cfg.NSPort)
		}
		c.nsPort = strconv.Itoa(cfg.NSPort)
	}
	c.tlsPort = DefaultTLSPort
	if cfg.TLSPort != 0 {
		if cfg.TLSPort < 0 || cfg.TLSPort > 65535 {
			bad("port", "%d: want a port from 1 to 65535", cfg.TLSPort)
		}
		c.tlsPort = cfg.TLSPort
	}
	if cfg.Resolver == "" {
		r, err := SystemResolver(resolvConf)
		if err != nil {
			bad("resolver", "%v; name one with --resolver (such as 1.1.1.1)", err)
		}
		c.resolver = r
	} else if r, err := ParseResolver(cfg.Resolver); err != nil {
		bad("resolver", "%v", err)
	} else {
		c.resolver = r
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	c.dns = newDNSClient(c.timeout)
	return c, nil
}

// ConfigError is one problem with a Config, named by the command-line flag
// (or argument) that sets the field.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	if e.Field == "domain" {
		return "DOMAIN: " + e.Msg
	}
	return "--" + e.Field + ": " + e.Msg
}

// resolvConf is where the system names its resolvers.
const resolvConf = "/etc/resolv.conf"

// SystemResolver returns the first nameserver of a resolv.conf file, with
// the DNS port.
func SystemResolver(path string) (string, error) {
	cc, err := dns.ClientConfigFromFile(path)
	if err != nil {
		return "", fmt.Errorf("no resolver: cannot read %s: %v", path, err)
	}
	if len(cc.Servers) == 0 {
		return "", fmt.Errorf("no resolver: %s names no nameserver", path)
	}
	return net.JoinHostPort(cc.Servers[0], cc.Port), nil
}

// ParseResolver reads a resolver's address: an IP address with an optional
// port (1.1.1.1, 127.0.0.1:5353, 2606:4700::1111, [2606:4700::1111]:53). A
// host name is refused: finding it would need a resolver already.
func ParseResolver(s string) (string, error) {
	const want = "want an IP address with an optional port (1.1.1.1, 127.0.0.1:5353, [2606:4700::1111]:53)"
	host, port := s, strconv.Itoa(DefaultDNSPort)
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if net.ParseIP(host) == nil {
		return "", fmt.Errorf("%q: %s", s, want)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q: the port is not a number from 1 to 65535", s)
	}
	return net.JoinHostPort(host, port), nil
}

// show writes a domain name for people: without the final dot.
func show(name string) string {
	if name == "." {
		return name
	}
	return strings.TrimSuffix(name, ".")
}
