// Package config reads petctl.yaml: built-in defaults, then the file, then
// PETCTL_* environment variables, then flags. Every setting is declared once,
// in the Config struct and its tags; the decoder, the checks, the serve
// flags, the starter file of `petctl init`, the JSON Schema and
// docs/configuration.md are all derived from it. The engine's defaults are
// read from engine.DefaultOptions, and what a value means for the document
// is checked by engine.New, whose problems Combine locates by their key.
//
// Tags: yaml (the key), doc (one sentence), enum (allowed values), min and
// max (numbers), env (the environment variable), flag (the serve flag),
// flaghelp (the flag's help, when the doc is too long for --help), secret
// (redacted when shown), path (file paths: relative ones in a file are
// relative to the file's directory), example (a YAML value for maps whose
// default is empty).
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// FileName is the file petctl looks for in the working directory.
const FileName = "petctl.yaml"

// Config is the whole configuration of `petctl serve`.
type Config struct {
	Spec       string                    `yaml:"spec" env:"PETCTL_SPEC" flag:"spec" flaghelp:"OpenAPI document to serve (default: the embedded Petstore)" path:"true" doc:"OpenAPI document to serve; empty serves the embedded Petstore. A relative path in this file is relative to the file's directory; from the flag or the environment, to the working directory. A document split over several files is read through its relative $refs, from its own folder only (see refFolders)."`
	Strict     bool                      `yaml:"strict" env:"PETCTL_STRICT" flag:"strict" flaghelp:"refuse documents with the quirks of generated ones (unquoted status codes, empty descriptions) instead of warning" doc:"Refuse a document that breaks the OpenAPI schema in the ways generators commonly do (an unquoted status code, an empty description, a $ref standing for a whole map, a security requirement naming an undeclared scheme) instead of serving it with a warning naming the line. Other departures from the schema are always refused."`
	RefFolders []string                  `yaml:"refFolders" path:"true" doc:"Local folders, besides the document's own, that its file $refs may read. No other file, and no URL, is ever read: such a $ref stops start-up naming the file, the line and the $ref."`
	Server     Server                    `yaml:"server" doc:"Where and how the server listens."`
	Log        Log                       `yaml:"log" doc:"What the server writes on stderr. Logging never holds a request up: lines wait in a bounded buffer, and when stderr is not read (a pipe nobody reads) lines are dropped and counted, a warning says how many once stderr is read again, and GET /__petctl/health reports the count."`
	Auth       Auth                      `yaml:"auth" doc:"Who may call the API and the admin endpoints."`
	Fixtures   Fixtures                  `yaml:"fixtures" doc:"Seed data of the store."`
	Store      Store                     `yaml:"store" doc:"Where the records are kept (a state file by default, or Redis shared by replicas), how they reach the disk, and the limits of each collection."`
	Seed       int64                     `yaml:"seed" env:"PETCTL_SEED" flag:"seed" flaghelp:"seed of generated records and injected latency and faults" doc:"Seed of generated records, injected latency and injected faults: the same seed gives the same data and the same sequence of delays and faults."`
	Lists      Lists                     `yaml:"lists" doc:"Behaviour of list operations where the description says 'not shown'."`
	Errors     Errors                    `yaml:"errors" doc:"How error answers are written. Every error is written in the document's own format for its operation and status (docs/errors.md): the fields of the declared schema are filled by meaning, read from their names."`
	Defaults   map[string]map[string]any `yaml:"defaults" example:"pets:\n  status: available" doc:"Values given to fields a create request leaves out, per collection and field (for the Petstore: the status of a new animal sent without one). Without an entry the field stays absent, as the spec allows."`
	Responses  map[string]Response       `yaml:"responses" example:"listStoreOrders:\n  status: 200\n  body: []" doc:"Configured answers for operations the store cannot serve, by operationId: for the Petstore, GET /store/orders, whose interface is not published. Each has a status (default 200), headers and a body (JSON, written in YAML). Checked at start-up against the spec and against what HTTP can carry: a 4xx or 5xx must be the Error body, and some statuses and headers are refused (docs/configuration.md, Configured responses)."`
	Clock      Clock                     `yaml:"clock" doc:"The server's clock."`
	Latency    map[string]Range          `yaml:"latency" example:"'*': 20ms\ngetPet: 50ms..400ms\nlistPets: 12ms..180ms (p50 25ms, p90 60ms, p99 150ms)" doc:"Delay before answering, by operationId, or '*' for every operation without its own entry: a fixed duration (50ms), a range to draw from evenly (50ms..400ms), or a range shaped by percentiles, as petctl conform --profile-out records a deployment's (12ms..180ms (p50 25ms, p90 60ms, p99 150ms): half the answers within 25ms, nine in ten within 60ms). At most 20s."`
	Headers    map[string]Headers        `yaml:"headers" example:"'*':\n  X-RateLimit-Limit: '100'\ngetPet:\n  Cache-Control: no-store" doc:"Headers added to answers, by operationId, and under '*' to every answer: what a deployment always sends that the document does not declare (rate-limit headers, a request id). An answer that has the header already keeps its own. Refused, as for responses: framing, hop-by-hop, Content-Encoding, Content-Type and Access-Control-* headers, names that are not tokens, values with control characters."`
	ErrorCodes map[string]string         `yaml:"errorCodes" example:"validation_failed: invalid_request\nunauthorized: invalid_token" doc:"The code sent in place of one of petctl's (docs/errors.md), for a deployment that uses its own values of code: petctl's code, then the code sent. The status and the message stay; the code must be one the document's error schema accepts."`
	Faults     map[string]Fault          `yaml:"faults" example:"createPet:\n  rate: 0.1\n  status: 503" doc:"Injected failures, by operationId or '*': the share of requests that fail (after authentication and validation) and their status. Failures carry the Error body with code fault_injected and change nothing."`
	CORS       CORS                      `yaml:"cors" doc:"Which browser origins may call the server. A preflight from an allowed origin is answered for any path and method, ones the document does not declare too, so that the page reads the 404 or 405 Error body instead of an opaque CORS error. The admin endpoints send CORS headers to allowed pages served from loopback only, as they admit no others."`
	Admin      Admin                     `yaml:"admin" doc:"The admin endpoints under /__petctl/."`
	CRUD       CRUD                      `yaml:"crud" doc:"The resources petctl serves statefully: what it does where the document is silent, and overrides of what it infers (petctl inspect prints what it inferred, and why an operation is not served from the store)."`
}

