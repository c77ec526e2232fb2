package conformance

// Failure messages: an exchange as a person reads it, the request as a
// curl command to paste (the key as $PETCTL_API_KEY), the response's
// status, the headers that matter and an excerpt of the body.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// excerptBytes is how much of a body a message shows.
const excerptBytes = 300

// describe renders an exchange for a failure message: the request as a
// curl command (key redacted) and the response's status, relevant headers
// and a body excerpt.
func (s *suite) describe(ex *Exchange) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  request:  %s\n", s.curl(ex))
	if ex.Status == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "  response: %d %s in %s", ex.Status, http.StatusText(ex.Status), roundDuration(ex.Duration))
	if ex.Waited > 0 {
		fmt.Fprintf(&b, " (after waiting out 429 for %s)", ex.Waited)
	}
	fmt.Fprintf(&b, "\n  headers:  %s\n", headerLine(ex.Header))
	if ex.Redirect != "" {
		fmt.Fprintf(&b, "  redirect: %s\n", ex.Redirect)
	}
	fmt.Fprintf(&b, "  body:     %s\n", s.excerpt(ex))
	return b.String()
}

// relevantHeaders are the response headers a failure message shows.
var relevantHeaders = []string{
	"Content-Type", "Content-Length", "Location", "WWW-Authenticate", "Retry-After",
	"Deprecation", "Sunset", "Link", "X-Total-Count",
}

func headerLine(h http.Header) string {
	var parts []string
	for _, k := range relevantHeaders {
		if vs := h.Values(k); len(vs) > 0 {
			parts = append(parts, k+": "+visible(strings.Join(vs, ", ")))
		}
	}
	if len(parts) == 0 {
		return "(none of " + strings.Join(relevantHeaders[:3], ", ") + ", …)"
	}
	return strings.Join(parts, "; ")
}

// excerpt is the start of the body on one line, with the key redacted.
func (s *suite) excerpt(ex *Exchange) string {
	if len(ex.Body) == 0 {
		return "(empty)"
	}
	// Redact before cutting: a cut through the key would leave a part of
	// it. Redacting the whole body would cost up to MaxBodyBytes a message.
	body := ex.Body
	if n := excerptBytes + 2*s.client.secrets.longest() + 64; len(body) > n {
		body = body[:n]
	}
	text := s.client.redact(strings.ToValidUTF8(string(body), "?"))
	cut := len(body) < len(ex.Body)
	if cut {
		text = s.client.trimPartialKey(text)
	}
	cut = cut || len(text) > excerptBytes
	if len(text) > excerptBytes {
		n := excerptBytes
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	text = visible(strings.Join(strings.Fields(text), " "))
	size := fmt.Sprintf("%d bytes", len(ex.Body))
	if ex.Truncated {
		size = fmt.Sprintf("more than %d bytes", s.client.maxBody)
	}
	if cut {
		return fmt.Sprintf("%s… (%s)", text, size)
	}
	return fmt.Sprintf("%s (%s)", text, size)
}

// visible writes the control characters of a deployment's text as Go
// escapes (\x1b, \u0085): printed as they are, an answer's escape
// sequences could erase or recolour the console's FAIL lines, in a
// terminal or a CI log that renders them.
func visible(text string) string {
	if !strings.ContainsFunc(text, unicode.IsControl) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		switch {
		case !unicode.IsControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

// curl renders the request as a command a person can paste: each secret is
// its variable ($PETCTL_API_KEY, $PETCTL_BEARER, …), expanded by the shell.
func (s *suite) curl(ex *Exchange) string {
	parts := []string{"curl", "-sS", "-i"}
	if ex.Method != http.MethodGet {
		parts = append(parts, "-X", ex.Method)
	}
	parts = append(parts, shellQuote(ex.URL))
	for _, h := range ex.ReqHeader {
		if h[0] == "Authorization" && h[1] == basicShown {
			// curl encodes user:password itself.
			parts = append(parts, "-u", `"$`+EnvBasic+`"`)
			continue
		}
		parts = append(parts, "-H", shellQuote(h[0]+": "+h[1]))
	}
	if ex.ReqBody != nil {
		body := s.client.redact(string(ex.ReqBody))
		if len(body) > 1000 {
			body = body[:1000] + "…"
		}
		parts = append(parts, "--data-raw", shellQuote(body))
	}
	return strings.Join(parts, " ")
}

// secretVar is a variable that stands for a secret in messages.
var secretVar = regexp.MustCompile(`\$PETCTL_[A-Z0-9_]+`)

// shellQuote single-quotes s for a POSIX shell, leaving the variables that
// stand for secrets ($PETCTL_API_KEY) outside the quotes so the shell
// expands them.
func shellQuote(s string) string {
	var b strings.Builder
	quote := func(seg string) {
		if seg != "" {
			b.WriteString("'" + strings.ReplaceAll(seg, "'", `'\''`) + "'")
		}
	}
	done := 0
	for _, m := range secretVar.FindAllStringIndex(s, -1) {
		quote(s[done:m[0]])
		b.WriteString(`"` + s[m[0]:m[1]] + `"`)
		done = m[1]
	}
	quote(s[done:])
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}
