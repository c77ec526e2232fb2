package engine

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/engine/store"
)

// AdminPrefix is the reserved path of the admin endpoints. No document path
// may start with it.
const AdminPrefix = "/__petctl/"

// DefaultMaxImportBytes bounds a store import unless Options say otherwise.
const DefaultMaxImportBytes = 256 << 20

// importAnswerTime is the time the answer to a store import has to be
// written once the import is applied, whatever the write time-out left of
// it: reading and checking a large import can outlast that time-out, and an
// import must never be applied and left unanswered.
const importAnswerTime = 10 * time.Second

// The admin endpoints, relative to AdminPrefix.
var adminEndpoints = []struct {
	method, path, what string
}{
	{http.MethodGet, "health", "liveness: 200 while the process serves, with the count of log lines dropped because stderr was not read"},
	{http.MethodGet, "ready", "readiness: 200 with the collections and their sizes"},
	{http.MethodPost, "reset", "return every collection to its fixtures"},
	{http.MethodGet, "store", "export the store as a fixture file: {collection: [records]}"},
	{http.MethodPut, "store", "import a fixture file (JSON, or YAML with Content-Type application/yaml): the collections it names are replaced, after every record is validated; a bad import changes nothing. An array of records fills the only collection, or the one ?collection=NAME names"},
	{http.MethodGet, "requests", "the last requests with their validation results, newest first (?limit=N)"},
}

// adminAllowed says whether r may use the admin endpoints: callers on
// loopback may, unless the request comes from a web page of another site;
// others need the admin key.
//
// A loopback caller is not always the developer: any page open in their
// browser can send a request to 127.0.0.1 (a "simple" POST needs no CORS
// preflight), and a DNS-rebinding page can even read the answers, its own
// host name resolving to 127.0.0.1. So the free pass also requires that
// the request names a loopback host and, when a browser says where it
// comes from (Origin, Sec-Fetch-Site), that this is a loopback page too.
func (s *Server) adminAllowed(r *http.Request) *Error {
	why := ""
	switch {
	case !isLoopback(r.RemoteAddr):
		why = "from another host"
	case !loopbackHost(r.Host):
		why = fmt.Sprintf("for host %q, which is not a loopback name", truncate(r.Host, 100))
	case !loopbackOrigin(r.Header):
		why = fmt.Sprintf("from a web page of origin %q", truncate(r.Header.Get("Origin"), 100))
	case r.Header.Get("Sec-Fetch-Site") == "cross-site":
		why = "from a web page of another site"
	case forwarded(r.Header) != "":
		// A proxy or tunnel on this machine (ngrok, a dev server's proxy)
		// connects from loopback on behalf of someone who may be anywhere.
		why = fmt.Sprintf("forwarded by a proxy (%s)", forwarded(r.Header))
	default:
		return nil
	}
	if s.adminKey == nil {
		return Errorf(CodeForbidden, "the admin endpoints answer requests %s only with the admin key, and none is configured", why)
	}
	token, ok := bearerToken(r.Header.Values("Authorization"))
	if !ok {
		return Errorf(CodeUnauthorized, "the admin endpoints need the admin key for requests %s: send 'Authorization: Bearer <ADMIN_KEY>'", why)
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], s.adminKey) != 1 {
		return Errorf(CodeUnauthorized, "the admin key is not valid")
	}
	return nil
}

// forwardingHeaders are those a proxy adds for the client it forwards
// (RFC 7239, RFC 9110 Via, and the common de facto ones).
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-Ip", "Via"}

// forwarded names the first forwarding header the request carries, "" when
// none.
func forwarded(h http.Header) string {
	for _, name := range forwardingHeaders {
		if _, ok := h[name]; ok {
			return name
		}
	}
	return ""
}

func isLoopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHost reports whether a Host header names this machine: localhost
// (or a name under .localhost, which browsers resolve to loopback
// themselves) or a loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackOrigin reports whether the request has no Origin (it did not come
// from a web page's script or form) or one served from this machine.
func loopbackOrigin(h http.Header) bool {
	origins := h.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) > 1 {
		return false
	}
	u, err := url.Parse(origins[0])
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.User == nil && loopbackHost(u.Host)
}

