package engine

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// BenchmarkRequestLog measures what the one log line per request costs:
// the same request with slog's text handler and with serve's (NewTextHandler),
// both to io.Discard, so formatting but no system call; serve's through the
// LogBuffer it puts before stderr; and with logging off.
func BenchmarkRequestLog(b *testing.B) {
	s, err := spec.Default()
	if err != nil {
		b.Fatal(err)
	}
	data, _ := readFixture("petstore/pets.json")
	for _, tc := range []struct {
		name     string
		level    slog.Level
		buffered bool
	}{{"slog", slog.LevelInfo, false}, {"text", slog.LevelInfo, false}, {"buffered", slog.LevelInfo, true}, {"off", slog.LevelError + 1, false}} {
		b.Run(tc.name, func(b *testing.B) {
			var w io.Writer = io.Discard
			if tc.buffered {
				logs := NewLogBuffer(io.Discard, 0)
				defer logs.Close(time.Second)
				w = logs
			}
			opts := &slog.HandlerOptions{Level: tc.level}
			h := NewTextHandler(w, opts)
			if tc.name == "slog" {
				h = slog.NewTextHandler(w, opts)
			}
			srv, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: data}},
				Logger: slog.New(h)})
			if err != nil {
				b.Fatal(err)
			}
			r := httptest.NewRequest("GET", "/v1/pets?limit=20", nil)
			r.Header.Set("Authorization", "Bearer "+testKey)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

func TestRedactQuery(t *testing.T) {
	long := "limit=1&x=" + strings.Repeat("a", 300)
	tests := []struct{ in, want string }{
		{"", ""},
		{"limit=20&status=sold", "limit=20&status=sold"},
		{"limit=0&api_key=hunter2", "limit=0&api_key=REDACTED"},
		{"Access_TOKEN=x&a=1&Signature=y", "Access_TOKEN=REDACTED&a=1&Signature=REDACTED"},
		{"password", "password=REDACTED"},
		{"limit=1&api%5Fkey=x&%54oken=y", "limit=1&api%5Fkey=REDACTED&%54oken=REDACTED"},
		{"a=1&b=key", "a=1&b=key"},
		{"bearer=x&Credentials=y&sessionid=z&jwt=w", "bearer=REDACTED&Credentials=REDACTED&sessionid=REDACTED&jwt=REDACTED"},
		{long, long[:256] + "…"},
		// Go refuses ';' as a separator (400), but the pair after it is
		// still a credential to whoever reads the log.
		{"limit=1;access_token=s1", "limit=1;access_token=REDACTED"},
		{"a=1;b=2&token=s1;x=3", "a=1;b=2&token=REDACTED;x=3"},
		{";;token=s1;", ";;token=REDACTED;"},
		// A name Go cannot decode may be a mangled credential name.
		{"to%ZZken=s1&limit=1", "to%ZZken=REDACTED&limit=1"},
	}
	for _, tc := range tests {
		if got := redactQuery(tc.in, nil); got != tc.want {
			t.Errorf("redactQuery(%.40q) = %.60q, want %.60q", tc.in, got, tc.want)
		}
	}
	// Names an apiKey scheme gives are redacted whatever they look like.
	keys := []string{"appid", "x-library-key"}
	for _, tc := range []struct{ in, want string }{
		{"limit=1&appid=k1", "limit=1&appid=REDACTED"},
		{"AppId=k1&app%69d=k2&appidx=3", "AppId=REDACTED&app%69d=REDACTED&appidx=3"},
		{"X-Library-Key=k1", "X-Library-Key=REDACTED"},
		{"limit=1&status=sold", "limit=1&status=sold"},
		{"limit=1;appid=k1", "limit=1;appid=REDACTED"},
	} {
		if got := redactQuery(tc.in, keys); got != tc.want {
			t.Errorf("redactQuery(%q, %q) = %q, want %q", tc.in, keys, got, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	env := appidEnv(t)
	for _, c := range []struct{ query, auth, msg, want string }{
		{"appid=k1", "", "'k1' does not match", "'REDACTED' does not match"},
		{"token=1&limit=500", "", "got 500, want 100", "got 500, want 100"},
		{"api_key=a%2Bb%2Fc", "", `"a+b/c" is bad, so is a%2Bb%2Fc`, `"REDACTED" is bad, so is REDACTED`},
		{"", "Bearer sekrit-77", "'Bearer sekrit-77' and sekrit-77", "'REDACTED' and REDACTED"},
		{"limit=5", "", "'5' is not allowed", "'5' is not allowed"},
	} {
		r := httptest.NewRequest("GET", "/v1/pets?"+c.query, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		if got := env.srv.scrub(r, c.msg); got != c.want {
			t.Errorf("scrub(?%s, %q) = %q, want %q", c.query, c.msg, got, c.want)
		}
	}
}
