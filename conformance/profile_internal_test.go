package conformance

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestSampleKeepsNoSecrets: a recorded sample replaces credentials and
// personal data, by the field's name or by the value's form, keeps the
// rest, and cuts arrays; replacing twice gives the same sample.
func TestSampleKeepsNoSecrets(t *testing.T) {
	const key = "the-run-key-0123456789"
	s := &suite{client: newClient(&url.URL{Scheme: "http", Host: "x"}, keyOnly(key), time.Second, time.Second, time.Second)}
	tests := []struct {
		name, body, want string
		replaced         []string
	}{
		{"by name", `{"password": "hunter2", "apiKey": "k", "sessionToken": 7, "customer_name": "Jane Doe", "name": "Rex"}`,
			`{"apiKey":"redacted","customer_name":"redacted","name":"Rex","password":"redacted","sessionToken":0}`,
			[]string{"$.apiKey", "$.customer_name", "$.password", "$.sessionToken"}},
		{"by form", `{"a": "jane@example.org", "b": "+44 20 7946 0958", "c": "4111 1111 1111 1111", "d": "10.1.2.3", "e": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz", "f": "kibble", "g": "12"}`,
			`{"a":"person@example.com","b":"+1-555-0100","c":"redacted","d":"redacted","e":"redacted","f":"kibble","g":"12"}`,
			[]string{"$.a", "$.b", "$.c", "$.d", "$.e"}},
		{"the run's key anywhere", `{"note": "sent the-run-key-0123456789 back"}`, `{"note":"redacted"}`, []string{"$.note"}},
		{"a long token", `["0123456789abcdef0123456789abcdef", "an ordinary sentence that is long enough to be one"]`,
			`["redacted","an ordinary sentence that is long enough to be one"]`, []string{"$[0]"}},
		{"arrays cut", `[{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}]`, `[{"id":1},{"id":2},{"id":3}]`, []string{"arrays cut to 3 items"}},
		{"nested", `{"orders": [{"shipping": {"street": "1 Main St", "country": "UK"}}]}`, `{"orders":[{"shipping":{"country":"UK","street":"redacted"}}]}`, []string{"$.orders[0].shipping.street"}},
		{"within a free text", `{"note": "call +1 (415) 555-2671 or 07700 900123, mail bob@corp.example, card 4111-1111-1111-1111, token sk_live_0123456789abcdefABCDEF0123456789"}`,
			`{"note":"call +1-555-0100 or +1-555-0100, mail person@example.com, card redacted, token redacted"}`, []string{"$.note"}},
		{"words that only look like data", `{"note": "shipped 2026-12-01 19:51:40, order 123456789, v1.2.3, see /images/2026/12/product-photo-large-blue-edition.jpg"}`,
			`{"note":"shipped 2026-12-01 19:51:40, order 123456789, v1.2.3, see /images/2026/12/product-photo-large-blue-edition.jpg"}`, nil},
		{"digits inside ids", `{"note": "see /orders/123e4567-e89b-12d3-a456-426614174000 and ORD-2024-000123456, call 020 7946 0958"}`,
			`{"note":"see /orders/123e4567-e89b-12d3-a456-426614174000 and ORD-2024-000123456, call +1-555-0100"}`, []string{"$.note"}},
		{"keys that are data", `{"jane@example.org": {"orders": 2}, "the-run-key-0123456789": 1, "kibble": 3}`,
			`{"kibble":3,"redacted-1":{"orders":2},"redacted-2":1}`, []string{"$.redacted-1 (a key)", "$.redacted-2 (a key)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, replaced, note := s.keepSample([]byte(tt.body))
			if note != "" {
				t.Fatalf("no sample: %s", note)
			}
			if string(got) != tt.want {
				t.Errorf("sample:\ngot  %s\nwant %s", got, tt.want)
			}
			if strings.Join(replaced, " ") != strings.Join(tt.replaced, " ") {
				t.Errorf("replaced: got %v, want %v", replaced, tt.replaced)
			}
			again, _, _ := s.keepSample(got)
			if string(again) != string(got) {
				t.Errorf("a sample of the sample differs: %s", again)
			}
		})
	}
	if _, _, note := s.keepSample([]byte("<html>")); note != "the body is not JSON" {
		t.Errorf("an HTML body: note %q", note)
	}
	big := `["` + strings.Repeat("x", 5000) + `", "` + strings.Repeat("y", 5000) + `"]`
	if got, _, note := s.keepSample([]byte(big)); note != "" || len(got) > maxSampleBytes {
		t.Errorf("a large body: %d bytes, note %q; want it cut to fit %d", len(got), note, maxSampleBytes)
	}
	huge := `{"a": "` + strings.Repeat("x", 9000) + `"}`
	if got, _, note := s.keepSample([]byte(huge)); got != nil || !strings.Contains(note, "larger than 8 KiB") {
		t.Errorf("a body whose sample cannot fit: %q, note %q", got, note)
	}
}

