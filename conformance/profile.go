package conformance

// A deployment's profile: what it does wherever its document leaves
// behaviour open, recorded by a conformance run (Config.Profile) from
// requests of its own (profile_probe.go) and from every answer the run
// saw. config writes it as petctl.yaml settings, so that petctl serve
// answers as the deployment does; drift compares two of them.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Profile is what a deployment does where its document is open.
type Profile struct {
	// URL is the deployment's base URL, user info removed.
	URL         string              `json:"url"`
	RecordedAt  time.Time           `json:"recordedAt"`
	Collections []CollectionProfile `json:"collections,omitempty"`
	// Errors are the answers to requests made to fail in each way.
	Errors []ErrorAnswer `json:"errors,omitempty"`
	// Codes are the error codes every answer of the run carried, by status.
	Codes map[int][]string `json:"codes,omitempty"`
	// Unpublished are the answers of the operations whose payload the
	// document does not show.
	Unpublished []Answer `json:"unpublished,omitempty"`
	// Headers are sent on every answer of every operation.
	Headers []Header `json:"headers,omitempty"`
	// Operations are what each operation sends besides, and how fast.
	Operations []OperationProfile `json:"operations,omitempty"`
	// NotRecorded says what could not be recorded, and why.
	NotRecorded []string `json:"notRecorded,omitempty"`
}

// CollectionProfile is what a collection's list and create operations do.
type CollectionProfile struct {
	Name   string `json:"name"`
	List   string `json:"list,omitempty"`   // operationId
	Create string `json:"create,omitempty"` // operationId
	// OutOfRange are the answers to a page size below and above its bounds.
	OutOfRange []LimitAnswer `json:"outOfRange,omitempty"`
	// Order is how the list is ordered; see the Order constants.
	Order     string `json:"order,omitempty"`
	OrderSeen string `json:"orderSeen,omitempty"` // what showed it
	// Pagination is how the list pages beyond the page size.
	Pagination *Pagination `json:"pagination,omitempty"`
	// Defaults are what a new item gets for each optional field left out.
	Defaults []FieldDefault `json:"defaults,omitempty"`
}

// withheld stands for a value a profile does not record.
const withheld = "given, withheld (a credential or personal data)"

// Orders of a list.
const (
	OrderAscending  = "ascending"  // by id, oldest first
	OrderDescending = "descending" // by id, newest first
	OrderOther      = "unordered"  // neither
)

// LimitAnswer is the answer to one page size outside the bounds.
type LimitAnswer struct {
	Param  string `json:"param"`
	Value  string `json:"value"`
	Status int    `json:"status"`
	Code   string `json:"code,omitempty"`
	// Items counts the items of a 2xx answer. Bound is the bound the value
	// is beyond, Default the page size without the parameter, and
	// Population how many items the list gave at its largest page: what
	// tells a clamped page from one of the default size.
	Items      int   `json:"items"`
	Bound      int64 `json:"bound"`
	Default    int64 `json:"default,omitempty"`
	Population int   `json:"population"`
}

// Rejected reports whether the value was refused.
func (a LimitAnswer) Rejected() bool { return a.Status >= 400 }

// Clamped reports whether the value was answered with the nearest bound.
func (a LimitAnswer) Clamped() bool {
	return a.Status >= 200 && a.Status < 300 && a.Items == min(int(a.Bound), a.Population)
}

// Outcome is the answer in words that do not depend on how many items the
// deployment holds.
func (a LimitAnswer) Outcome() string {
	switch {
	case a.Rejected():
		return strings.TrimSpace(fmt.Sprintf("rejected: %d %s", a.Status, a.Code))
	case a.Status >= 300 || a.Status < 200:
		return fmt.Sprintf("answered %d", a.Status)
	case a.Clamped():
		return fmt.Sprintf("clamped: %d with at most %s", a.Status, itemCount(int(a.Bound)))
	case a.Default > 0 && a.Items == min(int(a.Default), a.Population):
		return fmt.Sprintf("ignored: %d with the default page of %s", a.Status, itemCount(int(a.Default)))
	}
	return fmt.Sprintf("accepted: %d with %s", a.Status, itemCount(a.Items))
}

