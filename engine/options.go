package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
	"golang.org/x/net/http/httpguts"
)

// Defaults for Options fields left zero; DefaultOptions gathers them with
// the others.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxHeaderBytes = 32 << 10
	// A request body petctl answers without reading to the end (over the
	// limit, refused before it was read) is read and discarded after the
	// answer for up to DefaultLingerBytes and DefaultLingerTime, then the
	// connection is closed; see linger.go.
	DefaultLingerBytes = 32 << 20
	DefaultLingerTime  = 5 * time.Second
)

// Options configure a Server.
type Options struct {
	Spec *spec.Spec // required
	// Keys are the development credentials, accepted by every security
	// scheme Auth does not restrict (see AuthOptions); OpenAuth accepts any
	// non-empty credential instead.
	Keys     []string
	OpenAuth bool
	// Auth gives schemes their own credentials and configures the
	// authorization server of oauth2 and openIdConnect schemes.
	Auth AuthOptions
	// Fixtures seed the store; see FixtureFile.
	Fixtures []FixtureFile
	// MaxBodyBytes bounds request bodies (413 beyond).
	MaxBodyBytes int64
	// MaxHeaderBytes bounds the request's header fields (431 beyond).
	MaxHeaderBytes int
	// Timeouts are the connection time-outs Serve should be given (see
	// Server.Timeouts); New holds injected latency below the write time-out.
	Timeouts Timeouts
	// Logger receives one line per request and start-up notes; nil discards them.
	Logger *slog.Logger
	// QuietRequests leaves out the line per request (log.requests: false);
	// warnings and errors are still logged, and /__petctl/requests still
	// lists the last requests.
	QuietRequests bool
	// LogBuffer, when Logger writes through one, lets the health endpoint
	// report how many log lines it dropped.
	LogBuffer *LogBuffer
	// Now is the clock; nil means time.Now.
	Now  func() time.Time
	CORS CORSOptions
	// Plain routes every request, record and response through
	// libopenapi-validator, with none of the speed-only second
	// implementations (the request memo and body plans, the record plans,
	// responses proved valid by construction; docs/performance.md): slower,
	// and the way to tell a suspected fast-path bug from a document
	// problem in one run. Tests run the whole engine suite both ways.
	Plain bool

	// Lists decide what the document leaves open about lists.
	Lists ListOptions
	// Defaults give a field of a new item a value when the create request
	// has none: collection name -> field -> JSON value. Each is checked
	// against the field's schema at start-up.
	Defaults map[string]map[string]json.RawMessage
	// Responses answer operations the store cannot serve (those whose
	// interface is not published): operationId -> response, checked against
	// the document at start-up.
	Responses map[string]Stub
	// Latency delays the answers of an operation (by operationId; "*" for
	// every operation without its own entry).
	Latency map[string]Delay
	// Faults make an operation fail at a rate (by operationId; "*" for every
	// operation without its own entry).
	Faults map[string]Fault
	// ErrorFields map the fields of the document's error schemas by
	// meaning (spec.ErrorMeanings) to a dot-separated path, for names
	// petctl cannot read (errors.fields; see spec.FieldMap). New sets them
	// on Spec.
	ErrorFields map[string]string
	// Headers are added to the answers of an operation (by operationId)
	// and, under "*", to every answer, where the answer has no such header
	// already: what a deployment always sends that the document does not
	// declare (see headers.go).
	Headers map[string]map[string]string
	// ErrorCodes send another code in place of one of petctl's (see
	// docs/errors.md): petctl's code -> the code sent.
	ErrorCodes map[string]string
	// Seed makes injected latency and faults, and generated records,
	// repeatable.
	Seed int64
	// Generate adds this many synthetic records to each collection, made
	// from its schema and Seed, after the fixtures.
	Generate int
	// AdminKey opens the admin endpoints (/__petctl/) to callers that are
	// not on loopback; without it they answer loopback only.
	AdminKey string
	// RequestLogSize is how many recent requests /__petctl/requests keeps.
	// NoRequestLog keeps none: a size of 0 means the default, as it does
	// for every field.
	RequestLogSize int
	NoRequestLog   bool
	// MaxImportBytes bounds a store import.
	MaxImportBytes int64
	// LingerBytes and LingerTime bound how much of an unread request body
	// is discarded after the answer, so that the client can read it.
	LingerBytes int64
	LingerTime  time.Duration
	// StoreMaxRecords and StoreMaxBytes (record JSON, as stored) cap each
	// collection: a create, import or fixture set beyond them is refused
	// whole.
	StoreMaxRecords int
	StoreMaxBytes   int64
	// State keeps the store's records beyond the process (a file, or a
	// Redis shared by replicas; see store.Journal); nil keeps them in
	// memory only. New attaches it once the fixtures are loaded: a state
	// that already holds records replaces them. The caller opens and
	// closes it.
	State store.Journal
	// StateReset starts State afresh from the fixtures, dropping what it holds.
	StateReset bool
	// Previous is the server this one replaces (a reload), frozen (see
	// Server.Freeze): without a State, New takes over its records, checked
	// again when the document changed.
	Previous *Server
	// Version numbers the configuration this server serves (1 at start,
	// one more per reload) and says when it was loaded; GET
	// /__petctl/health shows it with the document's digest.
	Version Version
	// Overrides replace what petctl infers about operations, by
	// operationId (crud.operations).
	Overrides map[string]spec.Override
	// Cascade deletes the items under an item when it is deleted; without
	// it they stay in the store, unreachable (crud.cascade).
	Cascade bool
}

