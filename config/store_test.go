package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

// TestStoreLimitsReachTheEngine: store.maxRecords and store.maxBytes, from
// the file or the environment, bound the engine's store, and fixtures
// beyond them stop start-up with a problem located at the setting.
func TestStoreLimitsReachTheEngine(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	pets, err := fs.ReadFile(fixtures.Files, "petstore/pets.json") // 150 animals
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
		env  map[string]string
		want string // "" when start-up succeeds
	}{
		{"defaults", "", nil, ""},
		{"file, records", "seed: 1\nstore:\n  maxRecords: 10\n", nil, "petctl.yaml:3: store.maxRecords: pets would hold 150 records, past the limit of 10"},
		{"file, bytes", "store:\n  maxBytes: 1000\n", nil, "petctl.yaml:2: store.maxBytes: pets would hold"},
		{"environment, records", "", map[string]string{"PETCTL_STORE_MAX_RECORDS": "149"}, "PETCTL_STORE_MAX_RECORDS: store.maxRecords: pets would hold 150 records, past the limit of 149"},
		{"environment, bytes", "", map[string]string{"PETCTL_STORE_MAX_BYTES": "1000"}, "PETCTL_STORE_MAX_BYTES: store.maxBytes: pets would hold"},
		{"at the limit", "store:\n  maxRecords: 150\n", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "petctl.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Load(path, func(k string) string { return tc.env[k] })
			if err == nil {
				err = l.Check()
			}
			if err != nil {
				t.Fatal(err)
			}
			o, err := l.EngineOptions(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			o.Spec, o.Fixtures = s, []engine.FixtureFile{{Name: "pets.json", Data: pets}}
			_, err = engine.New(o)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want == "":
				return
			case err == nil:
				t.Fatal("New accepted fixtures past the limit")
			}
			got := l.Combine(nil, err).Error()
			got = strings.ReplaceAll(got, path, "petctl.yaml")
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestStoreSyncIsTheStoresModes: store.sync offers exactly the sync modes
// the state file has, in their order, and defaults to the engine's.
func TestStoreSyncIsTheStoresModes(t *testing.T) {
	field, ok := reflect.TypeOf(Store{}).FieldByName("Sync")
	if !ok {
		t.Fatal("no Store.Sync")
	}
	var modes []string
	for _, m := range store.SyncModes {
		modes = append(modes, string(m))
	}
	if got, want := field.Tag.Get("enum"), strings.Join(modes, ","); got != want {
		t.Errorf("store.sync's enum is %q, want store.SyncModes %q", got, want)
	}
	if got, want := Default().Store.Sync, string(engine.DefaultStoreSync); got != want {
		t.Errorf("store.sync defaults to %q, want %q", got, want)
	}
}
