package engine

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/petctl/petctl/engine/store"
)

// NewTextHandler returns a handler that writes what slog.NewTextHandler(w,
// opts) writes, byte for byte, and writes serve's request line at a
// fraction of its cost. slog's handlers format every record through
// generic machinery (a handle state, groups, ReplaceAttr, a quoting check
// per key): a quarter of the Petstore handler's time went to the one line
// each request logs (BenchmarkHandler's profile). The records serve logs
// per request are flat: a message and a few strings and integers. Those
// are formatted here directly; any other record (a group, a value of
// another kind, a preset attribute, options that rewrite or add
// attributes) is handed to slog's own handler, which shares the writer's
// lock, so lines never interleave whichever path wrote them.
// TestLogHandlersWriteWhatSlogWrites holds the two to the same bytes.
func NewTextHandler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	out := &lockedWriter{w: w}
	return newLineHandler(slog.NewTextHandler(out, opts), out, opts, false)
}

// NewJSONHandler is NewTextHandler for slog.NewJSONHandler's format.
func NewJSONHandler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	out := &lockedWriter{w: w}
	return newLineHandler(slog.NewJSONHandler(out, opts), out, opts, true)
}

func newLineHandler(h slog.Handler, out *lockedWriter, opts *slog.HandlerOptions, json bool) *lineHandler {
	direct := opts == nil || opts.ReplaceAttr == nil && !opts.AddSource
	return &lineHandler{slog: h, out: out, direct: direct, json: json}
}

// lineHandler is NewTextHandler's and NewJSONHandler's handler.
type lineHandler struct {
	slog   slog.Handler // writes every record this handler does not format itself
	out    *lockedWriter
	direct bool // false where the options make slog's handler the only one that formats right
	json   bool // slog's JSON format, else its text format
}

// lockedWriter serialises the writes of both formatting paths: slog's
// handler locks only its own writes.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// linePool holds the buffers lines are formatted in; a line longer than
// maxPooledLine is not kept, so that one huge record does not pin memory.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledLine = 16 << 10

func (h *lineHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.slog.Enabled(ctx, l)
}

// WithAttrs and WithGroup hand over to slog's handler: serve's request line
// never uses them, and a prefix of attributes or groups is exactly the
// machinery this handler does without.
func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.slog.WithAttrs(as) }
func (h *lineHandler) WithGroup(name string) slog.Handler    { return h.slog.WithGroup(name) }

func (h *lineHandler) Handle(ctx context.Context, r slog.Record) error {
	if !h.direct {
		return h.slog.Handle(ctx, r)
	}
	bp := linePool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledLine {
			linePool.Put(bp)
		}
	}()
	var b []byte
	var ok bool
	if h.json {
		b, ok = appendJSONLine((*bp)[:0], r)
	} else {
		b, ok = appendTextLine((*bp)[:0], r)
	}
	*bp = b
	if !ok {
		return h.slog.Handle(ctx, r)
	}
	_, err := h.out.Write(b)
	return err
}

// appendTextLine formats r as slog's text handler does, or reports false
// where r holds something only that handler formats.
func appendTextLine(b []byte, r slog.Record) ([]byte, bool) {
	if !r.Time.IsZero() {
		var ok bool
		if b, ok = appendTextTime(append(b, "time="...), r.Time); !ok {
			return b, false
		}
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendTextString(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendTextString(b, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" {
			ok = false // elided, or inlined as a group
			return false
		}
		b = appendTextString(append(b, ' '), a.Key)
		b, ok = appendFlatValue(append(b, '='), a.Value, false)
		return ok
	})
	return append(b, '\n'), ok
}

// appendJSONLine formats r as slog's JSON handler does, or reports false
// where r holds something only that handler formats.
func appendJSONLine(b []byte, r slog.Record) ([]byte, bool) {
	b = append(b, '{')
	if !r.Time.IsZero() {
		if y := r.Time.Year(); y < 0 || y > 9999 {
			return b, false // slog writes the error in the value
		}
		b = append(b, `"time":"`...)
		b = append(r.Time.AppendFormat(b, time.RFC3339Nano), `",`...)
	}
	b = append(b, `"level":`...)
	b = store.AppendSlogJSONString(b, r.Level.String())
	b = append(b, `,"msg":`...)
	b = store.AppendSlogJSONString(b, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" {
			ok = false
			return false
		}
		b = store.AppendSlogJSONString(append(b, ','), a.Key)
		b, ok = appendFlatValue(append(b, ':'), a.Value, true)
		return ok
	})
	return append(b, "}\n"...), ok
}

// appendFlatValue writes the kinds slog writes without further rules, in
// the text or the JSON format; the other kinds report false. A duration is
// its text in the text format and its nanoseconds in JSON, as slog has it.
func appendFlatValue(b []byte, v slog.Value, json bool) ([]byte, bool) {
	switch v.Kind() {
	case slog.KindString:
		if json {
			return store.AppendSlogJSONString(b, v.String()), true
		}
		return appendTextString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		if json {
			return strconv.AppendInt(b, int64(v.Duration()), 10), true
		}
		return append(b, v.Duration().String()...), true
	}
	return b, false
}

// appendTextTime writes t in its own location to the millisecond, with its
// zone offset (2006-01-02T15:04:05.000Z07:00), as slog's text handler does;
// years of other than four digits are left to slog.
func appendTextTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	// time.RFC3339 has a fast path of its own in AppendFormat, which a
	// layout with milliseconds does not; the milliseconds go in after.
	t = t.Truncate(time.Millisecond)
	n := len(b)
	b = t.AppendFormat(b, time.RFC3339)
	const secondsEnd = len("2006-01-02T15:04:05")
	zone := len(b) - (n + secondsEnd)
	ms := t.Nanosecond() / int(time.Millisecond)
	b = append(b, ".000"...)
	copy(b[n+secondsEnd+4:], b[n+secondsEnd:n+secondsEnd+zone])
	b[n+secondsEnd] = '.'
	b[n+secondsEnd+1] = byte('0' + ms/100)
	b[n+secondsEnd+2] = byte('0' + ms/10%10)
	b[n+secondsEnd+3] = byte('0' + ms%10)
	return b, true
}

// appendTextString writes s bare, or quoted (strconv.Quote) where slog
// quotes it: empty; a space, '=', '"', or an ASCII control character below
// the space (DEL is written bare); and beyond ASCII, invalid UTF-8, U+FFFD,
// a space or an unprintable rune.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
