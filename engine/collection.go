package engine

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// Defaults of the store's limits, per collection, when Options leave them zero.
const (
	DefaultStoreMaxRecords       = 1_000_000
	DefaultStoreMaxBytes   int64 = 512 << 20
)

// Defaults of where the records are kept (store.backend, store.path,
// store.sync, store.syncInterval): a state file under the working
// directory, every change on the disk before it is answered.
const (
	DefaultStoreBackend      = "file"
	DefaultStatePath         = ".petctl/state"
	DefaultStoreSync         = store.SyncAlways
	DefaultStoreSyncInterval = time.Second
)

// StatePathFor is the default state file of the document at spec ("" for
// the embedded Petstore): DefaultStatePath for the Petstore, and for any
// other document a file of its own beside it under .petctl, named after
// the document and a hash of its absolute path. A state is made for one
// document and refuses another, so trying petctl on several documents in
// one folder must not make them share one file; two entry files named
// openapi.yaml in different folders get different files.
func StatePathFor(spec string) string {
	if spec == "" {
		return DefaultStatePath
	}
	abs, err := filepath.Abs(spec)
	if err != nil {
		abs = spec
	}
	sum := sha256.Sum256([]byte(abs))
	stem := strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
	return filepath.Join(filepath.Dir(DefaultStatePath), fmt.Sprintf("%s-%x.state", stem, sum[:4]))
}

// NoState is the store.path that keeps the records in memory only.
const NoState = "none"

// FixtureFile is seed data for the store; see store.FixtureFile.
type FixtureFile = store.FixtureFile

// collection is what the engine keeps of one spec.Resource: its records,
// in the store, and what answering for it over HTTP needs beside them.
type collection struct {
	def  *spec.Resource
	data *store.Collection
	// schema is the item schema compiled exactly as the response validator
	// compiles it, on the first record (nil when it cannot be), which
	// records are held to; proveComposition compares response schemas
	// with its hash.
	schema *spec.ResponseSchema
	// defaults are values for fields a create request leaves out, checked
	// at start-up and decoded afresh for each record.
	defaults map[string]json.RawMessage
	// parent is the collection of the resource's parent, nil at the top;
	// children are the collections whose parent this is, for a cascade.
	parent   *collection
	children []*collection
	// writeOnly is set when the item has writeOnly properties: answers
	// leave them out, so a record is never sent as it is stored.
	writeOnly bool
	// served says whether operations on the resource use the store, and
	// why not when they do not (see servable).
	served bool
	why    string
}

// servable says whether a resource's operations can be served from the
// store, and why not: a collection needs an id for its items (a field, or
// the path alone), and an item schema the store can keep.
func servable(r *spec.Resource) (bool, string) {
	switch {
	case r.Singleton:
		return true, ""
	case r.ItemPath == "" && r.IDField == "" && !r.HiddenID:
		return true, "" // a collection without item operations: create and list
	case r.IDField == "" && !r.HiddenID:
		return false, "no id field could be inferred for its items (set crud.operations.<operationId>.idField)"
	case r.ID.Type != "" && r.ID.Type != "integer" && r.ID.Type != "string" && r.ID.Type != "number":
		return false, "its id has type " + r.ID.Type + "; petctl keeps integer, number and string ids"
	}
	return true, ""
}

// describeRecord says why def's item schema refuses a record: in the
// validator's words, or the compiled schema's when the validator finds
// nothing (see store.Check).
func (s *Server) describeRecord(def *spec.Resource) func(raw []byte, compiled error) error {
	return func(raw []byte, compiled error) error {
		ps := s.val.Record(def.Item, raw)
		if len(ps) == 0 {
			if compiled == nil || errors.Is(compiled, spec.ErrNotCompiled) {
				return nil // the validator alone decides
			}
			ps = spec.Problems{{Reason: compiled.Error()}}
		}
		return errors.New(describeProblems(ps))
	}
}

// knownNames lists the collections for a message.
func knownNames(colls map[string]*collection) string {
	return store.QuoteNames(slices.Collect(maps.Keys(colls)))
}

// usesWriteOnly reports whether a schema, or one inside it, has a
// writeOnly property: then no answer may carry the record as stored.
func usesWriteOnly(s *spec.Schema) bool {
	seen := map[*spec.Schema]bool{}
	var walk func(*spec.Schema) bool
	walk = func(s *spec.Schema) bool {
		if s == nil || seen[s] {
			return false
		}
		seen[s] = true
		if s.WriteOnly {
			return true
		}
		props, _ := s.Props()
		for _, p := range props {
			if walk(p.Schema) {
				return true
			}
		}
		for _, group := range [][]*spec.Schema{s.OneOf, s.AnyOf} {
			for _, sub := range group {
				if walk(sub) {
					return true
				}
			}
		}
		return walk(s.Items) || walk(s.AdditionalProperties)
	}
	return walk(s)
}
