package conformance_test

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/internal/race"
)

// hostileItem answers GET /pets/{id} and POST /pets badly and everything
// else (the reachability probe included) as the engine does.
func hostileItem(t *testing.T, misbehave http.HandlerFunc) http.Handler {
	engine := petstore(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/pets/") || (r.Method == http.MethodPost && r.URL.Path == "/v1/pets") {
			misbehave(w, r)
			return
		}
		engine.ServeHTTP(w, r)
	})
}

// TestHostileDeployments: a deployment that hangs, dribbles, sends an
// endless or a huge body, redirects in a loop, resets connections or
// answers HTML fails checks with a clear reason, within the time-out;
// petctl neither hangs nor crashes, and both reports are written.
func TestHostileDeployments(t *testing.T) {
	t.Parallel()
	var redirects atomic.Int64
	hugeBody := []byte(`{"id":1,"name":"` + strings.Repeat("x", 20<<20) + `","categoryId":1}`)
	// A run costs about a time-out for each of the 21 requests to the item
	// operations when they hang or dribble, so those cases get a shorter
	// one, still ample for the probe and the engine's answers on a busy
	// machine; the others answer at once, so a longer one costs them
	// nothing: it covers reading a 4 MiB body and the reachability probe
	// under the race detector on a loaded machine (400ms was not enough at
	// load 10 on two cores).
	const short, long = 250 * time.Millisecond, 2 * time.Second
	cases := []struct {
		name    string
		timeout time.Duration
		h       http.HandlerFunc
		reason  []string // one of these is in some failure message
	}{
		{"hangs", short, func(w http.ResponseWriter, r *http.Request) {
			// The body read to its end, the server watches the connection
			// and cancels r's context when the client gives up; unread, a
			// POST would hang here after the run, holding up the server's
			// Close for the full 20 s.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
		}, []string{"time-out"}},
		{"answers slowly", short, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			for i := 0; i < 100; i++ {
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}, []string{"time-out"}},
		{"endless body", long, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			chunk := []byte("[" + strings.Repeat(`{"id":1,"name":"x","categoryId":1},`, 1000))
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, []string{"MiB", "larger", "limit"}},
		{"huge body", long, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(hugeBody)
		}, []string{"MiB", "larger", "limit"}},
		{"redirect loop", long, func(w http.ResponseWriter, r *http.Request) {
			redirects.Add(1)
			http.Redirect(w, r, r.URL.String(), http.StatusFound)
		}, []string{"redirect", "302"}},
		{"resets connections", long, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with RST
			}
			conn.Close()
		}, []string{"reset", "EOF", "closed"}},
		{"answers HTML", long, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
		}, []string{"text/html", "HTML", "Content-Type"}},
	}
	// Every check of these reads MaxBodyBytes of body: over 10 CPU-seconds
	// a case under the race detector, which has nothing to watch there
	// that the other cases do not show it: make test runs them in its run
	// without -race (NORACE_TESTS), and the others in its run with it
	// alone, where the detector watches the runner's time-outs and retries.
	bigBodies := map[string]bool{"endless body": true, "huge body": true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if bigBodies[c.name] {
				race.Heavy(t)
			} else {
				race.Light(t)
			}
			if !inOwnProcess(t) {
				return
			}
			dir := t.TempDir()
			junit, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
			start := time.Now()
			o := conform(t, serve(t, hostileItem(t, c.h)), func(cfg *conformance.Config) {
				cfg.Timeout = c.timeout
				cfg.JUnitReport, cfg.JSONReport = junit, jsonReport
			})
			if d := time.Since(start); d > 90*time.Second {
				t.Errorf("the run took %v", d)
			}
			failed := o.failed()
			if len(failed) == 0 {
				t.Fatalf("no check failed against a deployment that %s:\n%s", c.name, o.out)
			}
			found := false
			for _, sr := range o.res.Report.SpecReports {
				for _, r := range c.reason {
					if strings.Contains(sr.Failure.Message, r) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("no failure message gives the reason (%v):\n%s", c.reason, o.out)
			}
			for _, f := range failed {
				if !strings.Contains(f, "getPet") && !strings.Contains(f, "createPet") && !strings.Contains(f, "coverage") && !strings.Contains(f, "pagination") && !strings.Contains(f, "limit") {
					t.Logf("also failed: %s", f)
				}
			}
			raw, err := os.ReadFile(junit)
			if err != nil {
				t.Fatalf("no JUnit report: %v", err)
			}
			var suites struct {
				XMLName  xml.Name `xml:"testsuites"`
				Failures int      `xml:"failures,attr"`
			}
			if err := xml.Unmarshal(raw, &suites); err != nil || suites.Failures == 0 {
				t.Errorf("JUnit report: %v, %d failures", err, suites.Failures)
			}
			raw, err = os.ReadFile(jsonReport)
			if err != nil || !json.Valid(raw) {
				t.Errorf("JSON report: %v", err)
			}
		})
	}
	if redirects.Load() > 200 {
		t.Errorf("the redirect loop was followed %d times", redirects.Load())
	}
}