// TestNextLink reads the rel="next" target among RFC 8288 links.
func TestNextLink(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{`</v1/pets?cursor=abc>; rel="next"`}, "/v1/pets?cursor=abc"},
		{[]string{`<https://x/p?page=1>; rel="prev", <https://x/p?page=3>; rel="next"`}, "https://x/p?page=3"},
		{[]string{`</a>; rel=first`, `</b>; rel="next last"`}, "/b"},
		{[]string{`</a>; rel="prev"`}, ""},
		{[]string{`garbage`}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := nextLink(tt.values); got != tt.want {
			t.Errorf("nextLink(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
}

// TestLimitOutcome: the words of an out-of-range answer depend on what the
// deployment did, never on how many items it holds.
func TestLimitOutcome(t *testing.T) {
	tests := []struct {
		a    LimitAnswer
		want string
	}{
		{LimitAnswer{Status: 400, Code: "invalid_request", Bound: 1}, "rejected: 400 invalid_request"},
		{LimitAnswer{Status: 422, Bound: 100}, "rejected: 422"},
		{LimitAnswer{Status: 200, Items: 1, Bound: 1, Default: 20, Population: 150}, "clamped: 200 with at most 1 item"},
		{LimitAnswer{Status: 200, Items: 100, Bound: 100, Default: 20, Population: 150}, "clamped: 200 with at most 100 items"},
		{LimitAnswer{Status: 200, Items: 42, Bound: 100, Default: 20, Population: 42}, "clamped: 200 with at most 100 items"},
		{LimitAnswer{Status: 200, Items: 20, Bound: 100, Default: 20, Population: 150}, "ignored: 200 with the default page of 20 items"},
		{LimitAnswer{Status: 200, Items: 0, Bound: 1, Default: 20, Population: 150}, "accepted: 200 with 0 items"},
		{LimitAnswer{Status: 302, Bound: 1}, "answered 302"},
	}
	for _, tt := range tests {
		if got := tt.a.Outcome(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.a, got, tt.want)
		}
	}
}

// TestLatencySummary: nearest-rank percentiles, waits for 429s left out.
func TestLatencySummary(t *testing.T) {
	var exs []*Exchange
	for i := 1; i <= 10; i++ {
		exs = append(exs, &Exchange{Duration: time.Duration(i) * time.Millisecond})
	}
	exs = append(exs, &Exchange{Duration: time.Second, Waited: time.Second})
	l := latencyOf(exs)
	ms := time.Millisecond
	if l.N != 10 || l.Min != ms || l.P50 != 5*ms || l.P90 != 9*ms || l.P99 != 10*ms || l.Max != 10*ms {
		t.Errorf("got %+v, want n 10, min 1ms, p50 5ms, p90 9ms, p99 10ms, max 10ms", l)
	}
	if got := latencyOf(nil); got.N != 0 {
		t.Errorf("no answers: %+v", got)
	}
}

// TestBehavioursAlike: values compare exactly, latencies within the
// run's tolerance or half the larger median.
func TestBehavioursAlike(t *testing.T) {
	ms := time.Millisecond
	lat := func(d time.Duration) Behaviour { return Behaviour{Group: "latency", latency: d} }
	tests := []struct {
		a, b      Behaviour
		tolerance time.Duration
		want      bool
	}{
		{Behaviour{Value: "ascending"}, Behaviour{Value: "ascending"}, DefaultLatencyTolerance, true},
		{Behaviour{Value: "ascending"}, Behaviour{Value: "descending"}, time.Hour, false},
		{lat(1 * ms), lat(45 * ms), DefaultLatencyTolerance, true},
		{lat(1 * ms), lat(60 * ms), DefaultLatencyTolerance, false},
		{lat(200 * ms), lat(290 * ms), DefaultLatencyTolerance, true},
		{lat(200 * ms), lat(450 * ms), DefaultLatencyTolerance, false},
		// A busy machine's 66ms against a deployment's 1.65ms: noise to a
		// run that says so, a drift to one that does not.
		{lat(66 * ms), lat(1650 * time.Microsecond), 100 * ms, true},
		{lat(66 * ms), lat(1650 * time.Microsecond), 0, false},
		{lat(125 * ms), lat(1 * ms), 100 * ms, false},
		{lat(2 * ms), lat(3 * ms), 0, true},
	}
	for _, tt := range tests {
		if got := tt.a.Similar(tt.b, tt.tolerance); got != tt.want {
			t.Errorf("%v ~ %v within %s: %v, want %v", tt.a, tt.b, tt.tolerance, got, tt.want)
		}
	}
}

// TestAlwaysSent: a header counts when every answer of the operation has
// it, unless it is about the message or carries credentials (Deprecation
// counts: a deployment may send it or not, whatever the document says); a
// request id's value is not kept.
func TestAlwaysSent(t *testing.T) {
	s := &suite{client: newClient(&url.URL{Scheme: "http", Host: "x"}, keyOnly("k"), time.Second, time.Second, time.Second)}
	pr := &profiler{s: s}
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	exs := []*Exchange{
		{Header: h("X-RateLimit-Limit", "100", "X-Request-Id", "5f2a9c0e1b7d4a3e8f6c2b1a0d9e8f7c", "Date", "x", "X-Api-Token", "t", "X-Once", "1", "Deprecation", "@1")},
		{Header: h("X-RateLimit-Limit", "99", "X-Request-Id", "0a9c0e1b7d4a3e8f6c2b1a0d9e8f7c5f", "Date", "y", "X-Api-Token", "t", "Deprecation", "@1")},
	}
	op := petstoreOp(t, "getPet")
	got := pr.alwaysSent(op, exs)
	want := map[string]string{"Deprecation": "@1", "X-Ratelimit-Limit": "100", "X-Request-Id": "redacted"}
	b1, _ := json.Marshal(got)
	b2, _ := json.Marshal(want)
	if string(b1) != string(b2) {
		t.Errorf("got %s, want %s", b1, b2)
	}
}

// petstoreOp is an operation of the embedded Petstore.
func petstoreOp(t *testing.T, id string) *spec.Operation {
	t.Helper()
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operation(id)
	if op == nil {
		t.Fatalf("no operation %s", id)
	}
	return op
}

// TestDriftComparesHeaderValues: a header sent on every answer drifts by
// its value where it keeps one (the region that served it), not where it
// varies from answer to answer (the requests left); one sent by a single
// deployment is one difference, in the list of names.
func TestDriftComparesHeaderValues(t *testing.T) {
	drift := func(a, b []Header) []string {
		d := &DriftReport{A: DriftSide{Result: &Result{Profile: &Profile{Headers: a}}}, B: DriftSide{Result: &Result{Profile: &Profile{Headers: b}}}}
		d.compare()
		var out []string
		for _, diff := range d.Differences {
			out = append(out, diff.Group+" "+diff.Key+": "+diff.A+" | "+diff.B)
		}
		return out
	}
	staging := []Header{{Name: "X-Ratelimit-Remaining", Value: "42", Varies: true}, {Name: "X-Served-By", Value: "staging-eu-1"}}
	tests := []struct {
		name string
		mock []Header
		want []string
	}{
		{"alike: a varying value against a fixed one", []Header{{Name: "X-Ratelimit-Remaining", Value: "99"}, {Name: "X-Served-By", Value: "staging-eu-1"}}, nil},
		{"a fixed value changed", []Header{{Name: "X-Ratelimit-Remaining", Value: "99"}, {Name: "X-Served-By", Value: "staging-us-2"}},
			[]string{"headers on every answer: X-Served-By: staging-us-2 | staging-eu-1"}},
		{"a header not sent", []Header{{Name: "X-Served-By", Value: "staging-eu-1"}},
			[]string{"headers on every answer: X-Served-By | X-Ratelimit-Remaining, X-Served-By"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := drift(tt.mock, staging); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("differences:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}
