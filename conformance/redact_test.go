package conformance

import (
	"net/url"
	"testing"
	"time"
)

// TestRedactShortKey: a short key is replaced where it stands alone (sent
// or echoed as a value of its own), never inside a path, a file name or a
// longer word; a key of minKeyLength characters or more is replaced
// wherever it is.
func TestRedactShortKey(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:4010/v1")
	tests := []struct {
		key, in, want string
	}{
		{"pets", "GET http://127.0.0.1:4010/v1/pets/12 → 200", "GET http://127.0.0.1:4010/v1/pets/12 → 200"},
		{"pets", "listPets (GET /pets)", "listPets (GET /pets)"},
		{"pets", "embedded petstore.yaml", "embedded petstore.yaml"},
		{"pets", "my-pets pets_1 pets@example.com v1.pets pets.json", "my-pets pets_1 pets@example.com v1.pets pets.json"},
		{"pets", "Authorization: Bearer pets", "Authorization: Bearer $PETCTL_API_KEY"},
		{"pets", `WWW-Authenticate: Bearer realm="pets"`, `WWW-Authenticate: Bearer realm="$PETCTL_API_KEY"`},
		{"pets", "http://h/v1/pets?appid=pets&limit=1", "http://h/v1/pets?appid=$PETCTL_API_KEY&limit=1"},
		{"pets", "Cookie: sid=pets", "Cookie: sid=$PETCTL_API_KEY"},
		{"pets", `{"status":"pets"}`, `{"status":"$PETCTL_API_KEY"}`},
		{"pets", "pets", "$PETCTL_API_KEY"},
		{"pets", "unknown key pets.", "unknown key $PETCTL_API_KEY."},
		{"pets", "pets pets", "$PETCTL_API_KEY $PETCTL_API_KEY"},
		{"pets", "petspets", "petspets"},
		{"k&y", `{"echo":"k\u0026y"}`, `{"echo":"$PETCTL_API_KEY"}`},
		{"ключ", "ключ ключи", "$PETCTL_API_KEY ключи"},
		{"long-key-123", "/v1/xlong-key-123x", "/v1/x$PETCTL_API_KEYx"},
		{"long-key-123", "@1long-key-123", "@1$PETCTL_API_KEY"},
	}
	for _, tc := range tests {
		c := newClient(base, keyOnly(tc.key), time.Second, time.Second, time.Second)
		if got := c.redact(tc.in); got != tc.want {
			t.Errorf("key %q: redact(%q) = %q, want %q", tc.key, tc.in, got, tc.want)
		}
	}
}

// TestTrimPartialShortKey: text cut through what may be a short key loses
// that end; text cut inside a longer word keeps it.
func TestTrimPartialShortKey(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:4010/v1")
	tests := []struct {
		key, in, want string
	}{
		{"pets", `{"echo":"pe`, `{"echo":"`},
		{"pets", "GET /v1/pe", "GET /v1/pe"},
		{"pets", "carpe", "carpe"},
		{"long-key-123", "xxlong-ke", "xx"},
	}
	for _, tc := range tests {
		c := newClient(base, keyOnly(tc.key), time.Second, time.Second, time.Second)
		if got := c.trimPartialKey(tc.in); got != tc.want {
			t.Errorf("key %q: trimPartialKey(%q) = %q, want %q", tc.key, tc.in, got, tc.want)
		}
	}
}
