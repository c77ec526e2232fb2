package spec

import (
	"math"
	"time"
)

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

// maxUnixSeconds bounds a number read as Unix seconds: about the year 5138.
const maxUnixSeconds = 1e11

// UnixInstant is the instant a number of Unix seconds names (lago's event
// timestamp, "1651240791.123"): where a document's write schema takes a
// number and its read schema an instant, petctl serve stores, and petctl
// conform expects, this instant. ok is false for a number no instant is.
func UnixInstant(seconds float64) (at time.Time, ok bool) {
	if math.IsNaN(seconds) || math.Abs(seconds) > maxUnixSeconds {
		return time.Time{}, false
	}
	sec, frac := math.Modf(seconds)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), true
}
