package store

import (
	"errors"
	"fmt"
)

// FullError says which store limit a change would pass; nothing of the
// change was kept.
type FullError struct {
	Key        string // the setting under store: maxRecords or maxBytes
	Collection string
	Unit       string // what is counted: "records", "bytes of record JSON"
	Would, Max int64  // what the collection would hold, and the limit
}

// Setting is the configuration key that raises the limit.
func (e *FullError) Setting() string { return "store." + e.Key }

// Reason says what the collection would hold and what the limit is.
func (e *FullError) Reason() string {
	return fmt.Sprintf("%s would hold %d %s, past the limit of %d", e.Collection, e.Would, e.Unit, e.Max)
}

// Error starts with the setting, which also says which limit it is.
func (e *FullError) Error() string { return e.Setting() + ": " + e.Reason() }

// ErrIDsExhausted says a create found no next id: the largest int64 is taken.
var ErrIDsExhausted = errors.New("no next id")

// ErrNoFreeID says a create found no free id among those the id's schema
// lets the server make (a pattern with few matches, an enum).
var ErrNoFreeID = errors.New("no free id")

// InvalidRecordError says the item schema refuses the record a create
// built: the document's create and item schemas disagree. Err says why, in
// the words of Check.Describe.
type InvalidRecordError struct{ Err error }

func (e *InvalidRecordError) Error() string { return "invalid record: " + e.Err.Error() }

// Unwrap returns why.
func (e *InvalidRecordError) Unwrap() error { return e.Err }

// Place locates a record in the fixtures: its file, its collection, and its
// index in that file's array of the collection's records.
type Place struct {
	File, Collection string
	Index            int
	// Stored says the record is in a journal's state, which File names
	// (Journal.Name), at Index in id order.
	Stored bool
}

func (p Place) String() string {
	if p.Stored {
		return fmt.Sprintf("%s: %s[%d]", p.File, p.Collection, p.Index)
	}
	return fmt.Sprintf("fixtures %s: %s[%d]", p.File, p.Collection, p.Index)
}

// RecordError says why a fixture record was refused.
type RecordError struct {
	Place
	// ID is the record's id when it was built and the item schema refused
	// it; "" when it was refused before.
	ID  string
	Err error
}

func (e *RecordError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("%v (id %s): %v", e.Place, e.ID, e.Err)
	}
	return fmt.Sprintf("%v: %v", e.Place, e.Err)
}

// Unwrap returns why.
func (e *RecordError) Unwrap() error { return e.Err }

// DuplicateError says a fixture record has an id that a record before it
// in the same collection has.
type DuplicateError struct {
	Place
	ID    string
	First Place // the earlier record
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%v: id %s is already used by %v", e.Place, e.ID, e.First)
}

// FileError says why a fixture file was refused as a whole: it is not an
// array of records nor an object that maps collections to arrays of them.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("fixtures %s: %v", e.File, e.Err) }

// Unwrap returns why.
func (e *FileError) Unwrap() error { return e.Err }

// ConflictError says the id a client chose is taken: another record
// under the same parent has it. Nothing was stored.
type ConflictError struct{ ID string }

func (e *ConflictError) Error() string { return "id " + e.ID + " is taken" }

// BatchError says which object of a batch create failed, and why; nothing
// of the batch was stored.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("item %d: %v", e.Index, e.Err) }

// Unwrap returns why.
func (e *BatchError) Unwrap() error { return e.Err }

// GenerateError says a collection's records could not be generated: a
// value its schema makes cannot be JSON (a number out of range). None of
// the collection's records were stored.
type GenerateError struct {
	Collection string
	Err        error
}

func (e *GenerateError) Error() string { return fmt.Sprintf("generate %s: %v", e.Collection, e.Err) }

// Unwrap returns why.
func (e *GenerateError) Unwrap() error { return e.Err }