// TestUnreachableWritesReports: a target that cannot be reached still
// leaves both reports, valid and holding one failed "reachability" check
// with the reason, so CI's JUnit readers have something to show.
func TestUnreachableWritesReports(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	dir := t.TempDir()
	junit, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	// Stale reports of an earlier run must not survive either.
	os.WriteFile(junit, []byte("stale"), 0o600)
	_, err = conformance.Run(t.Context(), conformance.Config{BaseURL: closed, APIKey: testKey, JUnitReport: junit, JSONReport: jsonReport})
	var unreachable *conformance.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err = %v, want unreachable", err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	raw := readFile(t, junit)
	if err := xml.Unmarshal([]byte(raw), &suites); err != nil {
		t.Fatalf("JUnit report: %v\n%s", err, raw)
	}
	if suites.Tests != 1 || suites.Failures != 1 || len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 1 {
		t.Fatalf("JUnit report: %d tests, %d failures, want 1 and 1:\n%s", suites.Tests, suites.Failures, raw)
	}
	c := suites.Suites[0].Cases[0]
	if !strings.Contains(c.Name, "reachability") || c.Failure == nil || !strings.Contains(c.Failure.Message+c.Failure.Text, "connection refused") {
		t.Errorf("JUnit test case %+v: want the reachability check, failed with the reason", c)
	}
	var reports []struct {
		SuiteSucceeded bool
		SpecReports    []struct {
			LeafNodeText string
			State        string
			Failure      struct{ Message string }
		}
	}
	raw = readFile(t, jsonReport)
	if err := json.Unmarshal([]byte(raw), &reports); err != nil || len(reports) != 1 || reports[0].SuiteSucceeded || len(reports[0].SpecReports) != 1 {
		t.Fatalf("JSON report: %v\n%s", err, raw)
	}
	if sr := reports[0].SpecReports[0]; sr.State != "failed" || !strings.Contains(sr.Failure.Message, "connection refused") {
		t.Errorf("JSON report's check: %+v", sr)
	}
}

// TestSlowBodyIsReachable: a deployment that sends its status and headers
// at once, then drips the body past the time-out, is reachable: the run
// goes on and the checks that got no complete answer fail (exit 1, not 3).
func TestSlowBodyIsReachable(t *testing.T) {
	t.Parallel()
	engine := petstore(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/pets" { // listPets is the probe's operation
			engine.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, b := range []byte("[]") {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
			w.Write([]byte{b})
			w.(http.Flusher).Flush()
		}
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) {
		c.Timeout = 300 * time.Millisecond
		c.LabelFilter = "listPets && auth"
	})
	if o.res.OK() {
		t.Fatalf("the run passed:\n%s", o.out)
	}
	st, msg := o.state(t, "listPets (GET /pets) with a wrong key")
	if st.String() != "failed" || !strings.Contains(msg, "reading the response body") || !strings.Contains(msg, "time-out of 300ms") {
		t.Errorf("the check is %s (%q), want failed on the body's time-out", st, msg)
	}
}

