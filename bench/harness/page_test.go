package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCheckPage(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		wantErr    string
	}{
		{"right", `[{"status":"sold"},{"status":"sold"}]`, 200, ""},
		{"short", `[{"status":"sold"}]`, 200, "1 items, want 2"},
		{"another value", `[{"status":"sold"},{"status":"available"}]`, 200, `item 1 has status available`},
		{"not a list", `{"status":"sold"}`, 200, "200"},
		{"refused", `[]`, 401, "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer k" {
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			err := CheckPage(context.Background(), srv.URL+"/pets?status=sold&limit=2", http.Header{"Authorization": {"Bearer k"}}, 2, "status", "sold")
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

func TestSyncRate(t *testing.T) {
	dir := t.TempDir()
	got, err := SyncRate(dir, 20*time.Millisecond)
	if err != nil || got <= 0 {
		t.Errorf("SyncRate = %v, %v, want a positive rate", got, err)
	}
	if _, err := SyncRate(dir+"/absent", time.Millisecond); err == nil {
		t.Error("SyncRate in a folder that does not exist: no error")
	}
}