// Server is where and how the server listens.
type Server struct {
	Addr         string            `yaml:"addr" env:"PETCTL_ADDR" flag:"addr" doc:"Address to listen on, host:port; port 0 picks a free one."`
	BasePath     string            `yaml:"basePath" env:"PETCTL_BASE_PATH" flag:"base-path" flaghelp:"path to serve the operations under (default: the path of the document's first server; / for the root)" doc:"Path the operations are served under. Empty: the path of the document's first server URL, its {variables} filled; / serves them at the root (for a document whose servers name someone else's host or mock)."`
	Variables    map[string]string `yaml:"variables" example:"protocol: https\nhostpath: localhost:8989" doc:"Values of the {variables} in the document's server URLs, by name, instead of their defaults; each must be one of its variable's enum when it has one."`
	MaxBodyBytes int64             `yaml:"maxBodyBytes" env:"PETCTL_MAX_BODY_BYTES" flag:"max-body" min:"1" doc:"Largest request body in bytes; larger bodies get 413."`
	LogFormat    string            `yaml:"logFormat" env:"PETCTL_LOG_FORMAT" flag:"log-format" flaghelp:"request log format on stderr: text or json" enum:"text,json" doc:"Request log format on stderr."`
	Timeouts     Timeouts          `yaml:"timeouts" doc:"Connection time-outs."`
}

// Log decides what the server writes on stderr.
type Log struct {
	Level    string `yaml:"level" env:"PETCTL_LOG_LEVEL" flag:"log-level" enum:"debug,info,warn,error" doc:"Least severity written: debug, info (a line per request, start-up notes), warn (problems only) or error."`
	Requests bool   `yaml:"requests" env:"PETCTL_LOG_REQUESTS" flag:"log-requests" flaghelp:"log a line per request (--log-requests=false: warnings and errors only)" doc:"Write a line per request (at info). false keeps stderr for warnings and errors; GET /__petctl/requests still lists the last requests."`
}

