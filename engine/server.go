// Package engine serves an OpenAPI document as a stateful, validating HTTP
// server: collections inferred from the paths, an in-memory store seeded
// from fixtures, every OpenAPI security scheme enforced (petctl is the
// authorization server of oauth2 and openIdConnect schemes), and every request and every response
// checked against the document.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
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
	// RevalidateResponses validates every response with libopenapi-validator,
	// even those start-up proved valid by construction (slower; see
	// docs/performance.md).
	RevalidateResponses bool

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
	}
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
	return o
}

func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Server is an http.Handler that serves a document. It is safe for concurrent use.
type Server struct {
	spec        *spec.Spec
	val         *spec.Validator
	router      *router
	auth        *authenticator
	ops         map[*spec.Operation]*operation
	colls       map[string]*collection
	data        *store.Store // the records of colls
	errorSchema *base.Schema
	log         *slog.Logger
	quiet       bool // no line per request
	logBuffer   *LogBuffer
	now         func() time.Time
	maxBody     int64
	maxHeader   int
	timeouts    Timeouts
	cors        *cors
	revalidate  bool
	lists       ListOptions
	dice        *dice
	adminKey    []byte // sha256 of the admin key; nil without one
	reqlog      *requestLog
	maxImport   int64
	lingerBytes int64
	lingerTime  time.Duration
	maxRecords  int
	maxBytes    int64
	// keyParams are the query parameters always redacted in logs;
	// keyHeaders and keyCookies carry keys too (see keyNames and scrub).
	keyParams              []string
	keyHeaders, keyCookies []string
}

// opKind is what the engine does for an operation.
type opKind int

const (
	kindUnserved opKind = iota
	kindList
	kindCreate
	kindRead
	kindUnpublished
)

// operation is the runtime of one spec.Operation, prepared at start-up.
type operation struct {
	op   *spec.Operation
	kind opKind
	coll *collection
	// headers are added to every response of the operation (deprecation).
	headers [][2]string
	// scalarQuery are the query parameters that take one value.
	scalarQuery []string
	// proven is set when start-up proved that every success response the
	// operation builds from stored records matches the document (see
	// proveComposition); checkResponse then has nothing left to check.
	proven bool
	// stub is the configured answer of an operation the store cannot serve.
	stub *response
	// delay and fault are what Latency and Faults inject; nil for none.
	delay *Delay
	fault *Fault
}