// Version is which loaded configuration a server serves.
type Version struct {
	Number int       `json:"number"`
	Loaded time.Time `json:"loadedAt"`
}

// DefaultOptions are the engine's defaults, declared here once: New gives
// every limit, time-out and CORS setting left zero its value from here, and
// the configuration layer (config) starts from them, so that its defaults
// are these. The fields it leaves zero have no default: zero is their
// meaning (no keys, no fixtures, no injected latency).
func DefaultOptions() Options {
	return Options{
		MaxBodyBytes:   DefaultMaxBodyBytes,
		MaxHeaderBytes: DefaultMaxHeaderBytes,
		Timeouts:       defaultTimeouts(),
		CORS: CORSOptions{
			// Copies: a caller that changes its options changes no one else's.
			Origins:       slices.Clone(defaultCORSOrigins),
			ExposeHeaders: slices.Clone(defaultExposeHeaders),
			MaxAge:        DefaultCORSMaxAge,
		},
		RequestLogSize:  DefaultRequestLogSize,
		MaxImportBytes:  DefaultMaxImportBytes,
		LingerBytes:     DefaultLingerBytes,
		LingerTime:      DefaultLingerTime,
		StoreMaxRecords: DefaultStoreMaxRecords,
		StoreMaxBytes:   DefaultStoreMaxBytes,
		Auth:            AuthOptions{TokenLifetime: DefaultTokenLifetime},
	}
}

// ConfiguredOperations are the operationIds a setting names for what it
// answers: responses, latency, faults, headers ("*" is no operation's
// name). A HEAD among them is answered as itself, not as its GET
// (NewPlan).
func (o Options) ConfiguredOperations() map[string]bool {
	out := map[string]bool{}
	for _, ids := range [][]string{slices.Collect(maps.Keys(o.Responses)), slices.Collect(maps.Keys(o.Latency)), slices.Collect(maps.Keys(o.Faults)), slices.Collect(maps.Keys(o.Headers))} {
		for _, id := range ids {
			out[id] = true
		}
	}
	return out
}

// withDefaults gives every field that has a default and is left zero (or
// below zero, which no limit can be) its value from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	orDefault(&o.MaxBodyBytes, d.MaxBodyBytes)
	orDefault(&o.MaxHeaderBytes, d.MaxHeaderBytes)
	o.Timeouts = o.Timeouts.withDefaults()
	if o.CORS.Origins == nil { // an empty, non-nil list allows no origin
		o.CORS.Origins = d.CORS.Origins
	}
	if o.CORS.ExposeHeaders == nil {
		o.CORS.ExposeHeaders = d.CORS.ExposeHeaders
	}
	orDefault(&o.CORS.MaxAge, d.CORS.MaxAge)
	if o.RequestLogSize == 0 {
		o.RequestLogSize = d.RequestLogSize
	}
	orDefault(&o.MaxImportBytes, d.MaxImportBytes)
	orDefault(&o.LingerBytes, d.LingerBytes)
	orDefault(&o.LingerTime, d.LingerTime)
	orDefault(&o.StoreMaxRecords, d.StoreMaxRecords)
	orDefault(&o.StoreMaxBytes, d.StoreMaxBytes)
	orDefault(&o.Auth.TokenLifetime, d.Auth.TokenLifetime)
	return o
}

