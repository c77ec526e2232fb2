package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
)

// TestProfileYAML: each recorded behaviour becomes its setting, read back
// as a configuration; what no setting can reproduce is said in the head.
func TestProfileYAML(t *testing.T) {
	ms := time.Millisecond
	p := &conformance.Profile{
		URL:        "https://staging.example.com/v1",
		RecordedAt: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC),
		Collections: []conformance.CollectionProfile{{
			Name: "pets", List: "listPets", Create: "createPet",
			OutOfRange: []conformance.LimitAnswer{
				{Param: "limit", Value: "0", Status: 422, Code: "limit_out_of_range", Bound: 1, Default: 20, Population: 30},
				{Param: "limit", Value: "101", Status: 422, Code: "limit_out_of_range", Bound: 100, Default: 20, Population: 30},
			},
			Order:      conformance.OrderOther,
			OrderSeen:  "30 items by id",
			Pagination: &conformance.Pagination{Style: "offset", Param: "offset", Next: "/v1/pets?limit=1&offset=1", Headers: []string{"Link", "X-Total-Count"}},
			Defaults:   []conformance.FieldDefault{{Field: "status", Value: json.RawMessage(`"available"`)}, {Field: "tag"}},
		}},
		Errors: []conformance.ErrorAnswer{
			{Condition: conformance.CondNoCredentials, Operation: "listPets", Status: 401, Code: "missing_token"},
			{Condition: conformance.CondWrongKey, Operation: "listPets", Status: 401, Code: "invalid_token"},
			{Condition: conformance.CondInvalidBody, Operation: "createPet", Status: 422, Code: "validation_failed"},
			{Condition: conformance.CondUnknownID, Operation: "getPet", Status: 404, Code: "not_found"},
		},
		Codes: map[int][]string{401: {"invalid_token", "missing_token"}, 404: {"not_found"}},
		Unpublished: []conformance.Answer{
			{Operation: "listStoreOrders", Method: "GET", Path: "/store/orders", Status: 200, ContentType: "application/vnd.orders+json", Body: json.RawMessage(`[{"id":7,"total":12.5,"email":"person@example.com"}]`), Replaced: []string{"$[0].email"}},
		},
		Headers: []conformance.Header{{Name: "X-Ratelimit-Limit", Value: "100"}},
		Operations: []conformance.OperationProfile{{ID: "getPet", Headers: []conformance.Header{{Name: "Cache-Control", Value: "max-age=60"}}, Latency: conformance.Latency{N: 9, Min: 12 * ms, P50: 20 * ms, P90: 40 * ms, P99: 90 * ms, Max: 95 * ms}}, {ID: "listPets", Latency: conformance.Latency{N: 9, Min: ms, P50: 2 * ms, P90: 3 * ms, P99: 3 * ms, Max: 3 * ms}},
			{ID: "createPet", Latency: conformance.Latency{N: 1, Min: 300 * ms, P50: 300 * ms, P90: 300 * ms, P99: 300 * ms, Max: 300 * ms}}},
		NotRecorded: []string{"pets: a create answered 500"},
	}
	data, err := ProfileYAML(p, "staging.profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	t.Logf("\n%s", text)
	for _, want := range []string{
		"outOfRangeLimit: reject",
		"pagination: cursor\n  cursorParam: offset",
		"status: available",
		"unauthorized: missing_token",
		"status: 200\n    headers:\n      Content-Type: application/vnd.orders+json",
		"total: 12.5",
		"X-Ratelimit-Limit: \"100\"",
		"Cache-Control: max-age=60",
		"getPet: 12ms..95ms (p50 20ms, p90 40ms, p99 90ms)",
		// what no setting reproduces
		"listPets refuses a limit out of range with 422; petctl refuses it with 400",
		"lists 30 items by id in neither ascending nor descending order",
		"sets offset to a number (offset)",
		"answers no credentials to listPets with code missing_token but a wrong key to listPets with invalid_token",
		"a body without a required field to createPet is answered 422; petctl answers it 400",
		"the deployment answers a body without a required field to createPet with code validation_failed but a page size out of range (limit) with limit_out_of_range",
		"- pets: a create answered 500",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile lacks %q", want)
		}
	}
	for _, unwanted := range []string{"tag:", "listPets: 1ms", "createPet: 300ms", "not_found:", "validation_failed: validation_failed"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the profile holds %q: absent fields, latencies petctl has by itself or measured once, and petctl's own codes are not settings", unwanted)
		}
	}
	// Read back as serve reads it: over a starter file that sets every default.
	dir := t.TempDir()
	file, profile := filepath.Join(dir, "petctl.yaml"), filepath.Join(dir, "staging.profile.yaml")
	if err := os.WriteFile(file, []byte("lists:\n  order: id\n  outOfRangeLimit: clamp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(profile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := LoadWithProfile(file, profile, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.Lists.OutOfRangeLimit != "reject" || c.Lists.Pagination != "cursor" || c.Lists.CursorParam != "offset" || c.ErrorCodes["unauthorized"] != "missing_token" ||
		c.Responses["listStoreOrders"].Status != 200 || c.Headers["getPet"]["Cache-Control"] != "max-age=60" || c.Latency["getPet"].String() != "12ms..95ms (p50 20ms, p90 40ms, p99 90ms)" {
		t.Errorf("read back: %+v", c)
	}
}

// TestEmptyProfileYAML: a profile with nothing to set is still a
// configuration file.
func TestEmptyProfileYAML(t *testing.T) {
	data, err := ProfileYAML(&conformance.Profile{URL: "http://x/v1"}, "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parse("p.yaml", data); err != nil {
		t.Errorf("%v:\n%s", err, data)
	}
}
