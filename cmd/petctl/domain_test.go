package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance/domain/domaintest"
)

// domainZone is a zone on loopback: example.test with its name server, a
// good CNAME at docs, a bad one at old, and the platform at 127.0.0.1.
func domainZone(t *testing.T) *domaintest.DNSServer {
	t.Helper()
	return domaintest.NewDNSServer(t, append(domaintest.Zone("example.test"),
		"docs.example.test. 3600 IN CNAME sites.platform.test.",
		"old.example.test. 3600 IN CNAME gone.platform.test.",
		"sites.platform.test. 3600 IN A 127.0.0.1",
	)...)
}

// TestDomainCheck runs petctl domain check against local DNS and TLS
// servers: the report on stdout, the exit status, one line on stderr.
func TestDomainCheck(t *testing.T) {
	srv := domainZone(t)
	ca := domaintest.NewCA(t, "petctl test CA")
	roots := filepath.Join(t.TempDir(), "roots.pem")
	os.WriteFile(roots, ca.PEM, 0o600)
	now := time.Now()
	good := strconv.Itoa(domaintest.ServeTLS(t, ca.Issue(t, []string{"docs.example.test"}, now.Add(-time.Hour), now.Add(24*time.Hour))))
	expired := strconv.Itoa(domaintest.ServeTLS(t, ca.Issue(t, []string{"docs.example.test"}, now.Add(-48*time.Hour), now.Add(-24*time.Hour))))
	dnsFlags := []string{"--resolver", srv.Addr, "--ns-port", strconv.Itoa(srv.Port)}
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		noStderr bool
	}{
		{
			name:     "a good subdomain",
			args:     []string{"docs.example.test", "--target", "sites.platform.test"},
			code:     exitOK,
			stdout:   []string{"pass         cname         docs.example.test is a CNAME for sites.platform.test", "5 rules: 5 pass"},
			noStderr: true,
		},
		{
			name:   "a CNAME at another target",
			args:   []string{"old.example.test", "--target", "sites.platform.test"},
			code:   exitFailure,
			stdout: []string{"FAIL         cname         the CNAME at old.example.test points at gone.platform.test", "next: change the CNAME's value to sites.platform.test"},
			stderr: "petctl: old.example.test: 5 rules: 4 pass, 1 FAIL\n",
		},
		{
			name:   "--ca narrows the authorities",
			args:   []string{"docs.example.test", "--target", "sites.platform.test", "--ca", "letsencrypt.org,pki.goog"},
			code:   exitOK,
			stdout: []string{"no CAA record at docs.example.test"},
		},
		{
			name:     "a valid certificate",
			args:     []string{"docs.example.test", "--tls", "--port", good, "--roots", roots},
			code:     exitOK,
			stdout:   []string{"pass         certificate   127.0.0.1:" + good + " serves a valid certificate", "issuer   petctl test CA", "covers   docs.example.test: yes"},
			noStderr: true,
		},
		{
			name:   "an expired certificate, with the checklist",
			args:   []string{"docs.example.test", "--tls", "--port", expired, "--roots", roots, "--target", "sites.platform.test"},
			code:   exitFailure,
			stdout: []string{"expired on", "1. [pass] confirm the domain still verifies", "2. [pass] check that CAA records", "3. [note] use Re-verify"},
			stderr: "petctl: docs.example.test: 1 rule: 1 FAIL\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"domain", "check"}, tt.args...), dnsFlags...)
			code, out, errOut := runCLI(t, nil, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr: %s", code, tt.code, out, errOut)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout does not say %q:\n%s", s, out)
				}
			}
			if tt.stderr != "" && errOut != tt.stderr {
				t.Errorf("stderr %q, want %q", errOut, tt.stderr)
			}
			if tt.noStderr && errOut != "" {
				t.Errorf("stderr %q, want none", errOut)
			}
		})
	}
}

// TestDomainCheckUsage: usage errors exit 2 with one line, before any query.
func TestDomainCheckUsage(t *testing.T) {
	srv := domainZone(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "roots.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	r := "--resolver=" + srv.Addr
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no domain", []string{"--target", "sites.platform.test", r}, "want one DOMAIN, got 0 arguments"},
		{"two domains", []string{"a.example.test", "b.example.test", "--target", "sites.platform.test", r}, "want one DOMAIN, got 2 arguments"},
		{"no target", []string{"docs.example.test", r}, "--target: required: the platform host the dashboard shows"},
		{"a domain that is a URL", []string{"https://docs.example.test/", "--target", "sites.platform.test", r}, `DOMAIN: "https://docs.example.test/" is a URL`},
		{"a resolver by name", []string{"docs.example.test", "--target", "sites.platform.test", "--resolver", "dns.google"}, `--resolver: "dns.google": want an IP address`},
		{"no authority", []string{"docs.example.test", "--target", "sites.platform.test", "--ca", "", r}, "--ca: no certificate authority"},
		{"a zero time-out", []string{"docs.example.test", "--target", "sites.platform.test", "--timeout", "0s", r}, "--timeout 0s: want a positive duration"},
		{"a roots file without certificates", []string{"docs.example.test", "--tls", "--roots", notPEM, r}, "no PEM certificate in it"},
		{"a missing roots file", []string{"docs.example.test", "--tls", "--roots", filepath.Join(dir, "missing.pem"), r}, "no such file or directory"},
		{"an unknown flag", []string{"docs.example.test", "--targets", "x", r}, "unknown flag: --targets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Queries()
			code, out, errOut := runCLI(t, nil, append([]string{"domain", "check"}, tt.args...)...)
			if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "petctl: ") || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and one line saying %q", code, errOut, tt.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want none", out)
			}
			if srv.Queries() != before {
				t.Errorf("%d queries sent before the usage error", srv.Queries()-before)
			}
		})
	}
}

func TestDomainRedirectsValidate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	valid := write("ok.yaml", "- {from: example.com, to: www.example.com}\n- {from: shop.example.com, to: www.example.com, status: 308}\n")
	bad := write("bad.json", "[\n  {\"from\": \"a.example.com\", \"to\": \"b.example.com\"},\n  {\"from\": \"b.example.com\", \"to\": \"c.example.com\", \"status\": 404}\n]\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"valid", []string{valid}, exitOK, valid + ": 2 redirects, valid\n", ""},
		{"problems", []string{bad}, exitFailure,
			bad + ":2: entry 1: a chain: a.example.com → b.example.com → c.example.com (entries 1, 2); point a.example.com at c.example.com directly\n" +
				bad + ":3: entry 2: status 404 is not a redirect status: want 301, 302, 307 or 308 (301 when not given)\n",
			"petctl: " + bad + ": 2 problems\n"},
		{"a missing file", []string{filepath.Join(dir, "missing.yaml")}, exitUsage, "", "petctl: cannot read " + filepath.Join(dir, "missing.yaml") + ": no such file or directory\n"},
		{"no file", nil, exitUsage, "", "petctl: want one FILE, got 0 arguments (see 'petctl domain redirects validate --help')\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append([]string{"domain", "redirects", "validate"}, tt.args...)...)
			if code != tt.code || out != tt.stdout || errOut != tt.stderr {
				t.Errorf("got exit %d\nstdout %q\nstderr %q\nwant exit %d\nstdout %q\nstderr %q", code, out, errOut, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}
