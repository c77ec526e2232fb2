// Package engine serves an OpenAPI document as a stateful, validating HTTP
// server: collections inferred from the paths, an in-memory store seeded
// from fixtures, every OpenAPI security scheme enforced (petctl is the
// authorization server of oauth2 and openIdConnect schemes), and every
// request and every response checked against the document.
package engine

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

// forcePlain makes every Server plain, for the test that runs the whole
// engine suite through the plain validator (TestPlainSuite).
var forcePlain bool

// Server is an http.Handler that serves a document. It is safe for concurrent use.
type Server struct {
	spec        *spec.Spec
	val         *spec.Validator
	router      *router
	auth        *authenticator
	ops         map[*spec.Operation]*operation
	colls       map[string]*collection
	plan        *Plan
	cascade     bool
	data        *store.Store    // the records of colls
	itemsMark   json.RawMessage // a list's items while its envelope is encoded (see newItemsMark)
	log         *slog.Logger
	quiet       bool // no line per request
	logBuffer   *LogBuffer
	now         func() time.Time
	maxBody     int64
	maxHeader   int
	timeouts    Timeouts
	cors        *cors
	plain       bool // see Options.Plain
	lists       ListOptions
	dice        *dice
	adminKey    []byte // sha256 of the admin key; nil without one
	reqlog      *requestLog
	maxImport   int64
	lingerBytes int64
	lingerTime  time.Duration
	maxRecords  int
	maxBytes    int64
	state       store.Journal // nil: memory only
	version     Version
	// keyParams are the query parameters always redacted in logs;
	// keyHeaders and keyCookies carry keys too (see keyNames and scrub).
	keyParams              []string
	keyHeaders, keyCookies []string
	// extraHeaders are the configured headers of answers outside every
	// operation; codes are the configured error codes (see errorcodes.go).
	extraHeaders [][2]string
	codes        map[Code]Code
	// rewrittenErrors are the errors whose fields the document's schema
	// refuses as the format writes them, written otherwise (see
	// proveErrorBodies); nil for most documents.
	rewrittenErrors map[rewrittenError]*spec.ErrorFormat
	// examples holds each response schema's example once judged, as
	// JSON, or nil where it is not valid (see made): lists make their
	// envelope on every request.
	examples sync.Map
	// timeless holds each response schema's made value as JSON where the
	// clock plays no part in it, else nil (see made).
	timeless sync.Map
	// madeValues holds, per response schema, the decoded value of the
	// example or timeless value that made gives out. It is never changed:
	// made hands out copies of it.
	madeValues sync.Map
}

// opKind is what the engine does for an operation.
type opKind int

const (
	kindUnserved opKind = iota // no 2xx answer declared: 501
	kindList
	kindCreate
	kindBatchCreate
	kindRead
	kindReplace
	kindPatch
	kindDelete
	kindSearch
	kindReadOne
	kindAction // answered from the document: its example, or a value made from its schema
	kindUnpublished
)

// kinds maps the plan's kinds to the engine's.
var kinds = map[spec.OpKind]opKind{
	spec.KindList: kindList, spec.KindCreate: kindCreate, spec.KindBatchCreate: kindBatchCreate,
	spec.KindRead: kindRead, spec.KindReplace: kindReplace, spec.KindPatch: kindPatch,
	spec.KindDelete: kindDelete, spec.KindSearch: kindSearch, spec.KindReadOne: kindReadOne,
	spec.KindAction: kindAction, KindUnpublished: kindUnpublished, KindNone: kindUnserved,
}