func itemCount(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// Pagination is how a list pages beyond the page size.
type Pagination struct {
	// Style is "none" (the first page only), "cursor" (a next link with an
	// opaque value), "offset" or "page" (a next link with a number), or
	// "headers" (no next link; pagination headers only).
	Style string `json:"style"`
	// Param is the query parameter the next link sets.
	Param string `json:"param,omitempty"`
	// Headers are the pagination headers seen (Link, X-Total-Count).
	Headers []string `json:"headers,omitempty"`
	// Next is the next link seen, as sent.
	Next string `json:"next,omitempty"`
}

// FieldDefault is what a new item gets for a field the create left out.
type FieldDefault struct {
	Field string `json:"field"`
	// Value is the JSON value given, nil when the field stays absent or
	// its value is withheld.
	Value json.RawMessage `json:"value,omitempty"`
	// Withheld is set when the value given is a credential or personal
	// data, which a profile never records.
	Withheld bool `json:"withheld,omitempty"`
	// Varies is set when two items made alike got different values: the
	// deployment makes one for each item (a time, a token), no default.
	Varies bool `json:"varies,omitempty"`
}

// ErrorAnswer is the answer to a request made to fail in one way.
type ErrorAnswer struct {
	// Condition is the way: see the Condition constants.
	Condition string `json:"condition"`
	Operation string `json:"operation"` // operationId
	Status    int    `json:"status"`
	Code      string `json:"code,omitempty"` // the Error body's code, "" without one
}

// The ways the profile makes a request fail.
const (
	CondNoCredentials = "no credentials"
	CondWrongKey      = "a wrong key"
	CondInvalidBody   = "a body without a required field"
	CondMalformedJSON = "malformed JSON"
	CondUnknownID     = "an unknown id"
)

// Answer is an operation's answer to a valid request.
type Answer struct {
	Operation   string `json:"operation"` // operationId
	Method      string `json:"method"`
	Path        string `json:"path"`
	Status      int    `json:"status"`
	ContentType string `json:"contentType,omitempty"`
	// Body is a sample of the JSON body, its credentials and personal data
	// replaced (see sanitize); nil when there was none, or it was not JSON.
	Body json.RawMessage `json:"body,omitempty"`
	// Replaced lists where values were replaced ($.orders[0].email).
	Replaced []string `json:"replaced,omitempty"`
	// Note says why no body is recorded, when there was one.
	Note string `json:"note,omitempty"`
}

// DeprecationHeaders are what RFC 9745 and RFC 8594 have a deprecated
// operation send (and the deprecation checks judge by the document).
var DeprecationHeaders = []string{"Deprecation", "Sunset", "Link"}

// Header is a header and the value it had on the first answer seen.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Varies is set when another answer had another value (the requests
	// left of a rate limit, a time): only the name is a behaviour then.
	Varies bool `json:"varies,omitempty"`
}

// OperationProfile is what one operation sends besides the document, and
// how fast it answers.
type OperationProfile struct {
	ID string `json:"id"`
	// Deprecated is the document's word: the operation sends
	// DeprecationHeaders because the document says so.
	Deprecated bool `json:"deprecated,omitempty"`
	// Headers are sent on every answer of the operation, beyond the
	// profile's Headers.
	Headers []Header `json:"headers,omitempty"`
	Latency Latency  `json:"latency"`
}

// Latency summarises the time answers took, from the request sent to the
// body read, waits for 429s left out.
type Latency struct {
	N                       int           `json:"n"`
	Min, P50, P90, P99, Max time.Duration `json:"-"`
}

// MarshalJSON writes the durations as text ("41ms").
func (l Latency) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"n": l.N, "min": l.Min.String(), "p50": l.P50.String(), "p90": l.P90.String(), "p99": l.P99.String(), "max": l.Max.String()})
}

func (l Latency) String() string {
	if l.N == 0 {
		return "no answers"
	}
	return fmt.Sprintf("%d answers: p50 %s, p90 %s, p99 %s (min %s, max %s)", l.N, round(l.P50), round(l.P90), round(l.P99), round(l.Min), round(l.Max))
}

