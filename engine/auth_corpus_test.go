package engine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// corpusDocuments are the entry documents of the shared corpus (found by
// internal/corpus), by name. The test skips when there is none.
func corpusDocuments(t *testing.T) map[string]string {
	t.Helper()
	dir, found, err := corpus.Find("..")
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	if dir == "" {
		t.Skip(corpus.SkipReason + ": the corpus is not served")
	}
	if len(found) == 0 {
		t.Fatalf("corpus %s holds no document", dir)
	}
	docs := map[string]string{}
	for _, d := range found {
		docs[d.Name] = d.Path
	}
	return docs
}

// corpusKey is the development key the corpus servers take.
const corpusKey = "corpus-dev-key-5b1f"

// TestCorpusAuth serves every corpus document with every scheme given
// credentials of its own (besides a development key, which they must then
// refuse), and sends each operation requests without credentials, with
// wrong ones, with the development key and with the right ones for each
// of its security alternatives, and for scopes tokens without them: the
// refusals and admissions must be those the document declares. It logs,
// per document, each scheme and what was shown of it. (The development
// key's admission everywhere is shown on fixtures/styles/security.yaml:
// serving each corpus document a second time for it would double the
// test's time, which start-up dominates.)
func TestCorpusAuth(t *testing.T) {
	if forcePlain {
		t.Skip("authentication comes before validation and takes no validator path: the corpus is served in the main run only")
	}
	// Beside the other corpus tests and the plain run: each serves its own
	// servers, and together they are most of the package's time.
	t.Parallel()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range corpusDocuments(t) {
			if !yield(n) {
				return
			}
		}
	}) {
		path := corpusDocuments(t)[name]
		t.Run(name, func(t *testing.T) {
			if why := corpus.RaceSkip(name); why != "" {
				t.Skip(why)
			}
			s, err := spec.LoadWith(path, spec.LoadOptions{})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			tally := map[string]*schemeTally{}
			c := newCorpusAuth(t, s, tally)
			if c == nil {
				return
			}
			for _, op := range s.Operations {
				c.check(op)
			}
			for _, n := range slices.Sorted(func(yield func(string) bool) {
				for k := range tally {
					if !yield(k) {
						return
					}
				}
			}) {
				t.Logf("%s: %s", name, tally[n])
			}
		})
	}
}

// schemeTally is what the corpus test showed of one scheme.
type schemeTally struct {
	scheme *spec.Scheme
	ops    map[string]bool // operations that name it
	// refusedNone, refusedWrong and refusedDev count requests without a
	// credential, with a wrong one and with the development key, refused as
	// declared; accepted those with the scheme's own credentials let
	// through; scope those refused 403 for a missing scope; unserved the
	// 501s; forbidden the operations refused 403 as their document declares.
	refusedNone, refusedWrong, refusedDev, accepted, scope, unserved int
	forbidden                                                        map[string]bool
}

func (s *schemeTally) String() string {
	if s.scheme.Kind == spec.SchemeUnsupported {
		return fmt.Sprintf("%s: %d operations need it; %d requests answered 501 security_scheme_unsupported", s.scheme, len(s.ops), s.unserved)
	}
	return fmt.Sprintf("%s: enforced on %d operations; requests refused without credentials %d, with a wrong one %d, with the development key %d; let through with its own credentials %d; refused 403 for a missing scope %d; operations refused 403, as their document declares, %d",
		s.scheme, len(s.ops), s.refusedNone, s.refusedWrong, s.refusedDev, s.accepted, s.scope, len(s.forbidden))
}

// corpusAuth is one corpus document served for the test.
type corpusAuth struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	tally map[string]*schemeTally
}

