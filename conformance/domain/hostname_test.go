package domain_test

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance/domain"
)

func TestNormalizeHost(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "Docs.Example.COM.", want: "docs.example.com"},
		{in: " docs.example.com ", want: "docs.example.com"},
		{in: "1password.example", want: "1password.example"},
		{in: "bücher.example", want: "xn--bcher-kva.example"},
		{in: "BÜCHER.Example.", want: "xn--bcher-kva.example"},
		{in: "XN--BCHER-KVA.example", want: "xn--bcher-kva.example"},
		{in: "docs。example。com", want: "docs.example.com"}, // ideographic full stops
		{in: "xn--zz.example", err: `the label "xn--zz" is not a valid internationalised label`},
		{in: "ab--cd.example", want: "ab--cd.example"},
		{in: "", err: "empty"},
		{in: "https://docs.example.com", err: "is a URL"},
		{in: "docs.example.com/path", err: "is a URL"},
		{in: "*.example.com", err: "is a wildcard"},
		{in: "192.0.2.1", err: "is an IP address"},
		{in: "[2001:db8::1]", err: "is an IP address"},
		{in: "docs.example.com:8443", err: "has a port"},
		{in: "localhost", err: "a single label"},
		{in: "docs..example.com", err: "an empty label"},
		{in: "docs.-example.com", err: "starts or ends with a hyphen"},
		{in: "docs_site.example.com", err: "only letters, digits and hyphens"},
		{in: strings.Repeat("a", 64) + ".example.com", err: "at most 63"},
		{in: strings.Repeat("abcdefghi.", 26) + "com", err: "at most 253"},
		{in: "example.123", err: "all digits"},
	}
	for _, tt := range tests {
		got, err := domain.NormalizeHost(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("NormalizeHost(%q) = %q, %v; want an error saying %q", tt.in, got, err, tt.err)
		}
	}
}
