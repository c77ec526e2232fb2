package conformance

// What a profile keeps of a body: a sample, small, with no credential and
// no personal data in it. A profile is a file teams commit and share; a
// staging answer may hold real customers' orders.

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a recorded sample.
const (
	// sampleItems is how many items of each array a sample keeps.
	sampleItems = 3
	// maxSampleBytes bounds a sample as written.
	maxSampleBytes = 8 << 10
)

// The placeholders that replace what a sample must not hold. They keep the
// value's form where it has one, so a client reading the mock still parses
// them; the profile lists where each was put.
const (
	placeholderText  = "redacted"
	placeholderEmail = "person@example.com"
	placeholderPhone = "+1-555-0100"
)

var (
	// credentialKey names fields that hold credentials.
	credentialKey = regexp.MustCompile(`(?i)pass(word|wd|phrase)?|secret|token|api[-_]?key|apikey|auth|session|cookie|credential|private[-_]?key|signature|^otp$|^pin$|cvv|cvc|salt`)
	// personalKey names fields that hold personal data.
	personalKey = regexp.MustCompile(`(?i)e-?mail|phone|mobile|^fax$|address|street|^city$|zip|post(al)?[-_]?code|birth|^dob$|ssn|social[-_]?security|passport|national[-_]?id|tax[-_]?id|iban|card|account[-_]?(number|no)|(first|last|full|sur|given|family|middle|user|customer|owner|contact|holder|display)[-_]?name|^ip$|ip[-_]?addr|latitude|longitude|^geo|^location$|gender`)
	emailValue  = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
	phoneValue  = regexp.MustCompile(`^\+?[0-9][0-9 ().\-]{7,}[0-9]$`)
	ipv4Value   = regexp.MustCompile(`^\d{1,3}(\.\d{1,3}){3}$`)
	jwtValue    = regexp.MustCompile(`^[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$`)
	tokenValue  = regexp.MustCompile(`^[A-Za-z0-9_\-+/=]{32,}$`)

	// What a free text may hold among its words: an e-mail address, a
	// phone number written with a + or separators between groups of digits
	// (a bare run of digits is more often an id), a card number, a JWT, a
	// long random token.
	emailIn = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)
	phoneIn = regexp.MustCompile(`(\+\(?\d|\(\d)[\d ().\-]{6,}\d|\d+([ .\-]\d+){2,}|\d{2,}[ .\-]\d{5,}`)
	cardIn  = regexp.MustCompile(`\d[\d \-]{11,}\d`)
	jwtIn   = regexp.MustCompile(`[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)
	tokenIn = regexp.MustCompile(`[A-Za-z0-9_+=]{32,}`) // no - or /: slugs and paths are words
	dateIn  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
)

// sanitizer replaces, in a decoded body, what a sample must not hold.
type sanitizer struct {
	redact   func(string) string // hides the run's API key
	items    int                 // items kept of each array
	replaced []string
	trimmed  bool
}

// keepSample is what a profile keeps of a JSON body: credentials and personal
// data replaced, arrays cut to a few items. It returns nil and why not
// when the body is not JSON or its sample is too large.
func (s *suite) keepSample(body []byte) (json.RawMessage, []string, string) {
	v := decodeJSON(body)
	if v == nil && strings.TrimSpace(string(body)) != "null" {
		return nil, nil, "the body is not JSON"
	}
	for _, n := range []int{sampleItems, 1} {
		z := &sanitizer{redact: s.client.redact, items: n}
		out, err := json.Marshal(z.value("$", "", v))
		if err != nil {
			return nil, nil, err.Error()
		}
		if len(out) <= maxSampleBytes {
			if z.trimmed {
				z.replaced = append(z.replaced, fmt.Sprintf("arrays cut to %d items", n))
			}
			return out, z.replaced, ""
		}
	}
	return nil, nil, fmt.Sprintf("the body's sample is larger than %d KiB", maxSampleBytes>>10)
}

func (z *sanitizer) value(path, key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := 0
		for _, k := range slices.Sorted(maps.Keys(x)) {
			name := k
			if _, replaced := z.text("", k); replaced {
				// A map keyed by e-mail addresses or tokens: its keys are
				// data too.
				keys++
				name = fmt.Sprintf("%s-%d", placeholderText, keys)
				z.replaced = append(z.replaced, path+"."+name+" (a key)")
			}
			out[name] = z.value(path+"."+name, k, x[k])
		}
		return out
	case []any:
		if len(x) > z.items {
			x, z.trimmed = x[:z.items], true
		}
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = z.value(path+"["+strconv.Itoa(i)+"]", key, it)
		}
		return out
	case string:
		if r, ok := z.text(key, x); ok {
			z.replaced = append(z.replaced, path)
			return r
		}
		return x
	case json.Number, bool:
		if key != "" && (credentialKey.MatchString(key) || personalKey.MatchString(key)) {
			z.replaced = append(z.replaced, path)
			if _, ok := x.(bool); ok {
				return false
			}
			return json.Number("0")
		}
	}
	return v
}

// text replaces a string that is, or is under a name of, a credential or
// personal data.
func (z *sanitizer) text(key, s string) (string, bool) {
	named := key != "" && (credentialKey.MatchString(key) || personalKey.MatchString(key))
	switch {
	case z.redact(s) != s, luhn(s), jwtValue.MatchString(s), ipv4Value.MatchString(s):
		return placeholderText, true
	case emailValue.MatchString(s):
		return placeholderEmail, true
	case phoneValue.MatchString(s) && digits(s) >= 9:
		return placeholderPhone, true
	case named:
		return placeholderText, true
	case tokenValue.MatchString(s) && strings.ContainsFunc(s, unicode.IsDigit) && strings.ContainsFunc(s, unicode.IsLetter):
		return placeholderText, true
	}
	return within(s)
}

// within replaces what a free text holds among its words ("call +1 415
// 555 2671 or mail bob@corp.example"), each in place, so the text keeps
// its form: the e-mail addresses and phone numbers by the placeholders,
// card numbers, JWTs and long random tokens by "redacted".
func within(s string) (string, bool) {
	out := s
	out = emailIn.ReplaceAllString(out, placeholderEmail)
	out = jwtIn.ReplaceAllString(out, placeholderText)
	out = tokenIn.ReplaceAllStringFunc(out, func(t string) string {
		if strings.ContainsFunc(t, unicode.IsDigit) && strings.ContainsFunc(t, unicode.IsLetter) {
			return placeholderText
		}
		return t
	})
	out = replaceAlone(cardIn, out, func(c string) string {
		if luhn(c) {
			return placeholderText
		}
		return c
	})
	out = replaceAlone(phoneIn, out, func(p string) string {
		if digits(p) >= 9 && !dateIn.MatchString(p) && p != placeholderPhone {
			return placeholderPhone
		}
		return p
	})
	return out, out != s
}

// replaceAlone is re.ReplaceAllStringFunc for the matches that stand
// alone, with no letter or digit touching either end: the digits of a
// uuid or an order number (…-a456-426614174000, ORD-2024-000123456) are
// part of a word, not a phone or a card number.
func replaceAlone(re *regexp.Regexp, s string, fn func(string) string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if wordBefore(s[:m[0]]) || wordAfter(s[m[1]:]) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(fn(s[m[0]:m[1]]))
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// wordBefore and wordAfter say whether the text before or after a match
// continues a word: a letter or digit, or a - or _ joining one
// (ORD-2024-…).
func wordBefore(s string) bool {
	r, n := utf8.DecodeLastRuneInString(s)
	if r == '-' || r == '_' {
		r, _ = utf8.DecodeLastRuneInString(s[:len(s)-n])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordAfter(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	if r == '-' || r == '_' {
		r, _ = utf8.DecodeRuneInString(s[n:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func digits(s string) int {
	n := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			n++
		}
	}
	return n
}

// luhn reports whether s is a payment card number: 13 to 19 digits (with
// spaces or dashes) whose Luhn checksum holds.
func luhn(s string) bool {
	var ds []int
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			ds = append(ds, int(r-'0'))
		case r == ' ' || r == '-':
		default:
			return false
		}
	}
	if len(ds) < 13 || len(ds) > 19 {
		return false
	}
	sum := 0
	for i := range ds {
		d := ds[len(ds)-1-i]
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// shape is a body's form without its values: the type of every field, the
// first item of every array. Two deployments answer alike when the shapes
// of their answers are equal, whatever data they hold.
func shape(raw json.RawMessage) string {
	var b strings.Builder
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 8 {
			b.WriteString("…")
			return
		}
		switch x := v.(type) {
		case map[string]any:
			b.WriteString("{")
			for i, k := range slices.Sorted(maps.Keys(x)) {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(k + ": ")
				walk(x[k], depth+1)
			}
			b.WriteString("}")
		case []any:
			b.WriteString("[")
			if len(x) > 0 {
				walk(x[0], depth+1)
			}
			b.WriteString("]")
		case string:
			b.WriteString("string")
		case json.Number:
			b.WriteString("number")
		case bool:
			b.WriteString("boolean")
		default:
			b.WriteString("null")
		}
	}
	walk(decodeJSON(raw), 0)
	return b.String()
}