// newCorpusAuth serves s, every scheme with credentials of its own (see
// ownCredentials). It is nil, and the test skipped, when the engine
// refuses the document for a reason that is not about security.
func newCorpusAuth(t *testing.T, s *spec.Spec, tally map[string]*schemeTally) *corpusAuth {
	t.Helper()
	o := Options{Spec: s, Keys: []string{corpusKey}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), RequestLogSize: 4}
	o.Auth.Schemes = map[string]SchemeCredentials{}
	for name, sc := range s.Schemes {
		if creds, ok := ownCredentials(sc); ok {
			o.Auth.Schemes[name] = creds
		}
	}
	srv, err := New(o)
	if err != nil {
		if aboutAuth(err) {
			t.Fatalf("start-up refused for a security reason: %v", err)
		}
		t.Skipf("not served, for a reason that is not about security, so its auth cannot be shown here: %s", firstLine(err.Error()))
		return nil
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &corpusAuth{t: t, srv: srv, http: hs, tally: tally}
}

// aboutAuth reports whether a start-up error names an auth setting.
func aboutAuth(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return slices.ContainsFunc(j.Unwrap(), aboutAuth)
	}
	var oe *OptionError
	return strings.Contains(err.Error(), "security scheme") || (errors.As(err, &oe) && strings.HasPrefix(oe.Key, "auth"))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return truncate(line, 300)
}

// The scope a restricted scheme's limited token carries, which no document
// asks for.
const noSuchScope = "petctl-corpus-no-such-scope"

// ownCredentials are the credentials a restricted scheme takes: named
// after the scheme, so that one scheme's never open another's.
func ownCredentials(sc *spec.Scheme) (SchemeCredentials, bool) {
	limited := StaticToken{Token: "limited-token-" + sc.Name, Scopes: []string{noSuchScope}}
	switch sc.Kind {
	case spec.SchemeAPIKey:
		return SchemeCredentials{Keys: []string{"own-key-" + sc.Name}}, true
	case spec.SchemeBasic:
		return SchemeCredentials{Users: map[string]string{"corpus-user": "own-key-" + sc.Name}}, true
	case spec.SchemeBearer:
		return SchemeCredentials{Tokens: []StaticToken{{Token: "own-key-" + sc.Name}, limited}}, true
	case spec.SchemeOAuth2, spec.SchemeOpenID:
		return SchemeCredentials{Clients: map[string]string{"corpus-client": "own-secret-" + sc.Name}, Tokens: []StaticToken{{Token: "own-key-" + sc.Name}, limited}}, true
	}
	return SchemeCredentials{}, false
}

// sent is the credentials of one request.
type sent struct {
	header http.Header
	query  url.Values
}

// add puts secret where use's scheme takes it; false when the request
// already carries another credential there (two schemes of one
// alternative in the Authorization header cannot both be met).
func (c *sent) add(sc *spec.Scheme, secret string) bool {
	if c.header == nil {
		c.header, c.query = http.Header{}, url.Values{}
	}
	var name, value string
	switch {
	case sc.Kind == spec.SchemeAPIKey && sc.In == "query":
		if c.query.Has(sc.Param) {
			return false
		}
		c.query.Set(sc.Param, secret)
		return true
	case sc.Kind == spec.SchemeAPIKey && sc.In == "cookie":
		cookie := sc.Param + "=" + secret
		if old := c.header.Get("Cookie"); old != "" {
			cookie = old + "; " + cookie
		}
		c.header.Set("Cookie", cookie)
		return true
	case sc.Kind == spec.SchemeAPIKey:
		name, value = sc.Param, secret
	case sc.Kind == spec.SchemeBasic:
		name, value = "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("corpus-user:"+secret))
	default:
		name, value = "Authorization", "Bearer "+secret
	}
	if c.header.Get(name) != "" {
		return false
	}
	c.header.Set(name, value)
	return true
}

// outcome is what the server concluded of one request: its status and
// the reason authentication failed, from the request log ("" when it
// passed).
type corpusOutcome struct {
	status int
	auth   string
}

func (o corpusOutcome) refused() bool { return o.auth != "" }