// Timeouts bound how long a connection may take.
type Timeouts struct {
	ReadHeader Duration `yaml:"readHeader" min:"1ms" doc:"Time to read a request's header: slow clients cannot hold a connection."`
	Read       Duration `yaml:"read" min:"1ms" doc:"Time to read a whole request."`
	Write      Duration `yaml:"write" min:"1ms" doc:"Time to write a response; must exceed the longest injected latency."`
	Idle       Duration `yaml:"idle" min:"1ms" doc:"Time a keep-alive connection may wait between requests."`
	Shutdown   Duration `yaml:"shutdown" min:"1ms" doc:"Time in-flight requests get to finish after SIGINT or SIGTERM."`
}

// Auth decides who may call.
type Auth struct {
	Mode     string   `yaml:"mode" env:"PETCTL_AUTH_MODE" enum:"keys,open" doc:"keys: only the listed keys are accepted (with none listed, the development key petctl-dev-key is, and printed at start-up). open: any non-empty key is accepted, sent where the document's scheme takes it (a bearer token for the Petstore), for solo offline work; requests without one still get 401. Both are meant for loopback: served on another address, serve warns on stderr."`
	Keys     []string `yaml:"keys" env:"PETCTL_API_KEYS" flag:"api-key" flaghelp:"accepted API key (repeatable)" secret:"true" doc:"Accepted API keys (PETCTL_API_KEYS is comma-separated; PETCTL_API_KEY holds one). A PETCTL_API_KEYS that names no key (',') is an error, not the development key."`
	AdminKey string   `yaml:"adminKey" env:"PETCTL_ADMIN_KEY" secret:"true" doc:"Key for the admin endpoints (sent as a bearer token) from hosts other than loopback, from web pages of other origins, and through proxies or tunnels; without it they answer direct loopback callers only."`

	// Each scheme's own credentials, and the authorization server.
	Schemes map[string]SchemeAuth `yaml:"schemes" example:"BasicAuth:\n  users: {alice: wonderland}\nOAuth2:\n  clients: {ci: ci-secret}\n  users: {alice: wonderland}\n  tokens:\n    - token: ci-read-token\n      scopes: [pets:read]\nApiKeyAuth:\n  keys: [key-for-this-scheme-only]" doc:"Credentials of one security scheme of the document, by its name under components.securitySchemes. A scheme without an entry accepts the API keys above (the development key when none is given) wherever its credential is a secret string: as an apiKey, as an http bearer token, as a token with every scope for oauth2 and openIdConnect, as the password of any http basic user name, and as the secret of any client at the token endpoint. An entry restricts the scheme to its own credentials, and then only those work: keys (apiKey), users (http basic; the password grant of oauth2 and openIdConnect), clients (client id and secret at the token endpoint of oauth2 and openIdConnect) and tokens (static bearer tokens for http bearer, oauth2 and openIdConnect, each with the scopes it carries, none meaning every scope). Passwords, secrets, keys and tokens are never logged or shown."`
	OAuth   OAuth                 `yaml:"oauth" doc:"petctl as the authorization server of the document's oauth2 and openIdConnect schemes: it issues signed JWT bearer tokens at the token endpoint (the flow's tokenUrl path when it is local, and /__petctl/oauth/token), with the client credentials and password grants, and verifies them on every request; it serves the JSON Web Key Set at /__petctl/oauth/jwks and the OpenID Connect discovery document at /__petctl/oauth/.well-known/openid-configuration. See docs/security.md."`
}

// SchemeAuth restricts one security scheme to its own credentials.
type SchemeAuth struct {
	Keys    []string          `yaml:"keys" secret:"true" doc:"apiKey: the keys accepted."`
	Users   map[string]string `yaml:"users" secret:"true" doc:"http basic, and the password grant of oauth2 and openIdConnect: user names and their passwords."`
	Clients map[string]string `yaml:"clients" secret:"true" doc:"oauth2 and openIdConnect: client ids and their secrets, for the token endpoint (HTTP Basic or client_id and client_secret in the form)."`
	Tokens  []StaticToken     `yaml:"tokens" doc:"http bearer, oauth2 and openIdConnect: static bearer tokens, for CI."`
}

// StaticToken is a bearer token given in the configuration.
type StaticToken struct {
	Token  string   `yaml:"token" secret:"true" doc:"The token, sent as Authorization: Bearer <token>."`
	Scopes []string `yaml:"scopes" doc:"The scopes the token carries; none: every scope."`
}