// TestRateLimited: a 429 that is not waited out (its Retry-After is longer
// than --retry-after-max, or the run's --retry-budget is spent) fails the
// check as rate limited, saying why, never as a status mismatch.
func TestRateLimited(t *testing.T) {
	t.Parallel()
	limited := func(retryAfter string, times int) http.Handler {
		engine := petstore(t)
		var n atomic.Int64
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/pets/") && n.Add(1) <= int64(times) {
				w.Header().Set("Retry-After", retryAfter)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write(errorBody(429, "rate_limited"))
				return
			}
			engine.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name   string
		h      http.Handler
		cfg    func(*conformance.Config)
		reason string
	}{
		{"Retry-After beyond --retry-after-max", limited("30", 1), nil, "more than --retry-after-max 10s"},
		{"the run's budget spent", limited("1", 2), func(c *conformance.Config) { c.RetryBudget = 1500 * time.Millisecond }, "left of the run's --retry-budget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mutate := []func(*conformance.Config){func(c *conformance.Config) { c.LabelFilter = "auth && getPet" }}
			if tc.cfg != nil {
				mutate = append(mutate, tc.cfg)
			}
			o := conform(t, serve(t, tc.h), mutate...)
			failed := o.failed()
			if len(failed) != 1 {
				t.Fatalf("failed = %q, want one check\n%s", failed, o.out)
			}
			var msg string
			for _, sr := range o.res.Report.SpecReports {
				if sr.State.Is(types.SpecStateFailed) {
					msg = sr.Failure.Message
				}
			}
			if !strings.Contains(msg, "rate limited") || !strings.Contains(msg, tc.reason) || strings.Contains(msg, "got:      429") {
				t.Errorf("the failure %q: want it rate limited (%s), not a status mismatch", msg, tc.reason)
			}
		})
	}
}

// TestTransportFailuresDoNotCover: an operation whose every request was
// lost in transport was not exercised, and --require-coverage says so.
func TestTransportFailuresDoNotCover(t *testing.T) {
	t.Parallel()
	engine := petstore(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/store/orders" {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		engine.ServeHTTP(w, r)
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.RequireCoverage = true })
	if r := o.res.NotExercised["listStoreOrders"]; !strings.Contains(r, "got no answer") {
		t.Errorf("listStoreOrders, whose every request failed in transport, counts as exercised: not exercised %v", o.res.NotExercised)
	}
	if st, msg := o.state(t, "coverage the document every operation"); st.String() != "failed" || !strings.Contains(msg, "listStoreOrders") {
		t.Errorf("the coverage check is %s (%q): want it failed, naming listStoreOrders", st, msg)
	}
}

// TestRedirectToAnotherOrigin: a deployment that redirects its item reads
// to another port of its host, where a copy of it answers, gets no
// credential there: the redirect is not followed, and the failure
// messages, the observations and both reports say so and why.
func TestRedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	copyOf := petstore(t)
	other := serveRaw(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		copyOf.ServeHTTP(w, r)
	}))
	engine := petstore(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/pets/") {
			http.Redirect(w, r, other+r.URL.RequestURI(), http.StatusFound)
			return
		}
		engine.ServeHTTP(w, r)
	})
	dir := t.TempDir()
	junit, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	o := conform(t, serve(t, h), func(c *conformance.Config) {
		c.LabelFilter = "getPet"
		c.JUnitReport, c.JSONReport = junit, jsonReport
	})
	if n := reached.Load(); n > 0 {
		t.Errorf("the other origin was sent %d requests", n)
	}
	if o.res.OK() {
		t.Fatalf("the run passed:\n%s", o.out)
	}
	want := "not followed: " + other + "/v1/pets/"
	if v, ok := o.observation("redirect of getPet to another origin"); !ok || !strings.Contains(v, want) {
		t.Errorf("observation of the redirect: %q, %t; want it to say %q", v, ok, want)
	}
	texts := map[string]string{"console": o.out, "JUnit report": readFile(t, junit), "JSON report": readFile(t, jsonReport)}
	for name, text := range texts {
		if !strings.Contains(text, "redirect: "+want) || !strings.Contains(text, "the only one the credentials are sent to") {
			t.Errorf("the %s does not say the redirect was not followed, and why", name)
		}
	}
}