// do sends op a request carrying creds.
func (c *corpusAuth) do(op *spec.Operation, creds sent) corpusOutcome {
	c.t.Helper()
	u := c.http.URL + concretePath(c.srv.spec.BasePath, op)
	if len(creds.query) > 0 {
		u += "?" + creds.query.Encode()
	}
	req, err := http.NewRequest(op.Method, u, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for k, vs := range creds.header {
		req.Header[k] = vs
	}
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", op, err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	// Requests are sent one at a time: the last entry is this one's. (Its
	// operation is not compared: an answer that fails validation is logged
	// without it.)
	last := c.srv.reqlog.last(1)
	if len(last) != 1 || last[0].Method != req.Method || last[0].Path != req.URL.Path {
		c.t.Fatalf("%s: the request log's last entry is %+v, not this request's", op, last)
	}
	return corpusOutcome{status: res.StatusCode, auth: last[0].Auth}
}

// concretePath fills op's path parameters with a value that matches no
// literal segment.
func concretePath(base string, op *spec.Operation) string {
	p := op.Path
	for strings.Contains(p, "{") {
		i := strings.Index(p, "{")
		j := strings.Index(p[i:], "}")
		if j < 0 {
			break
		}
		p = p[:i] + "p1x" + p[i+j+1:]
	}
	return base + p
}

// refusal is the status a refused request to op gets: 403 where the
// document declares 403 and not 401 for it.
func refusal(op *spec.Operation) int {
	if op.Response(http.StatusForbidden) != nil && op.Response(http.StatusUnauthorized) == nil {
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}

func (c *corpusAuth) count(sc *spec.Scheme, op *spec.Operation) *schemeTally {
	st := c.tally[sc.Name]
	if st == nil {
		st = &schemeTally{scheme: sc, ops: map[string]bool{}, forbidden: map[string]bool{}}
		c.tally[sc.Name] = st
	}
	st.ops[op.ID] = true
	return st
}

// check sends op the requests that show its security enforced as declared.
func (c *corpusAuth) check(op *spec.Operation) {
	t := c.t
	t.Helper()
	if op.Method == http.MethodOptions {
		return // petctl answers OPTIONS itself (Allow, CORS), before authentication
	}
	if rt, _, ok := c.srv.router.match(concretePath(c.srv.spec.BasePath, op)); !ok || rt.ops[op.Method] != op {
		t.Logf("%s: petctl routes no request to it, so its auth is not checked here", op)
		return
	}
	none := c.do(op, sent{})
	if len(op.Requirements) == 0 {
		if none.refused() {
			t.Errorf("%s declares no security, yet a request without credentials is refused: %d (%s)", op, none.status, none.auth)
		}
		return
	}
	var servable []spec.Requirement
	for _, alt := range op.Requirements {
		if !slices.ContainsFunc(alt, func(u spec.SchemeUse) bool { return u.Scheme.Kind == spec.SchemeUnsupported }) {
			servable = append(servable, alt)
		}
	}
	if len(servable) == 0 {
		if none.status != http.StatusNotImplemented || none.auth != string(authUnsupported) {
			t.Errorf("%s needs only schemes petctl cannot check: %d (%s), want 501", op, none.status, none.auth)
		}
		for _, alt := range op.Requirements {
			for _, u := range alt {
				if u.Scheme.Kind == spec.SchemeUnsupported {
					c.count(u.Scheme, op).unserved++
				}
			}
		}
		return
	}
	if want := refusal(op); none.status != want || !none.refused() {
		t.Errorf("%s without credentials: %d (%q), want %d", op, none.status, none.auth, want)
	}
	for _, alt := range servable {
		for _, u := range alt {
			st := c.count(u.Scheme, op)
			st.refusedNone++
			if refusal(op) == http.StatusForbidden {
				st.forbidden[op.ID] = true
			}
		}
		var right, wrong, dev sent
		ok := true
		for _, u := range alt {
			secret := "own-key-" + u.Scheme.Name
			ok = ok && right.add(u.Scheme, secret) && wrong.add(u.Scheme, "wrong-"+secret) && dev.add(u.Scheme, corpusKey)
		}
		if !ok {
			t.Logf("%s: the alternative %s cannot be met by one request (two schemes in one header)", op, altName(alt))
			continue
		}
		if got := c.do(op, right); got.refused() {
			t.Errorf("%s with the right credentials for %s: %d (%s), want it let through", op, altName(alt), got.status, got.auth)
		}
		if got := c.do(op, wrong); !got.refused() || got.status != refusal(op) {
			t.Errorf("%s with wrong credentials for %s: %d (%q), want %d", op, altName(alt), got.status, got.auth, refusal(op))
		}
		if got := c.do(op, dev); !got.refused() || got.status != refusal(op) {
			t.Errorf("%s with the development key for %s, every scheme restricted: %d (%q), want %d", op, altName(alt), got.status, got.auth, refusal(op))
		}
		for _, u := range alt {
			st := c.count(u.Scheme, op)
			st.refusedWrong++
			st.refusedDev++
			st.accepted++
		}
		if len(servable) == 1 {
			c.checkScopes(op, alt)
		}
	}
}

// checkScopes shows an operation's scopes enforced: a token that lacks
// one gets 403, and for oauth2 and openIdConnect a token from the token
// endpoint with every scope is let through and one without the first
// scope is not.
func (c *corpusAuth) checkScopes(op *spec.Operation, alt spec.Requirement) {
	t := c.t
	t.Helper()
	for i, u := range alt {
		if len(u.Scopes) == 0 || !u.Scheme.Bearer() {
			continue
		}
		limited := func(token string) sent {
			var s sent
			for j, v := range alt {
				secret := "own-key-" + v.Scheme.Name
				if j == i {
					secret = token
				}
				s.add(v.Scheme, secret)
			}
			return s
		}
		if got := c.do(op, limited("limited-token-"+u.Scheme.Name)); got.status != http.StatusForbidden || got.auth != string(authScope) {
			t.Errorf("%s with a token of %s without its scopes %q: %d (%q), want 403", op, u.Scheme.Name, u.Scopes, got.status, got.auth)
			continue
		}
		c.count(u.Scheme, op).scope++
		if u.Scheme.Kind == spec.SchemeBearer {
			continue
		}
		all := c.token(u.Scheme, u.Scopes)
		if got := c.do(op, limited(all)); got.refused() {
			t.Errorf("%s with an issued token carrying %q: %d (%s), want it let through", op, u.Scopes, got.status, got.auth)
		}
		other := slices.DeleteFunc(slices.Clone(c.srv.auth.issuer.scopes[u.Scheme.Name]), func(s string) bool { return s == u.Scopes[0] })
		if len(other) == 0 {
			continue
		}
		if got := c.do(op, limited(c.token(u.Scheme, other))); got.status != http.StatusForbidden || got.auth != string(authScope) {
			t.Errorf("%s with an issued token without %q: %d (%q), want 403", op, u.Scopes[0], got.status, got.auth)
			continue
		}
		c.count(u.Scheme, op).scope++
	}
}

// token asks the token endpoint for a token of sc with scopes, as the
// scheme's own client.
func (c *corpusAuth) token(sc *spec.Scheme, scopes []string) string {
	c.t.Helper()
	f := url.Values{"grant_type": {"client_credentials"}, "scope": {strings.Join(scopes, " ")}}
	req, err := http.NewRequest(http.MethodPost, c.http.URL+TokenPath, strings.NewReader(f.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("corpus-client", "own-secret-"+sc.Name)
	env := &testEnv{t: c.t, http: c.http}
	return env.send(req).token(c.t)
}

func altName(alt spec.Requirement) string {
	var names []string
	for _, u := range alt {
		names = append(names, u.Scheme.Name)
	}
	return strings.Join(names, " and ")
}