// New prepares a Server: it compiles the validator, infers the collections
// and loads the fixtures. Every problem is reported before anything listens.
func New(o Options) (*Server, error) {
	if o.Spec == nil {
		return nil, errors.New("engine: no spec")
	}
	o = o.withDefaults()
	s := &Server{
		spec:        o.Spec,
		router:      newRouter(o.Spec),
		ops:         map[*spec.Operation]*operation{},
		colls:       map[string]*collection{},
		log:         o.Logger,
		quiet:       o.QuietRequests,
		logBuffer:   o.LogBuffer,
		now:         o.Now,
		maxBody:     o.MaxBodyBytes,
		maxHeader:   o.MaxHeaderBytes,
		timeouts:    o.Timeouts,
		revalidate:  o.RevalidateResponses,
		lists:       o.Lists,
		dice:        newDice(o.Seed),
		maxImport:   o.MaxImportBytes,
		lingerBytes: o.LingerBytes,
		lingerTime:  o.LingerTime,
		maxRecords:  o.StoreMaxRecords,
		maxBytes:    o.StoreMaxBytes,
	}
	if !o.NoRequestLog {
		s.reqlog = newRequestLog(o.RequestLogSize)
	}
	s.keyParams, s.keyHeaders, s.keyCookies = keyNames(o.Spec)
	if o.AdminKey != "" {
		sum := sha256.Sum256([]byte(o.AdminKey))
		s.adminKey = sum[:]
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	// Every problem with the options is gathered and reported at once; only
	// a document that cannot be compiled stops the checks early.
	var errs []error
	var err error
	if s.cors, err = newCORS(o.CORS); err != nil {
		errs = append(errs, err)
	}
	if s.val, err = o.Spec.NewValidator(); err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	if s.auth, err = newAuthenticator(o, s.router, s.now, s.log); err != nil {
		errs = append(errs, err)
	}
	if err := s.checkErrorSchema(); err != nil {
		errs = append(errs, wholeError("spec", err))
	}
	for _, r := range s.router.routes {
		if strings.HasPrefix(s.spec.BasePath+r.template+"/", AdminPrefix) {
			errs = append(errs, wholeError("spec", fmt.Errorf("spec %s: path %s%s is under %s, which petctl reserves for its admin endpoints", s.spec.Source, s.spec.BasePath, r.template, AdminPrefix)))
		}
	}
	s.prepareOperations()
	if err := s.checkOptions(o); err != nil {
		errs = append(errs, err)
	}
	files := o.Fixtures
	if o.Generate > s.maxRecords {
		// Refused before a single record is made: generating them first
		// could take minutes and gigabytes.
		errs = append(errs, keyError("store.maxRecords", "fixtures.generate adds %d records to every collection, past the limit of %d: raise store.maxRecords, or generate fewer", o.Generate, s.maxRecords))
	} else if o.Generate > 0 {
		gen, err := s.data.Generate(o.Generate, o.Seed)
		if err != nil {
			errs = append(errs, wholeError("fixtures.generate", err))
		} else {
			files = append(slices.Clip(files), gen)
		}
	}
	// The fixtures are checked even when an option is wrong, so that a bad
	// record is reported with the rest.
	if err := s.loadFixtures(files); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.assignInjections(o.Latency, o.Faults)
	return s, nil
}

// checkErrorSchema proves at start-up that the document's error schema
// accepts the body every petctl error has, so an error answer can never be
// the response that fails validation.
func (s *Server) checkErrorSchema() error {
	s.errorSchema = s.spec.ErrorSchema()
	if s.errorSchema == nil {
		return nil
	}
	sample := Errorf(CodeInternal, "sample").Body()
	if ps := s.val.Schema(s.errorSchema, sample); len(ps) > 0 {
		return fmt.Errorf("spec %s: its error schema does not accept petctl's error body {code, message, status}: %s", s.spec.Source, describeProblems(ps))
	}
	return nil
}

func (s *Server) prepareOperations() {
	var data []*store.Collection
	for _, def := range s.spec.Collections {
		compiled, err := s.val.CompileResponseSchema(def.ItemSchema)
		if err != nil {
			s.log.Warn("item schema not compiled; records are validated the slow way", "collection", def.Name, "error", err.Error())
			compiled = nil
		}
		c := &collection{def: def, schema: compiled}
		c.data = store.NewCollection(def, store.Check{Compiled: compiled, Describe: s.describeRecord(def)},
			store.Limits{MaxRecords: s.maxRecords, MaxBytes: s.maxBytes})
		s.colls[def.Name] = c
		data = append(data, c.data)
		for _, n := range def.Notes {
			s.log.Warn("collection", "note", n)
		}
	}
	s.data = store.New(data...)
	for _, op := range s.spec.Operations {
		o := &operation{op: op}
		for _, def := range s.spec.Collections {
			switch op {
			case def.List:
				o.kind, o.coll = kindList, s.colls[def.Name]
			case def.Create:
				o.kind, o.coll = kindCreate, s.colls[def.Name]
			case def.Read:
				o.kind, o.coll = kindRead, s.colls[def.Name]
			}
		}
		if op.Unpublished {
			o.kind = kindUnpublished
		}
		if o.kind == kindUnserved {
			s.log.Warn("operation not served", "operation", op.String(), "reason", "no collection behaviour could be inferred from its path and schemas")
		}
		for _, p := range op.Params {
			if p.In == "query" && spec.SchemaType(p.Schema) != "array" && spec.SchemaType(p.Schema) != "object" {
				o.scalarQuery = append(o.scalarQuery, p.Name)
			}
		}
		o.headers = s.deprecationHeaders(op)
		if o.coll != nil && !s.revalidate {
			o.proven = proveComposition(o)
		}
		s.ops[op] = o
	}
}

// deprecationHeaders are RFC 9745 Deprecation, RFC 8594 Sunset and a Link to
// the replacement, all taken from the document.
func (s *Server) deprecationHeaders(op *spec.Operation) [][2]string {
	if !op.Deprecated {
		return nil
	}
	at := op.DeprecatedAt
	if at.IsZero() {
		// The document does not say since when; the operation is deprecated
		// now at the latest.
		at = s.now().UTC().Truncate(24 * time.Hour)
		s.log.Warn("deprecated operation without x-deprecated-at", "operation", op.String(), "deprecation", at.Format(time.DateOnly))
	}
	h := [][2]string{{"Deprecation", "@" + strconv.FormatInt(at.Unix(), 10)}}
	if !op.Sunset.IsZero() {
		h = append(h, [2]string{"Sunset", op.Sunset.UTC().Format(http.TimeFormat)})
	}
	if r := op.Replacement; r != nil {
		if rep := s.spec.Operation(r.OperationID); rep != nil {
			link := fmt.Sprintf("<%s%s>; rel=\"successor-version\"", s.spec.BasePath, rep.Path)
			if r.Description != "" {
				link += fmt.Sprintf("; title=%q", r.Description)
			}
			h = append(h, [2]string{"Link", link})
		}
	}
	return h
}

// loadFixtures stores the fixtures' records, which become what Reset
// returns to. A problem is an *OptionError at fixtures.files, or at the
// store limit the records would pass.
func (s *Server) loadFixtures(files []FixtureFile) error {
	fx, err := s.data.Parse(files, nil)
	if err != nil {
		return wholeError("fixtures.files", err)
	}
	errs := s.data.Load(fx, s.now())
	for i, err := range errs {
		var full *store.FullError
		if errors.As(err, &full) {
			// At the setting, so that the configuration layer names where
			// it came from.
			errs[i] = keyError(full.Setting(), "%s: the fixtures and generated records must fit; raise %s, or load fewer", full.Reason(), full.Setting())
		} else {
			errs[i] = wholeError("fixtures.files", err) // one line per bad record
		}
	}
	return errors.Join(errs...)
}

// Collections returns the names of the served collections and their sizes.
func (s *Server) Collections() map[string]int { return s.data.Sizes() }

// Timeouts returns the connection time-outs of the options, defaults
// filled: give them to Serve.
func (s *Server) Timeouts() Timeouts { return s.timeouts }

// Spec returns the document the server serves.
func (s *Server) Spec() *spec.Spec { return s.spec }

// response is what a request gets, built before anything is written so it
// can be validated first.
type response struct {
	status int
	header http.Header
	body   []byte
	op     *spec.Operation
	// items, when not nil, is the body instead: a JSON array of these
	// encoded records (a list answer), written as it is composed (see
	// writeArray). checkResponse joins them into body when the answer must
	// be validated, so only a proven answer leaves as items.
	items [][]byte
	// proven marks a body built from stored records under an operation
	// whose composition start-up proved valid.
	proven bool
	// for the log
	problem string
	auth    authFailure
	// notes say what configuration changed (clamped limit, injected fault).
	notes []string
	// check is what response validation concluded, for the request log;
	// badResponse is set when it found a violation.
	check       string
	badResponse bool
	// bodyCut is set when the request body was read in part: the client
	// was sending it, and the rest may be on its way.
	bodyCut bool
}

func errorResponse(e *Error) *response {
	res := &response{status: e.Status(), body: e.Body(), problem: e.Message}
	if e.Code == CodeUnsupportedContentEncoding {
		res.set("Accept-Encoding", acceptEncoding)
	}
	return res
}

func jsonResponse(status int, body []byte) *response {
	return &response{status: status, body: body}
}

// hasBody reports whether the response has content.
func (res *response) hasBody() bool { return res.body != nil || res.items != nil }

// size is the length of the content in bytes.
func (res *response) size() int {
	if res.items != nil {
		return arrayLen(res.items)
	}
	return len(res.body)
}

// writeBody writes the content.
func (res *response) writeBody(w io.Writer) {
	if res.items != nil {
		_ = writeArray(w, res.items)
		return
	}
	if res.body != nil {
		_, _ = w.Write(res.body)
	}
}

func (res *response) set(k, v string) {
	if res.header == nil {
		res.header = http.Header{}
	}
	res.header.Set(k, v)
}

// ServeHTTP routes, authenticates, validates, handles, validates the
// response and writes it; then logs one line.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.auth.serves(r.URL.Path) { // the token endpoint, JWKS and discovery
		s.serveOAuth(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, AdminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	start := time.Now()
	body := r.Body // what is left of it may need reading after the answer
	// RFC 9110 §9.3.2: HEAD is GET without the content. Where the document
	// declares GET and no HEAD, the GET answers, validated as the GET; the
	// body is left out below.
	req := r
	if r.Method == http.MethodHead {
		if rt, _, ok := s.router.match(r.URL.EscapedPath()); ok && rt.headAsGet() {
			req = r.WithContext(r.Context())
			req.Method = http.MethodGet
		}
	}
	res := s.safeHandle(req)
	if res.hasBody() && res.header.Get("Content-Type") == "" {
		res.set("Content-Type", spec.JSON)
	}
	s.checkResponse(req, res)
	s.cors.decorate(req, res)
	if res.op != nil {
		if d, waited := s.wait(r.Context(), s.ops[res.op]); waited == d && d > 0 {
			res.notes = append(res.notes, "latency "+d.Round(time.Millisecond).String()+" injected")
		} else if d > 0 {
			res.notes = append(res.notes, "latency "+d.Round(time.Millisecond).String()+" injected, cut short after "+waited.Round(time.Millisecond).String())
		}
	}
	h := w.Header()
	for k, v := range res.header {
		h[k] = v
	}
	if res.hasBody() {
		h.Set("Content-Length", strconv.Itoa(res.size()))
	}
	_, whole := req.Body.(wholeBody)
	left := unreadBody(r, whole, res.bodyCut)
	var rc *http.ResponseController
	if left != leftNothing {
		h.Set("Connection", "close")
		rc = http.NewResponseController(w)
		if left == leftLinger {
			_ = rc.EnableFullDuplex() // the body is read after the answer
		}
	}
	w.WriteHeader(res.status)
	if r.Method != http.MethodHead {
		res.writeBody(w)
	}
	s.logRequest(r, res, time.Since(start))
	switch left {
	case leftWaiting:
		closeNow(rc)
	case leftLinger:
		s.linger(r.Context(), rc, body)
	}
}

func (s *Server) safeHandle(r *http.Request) (res *response) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			res = errorResponse(Errorf(CodeInternal, "petctl failed while answering this request; the server log has the details"))
		}
	}()
	return s.handle(r)
}

