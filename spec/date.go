package spec

import "time"

// ParseInstant reads an RFC 3339 date-time, keeping its offset, or a full
// date, midnight UTC: every instant petctl is given is read here (the
// document's x-sunset and x-deprecated-at, clock.now, conform --now). ok
// is false for anything else, and each caller words its own error.
func ParseInstant(s string) (t time.Time, ok bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}
