package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/petctl/petctl/spec"
)

// Bounds of the client. A deployment under test is not trusted: every read
// is capped and every wait is bounded.
const (
	// MaxBodyBytes is the most of a response body the suite reads unless
	// Config.MaxResponseBytes says otherwise; a larger body is a failure
	// of the response checks.
	MaxBodyBytes = 4 << 20
	// maxResponseBytesLimit bounds Config.MaxResponseBytes: each body read
	// is held in memory whole.
	maxResponseBytesLimit = 1 << 30
	// maxRedirects is how many same-origin GET redirects are followed.
	maxRedirects = 3
	// maxRetries is how many times a 429 is waited out for one request.
	maxRetries = 3
	// firstBackoff is the first wait for a 429 that gives no Retry-After;
	// each next one is twice as long.
	firstBackoff = time.Second
	// DefaultRetryAfterMax bounds one wait for a 429's Retry-After.
	DefaultRetryAfterMax = 10 * time.Second
	// DefaultRetryBudget bounds the waits for 429s of a whole run.
	DefaultRetryBudget = time.Minute
)

// request is what a check sends.
type request struct {
	op    *spec.Operation
	path  map[string]string // path parameters
	query url.Values
	body  []byte // sent as application/json unless contentType says otherwise
	// contentType overrides the body's media type ("" means application/json).
	contentType string
	// header holds header parameters the operation requires.
	header [][2]string
	auth   authMode
	// alt is the security alternative whose credentials it carries
	// (with auth saying which version of them).
	alt spec.Requirement
	// recordName is the name the body gives the record it may create.
	recordName string
	// unmade says why the run could not make the request valid (a body
	// it cannot send, one the schema refuses): a check that needs it
	// valid is skipped with the reason.
	unmade string
	// broken says why no request to the operation can be made as the
	// document describes it: every check that sends one is skipped.
	broken string
}

// Exchange is one request of the run and the response it got, as the
// report and the failure messages show them.
type Exchange struct {
	Check  string // the spec that sent it
	Op     *spec.Operation
	Method string
	URL    string // redacted of any user info
	// ReqHeader holds the headers the check chose; the key is never in it.
	ReqHeader [][2]string
	ReqBody   []byte
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool // the body was larger than the client reads (client.maxBody)
	Duration  time.Duration
	// Waited is the time spent waiting out 429 responses for this request.
	Waited time.Duration
	// RateLimited says why a 429 was not waited out ("" when it was not a
	// 429 with a usable Retry-After, or there was none).
	RateLimited string
	// Redirect says why a redirect to another origin than --url's was not
	// followed ("" when there was none).
	Redirect string

	// Auth is the credential the request carried.
	Auth authMode

	// schemaProblems and shapeProblems are the response checks' verdicts,
	// computed when the response arrived; notes are what they record of
	// it (an error status the document does not declare).
	schemaProblems []string
	shapeProblems  []string
	notes          []string

	httpReq *http.Request
}

// client sends the checks' requests. It reuses connections, bounds every
// request by a time-out, reads at most maxBody of a body, follows only GET
// redirects that stay on --url's origin and waits out 429 responses that
// say how long.
type client struct {
	base   *url.URL
	http   *http.Client
	creds  *credentials
	tokens *tokens
	// extras are the named values no scheme takes, sent with every request.
	extras        []place
	timeout       time.Duration
	retryAfterMax time.Duration
	// maxBody is the most of a response body it reads (MaxBodyBytes by default).
	maxBody int64
	// budget is what is left of the run's time for waiting out 429s.
	budgetMu sync.Mutex
	budget   time.Duration
	sleep    func(context.Context, time.Duration) error
	// secrets are what the output never shows (see redact).
	secrets *redactor
}