// drip answers every request with its status and headers at once, then
// one byte of body every 100ms until the client goes away: each request
// costs the client its whole time-out.
func drip(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for {
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestDeadline: against a deployment that drips every body, a run costs
// requests × --timeout; --deadline stops it in bounded time, the request
// in flight abandoned, every check not run yet skipped with the reason,
// the reports written, and the result saying why it stopped.
func TestDeadline(t *testing.T) {
	if !inOwnProcess(t) {
		return
	}
	const deadline = 2 * time.Second
	dir := t.TempDir()
	junit, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.json")
	start := time.Now()
	o := conform(t, serveRaw(t, http.HandlerFunc(drip))+"/v1", func(c *conformance.Config) {
		c.Timeout = time.Second
		c.Deadline = deadline
		c.JUnitReport, c.JSONReport = junit, jsonReport
	})
	// Without the deadline: the probe and 43 requests, a second each.
	if got, bound := time.Since(start), deadline+5*time.Second; got > bound {
		t.Errorf("the run took %s, want at most %s", got, bound)
	}
	const reason = "the run's --deadline of 2s passed"
	if !o.res.Interrupted || o.res.StopReason != reason || o.res.OK() {
		t.Errorf("interrupted %t, stop reason %q, ok %t; want interrupted because %q", o.res.Interrupted, o.res.StopReason, o.res.OK(), reason)
	}
	if !strings.Contains(o.out, "stopped: "+reason) {
		t.Errorf("the summary does not say why the run stopped:\n%s", o.out)
	}
	notRun := 0
	for _, sr := range o.res.Report.SpecReports {
		if sr.State == types.SpecStateSkipped && sr.Failure.Message == "not run: "+reason {
			notRun++
		}
	}
	if notRun < 40 || o.res.Skipped != notRun {
		t.Errorf("%d checks skipped as not run because of the deadline, %d skipped in all; want them all, at least 40", notRun, o.res.Skipped)
	}
	var suites struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Cases []struct {
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(readFile(t, junit)), &suites); err != nil || len(suites.Suites) != 1 {
		t.Fatalf("JUnit report: %v", err)
	}
	junitNotRun := 0
	for _, c := range suites.Suites[0].Cases {
		if c.Skipped != nil && strings.Contains(c.Skipped.Message, reason) {
			junitNotRun++
		}
	}
	if junitNotRun != notRun || suites.Tests < 50 {
		t.Errorf("JUnit report: %d tests, %d skipped for the deadline; want every check, %d of them skipped", suites.Tests, junitNotRun, notRun)
	}
	var reports []struct {
		SuiteSucceeded bool
		SpecReports    []struct{ State string }
	}
	if err := json.Unmarshal([]byte(readFile(t, jsonReport)), &reports); err != nil || len(reports) != 1 || reports[0].SuiteSucceeded || len(reports[0].SpecReports) < 50 {
		t.Errorf("JSON report: %v; want one failed suite with every check", err)
	}
}

// TestControlCharactersShownEscaped: what a deployment writes reaches the
// console with its control characters escaped, so its escape sequences
// cannot erase or recolour the run's FAIL lines: the body of a failed
// check's answer, and that of a refused create (409) the run records.
func TestControlCharactersShownEscaped(t *testing.T) {
	t.Parallel()
	const sequence = "\x1b[2K\x1b[1AFAKE\x7f\u0085\x00"
	h := hostileItem(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"code":"conflict","message":"` + sequence + `","status":409}`))
	})
	o := conform(t, serve(t, h))
	if o.res.OK() {
		t.Fatalf("the run passed:\n%s", o.out)
	}
	if i := strings.IndexFunc(o.out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
		t.Errorf("the console shows the control character %q at byte %d: %q", o.out[i], i, o.out[max(0, i-80):min(len(o.out), i+80)])
	}
	// U+0085 is a line break, which an excerpt writes as a space.
	if !strings.Contains(o.out, `\x1b[2K\x1b[1AFAKE\x7f \x00`) {
		t.Errorf("the console does not show the body's characters escaped:\n%s", o.out)
	}
}

// TestMaxResponseBytes: the most of a body the run reads is a setting
// (--max-response-bytes): a page of 20 animals, about 1.2 kB, is more than
// a bound of 512 bytes, and the response check says which bound.
func TestMaxResponseBytes(t *testing.T) {
	t.Parallel()
	o := conform(t, serve(t, petstore(t)), func(c *conformance.Config) {
		c.MaxResponseBytes = 512
		c.LabelFilter = "listPets"
	})
	if o.res.OK() {
		t.Fatalf("the run passed:\n%s", o.out)
	}
	if !strings.Contains(o.out, "larger than 512 bytes") {
		t.Errorf("no failure names the bound of 512 bytes:\n%s", o.out)
	}
}