// bearerToken returns the token of a single "Bearer <token>" header.
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// serveAdmin answers a request under AdminPrefix.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// Pages on loopback may call the admin endpoints (adminAllowed), so
	// they may read the answers too; no other page gets CORS headers here,
	// whatever the CORS settings allow for the API.
	s.cors.setHeaders(r, w.Header(), loopbackOrigin(r.Header))
	res := s.admin(w, r)
	if res != nil {
		writeResponse(w, r, res)
	}
	status := http.StatusOK
	if res != nil {
		status = res.status
	}
	if !s.quiet {
		s.log.Info("admin", "method", r.Method, "path", r.URL.Path, "status", status,
			"latency", time.Since(start).Round(time.Microsecond).String())
	}
}

// admin returns the response to write, or nil when it wrote one itself.
func (s *Server) admin(w http.ResponseWriter, r *http.Request) *response {
	if e := s.adminAllowed(r); e != nil {
		res := errorResponse(e)
		if e.Code == CodeUnauthorized {
			res.set("WWW-Authenticate", `Bearer realm="petctl-admin"`)
		}
		return res
	}
	name := strings.TrimPrefix(r.URL.Path, AdminPrefix)
	var methods []string
	for _, ep := range adminEndpoints {
		if ep.path == name {
			methods = append(methods, ep.method)
		}
	}
	if r.Method == http.MethodOptions && s.cors.isPreflight(r) {
		return s.cors.preflight(r, methods)
	}
	if len(methods) == 0 {
		var all []string
		for _, ep := range adminEndpoints {
			all = append(all, ep.method+" "+AdminPrefix+ep.path)
		}
		return errorResponse(Errorf(CodeRouteNotFound, "no admin endpoint at %s; they are %s", truncate(r.URL.Path, 200), strings.Join(all, ", ")))
	}
	if !slices.Contains(methods, r.Method) && (r.Method != http.MethodHead || !slices.Contains(methods, http.MethodGet)) {
		res := errorResponse(Errorf(CodeMethodNotAllowed, "%s is not an admin method for %s; allowed: %s", r.Method, r.URL.Path, strings.Join(methods, ", ")))
		res.set("Allow", strings.Join(methods, ", "))
		return res
	}
	switch {
	case name == "health":
		var dropped int64
		if s.logBuffer != nil {
			dropped = s.logBuffer.Dropped()
		}
		return adminJSON(map[string]any{"status": "ok", "logLinesDropped": dropped, "store": s.storeHealth(), "version": s.versionHealth()})
	case name == "ready":
		return adminJSON(map[string]any{"ready": true, "collections": s.Collections()})
	case name == "reset":
		if err := s.Reset(); err != nil {
			return errorResponse(Errorf(CodeStoreUnavailable, "nothing was reset: %v", err))
		}
		return adminJSON(map[string]any{"reset": true, "collections": s.Collections()})
	case name == "store" && r.Method == http.MethodPut:
		return s.adminImport(w, r)
	case name == "store":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="petctl-store.json"`)
		if r.Method != http.MethodHead {
			_ = s.Export(w)
		}
		return nil
	case name == "requests":
		n := 0
		if v := r.URL.Query().Get("limit"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 1 {
				return errorResponse(Errorf(CodeValidation, "query parameter 'limit': %q: want a positive integer", truncate(v, 50)))
			}
		}
		return adminJSON(map[string]any{"requests": s.reqlog.last(n)})
	}
	return errorResponse(Errorf(CodeInternal, "admin endpoint %s has no handler", name))
}

func (s *Server) adminImport(w http.ResponseWriter, r *http.Request) *response {
	// ?collection names the collection an import that is an array of
	// records fills; with one collection it may be left out.
	coll := ""
	if vs, ok := r.URL.Query()["collection"]; ok {
		if len(vs) != 1 || s.colls[vs[0]] == nil {
			return errorResponse(Errorf(CodeValidation, "nothing was imported: query parameter 'collection': %q is not one collection of the spec; give one of %s", truncate(strings.Join(vs, ","), 100), knownNames(s.colls)))
		}
		coll = vs[0]
	}
	body, _, e := readWhole(r, s.maxImport, "the import")
	if e != nil {
		return errorResponse(e)
	}
	name := "import.json"
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && isYAMLMediaType(mt) {
		name = "import.yaml"
	}
	isArray := false
	arrayOf := func(string) (string, error) {
		isArray = true
		if coll != "" {
			return coll, nil
		}
		if len(s.colls) == 1 {
			for only := range s.colls {
				return only, nil
			}
		}
		return "", fmt.Errorf("the import is an array of records, and the spec has %d collections (%s): name the one it fills with ?collection=NAME (PUT %sstore?collection=NAME), or send an object {\"NAME\": [records]}", len(s.colls), knownNames(s.colls), AdminPrefix)
	}
	// Applied means answered: the answer gets its own time to be written
	// just before the import is applied, and without it nothing is.
	var deadlineErr error
	answerable := func() error {
		err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(importAnswerTime))
		if err != nil && !errors.Is(err, http.ErrNotSupported) {
			deadlineErr = fmt.Errorf("the answer could not be given time to be written: %v", err)
			return deadlineErr
		}
		return nil
	}
	fx, err := s.data.Parse([]FixtureFile{{Name: name, Data: body}}, arrayOf)
	if err == nil && coll != "" && !isArray {
		err = fmt.Errorf("?collection=%s is for an import that is an array of records; this one is an object, which names its collections itself", coll)
	}
	if err == nil {
		err = s.data.Import(fx, s.now(), answerable)
	}
	var full *store.FullError
	var unavailable *store.JournalError
	switch {
	case errors.As(err, &unavailable):
		return errorResponse(Errorf(CodeStoreUnavailable, "nothing was imported: %v", unavailable))
	case errors.As(err, &full):
		return errorResponse(Errorf(CodeStoreFull, "%v; nothing was imported: raise %s, or import fewer records", full, full.Setting()))
	case deadlineErr != nil:
		return errorResponse(Errorf(CodeInternal, "nothing was imported: %v", deadlineErr))
	case err != nil:
		return errorResponse(Errorf(CodeValidation, "nothing was imported: %v", err))
	}
	return adminJSON(map[string]any{"imported": true, "collections": s.Collections()})
}

func isYAMLMediaType(mt string) bool {
	mt = strings.ToLower(mt)
	return mt == "application/yaml" || mt == "application/x-yaml" || mt == "text/yaml" || strings.HasSuffix(mt, "+yaml")
}

func adminJSON(v any) *response {
	body, err := json.Marshal(v)
	if err != nil {
		return errorResponse(Errorf(CodeInternal, "admin answer could not be encoded: %v", err))
	}
	res := jsonResponse(http.StatusOK, body)
	res.set("Content-Type", "application/json")
	res.set("Cache-Control", "no-store")
	return res
}

// Reset returns every collection to its fixtures (and generated records).
// An error says the state could not take the reset, which then did not
// happen.
func (s *Server) Reset() error { return s.data.Reset() }

// versionHealth says which configuration and document are served.
func (s *Server) versionHealth() map[string]any {
	v := map[string]any{"number": s.version.Number, "document": s.spec.Source, "digest": s.spec.Digest}
	if !s.version.Loaded.IsZero() {
		v["loadedAt"] = s.version.Loaded.UTC().Format(time.RFC3339)
	}
	return v
}

// storeHealth says where the records are kept and whether that works.
func (s *Server) storeHealth() map[string]any {
	if s.state == nil {
		return map[string]any{"kept": "memory"}
	}
	h := map[string]any{"kept": s.state.Name(), "ok": true}
	if err := store.Health(s.state); err != nil {
		h["ok"], h["error"] = false, err.Error()
	}
	return h
}

// Export writes the store as a fixture file: a JSON object mapping each
// collection to the array of its records in id order.
func (s *Server) Export(w io.Writer) error { return s.data.Export(w) }

// Import replaces the collections a fixture file names with its records.
// Every record is validated first; on any problem nothing changes.
func (s *Server) Import(f FixtureFile) error {
	fx, err := s.data.Parse([]FixtureFile{f}, nil)
	if err != nil {
		return err
	}
	return s.data.Import(fx, s.now(), nil)
}

// writeResponse writes a response that needs no validation (admin answers).
func writeResponse(w http.ResponseWriter, r *http.Request, res *response) {
	h := w.Header()
	for k, v := range res.header {
		h[k] = v
	}
	if res.body != nil {
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		h.Set("Content-Length", strconv.Itoa(len(res.body)))
	}
	w.WriteHeader(res.status)
	if res.body != nil && r.Method != http.MethodHead {
		_, _ = w.Write(res.body)
	}
}