func newClient(base *url.URL, creds *credentials, timeout, retryAfterMax, budget time.Duration) *client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.ResponseHeaderTimeout = timeout
	c := &client{
		base:          base,
		creds:         creds,
		tokens:        &tokens{byKey: map[tokenKey]string{}, granted: map[tokenKey][]string{}},
		timeout:       timeout,
		maxBody:       MaxBodyBytes,
		retryAfterMax: retryAfterMax,
		budget:        budget,
		sleep:         sleepCtx,
		secrets:       &redactor{},
	}
	creds.register(c.secrets)
	if creds.oauth != nil {
		creds.oauth.base, creds.oauth.http = base, newTokenHTTP(timeout)
	}
	c.http = &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			// A redirect is the deployment's answer; the response checks
			// judge it unless it is a GET that stays on --url's origin.
			// Following it elsewhere would send the credentials there:
			// net/http forwards Authorization and Cookie to any port of
			// the same host name, and every other header (an apiKey
			// header) and the query (an apiKey parameter) to any host.
			if len(via) > maxRedirects || req.Method != http.MethodGet || !sameOrigin(req.URL, c.base) {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	return c
}

func (c *client) close() { c.http.CloseIdleConnections() }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// url builds the request URL from the base URL, the operation's path
// template and the parameters.
func (c *client) url(r *request) string {
	p := r.op.Path
	for name, v := range r.path {
		p = strings.ReplaceAll(p, "{"+name+"}", url.PathEscape(v))
	}
	u := *c.base
	setPath(&u, strings.TrimRight(c.base.EscapedPath(), "/")+p)
	u.RawQuery = r.query.Encode()
	return u.String()
}

// setPath sets u's path from its escaped form: a value escaped into a
// path template ("a b" as a%20b) is sent as escaped once, not twice
// (a%2520b), so the server reads the value the run made.
func setPath(u *url.URL, escaped string) {
	if p, err := url.PathUnescape(escaped); err == nil {
		u.Path, u.RawPath = p, escaped
		return
	}
	u.Path, u.RawPath = escaped, ""
}

// do sends r and reads the response. A transport error (refused, reset,
// timed out) is returned as an error; any HTTP response is an Exchange.
func (c *client) do(ctx context.Context, r *request) (*Exchange, error) {
	target := c.url(r)
	ex := &Exchange{Op: r.op, Method: r.op.Method, URL: c.redact(redactURL(target)), ReqBody: r.body}
	headers := c.credentials(r)
	for _, h := range r.header {
		// OpenAPI ignores a header parameter named Accept, Content-Type or
		// Authorization (spec leaves them out of a document it loads):
		// what the client sets for them governs, and a generated value
		// never replaces the credential.
		if !spec.IgnoredHeaderParam(h[0]) {
			headers = append(headers, sentHeader{h[0], h[1], ""})
		}
	}
	if r.body != nil {
		ct := r.contentType
		if ct == "" {
			ct = spec.JSON
		}
		headers = append(headers, sentHeader{"Content-Type", ct, ""})
	}
	if a := accept(r.op); a != "" {
		headers = append(headers, sentHeader{"Accept", a, ""})
	}
	for _, h := range headers {
		ex.ReqHeader = append(ex.ReqHeader, [2]string{h.name, h.display()})
	}
	start := time.Now()
	for attempt := 0; ; attempt++ {
		res, req, err := c.once(ctx, r, target, headers)
		if err != nil {
			return ex, err
		}
		if res.StatusCode == http.StatusTooManyRequests {
			// Without Retry-After the deployment says to come back later,
			// not when: a bounded backoff, 1 s, 2 s, 4 s.
			wait, ok := retryAfter(res.Header.Get("Retry-After"), time.Now())
			if !ok {
				wait = firstBackoff << attempt
			}
			if ex.RateLimited = c.mayWait(wait, attempt, ok); ex.RateLimited == "" {
				drain(res)
				if err := c.sleep(ctx, wait); err != nil {
					return ex, describeTransportError(ctx, err, c.timeout)
				}
				ex.Waited += wait
				continue
			}
		}
		ex.httpReq = req
		ex.Status = res.StatusCode
		ex.Header = res.Header
		ex.Body, ex.Truncated, err = readCapped(res.Body, c.maxBody)
		res.Body.Close()
		ex.Duration = time.Since(start) - ex.Waited
		if err != nil {
			return ex, fmt.Errorf("reading the response body: %w", describeTransportError(ctx, err, c.timeout))
		}
		if res.Request != nil && res.Request.URL.String() != target {
			ex.URL = c.redact(redactURL(res.Request.URL.String()))
		}
		ex.Redirect = c.unfollowed(res)
		return ex, nil
	}
}

