package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/engine"
)

// TestProfileLayer: a profile is read after the file and before the
// environment, each value's source is its line in the profile, and the
// paths the file gave stay resolved from the file's folder.
func TestProfileLayer(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	file := filepath.Join(proj, "petctl.yaml")
	profile := filepath.Join(dir, "profiles", "staging.profile.yaml")
	for path, content := range map[string]string{
		file:    "lists:\n  order: id\n  outOfRangeLimit: reject\nseed: 3\nfixtures:\n  files: [pets.json]\n",
		profile: "# recorded from staging\nlists:\n  order: newest-first\n  outOfRangeLimit: clamp\nheaders:\n  '*':\n    X-RateLimit-Limit: '100'\nerrorCodes:\n  validation_failed: invalid_request\nlatency:\n  listPets: 12ms..180ms (p50 25ms, p90 60ms, p99 150ms)\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"PETCTL_OUT_OF_RANGE_LIMIT": "reject"}
	l, err := LoadWithProfile(file, profile, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if got, want := c.Lists.Order, "newest-first"; got != want {
		t.Errorf("lists.order = %q, want %q: the profile overrides the file", got, want)
	}
	if got, want := c.Lists.OutOfRangeLimit, "reject"; got != want {
		t.Errorf("lists.outOfRangeLimit = %q, want %q: the environment overrides the profile", got, want)
	}
	if got, want := c.Fixtures.Files, []string{filepath.Join(proj, "pets.json")}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("fixtures.files = %v, want %v: resolved from the file's folder once", got, want)
	}
	for key, want := range map[string]string{"lists.order": profile + ":3", "seed": file + ":4", "lists.outOfRangeLimit": "PETCTL_OUT_OF_RANGE_LIMIT", "headers.*.X-RateLimit-Limit": profile + ":7"} {
		if got := l.Source(key); got != want {
			t.Errorf("source of %s = %q, want %q", key, got, want)
		}
	}
	o, err := c.EngineOptions(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := o.Headers["*"]["X-RateLimit-Limit"], "100"; got != want {
		t.Errorf("engine headers: %q, want %q", got, want)
	}
	if got, want := o.ErrorCodes["validation_failed"], "invalid_request"; got != want {
		t.Errorf("engine error codes: %q, want %q", got, want)
	}
	ms := time.Millisecond
	want := engine.Delay{Min: 12 * ms, Max: 180 * ms, Percentiles: []engine.Percentile{{Q: 0.5, D: 25 * ms}, {Q: 0.9, D: 60 * ms}, {Q: 0.99, D: 150 * ms}}}
	if got := o.Latency["listPets"]; got.String() != want.String() {
		t.Errorf("engine latency = %v, want %v", got, want)
	}
	if l.Profile != profile {
		t.Errorf("Profile = %q, want %q", l.Profile, profile)
	}
	if _, err := LoadWithProfile(file, filepath.Join(dir, "none.yaml"), nil); err == nil || !strings.Contains(err.Error(), "profile "+filepath.Join(dir, "none.yaml")+": no such file") {
		t.Errorf("a missing profile: %v", err)
	}
}

// TestLatencyForms: each written form of a latency, and the readable
// refusal of what is not one.
func TestLatencyForms(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "50ms", want: "50ms"},
		{in: "50ms..400ms", want: "50ms..400ms"},
		{in: "12ms..180ms (p50 25ms, p90 60ms, p99.9 170ms)", want: "12ms..180ms (p50 25ms, p90 60ms, p99.9 170ms)"},
		{in: "12ms..180ms(p50 25ms)", want: "12ms..180ms (p50 25ms)"},
		{in: "soon", wantErr: "want a duration (50ms), a range"},
		{in: "50ms (p50 20ms)", wantErr: "want a duration (50ms), a range"},
		{in: "10ms..50ms (p50 20ms", wantErr: "want a duration (50ms), a range"},
		{in: "10ms..50ms (q50 20ms)", wantErr: `percentile "q50 20ms"`},
		{in: "10ms..50ms (p100 20ms)", wantErr: `percentile "p100 20ms"`},
		{in: "10ms..50ms (p50 fast)", wantErr: `percentile "p50 fast"`},
		{in: "50ms..10ms", wantErr: "want 0 <= low <= high"},
	}
	for _, tt := range tests {
		r, err := parseRange(tt.in)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%q: error %v, want one saying %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.wantErr == "" && r.String() != tt.want:
			t.Errorf("%q reads as %q, want %q", tt.in, r.String(), tt.want)
		}
	}
}

// TestHandEditedProfile: a profile edited by hand and broken says where,
// at the line of the profile, in words: a key misspelt, a value off the
// list, and YAML that no longer parses (an indentation gone wrong, a tab,
// an unclosed quote), each at the line the parser stopped.
func TestHandEditedProfile(t *testing.T) {
	const good = "# recorded from staging\nlists:\n  order: newest-first\n  outOfRangeLimit: clamp\nheaders:\n  '*':\n    X-RateLimit-Limit: '100'\nlatency:\n  listPets: 80ms..90ms\n"
	tests := []struct {
		name, old, new string
		want           string
	}{
		{"a key misspelt", "  order:", "  ordr:", ":3: lists.ordr: unknown key; the keys here are outOfRangeLimit, order, pagination, cursorParam"},
		{"a value off the list", "clamp", "clmap", `:4: lists.outOfRangeLimit: "clmap" is not one of reject, clamp`},
		{"an indentation gone wrong", "  outOfRangeLimit", " outOfRangeLimit", ":4: not YAML: did not find expected key (while parsing a block mapping that starts at line 2)"},
		{"a tab", "    X-RateLimit", "\tX-RateLimit", ":7: not YAML: found character that cannot start any token (while scanning for the next token); the line is indented with a tab, and YAML indents with spaces"},
		{"an unclosed quote", "'100'", "'100", ":10: not YAML: found unexpected end of stream (while scanning a quoted scalar that starts at line 7)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "staging.profile.yaml")
			if err := os.WriteFile(path, []byte(strings.Replace(good, tt.old, tt.new, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := LoadWithProfile("", path, func(string) string { return "" })
			if err == nil {
				err = l.Check()
			}
			if err == nil || !strings.Contains(err.Error(), path+tt.want) {
				t.Errorf("got %v\nwant %s%s", err, path, tt.want)
			}
			if err != nil && strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("want one line, got %q", err)
			}
		})
	}
}
