package domain

import (
	"fmt"
	"net"
	"strings"

	"golang.org/x/net/idna"
)

// Host name limits of RFC 1035 §2.3.4, in the ASCII form DNS carries.
const (
	maxLabel = 63
	maxName  = 253 // without the final dot
)

// NormalizeHost returns s as DNS compares it: lower case, ASCII (an
// internationalised name is converted to its xn-- form), without a final
// dot. It refuses what a custom domain, a platform host or a redirect end
// cannot be, saying why: a URL, a port, an IP address, a wildcard, a single
// label, a label that is empty, too long or not letters, digits and inner
// hyphens.
func NormalizeHost(s string) (string, error) {
	name := strings.TrimSpace(s)
	switch {
	case name == "":
		return "", fmt.Errorf("empty: want a host name such as docs.example.com")
	case strings.Contains(name, "://") || strings.ContainsAny(name, "/?#"):
		return "", fmt.Errorf("%q is a URL: want only its host name, such as docs.example.com", s)
	case strings.HasPrefix(name, "*"):
		return "", fmt.Errorf("%q is a wildcard: want one host name", s)
	}
	if net.ParseIP(strings.Trim(name, "[]")) != nil {
		return "", fmt.Errorf("%q is an IP address: want a host name", s)
	}
	if h, _, err := net.SplitHostPort(name); err == nil {
		return "", fmt.Errorf("%q has a port: want only the host name %s", s, h)
	}
	name = strings.TrimSuffix(name, ".")
	if !isASCII(name) {
		a, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", fmt.Errorf("%q is not a valid internationalised host name: %v", s, err)
		}
		name = a
	}
	name = strings.ToLower(name)
	if len(name) > maxName {
		return "", fmt.Errorf("%q is %d characters long: a host name has at most %d", s, len(name), maxName)
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return "", fmt.Errorf("%q is a single label: want a full host name such as docs.example.com", s)
	}
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		// An A-label must decode: no registry holds one that does not.
		if strings.HasPrefix(l, "xn--") {
			if _, err := idna.Lookup.ToUnicode(l); err != nil {
				return "", fmt.Errorf("%q: the label %q is not a valid internationalised label (%v)", s, l, err)
			}
		}
	}
	if tld := labels[len(labels)-1]; strings.Trim(tld, "0123456789") == "" {
		return "", fmt.Errorf("%q: the last label %q is all digits, which no top-level domain is", s, tld)
	}
	return name, nil
}

// checkLabel applies the letters-digits-hyphen rule of RFC 1035 §2.3.1 (as
// relaxed by RFC 1123 §2.1: a label may start with a digit).
func checkLabel(l string) error {
	switch {
	case l == "":
		return fmt.Errorf("an empty label (two dots, or a dot at the start)")
	case len(l) > maxLabel:
		return fmt.Errorf("the label %q is %d characters long: a label has at most %d", l, len(l), maxLabel)
	case l[0] == '-' || l[len(l)-1] == '-':
		return fmt.Errorf("the label %q starts or ends with a hyphen", l)
	}
	for _, r := range l {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("the label %q has %q: a host name has only letters, digits and hyphens", l, r)
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// unicodeName is name as people write it when it holds internationalised
// labels ("bücher.example" for "xn--bcher-kva.example"); "" when it has none.
func unicodeName(name string) string {
	u, err := idna.Lookup.ToUnicode(name)
	if err != nil || u == name {
		return ""
	}
	return u
}