// operation is the runtime of one spec.Operation, prepared at start-up.
type operation struct {
	op   *spec.Operation
	kind opKind
	coll *collection
	// rop is the operation's part in its resource (nil for an action); list
	// its list shape, for a list or a search.
	rop  *spec.ResourceOp
	list *spec.ListShape
	// cursor is a list's cursor parameter: the document's, else the
	// configured one (lists.pagination); backward when it pages back,
	// takesID when the document's takes an item's id (after). Decided at
	// start-up (listCursor), not per request.
	cursor            string
	backward, takesID bool
	// made is the answer of an action, made once on first use (see actions.go).
	made *madeAnswer
	// headers are added to every response of the operation (deprecation);
	// extraHeaders are the configured ones, added where absent.
	headers      [][2]string
	extraHeaders [][2]string
	// scalarQuery are the query parameters that take one value.
	scalarQuery []string
	// accepted are the media types its successes are sent as, which an
	// Accept header must take (see negotiate).
	accepted []string
	// proven is set when start-up proved that every success response the
	// operation builds from stored records matches the document (see
	// proveComposition); checkResponse then has nothing left to check.
	proven bool
	// itemsProven is set when start-up proved the items of a list answer in
	// an envelope (see proveEnvelopeItems): checkResponse then validates
	// the envelope with an empty array in their place.
	itemsProven bool
	// stub is the configured answer of an operation the store cannot serve.
	stub *response
	// delay and fault are what Latency and Faults inject; nil for none.
	delay *Delay
	fault *Fault
	// fit is set when the write's body schema gives a field a type the
	// item schema does not take: its bodies are fitted (see itemfit.go).
	fit bool
	// asGet is set for a HEAD answered as its path's GET (PlannedOperation.AsGet).
	asGet bool
	// requiresHeaders is set when a response of it declares a required
	// header (fillRequiredHeaders); countHeaders and pageHeaders are the
	// totals a list's answer declares (spec.Response.TotalHeaders).
	requiresHeaders           bool
	countHeaders, pageHeaders []string
	// absoluteLocation is set where a 2xx response declares a Location of
	// format uri: a created item's Location is then absolute (location).
	absoluteLocation bool
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
		plain:       o.Plain || forcePlain,
		lists:       o.Lists,
		dice:        newDice(o.Seed),
		maxImport:   o.MaxImportBytes,
		lingerBytes: o.LingerBytes,
		lingerTime:  o.LingerTime,
		maxRecords:  o.StoreMaxRecords,
		maxBytes:    o.StoreMaxBytes,
		version:     o.Version,
		cascade:     o.Cascade,
	}
	if !o.NoRequestLog {
		s.reqlog = newRequestLog(o.RequestLogSize)
	}
	s.itemsMark = newItemsMark()
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
	if s.cors, err = newCORS(o.CORS, o.Spec); err != nil {
		errs = append(errs, err)
	}
	if s.val, err = o.Spec.NewValidator(); err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	if s.plain {
		s.val = s.val.Plain()
	}
	if s.auth, err = newAuthenticator(o, s.router, s.now, s.log); err != nil {
		errs = append(errs, err)
	}
	for _, r := range s.router.routes {
		if strings.HasPrefix(s.spec.BasePath+r.template+"/", AdminPrefix) {
			errs = append(errs, wholeError("spec", fmt.Errorf("spec %s: path %s%s is under %s, which petctl reserves for its admin endpoints", s.spec.Source, s.spec.BasePath, r.template, AdminPrefix)))
		}
	}
	if err := s.prepareOperations(o.Overrides, o.ConfiguredOperations()); err != nil {
		errs = append(errs, err)
	}
	if err := s.checkOptions(o); err != nil {
		errs = append(errs, err)
	}
	generate := o.Generate
	if o.Generate > s.maxRecords {
		// Refused before a single record is made: generating them first
		// could take minutes and gigabytes.
		errs = append(errs, keyError("store.maxRecords", "fixtures.generate adds %d records to every collection, past the limit of %d: raise store.maxRecords, or generate fewer", o.Generate, s.maxRecords))
		generate = 0
	}
	// The fixtures are checked even when an option is wrong, so that a bad
	// record is reported with the rest.
	if err := s.loadFixtures(o.Fixtures, generate, o.Seed); err != nil {
		errs = append(errs, err)
	}
	s.assignInjections(o.Latency, o.Faults)
	if err := s.prepareErrors(o.ErrorFields); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		// Last, once every other check passed: a start or reload refused
		// for another reason (the proof of error bodies, a bad setting)
		// leaves the state and the records served until now as they were.
		errs = append(errs, s.takeRecords(o))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// takeRecords gives the store the records it serves: those of the state
// (o.State) when there is one, else on a reload those of the server
// replaced (o.Previous); the fixtures loaded already otherwise.
func (s *Server) takeRecords(o Options) error {
	switch {
	case o.State != nil:
		notes, err := s.data.Attach(o.State, stateOrigin(o), o.StateReset)
		if err != nil {
			return stateError(err)
		}
		for _, n := range notes {
			s.log.Warn(n)
		}
		s.state = o.State
	case o.Previous != nil:
		if err := s.data.TakeOver(o.Previous.data, o.Previous.spec.Digest == o.Spec.Digest); err != nil {
			return wholeError("spec", fmt.Errorf("the records served until now do not fit the new document:\n%w", err))
		}
	}
	return nil
}