// OAuth configures petctl as the authorization server of the document's
// oauth2 and openIdConnect schemes.
type OAuth struct {
	Issuer        string   `yaml:"issuer" doc:"The iss of the tokens petctl issues, and the only one it accepts. Empty: the origin the request names followed by /__petctl/oauth, so that a token is accepted where it was issued."`
	Audience      string   `yaml:"audience" doc:"The aud of the tokens petctl issues, and the only one it accepts. Empty: the origin the request names followed by the base path."`
	TokenLifetime Duration `yaml:"tokenLifetime" min:"1s" max:"8760h" doc:"How long an issued token is valid; a token past it gets 401."`
	SigningKey    string   `yaml:"signingKey" env:"PETCTL_OAUTH_SIGNING_KEY" path:"true" doc:"PEM file of the private key that signs the tokens (RSA of 2048 bits or more, ECDSA on P-256, P-384 or P-521, or Ed25519; PKCS #8, SEC 1 or PKCS #1, unencrypted), so that tokens outlive a restart. Empty: a P-256 key generated at start-up."`
}

// Fixtures are the store's seed data.
type Fixtures struct {
	Files    []string `yaml:"files" env:"PETCTL_FIXTURES" flag:"fixtures" flaghelp:"seed data file, JSON or YAML (repeatable; default: the embedded Petstore animals with the embedded spec)" path:"true" doc:"Seed files, JSON or YAML: an object mapping collection names to arrays of records, or an array named after its collection (pets.json). Validated against the spec at start-up. Empty: the embedded Petstore animals when the embedded spec is served. Relative paths in this file are relative to the file's directory; from the flag or the environment (comma-separated), to the working directory."`
	Generate int      `yaml:"generate" env:"PETCTL_GENERATE" flag:"generate" flaghelp:"add N synthetic records to every collection, made from the schemas and --seed" min:"0" max:"10000000" doc:"Synthetic records to add to every collection, made from its schema and the seed (valid, and the same for the same seed). With generate set and no files, the embedded animals are not loaded."`
}

// Store bounds what each collection holds, so that no client can grow the
// process without bound.
type Store struct {
	MaxRecords   int      `yaml:"maxRecords" env:"PETCTL_STORE_MAX_RECORDS" min:"1" max:"2147483647" doc:"Most records one collection may hold. A create past it gets 507 store_full and stores nothing; an import past it is refused whole (507); fixtures and generated records past it stop start-up."`
	MaxBytes     int64    `yaml:"maxBytes" env:"PETCTL_STORE_MAX_BYTES" min:"1" doc:"Most bytes of record JSON (as stored: canonical, without white space) one collection may hold; past it, as for maxRecords."`
	Backend      string   `yaml:"backend" env:"PETCTL_STORE_BACKEND" enum:"file,redis" doc:"Where the records are kept beyond the process: file, the state file at path (none there: in memory only); redis, the Redis or Valkey at url, shared by every petctl serving the same document (replicas behind a load balancer). See docs/state.md."`
	Path         string   `yaml:"path" env:"PETCTL_STATE" flag:"state" flaghelp:"file the records are kept in across restarts (none: in memory only)" path:"true" doc:"State file of the file backend, created with its folder when missing; by default .petctl/state for the embedded Petstore and .petctl/NAME-HASH.state for another document (its file name and a hash of its path: each document its own state); none keeps the records in memory only, as they were before petctl had a state. Every change a 2xx answered is in it (see sync); it records the document and fixtures it was made from, and a start with another document checks every record against it. serve --state-reset starts it afresh from the fixtures."`
	Sync         string   `yaml:"sync" env:"PETCTL_STORE_SYNC" flag:"store-sync" flaghelp:"when changes reach the disk: always, interval or never" enum:"always,interval,never" doc:"When the file backend's changes reach the disk. A change is answered once it is in the state file's write-ahead log (FILE-wal, beside it). always: and the log is on the disk (changes arriving together share one sync). interval: the log is synced every syncInterval (a killed petctl loses nothing, a machine that loses power up to syncInterval). never: the operating system decides."`
	SyncInterval Duration `yaml:"syncInterval" min:"1ms" doc:"How often sync: interval syncs the state file's log to the disk."`
	Reset        bool     `yaml:"reset" env:"PETCTL_STATE_RESET" flag:"state-reset" flaghelp:"start the state afresh from the fixtures, dropping the records it holds" doc:"Start the state (file or Redis) afresh from the fixtures, dropping the records it holds: at every start while it is set. Without it a start takes the stored records, and refuses them, naming each, when the document no longer accepts them."`
	URL          string   `yaml:"url" env:"PETCTL_STORE_URL" secret:"true" doc:"Redis or Valkey of the redis backend: redis://[user:password@]host:port[/db], or rediss:// for TLS. Every petctl serving one store uses the same url and the same document."`
}

