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

// InvalidRecordError says the item schema refuses the record a create
// built: the document's create and item schemas disagree. Err says why, in
// the words of Check.Describe.
type InvalidRecordError struct{ Err error }

func (e *InvalidRecordError) Error() string { return "invalid record: " + e.Err.Error() }

// Unwrap returns why.
func (e *InvalidRecordError) Unwrap() error { return e.Err }
