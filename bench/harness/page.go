package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// CheckPage makes sure a measured page is what it claims before it is
// loaded: GET url with header answers 200 with a JSON array of exactly n
// objects whose field is value (`?status=sold&limit=100`: 100 sold animals).
func CheckPage(ctx context.Context, url string, header http.Header, n int, field, value string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var items []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&items); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %d, %v", url, resp.StatusCode, err)
	}
	if len(items) != n {
		return fmt.Errorf("GET %s: %d items, want %d", url, len(items), n)
	}
	for i, it := range items {
		if it[field] != value {
			return fmt.Errorf("GET %s: item %d has %s %v, want %q", url, i, field, it[field], value)
		}
	}
	return nil
}
