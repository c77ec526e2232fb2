package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// textLogPieces are the characters slog's quoting turns on, and their
// neighbours: ASCII controls, DEL, space, '=', '"', the backslash, Unicode
// spaces and unprintables, U+FFFD written out, and bytes that are not UTF-8.
var textLogPieces = []string{
	"a", "Z", "0", "/", "-", "_", ".", ":", "?", "&", "%", "é", "漢", "🐕",
	" ", "=", `"`, `\`, "'", "\t", "\n", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
	"\u00a0", "\u2028", "\u2029", "\u200b", "\u0301", "\ufffd", "\xff", "\xc3", "\xe2\x82",
}

func randomLogString(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(6); n > 0; n-- {
		b.WriteString(textLogPieces[rng.IntN(len(textLogPieces))])
	}
	return b.String()
}

type logValuer struct{ s string }

func (v logValuer) LogValue() slog.Value { return slog.StringValue(v.s) }

func randomLogAttr(rng *rand.Rand) slog.Attr {
	key := randomLogString(rng)
	if rng.IntN(3) > 0 {
		key = []string{"method", "path", "status", "latency", "bytes", "problem"}[rng.IntN(6)]
	}
	switch rng.IntN(14) {
	case 0:
		return slog.Int(key, rng.IntN(1000)-500)
	case 1:
		return slog.Uint64(key, rng.Uint64())
	case 2:
		return slog.Bool(key, rng.IntN(2) == 0)
	case 3:
		return slog.Duration(key, time.Duration(rng.Int64N(int64(time.Hour))))
	case 4: // the kinds slog's handler formats alone
		return slog.Float64(key, rng.Float64()*1e6)
	case 5:
		return slog.Time(key, time.Unix(rng.Int64N(2e9), rng.Int64N(1e9)))
	case 6:
		return slog.Any(key, fmt.Errorf("wrapped: %s", randomLogString(rng)))
	case 7:
		return slog.Group(key, slog.String("inner", randomLogString(rng)))
	case 8:
		return slog.Attr{} // elided
	case 9:
		return slog.String("", randomLogString(rng))
	case 10:
		return slog.Any(key, logValuer{randomLogString(rng)})
	default:
		return slog.String(key, randomLogString(rng))
	}
}

var textLogZones = []*time.Location{
	time.UTC, time.Local, time.FixedZone("IST", 5*3600+1800), time.FixedZone("PST", -8*3600),
	time.FixedZone("odd", -(3*3600 + 7*60 + 30)),
}

func randomLogTime(rng *rand.Rand) time.Time {
	switch rng.IntN(12) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(10000+rng.IntN(5), 1, 1, 0, 0, 0, 0, time.UTC)
	case 2:
		return time.Date(rng.IntN(3), 3, 4, 5, 6, 7, 999_999_999, time.UTC)
	case 3:
		return time.Now() // with a monotonic reading
	}
	t := time.Unix(rng.Int64N(4e9), []int64{0, 1, 999_999, 1_000_000, 999_999_999, rng.Int64N(1e9)}[rng.IntN(6)])
	return t.In(textLogZones[rng.IntN(len(textLogZones))])
}

var textLogLevels = []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelError + 4, -8}

// TestLogHandlersWriteWhatSlogWrites holds NewTextHandler and
// NewJSONHandler to slog's text and JSON handlers: the same records,
// through both, give the same bytes, for every kind of value and every
// character the quoting and escaping rules single out, through the
// handler, a Logger, and the handlers WithAttrs and WithGroup make.
func TestLogHandlersWriteWhatSlogWrites(t *testing.T) {
	formats := []struct {
		name       string
		ours, slog func(io.Writer, *slog.HandlerOptions) slog.Handler
		timeFirst  string // how a line with a time starts
		afterTime  string // what follows the time in every line
	}{
		{"text", NewTextHandler, func(w io.Writer, o *slog.HandlerOptions) slog.Handler { return slog.NewTextHandler(w, o) }, "time=", " level="},
		{"json", NewJSONHandler, func(w io.Writer, o *slog.HandlerOptions) slog.Handler { return slog.NewJSONHandler(w, o) }, `{"time":"`, `"level":`},
	}
	options := []*slog.HandlerOptions{
		nil,
		{Level: slog.LevelDebug},
		{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == "status" {
				a.Value = slog.StringValue("replaced")
			}
			return a
		}},
		{AddSource: true},
	}
	for _, f := range formats {
		rng := rand.New(rand.NewPCG(22, 2026))
		for i, opts := range options {
			var got, want bytes.Buffer
			ours, theirs := f.ours(&got, opts), f.slog(&want, opts)
			for n := 0; n < 4000; n++ {
				r := slog.NewRecord(randomLogTime(rng), textLogLevels[rng.IntN(len(textLogLevels))], randomLogString(rng), 0)
				if opts != nil && opts.AddSource {
					r = slog.NewRecord(r.Time, r.Level, r.Message, callerPC())
				}
				for a := rng.IntN(8); a > 0; a-- {
					r.AddAttrs(randomLogAttr(rng))
				}
				if err := ours.Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				if err := theirs.Handle(context.Background(), r); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Fatalf("%s, options %d, record %d:\n got  %q\n want %q", f.name, i, n, got.String(), want.String())
				}
				got.Reset()
				want.Reset()
			}
			// Derived handlers and the Logger's own record building, called
			// from one line so that a source reads the same; the clock is
			// read for each call, so the times are left out of the
			// comparison.
			for _, h := range []slog.Handler{ours, theirs} {
				l := slog.New(h)
				l.With("app", "petctl").WithGroup("g").Info("in a group", "k", "v w")
				l.Warn("a logger's line", "n", 3, "quoted", `a"b`)
			}
			lines := strings.Split(strings.TrimSpace(got.String()+want.String()), "\n")
			if len(lines) != 4 || !strings.HasPrefix(lines[0], f.timeFirst) {
				t.Fatalf("%s, options %d, through a Logger: %q", f.name, i, lines)
			}
			for l := range lines {
				lines[l] = lines[l][strings.Index(lines[l], f.afterTime):]
			}
			if lines[0] != lines[2] || lines[1] != lines[3] {
				t.Fatalf("%s, options %d, through a Logger:\n got  %q\n want %q", f.name, i, lines[:2], lines[2:])
			}
		}
	}
}

func callerPC() uintptr {
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:])
	return pcs[0]
}

// TestLogHandlerLinesStayWhole writes from many goroutines through both of
// the handler's paths (a flat record and one only slog formats) into a
// writer that is not safe for concurrent use: every line comes out whole.
func TestLogHandlerLinesStayWhole(t *testing.T) {
	var out bytes.Buffer
	h := NewTextHandler(&out, nil)
	var wg sync.WaitGroup
	const writers, lines = 8, 200
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < lines; n++ {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				if n%2 == 0 {
					r.AddAttrs(slog.String("path", strings.Repeat("p", 300)), slog.Int("writer", w))
				} else {
					r.AddAttrs(slog.Float64("path", 1.5), slog.Int("writer", w))
				}
				if err := h.Handle(context.Background(), r); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("got %d lines, want %d", len(got), writers*lines)
	}
	for _, l := range got {
		if !strings.HasPrefix(l, "time=") || !strings.Contains(l, " writer=") {
			t.Fatalf("a line came out broken: %q", l)
		}
	}
}
