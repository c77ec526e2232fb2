package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
)

// TestKeyNeverShown: the key is not in the console report, the JSON report
// or the JUnit report, even when the deployment echoes it in a failing
// response; requests show $PETCTL_API_KEY instead.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := editResponse(petstore(t), isPrefix("GET", "/v1/pets/"), func(r *http.Request, res *recorded) {
		if res.status == 404 {
			res.status = 200 // fails "an unknown id gives 404"
			res.body = []byte(`{"echo":"` + r.Header.Get("Authorization") + `"}`)
		}
	})
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.JUnitReport, c.JSONReport = junit, jsonReport; c.Verbose = true })
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	files := map[string]string{"console": o.out}
	for _, p := range []string{junit, jsonReport} {
		files[p] = readFile(t, p)
	}
	for name, text := range files {
		if strings.Contains(text, testKey) {
			t.Errorf("%s contains the API key", name)
		}
	}
	for _, want := range []string{"ok   auth · listPets (GET /pets): without credentials gives 401", "       GET http://", "observed answer to limit=0: 400"} {
		if !strings.Contains(o.out, want) {
			t.Errorf("-v output lacks %q", want)
		}
	}
	if !strings.Contains(o.out, `'Authorization: Bearer '"$PETCTL_API_KEY"`) {
		t.Errorf("the failure's curl command does not use $PETCTL_API_KEY:\n%s", o.out)
	}
	var reports []struct {
		SpecReports []struct {
			State string
		}
	}
	if err := json.Unmarshal([]byte(files[jsonReport]), &reports); err != nil || len(reports) != 1 || len(reports[0].SpecReports) < 50 {
		t.Errorf("JSON report: %v, %d reports", err, len(reports))
	}
	if !strings.Contains(files[junit], "<testsuites") || !strings.Contains(files[junit], "an unknown id gives 404") {
		t.Errorf("JUnit report lacks the suite or the failed check")
	}
}

// TestKeyEchoedNeverShown: a proxy echoes the key wherever a message can
// quote a response: in headers (WWW-Authenticate, Deprecation, Sunset, a
// pagination hint), in the Error body's status, in item fields long
// enough to be cut, in a malformed status line. The key is nowhere in
// the console output, the reports or the Result, not even in part; an
// unreachable target's error does not hold it either.
func TestKeyEchoedNeverShown(t *testing.T) {
	t.Parallel()
	// Characters that JSON, XML, Go quoting and URLs each escape.
	const key = `s3cr3t-KEY<&>"abc\x`
	const part = "s3cr3t" // any part of it that survived a cut
	inner := petstore(t, func(o *engine.Options) { o.Keys = []string{key} })
	echoing := func(malformedProbe bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			echo := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			withKey := echo == key
			if withKey && (r.URL.Path == "/v1/store/orders" || malformedProbe) {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_, _ = conn.Write([]byte("HTTP/1.1 " + key + " OK\r\n\r\n"))
					conn.Close()
				}
				return
			}
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			h := rec.Header()
			h.Set("WWW-Authenticate", `Bearer realm="`+echo+`"`)
			h.Set("X-Next-Page", echo)
			if strings.HasPrefix(r.URL.Path, "/v1/pets/") {
				h.Set("Deprecation", echo)
				h.Set("Sunset", echo)
			} else {
				h.Set("Deprecation", "@1"+echo)
			}
			res := &recorded{status: rec.Code, header: h, body: rec.Body.Bytes()}
			editJSON(res, eachObject(func(o map[string]any) {
				if res.status >= 400 {
					o["status"] = echo
					return
				}
				o["name"] = strings.Repeat("x", 70) + echo
				o["status"] = echo
			}))
			for k, v := range res.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", itoa(len(res.body)))
			w.WriteHeader(res.status)
			_, _ = w.Write(res.body)
		})
	}
	dir := t.TempDir()
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	o := conform(t, serve(t, echoing(false)), func(c *conformance.Config) {
		c.APIKey = key
		c.JUnitReport, c.JSONReport = junit, jsonReport
		c.Verbose = true
	})
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	result, err := json.Marshal(o.res)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"console (stdout and stderr)": o.out, "JUnit report": readFile(t, junit), "JSON report": readFile(t, jsonReport), "Result": string(result)}
	for name, text := range texts {
		if i := strings.Index(text, part); i >= 0 {
			t.Errorf("the %s holds the key: …%s…", name, text[max(0, i-80):min(len(text), i+40)])
		}
	}
	// The echoes reached the messages, redacted: the test tests something.
	for _, want := range []string{
		`WWW-Authenticate: Bearer realm="$PETCTL_API_KEY"`,
		"Deprecation: $PETCTL_API_KEY is not RFC 9745",
		`status is "$PETCTL_API_KEY"`,
		`name is "xxxxxxxxxx`,
		"malformed HTTP status code",
	} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the console output lacks %q", want)
		}
	}

	_, err = conformance.Run(context.Background(), conformance.Config{BaseURL: serve(t, echoing(true)), APIKey: key, Timeout: 5 * time.Second})
	var unreachable *conformance.UnreachableError
	if !errors.As(err, &unreachable) {
		t.Fatalf("err = %v, want unreachable", err)
	}
	if strings.Contains(err.Error(), part) || !strings.Contains(err.Error(), "$PETCTL_API_KEY") {
		t.Errorf("the unreachable error %q holds the key, or does not show where it was", err)
	}
}