// unfollowed says why res, a redirect to another origin than --url's, was
// not followed; "" when res is no such redirect.
func (c *client) unfollowed(res *http.Response) string {
	loc := res.Header.Get("Location")
	if res.StatusCode < 300 || res.StatusCode > 399 || loc == "" || res.Request == nil {
		return ""
	}
	to, err := res.Request.URL.Parse(loc)
	if err != nil || sameOrigin(to, c.base) {
		return ""
	}
	return fmt.Sprintf("not followed: %s is another origin than --url's (%s://%s), the only one the credentials are sent to",
		c.redact(redactURL(to.String())), c.base.Scheme, c.base.Host)
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), a port left out being the scheme's default.
func sameOrigin(a, b *url.URL) bool {
	return origin(a) == origin(b)
}

// origin is u's scheme://host:port, lower-cased, with the default port
// written out, so that equal origins compare equal as strings.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func (c *client) once(ctx context.Context, r *request, target string, headers []sentHeader) (*http.Response, *http.Request, error) {
	reqCtx, cancel := context.WithTimeout(ctx, c.timeout)
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(reqCtx, r.op.Method, target, body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	for _, h := range headers {
		req.Header.Set(h.name, h.value)
	}
	res, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, nil, describeTransportError(ctx, err, c.timeout)
	}
	// The time-out covers reading the body too; cancel when it is closed.
	res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
	return res, req, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// mayWait says why a 429's wait of d cannot be waited out, and takes d
// from the run's budget when it can. asked tells a wait the 429's
// Retry-After asks for from the run's own backoff.
func (c *client) mayWait(d time.Duration, attempt int, asked bool) string {
	c.budgetMu.Lock()
	defer c.budgetMu.Unlock()
	what := "Retry-After asks for"
	if !asked {
		what = "no Retry-After; the backoff would wait"
	}
	switch {
	case attempt >= maxRetries:
		return fmt.Sprintf("still 429 after waiting %d times", maxRetries)
	case d > c.retryAfterMax:
		return fmt.Sprintf("%s %s, more than --retry-after-max %s", what, d, c.retryAfterMax)
	case d > c.budget:
		return fmt.Sprintf("%s %s, more than the %s left of the run's --retry-budget", what, d, c.budget)
	}
	c.budget -= d
	return ""
}

// drain reads a little of a discarded body so the connection can be reused.
func drain(res *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
}

func readCapped(r io.Reader, limit int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, err
}

// describeTransportError says why a request got no complete answer: the
// run stopped (ctx, the request's without its time-out, ended) or the
// request's time-out passed.
func describeTransportError(ctx context.Context, err error, timeout time.Duration) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w before the answer was complete", stopCause(ctx))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within the time-out of %s (--timeout)", timeout)
	}
	return err
}

// retryAfter reads a Retry-After value: delay-seconds or an HTTP-date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// accept is the Accept header of a request to op: the media types its
// responses declare, those of its successes first; "" (none sent) when it
// declares none. Where a success declares JSON beside other types (text/plain,
// application/xml), the others go at q=0.5: the checks read JSON, and a
// deployment that negotiates by the first type listed would otherwise answer
// an object as text/plain (Prism answers that 500).
func accept(op *spec.Operation) string {
	resps := op.Responses
	if op.Default != nil {
		resps = append(slices.Clone(resps), op.Default)
	}
	var json, other, errs []string
	for _, r := range resps {
		success := r.Code != "" && (r.Code[0] == '2' || r.Code[0] == '3')
		for _, mt := range r.MediaTypes {
			switch {
			case !success:
				errs = append(errs, mt)
			case spec.IsJSON(mt):
				json = append(json, mt)
			default:
				other = append(other, mt)
			}
		}
	}
	if len(json) > 0 {
		for i, mt := range other {
			other[i] = mt + ";q=0.5"
		}
	}
	var types []string
	seen := map[string]bool{}
	for _, mt := range slices.Concat(json, other, errs) {
		if bare, _, _ := strings.Cut(mt, ";q="); !seen[bare] {
			seen[bare] = true
			types = append(types, mt)
		}
	}
	return strings.Join(types, ", ")
}

// redactURL hides user info in a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}