// prepareOperations plans the document and prepares the store's
// collections and each operation's runtime.
func (s *Server) prepareOperations(overrides map[string]spec.Override, configured map[string]bool) error {
	plan, err := NewPlan(s.spec, overrides, configured)
	s.plan = plan
	var data []*store.Collection
	byDef := map[*spec.Resource]*collection{}
	for _, def := range plan.Resources {
		ok, why := servable(def)
		c := &collection{def: def, served: ok, why: why, writeOnly: usesWriteOnly(def.Item)}
		byDef[def] = c
		for _, n := range def.Notes {
			s.log.Warn("resource", "note", n)
		}
		if !ok {
			continue
		}
		// Compiled on the first record, not here: see LazyResponseSchema.
		notCompiled := func(err error) {
			s.log.Warn("item schema not compiled; records are validated the slow way", "collection", def.Key, "error", err.Error())
		}
		compiled, err := s.val.LazyRecordSchema(def.Item, notCompiled)
		if s.plain {
			compiled, err = nil, nil // records are checked by the validator alone
		}
		if err != nil {
			notCompiled(err)
			compiled = nil
		}
		c.schema = compiled
		c.data = store.NewCollection(def, store.Check{Compiled: compiled, Describe: s.describeRecord(def)},
			store.Limits{MaxRecords: s.maxRecords, MaxBytes: s.maxBytes})
		s.colls[def.Key] = c
		data = append(data, c.data)
	}
	for def, c := range byDef {
		if p := byDef[def.Parent]; def.Parent != nil && p != nil && p.served && c.served {
			c.parent = p
			p.children = append(p.children, c)
		}
	}
	s.data = store.New(data...)
	for _, po := range plan.Operations {
		op := po.Op
		o := &operation{op: op, kind: kinds[po.Kind], rop: po.Role, made: &madeAnswer{}}
		o.asGet = po.AsGet
		o.requiresHeaders, o.absoluteLocation = requiresHeaders(op), absoluteLocation(op)
		if o.kind == kindList || o.kind == kindSearch {
			o.countHeaders, o.pageHeaders = op.Response(cmp.Or(o.rop.Response.Status, http.StatusOK)).TotalHeaders()
		}
		if po.Resource != nil {
			if c := byDef[po.Resource]; c != nil && c.served {
				o.coll = c
			}
		}
		if o.coll == nil && o.kind != kindUnpublished && o.kind != kindUnserved {
			o.kind, o.rop = kindAction, nil
		}
		if o.rop != nil {
			o.list = o.rop.List
			o.cursor, o.backward, o.takesID = listCursor(o.list, s.lists.CursorParam)
		}
		if o.rop != nil && o.coll != nil {
			o.fit = needsFit(writeItemSchema(o.rop), o.coll.def.Item)
		}
		if po.Why != "" && (po.CRUD || po.Resource != nil) {
			s.log.Warn("operation not served from the store", "operation", op.String(), "reason", po.Why)
		}
		for _, p := range op.Params {
			if p.In == "query" && spec.SchemaType(p.Schema) != "array" && spec.SchemaType(p.Schema) != "object" {
				o.scalarQuery = append(o.scalarQuery, p.Name)
			}
		}
		o.accepted = successMediaTypes(op)
		o.headers = s.deprecationHeaders(op)
		if o.coll != nil && !s.plain {
			o.proven = s.proveComposition(o)
			o.itemsProven = !o.proven && proveEnvelopeItems(o)
		}
		s.ops[op] = o
	}
	return err
}

// loadFixtures stores the fixtures' records, and generate records made
// from seed in every collection after them, which become what Reset
// returns to. A problem is an *OptionError at fixtures.files, at
// fixtures.generate, or at the store limit the records would pass.
func (s *Server) loadFixtures(files []FixtureFile, generate int, seed int64) error {
	fx, err := s.data.Parse(files, nil)
	if err != nil {
		return wholeError("fixtures.files", err)
	}
	s.data.Generate(fx, generate, seed)
	errs := s.data.Load(fx, s.now())
	for i, err := range errs {
		var full *store.FullError
		var gen *store.GenerateError
		switch {
		case errors.As(err, &full):
			// At the setting, so that the configuration layer names where
			// it came from.
			errs[i] = keyError(full.Setting(), "%s: the fixtures and generated records must fit; raise %s, or load fewer", full.Reason(), full.Setting())
		case errors.As(err, &gen):
			errs[i] = wholeError("fixtures.generate", err)
		default:
			errs[i] = wholeError("fixtures.files", err) // one line per bad record
		}
	}
	return errors.Join(errs...)
}

// stateOrigin is what the store is made from, for the state to record: the
// document, the fixture files and the generated records.
func stateOrigin(o Options) store.Origin {
	out := store.Origin{Document: store.Digest{Name: o.Spec.Source, SHA256: o.Spec.Digest}, Generate: o.Generate, Seed: o.Seed}
	for _, f := range o.Fixtures {
		sum := sha256.Sum256(f.Data)
		out.Fixtures = append(out.Fixtures, store.Digest{Name: f.Name, SHA256: hex.EncodeToString(sum[:])})
	}
	return out
}

// stateError places a state that cannot be taken at store.path: a record
// that does not fit the document, a file that is not petctl's, a store
// limit the records pass.
func stateError(err error) error {
	var full *store.FullError
	if errors.As(err, &full) {
		return keyError(full.Setting(), "%s: the stored records must fit; raise %s", full.Reason(), full.Setting())
	}
	return wholeError("store.path", err)
}

// Freeze waits for the changes to the store under way to be made and
// committed and holds back the later ones until Thaw, so that a reload
// takes the records whole. Reads go on.
func (s *Server) Freeze() { s.data.Freeze() }

// Thaw lets changes to the store through again.
func (s *Server) Thaw() { s.data.Thaw() }

// Retire hands the store over to next, which replaces this server (a
// reload): the changes that waited while it was frozen are made in next's
// store. Call it while frozen, then Thaw.
func (s *Server) Retire(next *Server) { s.data.Retire(next.data) }

// Collections returns the names of the served collections and their sizes.
func (s *Server) Collections() map[string]int { return s.data.Sizes() }

// Timeouts returns the connection time-outs of the options, defaults
// filled: give them to Serve.
func (s *Server) Timeouts() Timeouts { return s.timeouts }

// Spec returns the document the server serves.
func (s *Server) Spec() *spec.Spec { return s.spec }
