// Package domaintest runs what the domain checks talk to, on loopback, for
// tests: a DNS server (miekg/dns) answering from a zone given as records,
// a server that never answers, and TLS servers with certificates made at
// test time. Nothing here touches the network.
package domaintest

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// DNSServer answers queries over UDP and TCP on one loopback port from its
// records, the way a resolver would (chasing CNAMEs, NXDOMAIN for a name
// that does not exist) and with the authoritative bit set, so that it can
// stand for a resolver and for a zone's authoritative server.
type DNSServer struct {
	// Addr is "127.0.0.1:port", the same port for UDP and TCP.
	Addr string
	// Port is Addr's port.
	Port int

	mu       sync.Mutex
	rrs      []dns.RR
	truncate map[string]bool // names whose UDP answers are truncated
	rcode    map[string]int  // names answered with this RCODE
	lame     bool            // answers without the authoritative bit
	queries  int
}

// NewDNSServer starts a server with records in zone-file syntax, fully
// qualified ("docs.example.test. 3600 IN CNAME sites.platform.test."), and
// stops it when the test ends.
func NewDNSServer(t testing.TB, records ...string) *DNSServer {
	t.Helper()
	s := &DNSServer{truncate: map[string]bool{}, rcode: map[string]int{}}
	for _, r := range records {
		rr, err := dns.NewRR(r)
		if err != nil || rr == nil {
			t.Fatalf("record %q: %v", r, err)
		}
		s.rrs = append(s.rrs, rr)
	}
	pc, ln := listenUDPAndTCP(t)
	s.Addr = pc.LocalAddr().String()
	s.Port = pc.LocalAddr().(*net.UDPAddr).Port
	for _, srv := range []*dns.Server{
		{PacketConn: pc, Handler: dns.HandlerFunc(s.serve), ReadTimeout: time.Second, WriteTimeout: time.Second},
		{Listener: ln, Handler: dns.HandlerFunc(s.serve), ReadTimeout: time.Second, WriteTimeout: time.Second},
	} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go srv.ActivateAndServe()
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the DNS server did not start")
		}
		t.Cleanup(func() { srv.Shutdown() })
	}
	return s
}

// listenUDPAndTCP binds UDP and TCP on the same free loopback port, as a
// DNS server has them (a truncated UDP answer is asked again over TCP).
func listenUDPAndTCP(t testing.TB) (net.PacketConn, net.Listener) {
	t.Helper()
	for range 20 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln
		}
		pc.Close() // the TCP port was taken: try another
	}
	t.Fatal("no loopback port free for both UDP and TCP")
	return nil, nil
}

// TruncateUDP makes UDP answers for name truncated and empty, so that only
// a client that asks again over TCP sees the records.
func (s *DNSServer) TruncateUDP(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncate[dns.CanonicalName(name)] = true
}

// Answer makes every query for name get rcode (dns.RcodeServerFailure, …).
func (s *DNSServer) Answer(name string, rcode int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rcode[dns.CanonicalName(name)] = rcode
}

// Lame makes the server answer without the authoritative bit, as a name
// server does for a zone it was named for but does not serve (a lame
// delegation).
func (s *DNSServer) Lame() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lame = true
}

// Queries returns how many queries the server received.
func (s *DNSServer) Queries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

func (s *DNSServer) serve(w dns.ResponseWriter, req *dns.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries++
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative, m.RecursionAvailable = !s.lame, true
	if len(req.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		w.WriteMsg(m)
		return
	}
	q := req.Question[0]
	name := dns.CanonicalName(q.Name)
	_, udp := w.RemoteAddr().(*net.UDPAddr)
	switch rc, ok := s.rcode[name]; {
	case ok:
		m.Rcode = rc
	case udp && s.truncate[name]:
		m.Truncated = true
	default:
		m.Answer = s.answer(name, q.Qtype)
		if len(m.Answer) == 0 && !s.exists(name) {
			m.Rcode = dns.RcodeNameError
		}
	}
	w.WriteMsg(m)
}

// answer returns the records of name and type, following CNAMEs (at most
// eight, like a resolver that gives up on a long chain).
func (s *DNSServer) answer(name string, qtype uint16) []dns.RR {
	var out []dns.RR
	for range 8 {
		if rrs := s.match(name, qtype); len(rrs) > 0 {
			return append(out, rrs...)
		}
		cnames := s.match(name, dns.TypeCNAME)
		if qtype == dns.TypeCNAME || len(cnames) == 0 {
			return out
		}
		out = append(out, cnames[0])
		name = dns.CanonicalName(cnames[0].(*dns.CNAME).Target)
	}
	return out
}

func (s *DNSServer) match(name string, qtype uint16) []dns.RR {
	var out []dns.RR
	for _, rr := range s.rrs {
		if h := rr.Header(); h.Rrtype == qtype && dns.CanonicalName(h.Name) == name {
			out = append(out, dns.Copy(rr))
		}
	}
	return out
}

// exists reports whether name owns a record or is above one (an empty
// non-terminal exists too: RFC 8020).
func (s *DNSServer) exists(name string) bool {
	for _, rr := range s.rrs {
		owner := dns.CanonicalName(rr.Header().Name)
		if owner == name || strings.HasSuffix(owner, "."+name) {
			return true
		}
	}
	return false
}

// SilentServer returns the address of a UDP socket on loopback that reads
// queries and never answers, closed when the test ends.
func SilentServer(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	return pc.LocalAddr().String()
}

// Zone returns the records that make name a zone served by one name server
// at 127.0.0.1: its NS record and the server's address.
func Zone(name string) []string {
	ns := "ns1." + dns.Fqdn(name)
	return []string{
		fmt.Sprintf("%s 3600 IN NS %s", dns.Fqdn(name), ns),
		fmt.Sprintf("%s 3600 IN A 127.0.0.1", ns),
	}
}