// Lists decide the open behaviours of list operations.
type Lists struct {
	OutOfRangeLimit string `yaml:"outOfRangeLimit" env:"PETCTL_OUT_OF_RANGE_LIMIT" enum:"reject,clamp" doc:"A page size outside its bounds (limit=0, limit=101): reject answers 400 with the Error body; clamp answers with the nearest bound."`
	Order           string `yaml:"order" env:"PETCTL_ORDER" enum:"id,newest-first" doc:"List order: by id ascending, or newest first."`
	Pagination      string `yaml:"pagination" env:"PETCTL_PAGINATION" enum:"none,cursor" doc:"Pages beyond the page size: none (the first page only), or cursor: a list with more items carries Link: <...>; rel=\"next\" (RFC 8288) whose URL repeats the query with the cursor parameter set. Cursors name positions by id, so they stay stable while items are added."`
	CursorParam     string `yaml:"cursorParam" doc:"Name of the cursor query parameter when pagination is cursor."`
}

// Errors decide how error answers are written.
type Errors struct {
	Fields map[string]string `yaml:"fields" example:"message: error.details\ncode: error.kind" doc:"The fields of the document's error schemas whose meaning petctl cannot read from their names, by meaning: status, code (petctl's machine code), message, title (the status as text), type, instance (the request's path) or time, each to a dot-separated path in the schema (error.details). A mapped meaning fills that field only; a path no error schema has stops start-up."`
}

// Response is a configured answer.
type Response struct {
	Status  int               `yaml:"status" min:"200" max:"599" doc:"HTTP status, 200 to 599 (a 1xx is an interim answer, never the final one); the operation must declare it (or a default response). A 4xx or 5xx answer is the Error body, as every other error is: give a body {code, message, status} with status equal to this status; it is checked against the spec's error schema."`
	Headers map[string]string `yaml:"headers" doc:"Response headers. Refused, because they would break the answer: the framing headers Content-Length, Transfer-Encoding and Trailer (written from the body); the hop-by-hop headers Connection, Keep-Alive, Proxy-Connection, TE and Upgrade; Content-Encoding (the body is sent as written); Access-Control-* (the cors settings decide them); names that are not tokens, values with control characters, and a name given twice."`
	Body    any               `yaml:"body" doc:"JSON body, written in YAML; absent sends no body. A 204, 205 or 304 answer has none; a 4xx or 5xx answer must have the Error body."`
}

// Headers are response headers, by name.
type Headers map[string]string

// Clock is the server's clock.
type Clock struct {
	Now string `yaml:"now" env:"PETCTL_NOW" flag:"now" flaghelp:"start the clock at this instant (RFC 3339 or a date), e.g. 2031-01-01" doc:"Start the clock at this instant (RFC 3339, or a date) and let it run from there: set it past 2030-12-05 to see getPet removed (410 Gone). Empty: the real clock."`
}

// Fault is an injected failure.
type Fault struct {
	Rate   float64 `yaml:"rate" min:"0" max:"1" doc:"Share of requests that fail, 0 to 1."`
	Status int     `yaml:"status" min:"400" max:"599" doc:"Status of the failure."`
}

// CORS decides which browser origins may call.
type CORS struct {
	Origins       []string `yaml:"origins" doc:"Allowed origins: http://localhost:* (any port), https://*.example.com, https://app.example.com:8443, or * (any, never with credentials)."`
	Credentials   bool     `yaml:"credentials" doc:"Let browsers send credentials (cookies) and read the answers; origins must then be named, not *."`
	ExposeHeaders []string `yaml:"exposeHeaders" doc:"Response headers scripts may read; ETag and every header the document declares on a response are added."`
	MaxAge        Duration `yaml:"maxAge" min:"1s" doc:"How long a browser may cache a preflight answer."`
}

