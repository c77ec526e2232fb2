package conformance

// Keeping the credentials out of everything a run shows. Text built from a
// response (a header, a body field, an error) may hold a credential
// whenever a deployment or a proxy echoes it, so every secret of the run
// (the key, a bearer token, a password, an apiKey given by name, the OAuth
// 2 client secret and the access tokens fetched with it) is redacted where
// text leaves the run: failure and skip messages, the console writers, the
// reports and the errors Run returns; and before text is cut, so a cut
// never leaves a part of it.
//
// A short secret is a word that unrelated text holds by chance ("pets" in
// /v1/pets or petstore.yaml). Replacing it there would mangle the output
// and show where the secret is, so a short one is replaced only where it
// stands alone: where it was sent (a header value, a query parameter's
// value, a cookie's value) and where a deployment echoes it whole.

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/onsi/ginkgo/v2/types"
)

// minKeyLength is the length, in characters, from which a secret is
// redacted wherever it appears; a shorter one only where it stands alone,
// and the run warns that it is short.
const minKeyLength = 8

// shortKey reports whether key is shorter than minKeyLength.
func shortKey(key string) bool {
	return key != "" && utf8.RuneCountInString(key) < minKeyLength
}

// secret is one value the output must never show, and the shell variable
// that stands for it in messages ("$PETCTL_API_KEY"), so that a curl
// command a person pastes sends it.
type secret struct {
	variable string
	// forms are its spellings, the longest first (see secretForms).
	forms []string
	short bool
}

// redactor replaces the run's secrets: the credentials given, and the
// access tokens fetched during the run.
type redactor struct {
	mu      sync.RWMutex
	secrets []secret
	// long replaces the spellings of the secrets that are not short.
	long *strings.Replacer
}

// add makes value a secret shown as variable; a value already known, or
// empty, changes nothing.
func (r *redactor) add(value, variable string) {
	if value == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.secrets {
		if slices.Contains(s.forms, value) {
			return // one secret given twice (the key as the bearer token too)
		}
	}
	r.secrets = append(r.secrets, secret{variable: variable, forms: secretForms(value), short: shortKey(value)})
	// The longest spelling of any secret first: a replacer tries its
	// patterns in order, and one secret may hold another.
	type pair struct{ form, variable string }
	var pairs []pair
	for _, s := range r.secrets {
		if s.short {
			continue
		}
		for _, f := range s.forms {
			pairs = append(pairs, pair{f, s.variable})
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i].form) > len(pairs[j].form) })
	var args []string
	for _, p := range pairs {
		args = append(args, p.form, p.variable)
	}
	r.long = nil
	if len(args) > 0 {
		r.long = strings.NewReplacer(args...)
	}
}

// shortOnes are the secrets shorter than minKeyLength.
func (r *redactor) shortOnes() []secret {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []secret
	for _, s := range r.secrets {
		if s.short {
			out = append(out, s)
		}
	}
	return out
}

// longest is the length of the longest secret, for cutting text with room
// for its spellings.
func (r *redactor) longest() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := 0
	for _, s := range r.secrets {
		for _, f := range s.forms {
			n = max(n, len(f))
		}
	}
	return n
}

// redact replaces the secrets in s (a URL with a query key, a body, a
// header or an error that echoes one), in any of the spellings a message
// or a report can hold, with the variable a person would use: everywhere,
// or for a short secret where it stands alone. Every way out of a run
// (failure and skip messages, the console, the reports, the errors Run
// returns) goes through it.
func (c *client) redact(s string) string {
	r := c.secrets
	r.mu.RLock()
	long := r.long
	r.mu.RUnlock()
	if long != nil {
		s = long.Replace(s)
	}
	for _, sec := range r.shortOnes() {
		s = redactAlone(s, sec)
	}
	return s
}

