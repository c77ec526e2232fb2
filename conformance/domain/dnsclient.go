package domain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// ednsSize is the UDP payload size offered in EDNS(0): the size of DNS Flag
// Day 2020, which fits an IPv6 packet without fragments. Larger answers come
// back truncated and are asked again over TCP.
const ednsSize = 1232

// dnsClient sends the checks' queries. It is not net.Resolver, which cannot
// read CNAME targets as published, CAA records or TTLs, nor ask one chosen
// server without recursion.
type dnsClient struct {
	timeout time.Duration

	mu sync.Mutex
	// down holds the servers that did not answer once, with why: asked
	// again, they fail at once, so a server that never answers costs one
	// time-out per check, not one per query.
	down map[string]error
}

func newDNSClient(timeout time.Duration) *dnsClient {
	return &dnsClient{timeout: timeout, down: map[string]error{}}
}

// answer is a response with RCODE NOERROR or NXDOMAIN.
type answer struct {
	nx  bool     // NXDOMAIN: the name does not exist
	aa  bool     // the server is authoritative for the name
	rrs []dns.RR // the answer section
}

// QueryError is a query without a usable answer: no answer in time, no
// connection, or an RCODE other than NOERROR and NXDOMAIN.
type QueryError struct {
	Server string
	Name   string
	Type   string
	Reason string
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%s did not answer %s %s: %s", e.Server, e.Type, show(e.Name), e.Reason)
}

// query asks server for name's records of qtype, with recursion when
// recurse (a resolver) and without it (an authoritative server). Each
// exchange, and the TCP retry of a truncated answer, has the client's time-out.
func (c *dnsClient) query(ctx context.Context, server, name string, qtype uint16, recurse bool) (*answer, error) {
	fail := func(reason string) error {
		return &QueryError{Server: server, Name: name, Type: dns.TypeToString[qtype], Reason: reason}
	}
	c.mu.Lock()
	down := c.down[server]
	c.mu.Unlock()
	if down != nil {
		return nil, fail(down.Error())
	}
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.RecursionDesired = recurse
	m.SetEdns0(ednsSize, false)
	r, err := c.exchange(ctx, "udp", m, server)
	if err == nil && r.Truncated {
		r, err = c.exchange(ctx, "tcp", m, server)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fail(ctx.Err().Error())
		}
		err = c.reason(err)
		c.mu.Lock()
		c.down[server] = err
		c.mu.Unlock()
		return nil, fail(err.Error())
	}
	if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
		return nil, fail("the answer is " + dns.RcodeToString[r.Rcode])
	}
	return &answer{nx: r.Rcode == dns.RcodeNameError, aa: r.Authoritative, rrs: r.Answer}, nil
}

func (c *dnsClient) exchange(ctx context.Context, network string, m *dns.Msg, server string) (*dns.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cl := &dns.Client{Net: network, Timeout: c.timeout, UDPSize: ednsSize}
	r, _, err := cl.ExchangeContext(ctx, m, server)
	return r, err
}

// reason words a transport error for the report.
func (c *dnsClient) reason(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no answer within %s", c.timeout)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return fmt.Errorf("%s: %v", oe.Op, oe.Err)
	}
	return err
}

// owned returns the records of rrs that are of type t and owned by name:
// a resolver's answer for a name with a CNAME also holds the records of
// the CNAME's target, which are not the name's own.
func owned(rrs []dns.RR, name string, t uint16) []dns.RR {
	var out []dns.RR
	for _, rr := range rrs {
		if h := rr.Header(); h.Rrtype == t && canon(h.Name) == name {
			out = append(out, rr)
		}
	}
	return out
}

// addresses returns the A and AAAA records' addresses in rrs, whoever owns
// them (the end of a CNAME chain), sorted and without repeats.
func addresses(rrs []dns.RR) []string {
	var out []string
	for _, rr := range rrs {
		switch rr := rr.(type) {
		case *dns.A:
			out = append(out, rr.A.String())
		case *dns.AAAA:
			out = append(out, rr.AAAA.String())
		}
	}
	return sortedSet(out)
}

// rdata is a record without its owner, TTL and class: "A 192.0.2.1".
func rdata(rr dns.RR) string {
	return dns.TypeToString[rr.Header().Rrtype] + " " + strings.TrimPrefix(rr.String(), rr.Header().String())
}

// canon is a domain name as DNS compares it: lower case, fully qualified.
func canon(name string) string { return strings.ToLower(dns.Fqdn(name)) }

// parent removes the leftmost label: "docs.example.com." gives "example.com.", "com." gives ".".
func parent(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return "."
}

func sortedSet(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// retryNext is the next step when a server did not answer.
const retryNext = "run again, or ask another resolver with --resolver"