// Admin configures the admin endpoints.
type Admin struct {
	RequestLog     int   `yaml:"requestLog" min:"0" max:"100000" doc:"How many recent requests GET /__petctl/requests keeps (0 keeps none)."`
	MaxImportBytes int64 `yaml:"maxImportBytes" min:"1" doc:"Largest store import (PUT /__petctl/store) in bytes."`
}

// CRUD decides how the document's resources are served.
type CRUD struct {
	Cascade    bool                     `yaml:"cascade" doc:"Deleting an item deletes the items under it (nested resources, at every depth). false leaves them in the store, unreachable: their parent answers 404, and so do they, and views over every parent leave them out."`
	Operations map[string]CRUDOperation `yaml:"operations" example:"findPetsByTags:\n  kind: search\n  resource: /pets\ngetThing:\n  idField: thingId" doc:"Overrides of what petctl infers, by operationId; an empty field keeps the inference. Checked at start-up against the document: an unknown operation, kind, parameter or property stops it, naming the key."`
}

// CRUDOperation overrides what petctl infers about one operation.
type CRUDOperation struct {
	Kind        string `yaml:"kind" doc:"What the operation does: list, create, batchCreate, read, replace, patch, delete, search (a view of the resource's items elsewhere), readOne (GET of the collection's path answering its one item, which its item path also addresses: settings), or action (answered from the document, without state)."`
	Resource    string `yaml:"resource" doc:"Path of the collection (or singleton) it serves, as the document writes it: /owners/{ownerId}/pets."`
	IDField     string `yaml:"idField" doc:"Property of the item that holds its id."`
	ParentField string `yaml:"parentField" doc:"Property of the item that holds its parent's id."`
	IDs         string `yaml:"ids" doc:"client: the client chooses ids (a taken one is 409 conflict; PUT creates); server: the server assigns them."`
	Patch       string `yaml:"patch" doc:"merge (RFC 7396 JSON Merge Patch) or json-patch (RFC 6902 JSON Patch)."`
	Items       string `yaml:"items" doc:"Where a list answer holds the items: a dotted path (data, meta.items), or . for an answer that is the array itself."`
	Paging      string `yaml:"paging" doc:"none, limit (a page size only), offset, page or cursor; the parameter that carries it must be named (below) or inferred."`
	LimitParam  string `yaml:"limitParam" doc:"Query parameter of the page size."`
	OffsetParam string `yaml:"offsetParam" doc:"Query parameter of the offset."`
	PageParam   string `yaml:"pageParam" doc:"Query parameter of the page number."`
	CursorParam string `yaml:"cursorParam" doc:"Query parameter of the cursor."`
	SortParam   string `yaml:"sortParam" doc:"Query parameter naming the property to sort by (-name or name:desc for descending)."`
}

// Override is the operation's override as the engine takes it.
func (o CRUDOperation) Override() spec.Override {
	return spec.Override{
		Kind: spec.OpKind(o.Kind), Resource: o.Resource, IDField: o.IDField, ParentField: o.ParentField,
		IDs: o.IDs, Patch: o.Patch, Items: o.Items, Paging: o.Paging,
		LimitParam: o.LimitParam, OffsetParam: o.OffsetParam, PageParam: o.PageParam, CursorParam: o.CursorParam, SortParam: o.SortParam,
	}
}

// Overrides are the crud.operations overrides as the engine takes them.
func (c *Config) Overrides() map[string]spec.Override {
	if len(c.CRUD.Operations) == 0 {
		return nil
	}
	out := make(map[string]spec.Override, len(c.CRUD.Operations))
	for id, o := range c.CRUD.Operations {
		out[id] = o.Override()
	}
	return out
}