func round(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// Behaviour is one recorded behaviour, named so that two profiles can be
// compared key by key.
type Behaviour struct {
	// Key is stable between runs: "lists pets order".
	Key string
	// Group is the kind: lists, defaults, errors, unpublished, headers,
	// latency.
	Group string
	// Value is the behaviour in words, as compared.
	Value string
	// latency, for the latency group, is compared with a tolerance
	// instead of Value (see Similar).
	latency time.Duration
	// paired is set for a behaviour compared only where both deployments
	// have it: a header's value, whose absence the list of names says.
	paired bool
}

// Paired reports whether b is compared only where both deployments have it.
func (b Behaviour) Paired() bool { return b.paired }

// headerVaries is the value of a header whose value differs from answer
// to answer: like any other value.
const headerVaries = "(a value of its own on each answer)"

// Behaviours lists the profile's behaviours in a fixed order.
func (p *Profile) Behaviours() []Behaviour {
	var out []Behaviour
	add := func(group, key, value string) {
		out = append(out, Behaviour{Key: group + " " + key, Group: group, Value: value})
	}
	for _, c := range p.Collections {
		for _, a := range c.OutOfRange {
			add("lists", fmt.Sprintf("%s: %s=%s", c.Name, a.Param, a.Value), a.Outcome())
		}
		if c.Order != "" {
			add("lists", c.Name+": order", c.Order)
		}
		if c.Pagination != nil {
			v := c.Pagination.Style
			if c.Pagination.Param != "" {
				v += ", parameter " + c.Pagination.Param
			}
			if len(c.Pagination.Headers) > 0 {
				v += ", headers " + strings.Join(c.Pagination.Headers, ", ")
			}
			add("lists", c.Name+": pagination", v)
		}
		for _, d := range c.Defaults {
			v := "absent"
			switch {
			case d.Varies:
				v = "given, a new value for each item"
			case d.Withheld:
				v = withheld
			case d.Value != nil:
				v = string(d.Value)
			}
			add("defaults", fmt.Sprintf("%s: %s of a new item", c.Name, d.Field), v)
		}
	}
	for _, e := range p.Errors {
		add("errors", fmt.Sprintf("%s: %s", e.Operation, e.Condition), strings.TrimSpace(fmt.Sprintf("%d %s", e.Status, e.Code)))
	}
	statuses := make([]int, 0, len(p.Codes))
	for s := range p.Codes {
		statuses = append(statuses, s)
	}
	sort.Ints(statuses)
	for _, s := range statuses {
		add("errors", fmt.Sprintf("codes of %d answers", s), strings.Join(p.Codes[s], ", "))
	}
	for _, a := range p.Unpublished {
		v := fmt.Sprintf("%d", a.Status)
		if a.ContentType != "" {
			v += " " + a.ContentType
		}
		if a.Body != nil {
			v += ", body " + shape(a.Body)
		}
		add("unpublished", a.Operation+": answer", v)
	}
	names := func(hs []Header) string {
		var ns []string
		for _, h := range hs {
			ns = append(ns, h.Name)
		}
		if len(ns) == 0 {
			return "none"
		}
		return strings.Join(ns, ", ")
	}
	// The value of a header the same on every answer is a behaviour too
	// (the region that served it, a policy), compared where both
	// deployments send the header and neither varies it.
	values := func(scope string, hs []Header) {
		for _, h := range hs {
			v := h.Value
			if h.Varies {
				v = headerVaries
			}
			out = append(out, Behaviour{Key: "headers " + scope + ": " + h.Name, Group: "headers", Value: v, paired: true})
		}
	}
	add("headers", "on every answer", names(p.Headers))
	values("on every answer", p.Headers)
	for _, o := range p.Operations {
		add("headers", o.ID+": on every answer besides", names(o.Headers))
		values(o.ID, o.Headers)
	}
	for _, o := range p.Operations {
		if o.Latency.N >= MinLatencyAnswers {
			out = append(out, Behaviour{Key: "latency " + o.ID + ": p50", Group: "latency", Value: round(o.Latency.P50).String(), latency: o.Latency.P50})
		}
	}
	return out
}

// MinLatencyAnswers is the fewest answers of an operation whose latency a
// profile records and drift compares. A deployment's first answer to an
// operation is often its slowest by far (a cold cache, a schema compiled
// on first use: petctl serve's own took 200 to 400ms on ory-kratos's login
// flows, which answer in under 1ms after), and with a few answers the
// median is that one; the run sends five or more to an operation it
// checks in earnest.
const MinLatencyAnswers = 5

// DefaultLatencyTolerance is how far two medians may be apart and still
// count as the same latency, unless a run sets its own (conform --compare
// and drift --latency-tolerance): the larger of this and half the larger
// median. A latency drift is for what a client would notice, staging's
// listPets now taking 900ms where the mock answers in 120ms, not for what
// the measuring machine or the network adds to one run and not the next:
// measured here, the medians of an operation with no latency of its own
// moved from under 1ms to 50ms between runs on a loaded two-core machine,
// and a profile recorded then served that noise as createPet's latency
// (66ms, where the deployment answered in 1.65ms). A drift report that
// cried wolf would be ignored; where the runs are noisier still (a shared
// CI runner, staging across an ocean), the run's tolerance says how much.
const DefaultLatencyTolerance = 50 * time.Millisecond

// Similar reports whether two behaviours of the same key are the same,
// latencies within tolerance or half the larger median.
func (b Behaviour) Similar(o Behaviour, tolerance time.Duration) bool {
	if b.Value == headerVaries || o.Value == headerVaries {
		return true
	}
	if b.Group != "latency" || o.Group != "latency" {
		return b.Value == o.Value
	}
	diff := b.latency - o.latency
	if diff < 0 {
		diff = -diff
	}
	return diff <= max(tolerance, max(b.latency, o.latency)/2)
}
