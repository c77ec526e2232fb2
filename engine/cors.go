package engine

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// CORSOptions decide which browser origins may call the server.
type CORSOptions struct {
	// Origins are patterns: "http://localhost:*" (any port), "https://*.example.com",
	// "https://app.example.com:8443", or "*" (any origin, never with credentials).
	// Nil means the default (DefaultOptions); an empty, non-nil slice allows none.
	Origins []string
	// Credentials lets browsers send cookies and read responses to credentialed requests.
	Credentials bool
	// ExposeHeaders are the response headers scripts may read; nil means the default.
	ExposeHeaders []string
	// MaxAge is how long a browser may cache a preflight answer; 0 means DefaultCORSMaxAge.
	MaxAge time.Duration
}

// defaultCORSOrigins are the loopback origins on any port, over http and
// https. Unexported so that no caller can change them for everyone:
// DefaultOptions hands out copies.
var defaultCORSOrigins = []string{
	"http://localhost:*", "https://localhost:*",
	"http://127.0.0.1:*", "https://127.0.0.1:*",
	"http://[::1]:*", "https://[::1]:*",
}

// defaultExposeHeaders lets scripts read the deprecation headers, the created
// item's location, the auth challenge, how long to wait after a 429 or 503,
// and the methods a 405 allows.
var defaultExposeHeaders = []string{"Deprecation", "Sunset", "Link", "Location", "WWW-Authenticate", "Retry-After", "Allow"}

// exposedHeaders are the configured headers, then the ETag petctl sends
// (a script needs it for If-Match, which petctl enforces) and every header
// a response of doc declares: the document says scripts are to read them.
// A name the Fetch standard lets every script read already (the
// CORS-safelisted response headers) or none (Set-Cookie) is left out, and
// each name is given once.
func exposedHeaders(configured []string, doc *spec.Spec) []string {
	out := slices.Clone(configured)
	seen := map[string]bool{}
	for _, h := range out {
		seen[http.CanonicalHeaderKey(h)] = true
	}
	add := func(name string) {
		switch k := http.CanonicalHeaderKey(name); k {
		case "Cache-Control", "Content-Language", "Content-Length", "Content-Type", "Expires", "Last-Modified", "Pragma", "Set-Cookie", "Set-Cookie2":
		default:
			if !seen[k] {
				seen[k] = true
				out = append(out, name)
			}
		}
	}
	add("ETag")
	if doc == nil {
		return out
	}
	for _, op := range doc.Operations {
		for _, r := range op.DeclaredResponses() {
			for _, h := range r.Headers {
				add(h.Name)
			}
		}
	}
	return out
}

// DefaultCORSMaxAge is how long a browser may cache a preflight answer.
const DefaultCORSMaxAge = 10 * time.Minute

type cors struct {
	any         bool
	patterns    []originPattern
	credentials bool
	expose      string
	maxAge      string
}

type originPattern struct {
	scheme    string
	host      string // lower case; "*.example.com" matches subdomains
	port      string // "*" matches any port and none
	anyPort   bool
	subdomain bool
}

// newCORS checks every origin and reports each bad one as an *OptionError
// at cors.origins[i], so configuration problems can name the entry.
// New has given o its defaults. Scripts may read the configured headers
// and the answers' own (exposedHeaders).
func newCORS(o CORSOptions, doc *spec.Spec) (*cors, error) {
	c := &cors{credentials: o.Credentials}
	var errs []error
	for i, p := range o.Origins {
		if p == "*" {
			if o.Credentials {
				errs = append(errs, keyError(fmt.Sprintf("cors.origins[%d]", i), `"*" cannot be combined with credentials: name the origins that may send credentials`))
			}
			c.any = true
			continue
		}
		pat, err := parseOriginPattern(p)
		if err != nil {
			errs = append(errs, keyError(fmt.Sprintf("cors.origins[%d]", i), "%q: %v", p, err))
			continue
		}
		c.patterns = append(c.patterns, pat)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c.expose = strings.Join(exposedHeaders(o.ExposeHeaders, doc), ", ")
	c.maxAge = strconv.Itoa(int(o.MaxAge.Seconds()))
	return c, nil
}

func parseOriginPattern(p string) (originPattern, error) {
	scheme, rest, ok := strings.Cut(p, "://")
	if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#") {
		return originPattern{}, errors.New("want scheme://host[:port], for example http://localhost:* or https://app.example.com")
	}
	host, port := rest, ""
	if h, pt, err := net.SplitHostPort(rest); err == nil {
		host, port = h, pt
	} else if strings.HasSuffix(rest, ":*") {
		host, port = strings.TrimSuffix(rest, ":*"), "*"
	}
	host = strings.Trim(strings.ToLower(host), "[]")
	pat := originPattern{scheme: scheme, host: host, port: port, anyPort: port == "*"}
	if strings.HasPrefix(host, "*.") {
		pat.subdomain, pat.host = true, host[1:] // ".example.com"
	} else if strings.Contains(host, "*") {
		return originPattern{}, errors.New("a wildcard may only stand for the port or a leading subdomain")
	}
	if port != "" && port != "*" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return originPattern{}, fmt.Errorf("port %q is not a number from 1 to 65535", port)
		}
	}
	return pat, nil
}