// TestShortKeyEchoedHidden: a key as short as "pets" is hidden where it was
// sent and where the deployment echoes it as a value of its own, but the
// paths, names and file names that hold the word are shown intact, so the
// output is neither mangled nor a map to the key; the run warns once.
func TestShortKeyEchoedHidden(t *testing.T) {
	t.Parallel()
	const key = "pets"
	inner := petstore(t, func(o *engine.Options) { o.Keys = []string{key} })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		res := &recorded{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		echo := r.Header.Get("Authorization")
		res.header.Set("WWW-Authenticate", `Bearer realm="`+strings.TrimPrefix(echo, "Bearer ")+`"`)
		if strings.HasPrefix(r.URL.Path, "/v1/pets/") && res.status == http.StatusNotFound {
			res.status = http.StatusOK // fails "an unknown id gives 404"
			res.body = []byte(`{"echo":"` + echo + `"}`)
		}
		for k, v := range res.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", itoa(len(res.body)))
		w.WriteHeader(res.status)
		w.Write(res.body)
	})
	dir := t.TempDir()
	junit, jsonReport := dir+"/junit.xml", dir+"/report.json"
	base := serve(t, h)
	o := conform(t, base, func(c *conformance.Config) {
		c.APIKey = key
		c.JUnitReport, c.JSONReport = junit, jsonReport
		c.Verbose = true
	})
	if o.res.OK() {
		t.Fatal("the run passed")
	}
	texts := map[string]string{"console": o.out, "JUnit report": readFile(t, junit), "JSON report": readFile(t, jsonReport)}
	for name, text := range texts {
		for _, echoed := range []string{`realm="pets"`, `"echo":"Bearer pets"`, `echo\":\"Bearer pets`, "Bearer pets"} {
			if strings.Contains(text, echoed) {
				t.Errorf("the %s shows the key where it was echoed: %q", name, echoed)
			}
		}
		if strings.Contains(text, "/v1/$PETCTL_API_KEY") || strings.Contains(text, "$PETCTL_API_KEYtore") {
			t.Errorf("the %s replaced the key inside a path or a word", name)
		}
	}
	for name, want := range map[string]string{
		"the request's path":       "       GET " + base + "/pets",
		"a check's name":           "auth · listPets (GET /pets): without credentials gives 401",
		"the document's file name": "(embedded petstore.yaml)",
		"the echo in a header":     `WWW-Authenticate: Bearer realm="$PETCTL_API_KEY"`,
		"the echo in a body":       `body:     {"echo":"Bearer $PETCTL_API_KEY"}`,
		"the key where it is sent": `'Authorization: Bearer '"$PETCTL_API_KEY"`,
	} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the console output lacks %s: %q", name, want)
		}
	}
	if !strings.Contains(texts["JUnit report"], "curl -sS -i &#39;"+base+"/pets/") {
		t.Errorf("the JUnit report lacks the failure's request with its path intact")
	}
	if got := strings.Count(o.out, "warning: the secret shown as $PETCTL_API_KEY is shorter than 8 characters"); got != 1 {
		t.Errorf("%d warnings about the short key, want 1:\n%s", got, o.out)
	}
}