// checkResponse validates res against the document before it leaves. A
// response that fails is petctl's bug: the client gets a 500 that says so
// and the log names the violation.
func (s *Server) checkResponse(r *http.Request, res *response) {
	var ps spec.Problems
	if res.proven {
		res.check = "valid by construction"
		return
	}
	if res.items != nil {
		// Only what start-up proved may leave as it is composed; anything
		// else is built whole and validated like every other answer.
		res.body, res.items = joinArray(res.items), nil
	}
	switch {
	case res.op != nil && res.op.Declares(res.status):
		ps = s.val.Response(r, res.op, res.status, res.header, res.body)
	case res.status >= 400:
		// Answers outside an operation's contract (no route, 405, 413, 415,
		// 431) are still the API's Error body.
		ps = s.val.Schema(s.errorSchema, res.body)
	case res.status == http.StatusNoContent && res.body == nil:
		// OPTIONS and CORS preflight answers have no body to validate.
	default:
		ps = spec.Problems{{Where: "status", Reason: fmt.Sprintf("%d is not declared", res.status)}}
	}
	if len(ps) == 0 {
		res.check = "valid"
		return
	}
	violation := describeProblems(ps)
	s.log.Error("response failed validation", "method", r.Method, "path", r.URL.Path, "status", res.status, "violation", violation)
	keep := res.header
	*res = *errorResponse(Errorf(CodeResponseInvalid, "petctl produced a %d response that does not match the document (%s); this is a petctl bug", res.status, violation))
	for _, k := range []string{"Deprecation", "Sunset", "Link"} {
		if v := keep.Get(k); v != "" {
			res.set(k, v)
		}
	}
	res.set("Content-Type", spec.JSON)
	res.check = violation
	res.badResponse = true
}

