package domain_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance/domain"
)

// TestNewProblems: every problem of a Config at once, each named by its flag.
func TestNewProblems(t *testing.T) {
	_, err := domain.New(domain.Config{
		Domain:   "docs_example.com",
		Target:   "https://sites.platform.test",
		Resolver: "dns.google",
		CAs:      []string{"letsencrypt.org", "not a host"},
		Timeout:  -time.Second,
		NSPort:   70000,
		TLSPort:  -1,
	})
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`DOMAIN: "docs_example.com"`,
		`--target: "https://sites.platform.test" is a URL`,
		`--ca: "not a host"`,
		`--timeout: -1s: want a positive duration`,
		`--ns-port: 70000`,
		`--port: -1`,
		`--resolver: "dns.google": want an IP address`,
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d problems:\n%s\nwant %d", len(got), err, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: got %q, want it to start %q", i+1, got[i], want[i])
		}
	}
}

func TestNewTargetIsNotTheDomain(t *testing.T) {
	_, err := domain.New(domain.Config{Domain: "docs.example.com", Target: "Docs.Example.com.", Resolver: "127.0.0.1"})
	if err == nil || !strings.Contains(err.Error(), "--target: Docs.Example.com. is the domain itself") {
		t.Errorf("got %v, want the --target problem", err)
	}
}

func TestNewEmptyCAList(t *testing.T) {
	_, err := domain.New(domain.Config{Domain: "docs.example.com", Resolver: "127.0.0.1", CAs: []string{}})
	if err == nil || !strings.Contains(err.Error(), "--ca: no certificate authority") {
		t.Errorf("got %v, want the --ca problem", err)
	}
}

func TestParseResolver(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: "1.1.1.1", want: "1.1.1.1:53"},
		{in: "127.0.0.1:5353", want: "127.0.0.1:5353"},
		{in: "2606:4700::1111", want: "[2606:4700::1111]:53"},
		{in: "[2606:4700::1111]", want: "[2606:4700::1111]:53"},
		{in: "[2606:4700::1111]:5353", want: "[2606:4700::1111]:5353"},
		{in: "dns.google", err: "want an IP address"},
		{in: "1.1.1.1:dns", err: "the port is not a number"},
		{in: "1.1.1.1:0", err: "the port is not a number"},
	}
	for _, tt := range tests {
		got, err := domain.ParseResolver(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseResolver(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseResolver(%q) = %q, %v; want an error saying %q", tt.in, got, err, tt.err)
		}
	}
}

func TestSystemResolver(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "resolv.conf")
	os.WriteFile(conf, []byte("# local\nsearch example.test\nnameserver 192.0.2.53\nnameserver 192.0.2.54\n"), 0o600)
	if got, err := domain.SystemResolver(conf); err != nil || got != "192.0.2.53:53" {
		t.Errorf("got %q, %v; want the first nameserver", got, err)
	}
	empty := filepath.Join(dir, "empty.conf")
	os.WriteFile(empty, []byte("search example.test\n"), 0o600)
	if _, err := domain.SystemResolver(empty); err == nil || !strings.Contains(err.Error(), "names no nameserver") {
		t.Errorf("got %v, want the no-nameserver error", err)
	}
	if _, err := domain.SystemResolver(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("got %v, want the read error", err)
	}
}