// redactAlone replaces the spellings of sec that stand alone in s.
func redactAlone(s string, sec secret) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		for _, f := range sec.forms { // the longest first
			if strings.HasPrefix(s[i:], f) && !joinedBefore(s, i) && !joinedAfter(s, i+len(f)) {
				b.WriteString(s[done:i])
				b.WriteString(sec.variable)
				done = i + len(f)
				i = done - 1
				break
			}
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// joins reports whether r, next to the key, makes it part of a longer
// word, number, path or address ("/v1/pets", "pets_1", "my-pets",
// "pets@example.com") rather than a value of its own ("Bearer pets",
// realm="pets", "appid=pets&", a whole header value).
func joins(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-/@", r)
}

// joinedBefore reports whether the text before s[i] joins it. A dot joins
// only between two words ("v1.pets"), not after a sentence.
func joinedBefore(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	if n == 0 {
		return false
	}
	if r == '.' {
		r, n = utf8.DecodeLastRuneInString(s[:i-n])
		return n > 0 && joins(r)
	}
	return joins(r)
}

// joinedAfter reports whether the text from s[i] on joins what is before
// it. A dot joins only between two words ("pets.json"), not at the end of
// a sentence ("… was pets.").
func joinedAfter(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	if n == 0 {
		return false
	}
	if r == '.' {
		r, n = utf8.DecodeRuneInString(s[i+n:])
		return n > 0 && joins(r)
	}
	return joins(r)
}

// trimPartialKey drops the end of s when it is the start of a spelling
// of a secret (for a short one, one that stands alone): s was cut from a
// longer text, maybe through a secret.
func (c *client) trimPartialKey(s string) string {
	c.secrets.mu.RLock()
	secrets := slices.Clone(c.secrets.secrets)
	c.secrets.mu.RUnlock()
	for _, sec := range secrets {
		for _, f := range sec.forms {
			for n := min(len(f)-1, len(s)); n > 0; n-- {
				if strings.HasSuffix(s, f[:n]) && !(sec.short && joinedBefore(s, len(s)-n)) {
					s = s[:len(s)-n]
					break
				}
			}
		}
	}
	return s
}

// secretForms are the spellings of key that text built from a response
// can hold: as it is, escaped for a URL, quoted as a Go or JSON string
// (also twice, as a JSON report holds a report entry's JSON), and XML.
func secretForms(key string) []string {
	if key == "" {
		return nil
	}
	jsonInner := func(s string, html bool) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(s)
		out := strings.TrimSpace(b.String())
		return out[1 : len(out)-1]
	}
	var x bytes.Buffer
	_ = xml.EscapeText(&x, []byte(key))
	q := strconv.Quote(key)
	qa := strconv.QuoteToASCII(key)
	forms := []string{
		key, url.QueryEscape(key), url.PathEscape(key), q[1 : len(q)-1], qa[1 : len(qa)-1],
		jsonInner(key, true), jsonInner(key, false),
		jsonInner(jsonInner(key, true), true), jsonInner(jsonInner(key, false), false),
		x.String(),
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range forms {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	// The longest first: a replacer tries its patterns in order.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redactingWriter is the console's last guard: whatever a line was built
// from, the key does not reach the terminal. A line is one Write.
type redactingWriter struct {
	w      io.Writer
	redact func(string) string
}

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// redactedError is an error whose text has the key redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (c *client) redactError(err error) error {
	if err == nil {
		return nil
	}
	if msg := c.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// scrubReport redacts every text of the report that may hold words of a
// response: failure messages, report entries, captured output, events.
func (c *client) scrubReport(r types.Report) types.Report {
	r.SpecialSuiteFailureReasons = c.redactAll(r.SpecialSuiteFailureReasons)
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, sr := range r.SpecReports {
		sr.Failure = c.scrubFailure(sr.Failure)
		if sr.AdditionalFailures != nil {
			af := make([]types.AdditionalFailure, len(sr.AdditionalFailures))
			for j, a := range sr.AdditionalFailures {
				a.Failure = c.scrubFailure(a.Failure)
				af[j] = a
			}
			sr.AdditionalFailures = af
		}
		sr.CapturedGinkgoWriterOutput = c.redact(sr.CapturedGinkgoWriterOutput)
		sr.CapturedStdOutErr = c.redact(sr.CapturedStdOutErr)
		if sr.ReportEntries != nil {
			entries := make(types.ReportEntries, len(sr.ReportEntries))
			for j, e := range sr.ReportEntries {
				e.Name = c.redact(e.Name)
				e.Value = c.scrubValue(e.Value)
				entries[j] = e
			}
			sr.ReportEntries = entries
		}
		if sr.SpecEvents != nil {
			events := make(types.SpecEvents, len(sr.SpecEvents))
			for j, e := range sr.SpecEvents {
				e.Message = c.redact(e.Message)
				events[j] = e
			}
			sr.SpecEvents = events
		}
		sr.ProgressReports = nil // petctl asks for none; they quote goroutines' state
		specs[i] = sr
	}
	r.SpecReports = specs
	return r
}

func (c *client) scrubFailure(f types.Failure) types.Failure {
	f.Message = c.redact(f.Message)
	f.ForwardedPanic = c.redact(f.ForwardedPanic)
	f.ProgressReport = types.ProgressReport{}
	return f
}

// scrubValue rebuilds a report entry's value from its redacted JSON, and
// its text from its redacted text: both reports read one of the two.
func (c *client) scrubValue(v types.ReportEntryValue) types.ReportEntryValue {
	raw := v.GetRawValue()
	if raw == nil {
		return v
	}
	text := c.redact(v.String())
	b, err := json.Marshal(raw)
	var clean any
	if err != nil || json.Unmarshal([]byte(c.redact(string(b))), &clean) != nil {
		clean = text
	}
	out := types.WrapEntryValue(clean)
	out.Representation = text
	return out
}

func (c *client) redactAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = c.redact(s)
	}
	return out
}