func (s *Server) logRequest(r *http.Request, res *response, latency time.Duration) {
	query := redactQuery(r.URL.RawQuery, s.keyParams)
	level := slog.LevelInfo
	if res.status == http.StatusInternalServerError {
		level = slog.LevelError
	}
	// Attributes are built only for a line that will be written: boxing
	// them costs allocations on every request otherwise.
	ctx := context.Background()
	if !s.quiet && s.log.Enabled(ctx, level) {
		attrs := make([]slog.Attr, 0, 10)
		attrs = append(attrs,
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", res.status),
			slog.String("latency", latency.Round(time.Microsecond).String()),
			slog.Int("bytes", res.size()),
		)
		if query != "" {
			attrs = append(attrs, slog.String("query", query))
		}
		if res.op != nil {
			attrs = append(attrs, slog.String("operation", res.op.ID))
		}
		if res.auth != "" {
			attrs = append(attrs, slog.String("auth", string(res.auth)))
		}
		if res.problem != "" && res.status >= 400 {
			attrs = append(attrs, slog.String("problem", res.problem))
		}
		if len(res.notes) > 0 {
			attrs = append(attrs, slog.String("notes", strings.Join(res.notes, "; ")))
		}
		s.log.LogAttrs(ctx, level, "request", attrs...)
	}
	if s.reqlog != nil {
		e := LoggedRequest{
			Time:      time.Now().UTC(),
			Method:    r.Method,
			Path:      truncate(r.URL.Path, 512),
			Query:     query,
			Status:    res.status,
			LatencyUS: latency.Microseconds(),
			Request:   "valid",
			Response:  res.check,
			Notes:     res.notes,
			Auth:      string(res.auth),
		}
		if res.op != nil {
			e.Operation = res.op.ID
		}
		if res.status >= 400 && res.problem != "" && !res.badResponse {
			e.Request = res.problem
		}
		s.reqlog.add(e)
	}
}

