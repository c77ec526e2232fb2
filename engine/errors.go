package engine

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/petctl/petctl/spec"
)

// Code is a stable, machine-readable error code; docs/errors.md lists them all.
type Code string

// The codes petctl answers with. Their statuses are in codeStatus.
const (
	CodeRouteNotFound        Code = "route_not_found"
	CodeMethodNotAllowed     Code = "method_not_allowed"
	CodeUnauthorized         Code = "unauthorized"
	CodeValidation           Code = "validation_failed"
	CodeMalformedJSON        Code = "malformed_json"
	CodeMalformedForm        Code = "malformed_form"
	CodeBodyRequired         Code = "body_required"
	CodeUnsupportedMediaType Code = "unsupported_media_type"
	CodeNotAcceptable        Code = "not_acceptable"
	CodePayloadTooLarge      Code = "payload_too_large"
	CodeHeadersTooLarge      Code = "headers_too_large"
	CodeNotFound             Code = "not_found"
	CodeGone                 Code = "gone"
	CodeNotPublished         Code = "not_published"
	CodeNotImplemented       Code = "not_implemented"
	CodeOriginNotAllowed     Code = "origin_not_allowed"
	CodeResponseInvalid      Code = "response_invalid"
	CodeInternal             Code = "internal_error"
	CodeFaultInjected        Code = "fault_injected"
	CodeForbidden            Code = "forbidden"
	CodeIDsExhausted         Code = "ids_exhausted"
	CodeConflict             Code = "conflict"
	CodePreconditionFailed   Code = "precondition_failed"

	CodeUnsupportedContentEncoding Code = "unsupported_content_encoding"
	CodeMalformedContentEncoding   Code = "malformed_content_encoding"
	CodeStoreFull                  Code = "store_full"
	CodeStoreUnavailable           Code = "store_unavailable"
	CodeInsufficientScope          Code = "insufficient_scope"
	CodeSchemeUnsupported          Code = "security_scheme_unsupported"
)

// codeStatus is the one table from code to HTTP status.
var codeStatus = map[Code]int{
	CodeRouteNotFound:        http.StatusNotFound,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeUnauthorized:         http.StatusUnauthorized,
	CodeValidation:           http.StatusBadRequest,
	CodeMalformedJSON:        http.StatusBadRequest,
	CodeMalformedForm:        http.StatusBadRequest,
	CodeBodyRequired:         http.StatusBadRequest,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeNotAcceptable:        http.StatusNotAcceptable,
	CodePayloadTooLarge:      http.StatusRequestEntityTooLarge,
	CodeHeadersTooLarge:      http.StatusRequestHeaderFieldsTooLarge,
	CodeNotFound:             http.StatusNotFound,
	CodeGone:                 http.StatusGone,
	CodeNotPublished:         http.StatusNotImplemented,
	CodeNotImplemented:       http.StatusNotImplemented,
	CodeOriginNotAllowed:     http.StatusForbidden,
	CodeResponseInvalid:      http.StatusInternalServerError,
	CodeInternal:             http.StatusInternalServerError,
	CodeFaultInjected:        http.StatusServiceUnavailable, // the configured status, 503 unless set
	CodeForbidden:            http.StatusForbidden,
	CodeIDsExhausted:         http.StatusInsufficientStorage,
	CodeConflict:             http.StatusConflict,
	CodePreconditionFailed:   http.StatusPreconditionFailed,

	CodeUnsupportedContentEncoding: http.StatusUnsupportedMediaType,
	CodeMalformedContentEncoding:   http.StatusBadRequest,
	CodeStoreFull:                  http.StatusInsufficientStorage,
	CodeStoreUnavailable:           http.StatusServiceUnavailable,
	CodeInsufficientScope:          http.StatusForbidden,
	CodeSchemeUnsupported:          http.StatusNotImplemented,
}

// Codes returns every code the engine can answer with, for documentation checks.
func Codes() map[Code]int {
	out := make(map[Code]int, len(codeStatus))
	for c, s := range codeStatus {
		out[c] = s
	}
	return out
}

// Error is the engine's one error type: a code and a message for the client.
type Error struct {
	Code    Code
	Message string
	// status overrides the code's status (injected faults carry the
	// configured one).
	status int
	// renamed is petctl's code when Code is a configured one in its place
	// (errorCodes): the status is that code's.
	renamed Code
}

// Errorf builds an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if e.status != 0 {
		return e.status
	}
	code := e.Code
	if e.renamed != "" {
		code = e.renamed
	}
	if s, ok := codeStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Body is petctl's own error body {code, message, status}, status equal to
// the HTTP status: what the admin endpoints answer. Answers of the API are
// written in the document's format instead (see renderError).
func (e *Error) Body() []byte {
	own := spec.ErrorFormat{MediaType: spec.JSON}
	return own.Body(spec.ErrorFields{Status: e.Status(), Code: string(e.Code), Message: e.Message})
}

// statusUnder is the status e answers a request of op with: a request that
// breaks op's contract (every code of status 400) gets the status op
// declares for that, 400 or 422 (spec.Operation.ValidationStatus); any
// other error, and a status set by configuration, its own.
func (e *Error) statusUnder(op *spec.Operation) int {
	st := e.Status()
	if op != nil && e.status == 0 && st == http.StatusBadRequest {
		return op.ValidationStatus()
	}
	return st
}

// OptionError is one problem with the Options given to New, with the key
// of the configuration setting it is about, so that the configuration
// layer can say where that setting came from (a file line, a variable, a
// flag) by the key, never by reading the message. New joins them with
// errors.Join, one per problem.
type OptionError struct {
	// Key is the configuration key: "lists.cursorParam", "latency.getPet",
	// "cors.origins[2]", "store.maxRecords".
	Key string
	// Err says what is wrong, in words that follow the key.
	Err error
	// lead is what Error writes before Err: New's messages name the
	// section first ("latency: getPet: ..."), which callers that have no
	// configuration read.
	lead string
}

// Error is the problem as New words it: the section, then, unless Err
// names it itself, the entry ("latency: getPet: want 0 <= min <= max").
// An OptionError made outside the engine says Err alone.
func (e *OptionError) Error() string { return e.lead + e.Err.Error() }

func (e *OptionError) Unwrap() error { return e.Err }

// keyError is a problem with the value at key, worded "section: entry: ...".
func keyError(key, format string, args ...any) *OptionError {
	section, entry, _ := strings.Cut(key, ".")
	lead := section + ": "
	if entry != "" {
		lead += entry + ": "
	}
	return &OptionError{Key: key, Err: fmt.Errorf(format, args...), lead: lead}
}

// sectionError is a problem with key whose message names the entry itself
// ("latency: no operation "getPets""), worded "section: ...".
func sectionError(key, format string, args ...any) *OptionError {
	section, _, _ := strings.Cut(key, ".")
	return &OptionError{Key: key, Err: fmt.Errorf(format, args...), lead: section + ": "}
}

// wholeError is a problem with key whose message says everything itself:
// "fixtures pets.json: pets[0] (id 1): ...", "spec api.yaml: ...".
func wholeError(key string, err error) *OptionError {
	return &OptionError{Key: key, Err: err}
}

// describeProblems joins problems for a one-line message, trimmed to a readable length.
func describeProblems(ps spec.Problems) string {
	return truncate(strings.TrimSpace(ps.Error()), 600)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