// Default is the built-in configuration. The engine's defaults (limits,
// time-outs, CORS, the request log) are read from engine.DefaultOptions,
// their one home; the others are the configuration's own.
func Default() *Config {
	e := engine.DefaultOptions()
	return &Config{
		Server: Server{
			Addr:         "127.0.0.1:4010",
			Variables:    map[string]string{},
			MaxBodyBytes: e.MaxBodyBytes,
			LogFormat:    "text",
			Timeouts: Timeouts{
				ReadHeader: Duration(e.Timeouts.ReadHeader),
				Read:       Duration(e.Timeouts.Read),
				Write:      Duration(e.Timeouts.Write),
				Idle:       Duration(e.Timeouts.Idle),
				Shutdown:   Duration(e.Timeouts.Shutdown),
			},
		},
		Log: Log{Level: "info", Requests: !e.QuietRequests},
		Auth: Auth{Mode: "keys", Keys: []string{}, Schemes: map[string]SchemeAuth{},
			OAuth: OAuth{TokenLifetime: Duration(e.Auth.TokenLifetime)}},
		Fixtures: Fixtures{Files: []string{}},
		Store: Store{MaxRecords: e.StoreMaxRecords, MaxBytes: e.StoreMaxBytes,
			Backend: engine.DefaultStoreBackend, Path: engine.DefaultStatePath,
			Sync: string(engine.DefaultStoreSync), SyncInterval: Duration(engine.DefaultStoreSyncInterval)},
		RefFolders: []string{},
		Seed:       1,
		Lists: Lists{
			OutOfRangeLimit: "reject",
			Order:           "id",
			Pagination:      "none",
			CursorParam:     "cursor",
		},
		Errors:    Errors{Fields: map[string]string{}},
		Defaults:  map[string]map[string]any{},
		Responses: map[string]Response{},
		Latency:   map[string]Range{},
		Faults:    map[string]Fault{},
		// What a deployment sends besides the document (see petctl conform --profile-out).
		Headers:    map[string]Headers{},
		ErrorCodes: map[string]string{},
		CORS: CORS{
			Origins:       e.CORS.Origins,
			ExposeHeaders: e.CORS.ExposeHeaders,
			MaxAge:        Duration(e.CORS.MaxAge),
		},
		Admin: Admin{RequestLog: e.RequestLogSize, MaxImportBytes: e.MaxImportBytes},
		CRUD:  CRUD{Cascade: e.Cascade, Operations: map[string]CRUDOperation{}},
	}
}

// Duration is a time.Duration written as "250ms", "5s", "2m".
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes the duration as text.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// Range is a fixed duration ("50ms"), a range to draw from ("50ms..400ms"),
// or a range shaped by percentiles ("12ms..180ms (p50 25ms, p90 60ms)").
type Range struct {
	Min, Max    time.Duration
	Percentiles []engine.Percentile
}

func (r Range) String() string { return r.delay().String() }

func (r Range) delay() engine.Delay {
	return engine.Delay{Min: r.Min, Max: r.Max, Percentiles: r.Percentiles}
}

// MarshalYAML writes the range as text.
func (r Range) MarshalYAML() (any, error) { return r.String(), nil }

func parseRange(s string) (Range, error) {
	want := fmt.Errorf("%q: want a duration (50ms), a range (50ms..400ms) or a range with percentiles (12ms..180ms (p50 25ms, p90 60ms))", s)
	text, shape, shaped := strings.Cut(s, "(")
	lo, hi, isRange := strings.Cut(text, "..")
	a, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return Range{}, want
	}
	b := a
	if isRange {
		if b, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil {
			return Range{}, want
		}
	}
	if a < 0 || b < a {
		return Range{}, fmt.Errorf("%q: want 0 <= low <= high", s)
	}
	r := Range{Min: a, Max: b}
	if shaped {
		inner, ok := strings.CutSuffix(strings.TrimSpace(shape), ")")
		if !ok || !isRange {
			return Range{}, want
		}
		for _, part := range strings.Split(inner, ",") {
			name, dur, ok := strings.Cut(strings.TrimSpace(part), " ")
			q, qerr := strconv.ParseFloat(strings.TrimPrefix(name, "p"), 64)
			d, derr := time.ParseDuration(strings.TrimSpace(dur))
			if !ok || !strings.HasPrefix(name, "p") || qerr != nil || derr != nil || q <= 0 || q >= 100 {
				return Range{}, fmt.Errorf("%q: percentile %q: want p and a share above 0 and below 100, then a duration (p90 60ms)", s, strings.TrimSpace(part))
			}
			r.Percentiles = append(r.Percentiles, engine.Percentile{Q: q / 100, D: d})
		}
	}
	return r, nil
}

// parseNow reads clock.now: RFC 3339 (its offset kept), or a date
// (midnight UTC).
func parseNow(s string) (time.Time, error) {
	if t, ok := spec.ParseInstant(s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: want an RFC 3339 instant (2031-01-01T09:00:00Z) or a date (2031-01-01)", s)
}