// keyNames are where requests carry API keys by the document's own word.
// params are the lower-cased names of every apiKey scheme, whatever its
// place, so that a key put in the query by mistake is not logged either;
// headers are Authorization and the apiKey header names; cookies the
// apiKey cookie names.
func keyNames(s *spec.Spec) (params, headers, cookies []string) {
	headers = []string{"Authorization"}
	for _, sc := range s.SecuritySchemes {
		if sc == nil || !strings.EqualFold(sc.Type, "apiKey") || sc.Name == "" {
			continue
		}
		if n := strings.ToLower(sc.Name); !slices.Contains(params, n) {
			params = append(params, n)
		}
		switch sc.In {
		case "header":
			headers = append(headers, sc.Name)
		case "cookie":
			cookies = append(cookies, sc.Name)
		}
	}
	slices.Sort(params)
	return params, headers, cookies
}

// scrub replaces in msg every credential r carries by REDACTED: a document
// that also declares its key parameter, with a pattern, gets a validation
// message that quotes the key, and the message goes to the client and the
// logs. Quoted values are always replaced; bare ones from 4 bytes on, so
// that a one-character token does not mangle the message.
func (s *Server) scrub(r *http.Request, msg string) string {
	var vals []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			vals = append(vals, v)
		}
	}
	for _, h := range s.keyHeaders {
		for _, v := range r.Header.Values(h) {
			add(v)
			if _, token, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(token)
			}
		}
	}
	for _, c := range s.keyCookies {
		for _, ck := range r.CookiesNamed(c) {
			add(ck.Value)
		}
	}
	for rest := r.URL.RawQuery; rest != ""; {
		var p string
		p, rest, _ = cutPair(rest)
		name, v, _ := strings.Cut(p, "=")
		if !secretName(name, s.keyParams) {
			continue
		}
		add(v)
		if u, err := url.QueryUnescape(v); err == nil {
			add(u)
		}
	}
	// Longest first, so that a key that contains another is replaced whole.
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vals {
		msg = strings.ReplaceAll(msg, "'"+v+"'", "'REDACTED'")
		msg = strings.ReplaceAll(msg, `"`+v+`"`, `"REDACTED"`)
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "REDACTED")
		}
	}
	return msg
}