func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// ListOptions decide what the description leaves open about lists.
type ListOptions struct {
	// ClampLimit answers a page size outside its bounds with the nearest
	// bound instead of 400.
	ClampLimit bool
	// NewestFirst lists the newest items first instead of by id ascending.
	NewestFirst bool
	// CursorParam, when set, pages beyond the page size: a list that has
	// more items carries `Link: <...>; rel="next"` (RFC 8288) whose URL
	// repeats the query with this parameter set to an opaque cursor.
	CursorParam string
}

// Stub is a configured answer for an operation the store cannot serve.
type Stub struct {
	Status  int
	Headers map[string]string
	// Body is the JSON body; nil sends none.
	Body json.RawMessage
}

// Delay is a fixed latency (Min == Max) or a range to draw from: evenly,
// or shaped by Percentiles, so that a mock answers with the latency
// measured on a deployment (petctl conform --profile-out).
type Delay struct {
	Min, Max time.Duration
	// Percentiles, in increasing order, say that the share Q of answers
	// takes at most D; a delay is drawn along straight lines from Min (at
	// 0) through each point to Max (at 1).
	Percentiles []Percentile
}

// Percentile is one point of a latency distribution: the share Q (between
// 0 and 1) of answers that take at most D.
type Percentile struct {
	Q float64
	D time.Duration
}

// Fault makes an operation fail with Status at Rate (0..1).
type Fault struct {
	Rate   float64
	Status int
}

// AllOperations is the key of Latency and Faults that applies to every
// operation without an entry of its own.
const AllOperations = "*"

