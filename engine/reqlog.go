package engine

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
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

func (s *Server) logRequest(r *http.Request, res *response, latency time.Duration) {
	query := redactQuery(r.URL.RawQuery, s.keyParams)
	level := slog.LevelInfo
	if res.status == http.StatusInternalServerError {
		level = slog.LevelError
	}
	// Attributes are built only for a line that will be written: boxing
	// them costs allocations on every request otherwise.
	ctx := context.Background()
	now := time.Now() // one reading for the line and the entry
	if !s.quiet && s.log.Enabled(ctx, level) {
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs,
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", res.status),
			slog.String("latency", latency.Round(time.Microsecond).String()),
			slog.Int("bytes", res.size()),
		)
		if query != "" {
			attrs = append(attrs, slog.String("query", query))
		}
		if res.op != nil {
			attrs = append(attrs, slog.String("operation", res.op.ID))
		}
		if res.auth != "" {
			attrs = append(attrs, slog.String("auth", string(res.auth)))
		}
		if res.problem != "" && res.status >= 400 {
			attrs = append(attrs, slog.String("problem", res.problem))
		}
		if len(res.notes) > 0 {
			attrs = append(attrs, slog.String("notes", strings.Join(res.notes, "; ")))
		}
		// A record without a source: Logger.LogAttrs walks the stack for
		// one on every call (7% of the line's cost in BenchmarkHandler),
		// and serve's handlers never print it.
		rec := slog.NewRecord(now, level, "request", 0)
		rec.AddAttrs(attrs...)
		_ = s.log.Handler().Handle(ctx, rec)
	}
	if s.reqlog != nil {
		e := LoggedRequest{
			Time:      now.UTC(),
			Method:    r.Method,
			Path:      truncate(r.URL.Path, 512),
			Query:     query,
			Status:    res.status,
			LatencyUS: latency.Microseconds(),
			Request:   "valid",
			Response:  res.check,
			Notes:     res.notes,
			Auth:      string(res.auth),
		}
		if res.op != nil {
			e.Operation = res.op.ID
		}
		if res.status >= 400 && res.problem != "" && !res.badResponse {
			e.Request = res.problem
		}
		s.reqlog.add(e)
	}
}
