package engine

import (
	"bytes"
	"encoding/json"
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
	CodeBodyRequired         Code = "body_required"
	CodeUnsupportedMediaType Code = "unsupported_media_type"
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
)

// codeStatus is the one table from code to HTTP status.
var codeStatus = map[Code]int{
	CodeRouteNotFound:        http.StatusNotFound,
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeUnauthorized:         http.StatusUnauthorized,
	CodeValidation:           http.StatusBadRequest,
	CodeMalformedJSON:        http.StatusBadRequest,
	CodeBodyRequired:         http.StatusBadRequest,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
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
	if s, ok := codeStatus[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Body is the API's Error body: {code, message, status}, status equal to the HTTP status.
func (e *Error) Body() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<API_KEY>" reads better than "\u003cAPI_KEY\u003e"
	err := enc.Encode(struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
		Status  int    `json:"status"`
	}{e.Code, e.Message, e.Status()})
	if err != nil { // cannot happen: strings and an int always marshal
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
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