func (c *cors) allowed(origin string) bool {
	if origin == "" {
		return false
	}
	if c.any {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Path != "" || u.RawQuery != "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	for _, p := range c.patterns {
		if p.scheme != u.Scheme {
			continue
		}
		if p.subdomain {
			if !strings.HasSuffix(host, p.host) || len(host) == len(p.host) {
				continue
			}
		} else if host != p.host {
			continue
		}
		if p.anyPort || p.port == port {
			return true
		}
	}
	return false
}

func (c *cors) isPreflight(r *http.Request) bool {
	return r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// preflight answers a browser's OPTIONS check. methods are those of the
// path, none when no route matches. The method the browser asks about is
// allowed even when it is not among them: the request then goes through,
// and the page reads the 404 or 405 Error body (with Allow), where a
// refused preflight would give it only an opaque CORS error. That lets
// nothing happen that would not otherwise: the request itself is refused.
func (c *cors) preflight(r *http.Request, methods []string) *response {
	origin := r.Header.Get("Origin")
	if !c.allowed(origin) {
		return errorResponse(Errorf(CodeOriginNotAllowed, "origin %s may not call this server; allow it in the CORS settings", truncate(origin, 100)))
	}
	if m := r.Header.Get("Access-Control-Request-Method"); isToken(m) && !slices.Contains(methods, m) {
		methods = append(slices.Clip(methods), m)
	}
	res := &response{status: http.StatusNoContent}
	if len(methods) > 0 {
		res.set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
	}
	headers := "Authorization, Content-Type"
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" && isTokenList(req) {
		headers = req
	}
	res.set("Access-Control-Allow-Headers", headers)
	res.set("Access-Control-Max-Age", c.maxAge)
	return res
}

// varyOrigin is shared by responses: Header.Add appends to a copy, since
// its length is its capacity.
var varyOrigin = []string{"Origin"}

// decorate adds the CORS response headers when the request's origin is
// allowed, and Vary: Origin to every response when some origin may be: the
// answer depends on the Origin header, so a cache must not give the answer
// to a request without one to a later request with one (Fetch standard,
// "CORS protocol and HTTP caches").
func (c *cors) decorate(r *http.Request, res *response) {
	if !c.any && len(c.patterns) == 0 {
		return // no origin is allowed: the answer does not depend on Origin
	}
	if res.header == nil {
		res.header = http.Header{}
	}
	c.setHeaders(r, res.header, true)
}

// setHeaders is decorate on a header: Vary, and, when admitted and the
// origin is allowed, the CORS headers. The admin endpoints admit loopback
// pages only.
func (c *cors) setHeaders(r *http.Request, h http.Header, admitted bool) {
	if !c.any && len(c.patterns) == 0 {
		return
	}
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", "Origin")
	} else {
		h["Vary"] = varyOrigin
	}
	origin := r.Header.Get("Origin")
	if origin == "" || !admitted || !c.allowed(origin) {
		return
	}
	if c.any {
		h.Set("Access-Control-Allow-Origin", "*")
	} else {
		h.Set("Access-Control-Allow-Origin", origin)
	}
	if c.credentials {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if c.expose != "" && !c.isPreflight(r) {
		h.Set("Access-Control-Expose-Headers", c.expose)
	}
}

// isTokenList accepts a comma-separated list of header names, so a
// reflected list cannot smuggle anything else into the response.
func isTokenList(s string) bool {
	if len(s) > 1024 {
		return false
	}
	for _, part := range strings.Split(s, ",") {
		if !isToken(strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

// isToken accepts a header or method name of letters, digits, '-' and '_'.
func isToken(name string) bool {
	if name == "" || len(name) > 1024 {
		return false
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_') {
			return false
		}
	}
	return true
}