// redactQuery hides the values of parameters that may carry credentials:
// those named in keys (see keyNames) and those whose names look like one.
// Pairs are split at ';' as well as '&': Go refuses ';' (the request gets a
// 400), but what follows it is still a credential to whoever reads the log.
func redactQuery(raw string, keys []string) string {
	if raw == "" {
		return ""
	}
	q := raw
	// Most queries name no secret; they are kept as they are, unsplit.
	if hasSecretName(raw, keys) {
		var b strings.Builder
		b.Grow(len(raw))
		for rest := raw; ; {
			p, next, sep := cutPair(rest)
			if name, _, _ := strings.Cut(p, "="); secretName(name, keys) {
				b.WriteString(name)
				b.WriteString("=REDACTED")
			} else {
				b.WriteString(p)
			}
			if sep == 0 {
				break
			}
			b.WriteByte(sep)
			rest = next
		}
		q = b.String()
	}
	if len(q) > 256 {
		q = q[:256] + "…"
	}
	return q
}

// cutPair cuts the first name=value pair off a raw query. Pairs end at '&'
// or at ';': Go refuses ';', but what follows it may still be a credential.
// sep is the separator that ended the pair, 0 for the last one.
func cutPair(raw string) (pair, rest string, sep byte) {
	i := strings.IndexAny(raw, "&;")
	if i < 0 {
		return raw, "", 0
	}
	return raw[:i], raw[i+1:], raw[i]
}

func hasSecretName(raw string, keys []string) bool {
	for rest := raw; rest != ""; {
		var p string
		p, rest, _ = cutPair(rest)
		if name, _, _ := strings.Cut(p, "="); secretName(name, keys) {
			return true
		}
	}
	return false
}

// secretName reports whether a query parameter's name (as sent, possibly
// percent-encoded) is one of keys, looks as if its value were a credential,
// or cannot be decoded. Names are compared without regard to case: redacting a value
// that was no key costs less than logging one that was.
func secretName(name string, keys []string) bool {
	if strings.ContainsAny(name, "%+") {
		u, err := url.QueryUnescape(name)
		if err != nil {
			// Go drops such a pair unread, but it may be a credential
			// whose name was mangled on its way here.
			return true
		}
		name = u
	}
	l := strings.ToLower(name)
	if slices.Contains(keys, l) {
		return true
	}
	for _, secret := range []string{"key", "token", "secret", "password", "auth", "signature", "bearer", "credential", "session", "jwt"} {
		if strings.Contains(l, secret) {
			return true
		}
	}
	return false
}
