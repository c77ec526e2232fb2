package engine

import (
	"sync"
	"time"
)

// DefaultRequestLogSize is how many recent requests the admin endpoint
// keeps unless Options say otherwise (see DefaultOptions).
const DefaultRequestLogSize = 100

// LoggedRequest is one entry of /__petctl/requests. It holds no header
// values: credentials never enter it.
type LoggedRequest struct {
	Time      time.Time `json:"time"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     string    `json:"query,omitempty"` // credential-like parameters redacted
	Operation string    `json:"operation,omitempty"`
	Status    int       `json:"status"`
	LatencyUS int64     `json:"latencyMicros"`
	// Request is "valid", or why it was refused (the Error message).
	Request string `json:"request"`
	// Response is "valid" (checked by the validator), "valid by
	// construction" (proven at start-up), or the violation petctl caught.
	Response string `json:"response"`
	// Notes say what configuration changed: a clamped limit, an injected
	// delay or fault.
	Notes []string `json:"notes,omitempty"`
	Auth  string   `json:"auth,omitempty"` // why authentication failed
}

// requestLog is a ring of the last requests.
type requestLog struct {
	mu      sync.Mutex
	entries []LoggedRequest
	next    int
	full    bool
}

// newRequestLog keeps the last size requests; New has given size its
// default. A size below 1 keeps none.
func newRequestLog(size int) *requestLog {
	if size <= 0 {
		return nil
	}
	return &requestLog{entries: make([]LoggedRequest, size)}
}

func (l *requestLog) add(e LoggedRequest) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries[l.next] = e
	l.next++
	if l.next == len(l.entries) {
		l.next, l.full = 0, true
	}
}

// last returns up to n entries, newest first.
func (l *requestLog) last(n int) []LoggedRequest {
	out := []LoggedRequest{}
	if l == nil {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	count := l.next
	if l.full {
		count = len(l.entries)
	}
	if n <= 0 || n > count {
		n = count
	}
	for i := 0; i < n; i++ {
		j := (l.next - 1 - i + len(l.entries)) % len(l.entries)
		out = append(out, l.entries[j])
	}
	return out
}
