package spec

import (
	"math"
	"testing"
	"time"
)

func TestParseInstant(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   time.Time
		offset int // seconds east of UTC, kept from the text
		ok     bool
	}{
		{"2031-01-01", time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), 0, true},
		{"2031-01-01T09:00:00Z", time.Date(2031, 1, 1, 9, 0, 0, 0, time.UTC), 0, true},
		{"2031-01-01T09:00:00+02:00", time.Date(2031, 1, 1, 7, 0, 0, 0, time.UTC), 2 * 3600, true},
		{"2031-01-01T09:00:00", time.Time{}, 0, false}, // no offset: which instant is it?
		{"tomorrow", time.Time{}, 0, false},
		{"", time.Time{}, 0, false},
	} {
		got, ok := ParseInstant(tc.in)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseInstant(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
			continue
		}
		if _, off := got.Zone(); ok && off != tc.offset {
			t.Errorf("ParseInstant(%q): offset %ds, want %ds", tc.in, off, tc.offset)
		}
	}
}

func TestUnixInstant(t *testing.T) {
	for _, tc := range []struct {
		seconds float64
		want    string // "" for no instant
	}{
		{1651240791, "2022-04-29T13:59:51Z"},
		{1651240791.5, "2022-04-29T13:59:51.5Z"},
		{1e10, "2286-11-20T17:46:40Z"},
		{-1, "1969-12-31T23:59:59Z"},
		{1e12, ""},
		{math.NaN(), ""},
		{math.Inf(1), ""},
	} {
		at, ok := UnixInstant(tc.seconds)
		got := ""
		if ok {
			got = at.Format(time.RFC3339Nano)
		}
		if got != tc.want {
			t.Errorf("UnixInstant(%v) = %q, want %q", tc.seconds, got, tc.want)
		}
	}
}