// checkOptions reports every option that does not fit the document or
// the server, at once, before anything listens: one *OptionError each. New
// has given o its defaults.
func (s *Server) checkOptions(o Options) error {
	var errs []error
	if p := o.Lists.CursorParam; p != "" {
		for _, r := range s.plan.Resources {
			if lo := r.Op(spec.KindList); lo != nil && lo.Op.Param("query", p) != nil {
				errs = append(errs, sectionError("lists.cursorParam", "cursor parameter %q is already a parameter of %s; choose another name", p, lo.Op.ID))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Defaults)) {
		c := s.colls[name]
		if c == nil {
			errs = append(errs, sectionError("defaults."+name, "no collection %q; the collections are %s", name, knownNames(s.colls)))
			continue
		}
		for _, field := range slices.Sorted(maps.Keys(o.Defaults[name])) {
			if err := s.checkDefault(c, field, o.Defaults[name][field]); err != nil {
				errs = append(errs, keyError("defaults."+name+"."+field, "%v", err))
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(o.Responses)) {
		errs = append(errs, s.checkStub(id, o.Responses[id])...)
	}
	for _, id := range slices.Sorted(maps.Keys(o.Latency)) {
		d, key := o.Latency[id], "latency."+id
		switch {
		case id != AllOperations && s.spec.Operation(id) == nil:
			errs = append(errs, sectionError(key, "no operation %q; the operations are %s", id, s.operationIDs()))
		case d.Min < 0 || d.Max < d.Min:
			errs = append(errs, keyError(key, "want 0 <= min <= max, got %s..%s", d.Min, d.Max))
		case d.Max > MaxInjectedLatency:
			errs = append(errs, keyError(key, "%s is longer than the limit of %s", d.Max, MaxInjectedLatency))
		case d.Max >= o.Timeouts.Write:
			errs = append(errs, keyError(key, "%s reaches the write time-out (server.timeouts.write %s): the answer would never arrive", d, o.Timeouts.Write))
		default:
			if why := d.checkPercentiles(); why != "" {
				errs = append(errs, keyError(key, "%s", why))
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(o.Faults)) {
		f, key := o.Faults[id], "faults."+id
		switch {
		case id != AllOperations && s.spec.Operation(id) == nil:
			errs = append(errs, sectionError(key, "no operation %q; the operations are %s", id, s.operationIDs()))
		case f.Rate < 0 || f.Rate > 1:
			errs = append(errs, keyError(key, "rate %g: want a number from 0 to 1", f.Rate))
		case f.Status != 0 && (f.Status < 400 || f.Status > 599):
			errs = append(errs, keyError(key, "status %d: want an error status, 400 to 599", f.Status))
		}
	}
	errs = append(errs, s.checkHeaders(o.Headers)...)
	errs = append(errs, s.checkErrorCodes(o.ErrorCodes)...)
	if o.Generate < 0 {
		// Worded "generate: ..." as it always was.
		errs = append(errs, &OptionError{Key: "fixtures.generate", Err: fmt.Errorf("%d: want 0 or more records", o.Generate), lead: "generate: "})
	}
	return errors.Join(errs...)
}

func (s *Server) operationIDs() string {
	ids := make([]string, 0, len(s.spec.Operations))
	for _, op := range s.spec.Operations {
		ids = append(ids, op.ID)
	}
	return strings.Join(ids, ", ")
}

// checkDefault proves a default can be given: the field is one the client
// may send, and the value is valid for it.
func (s *Server) checkDefault(c *collection, field string, raw json.RawMessage) error {
	def := c.def
	f := def.Item.Prop(field)
	if f == nil {
		props, _ := def.Item.Props()
		names := make([]string, len(props))
		for i, p := range props {
			names[i] = p.Name
		}
		return fmt.Errorf("the item schema has no field %q; its fields are %s", field, strings.Join(names, ", "))
	}
	if slices.Contains(def.Assigned, field) || f.ReadOnly {
		return fmt.Errorf("the server assigns %s; it cannot have a default", field)
	}
	if ps := s.val.Record(f, raw); len(ps) > 0 {
		return fmt.Errorf("%s is not a valid %s: %s", raw, field, describeProblems(ps))
	}
	if _, err := store.DecodeStrict(raw); err != nil {
		return err
	}
	if c.defaults == nil {
		c.defaults = map[string]json.RawMessage{}
	}
	c.defaults[field] = raw
	return nil
}

// checkStub proves a configured response is one the document allows and
// HTTP can carry, so it never becomes a 500, a hung client or a lie at
// request time. Each problem is one *OptionError at responses.<id>[.field].
// See docs/configuration.md.
func (s *Server) checkStub(id string, st Stub) []error {
	key := "responses." + id
	op := s.spec.Operation(id)
	if op == nil {
		return []error{keyError(key, "no such operation; the operations are %s", s.operationIDs())}
	}
	if o := s.ops[op]; o != nil && o.kind != kindUnpublished && o.kind != kindUnserved && o.kind != kindAction {
		return []error{keyError(key, "%s is served from the store; a configured response would hide it", op)}
	}
	switch {
	case st.Status >= 100 && st.Status <= 199:
		// RFC 9110 §15.2: 1xx are interim; net/http would send a final 200
		// after it, or (101) leave the client waiting for a protocol switch.
		return []error{keyError(key+".status", "%d: a 1xx status is an interim answer (RFC 9110 §15.2), never the final one; want 200 to 599", st.Status)}
	case st.Status < 200 || st.Status > 599:
		return []error{keyError(key+".status", "%d: want an HTTP status, 200 to 599", st.Status)}
	case !op.Declares(st.Status):
		return []error{keyError(key+".status", "%d is not declared for %s", st.Status, op)}
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, keyError(key+"."+field, format, args...))
	}
	res := &response{status: st.Status, op: op}
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(st.Headers)) {
		v := st.Headers[name]
		field := "headers." + name
		canon := http.CanonicalHeaderKey(name)
		switch {
		case !httpguts.ValidHeaderFieldName(name):
			bad(field, "%q is not a header name (RFC 9110 §5.1: letters, digits and !#$%%&'*+-.^_`|~)", name)
			continue
		case !httpguts.ValidHeaderFieldValue(v):
			bad(field, "the value holds a control character (a line break, NUL); HTTP cannot carry it")
			continue
		case seen[canon] != "":
			bad(field, "given twice (%s, %s): header names are case-insensitive", seen[canon], name)
			continue
		}
		seen[canon] = name
		if why := refusedHeader(canon); why != "" {
			bad(field, "%s", why)
			continue
		}
		res.set(name, v)
	}
	if st.Body != nil {
		res.body = bytes.TrimSpace(st.Body)
		if !json.Valid(res.body) {
			bad("body", "not JSON")
		}
		if res.header.Get("Content-Type") == "" {
			res.set("Content-Type", spec.JSON)
		}
	}
	switch st.Status {
	case http.StatusNoContent, http.StatusResetContent, http.StatusNotModified:
		// RFC 9110 §15.3.5, §15.3.6, §15.4.5; net/http drops such a body.
		if st.Body != nil {
			bad("body", "a %d answer has no content (RFC 9110); remove the body", st.Status)
		}
	}
	if st.Status >= 400 && len(errs) == 0 {
		errs = append(errs, s.checkStubError(id, st, res)...)
	}
	if len(errs) > 0 {
		return errs
	}
	path := s.spec.BasePath + op.Path
	for _, p := range op.Params {
		if p.In == "path" {
			path = strings.ReplaceAll(path, "{"+p.Name+"}", "1")
		}
	}
	r, err := http.NewRequest(op.Method, path, nil)
	if err != nil {
		return []error{keyError(key, "%v", err)}
	}
	if ps := s.val.Response(r, op, res.status, res.header, res.body); len(ps) > 0 {
		return []error{keyError(key, "the response does not match the document: %s", describeProblems(ps))}
	}
	s.ops[op].stub = res
	return nil
}

// checkStubError holds a configured 4xx or 5xx to the promise every other
// error keeps: the Error body, application/json, with status equal to the
// HTTP status, accepted by the document's error schema.
func (s *Server) checkStubError(id string, st Stub, res *response) []error {
	key := "responses." + id
	what := fmt.Sprintf("a %d answer is the Error body {code, message, status}", st.Status)
	if st.Body == nil {
		return []error{keyError(key+".body", "%s; give one", what)}
	}
	var errs []error
	if mt, _, err := mime.ParseMediaType(res.header.Get("Content-Type")); err != nil || !isJSONMediaType(mt) {
		name := "Content-Type"
		for k := range st.Headers {
			if http.CanonicalHeaderKey(k) == name {
				name = k
			}
		}
		errs = append(errs, keyError(key+".headers."+name, "a %d answer is the Error body, %s", st.Status, spec.JSON))
	}
	var reasons []string
	dec := json.NewDecoder(bytes.NewReader(res.body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		reasons = append(reasons, "want a JSON object")
	} else {
		if code, ok := m["code"].(string); !ok || code == "" {
			reasons = append(reasons, "code: want a non-empty string")
		}
		if _, ok := m["message"].(string); !ok {
			reasons = append(reasons, "message: want a string")
		}
		if n, ok := m["status"].(json.Number); !ok || n.String() != strconv.Itoa(st.Status) {
			reasons = append(reasons, fmt.Sprintf("status: want %d, the HTTP status", st.Status))
		}
	}
	if len(reasons) > 0 {
		errs = append(errs, keyError(key+".body", "%s: %s", what, strings.Join(reasons, "; ")))
	} else if ps := s.val.DocumentError(res.body); len(ps) > 0 {
		errs = append(errs, keyError(key+".body", "does not match the document's error schema: %s", describeProblems(ps)))
	}
	return errs
}

// refusedHeader says why a configured response may not set a header, or
// "" when it may. The list is in docs/configuration.md (responses).
func refusedHeader(canon string) string {
	switch canon {
	case "Content-Length", "Transfer-Encoding", "Trailer":
		return "a framing header: net/http writes the message's framing from the body; remove it"
	case "Connection", "Keep-Alive", "Proxy-Connection", "Te", "Upgrade":
		return "a hop-by-hop header (RFC 9110 §7.6.1): it is about the connection, which net/http manages; remove it"
	case "Content-Encoding":
		return "the body is sent as written, never encoded, so a content coding would make clients fail to decode it; remove it"
	}
	if strings.HasPrefix(canon, "Access-Control-") {
		return "the cors settings decide the Access-Control-* headers; a configured one would bypass them"
	}
	return ""
}
