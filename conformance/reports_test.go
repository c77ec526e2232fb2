package conformance_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"

	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/spec"
)

// TestReportsAgree: a run with many departures lists every one of them in
// full on the console (none left for "and N more"), in a summary grouped
// by check, and in JUnit, one test case per check and nothing else; the
// counts of the console, the result and both reports agree; nothing in
// them points into petctl's own code.
func TestReportsAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junit, jsonReport := filepath.Join(dir, "conform.xml"), filepath.Join(dir, "conform.json")
	// Every error body lacks its status: every check that judges error
	// bodies fails, and some judge more than eight of them.
	h := editResponse(petstore(t), everything, func(_ *http.Request, res *recorded) {
		if res.status >= 400 {
			editJSON(res, eachObject(func(o map[string]any) { delete(o, "status") }))
		}
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) { c.JUnitReport, c.JSONReport = junit, jsonReport })
	if o.res.Failed < 2 {
		t.Fatalf("%d checks failed, want several", o.res.Failed)
	}
	total := o.res.Passed + o.res.Failed + o.res.Skipped

	// The console: every failed check in the summary, each bad response
	// in its message.
	summary := o.out[strings.Index(o.out, "\nFAIL "+fmt.Sprint(total)+" checks"):]
	for _, name := range o.res.FailedChecks {
		_, rest, _ := strings.Cut(name, " · ")
		if !strings.Contains(summary, "      "+rest+"\n") {
			t.Errorf("the summary does not list %q:\n%s", name, summary)
		}
	}
	if strings.Contains(o.out, " more") {
		t.Errorf("the console leaves some out ('and N more'):\n%s", o.out)
	}
	_, msg := o.state(t, "responses listPets (GET /pets) every error response")
	if m := regexp.MustCompile(`(\d+) of (\d+) responses do not`).FindStringSubmatch(msg); m == nil || strings.Count(msg, "\n    - ") != atoi(m[1]) || atoi(m[1]) <= 8 {
		t.Errorf("the message does not list every response that departs (%v):\n%s", m, msg)
	}

	// JUnit: one test case per check, named as the console names it,
	// the counts the result has.
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
			Cases   []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	raw := readFile(t, junit)
	if err := xml.Unmarshal([]byte(raw), &suites); err != nil || len(suites.Suites) != 1 {
		t.Fatalf("JUnit: %v", err)
	}
	cases := suites.Suites[0].Cases
	if suites.Tests != total || len(cases) != total || suites.Failures != o.res.Failed || suites.Suites[0].Skipped != o.res.Skipped {
		t.Errorf("JUnit counts %d tests (%d cases), %d failures, %d skipped; the run %d, %d, %d", suites.Tests, len(cases), suites.Failures, suites.Suites[0].Skipped, total, o.res.Failed, o.res.Skipped)
	}
	failed := 0
	for _, c := range cases {
		if !strings.Contains(c.Name, " · ") {
			t.Errorf("JUnit test case %q is not a check", c.Name)
		}
		if c.Failure != nil {
			failed++
			if !strings.Contains(c.Failure.Text, "request:  curl") || !strings.HasPrefix(c.Failure.Message, "want:") && !strings.HasPrefix(c.Failure.Message, "got:") {
				t.Errorf("JUnit failure of %q lacks the full message or the gist: %q", c.Name, c.Failure.Message)
			}
		}
	}
	if failed != o.res.Failed {
		t.Errorf("JUnit has %d failed cases, the run %d failed checks", failed, o.res.Failed)
	}
	// JSON: the same checks.
	var reports []struct {
		SpecReports []struct {
			LeafNodeType string
			State        string
		}
	}
	jsonRaw := readFile(t, jsonReport)
	if err := json.Unmarshal([]byte(jsonRaw), &reports); err != nil || len(reports) != 1 {
		t.Fatalf("JSON: %v", err)
	}
	its, jsonFailed := 0, 0
	for _, sr := range reports[0].SpecReports {
		if sr.LeafNodeType == "It" {
			its++
			if sr.State == "failed" {
				jsonFailed++
			}
		}
	}
	if its != total || jsonFailed != o.res.Failed {
		t.Errorf("JSON has %d checks, %d failed; the run %d, %d", its, jsonFailed, total, o.res.Failed)
	}
	// Nowhere a place in petctl's code.
	for name, text := range map[string]string{"console": o.out, "JUnit": raw, "JSON": jsonRaw} {
		if loc := regexp.MustCompile(`[a-z_]+\.go:\d+|/conformance/`).FindString(text); loc != "" {
			t.Errorf("the %s report points into petctl's code: %q", name, loc)
		}
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestNothingImplemented: a deployment that refuses what it must and
// answers everything else 501 exercises no operation: its checks are
// skipped, saying so, and the coverage check fails the run.
func TestNothingImplemented(t *testing.T) {
	t.Parallel()
	h := editResponse(petstore(t), func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+testKey },
		func(_ *http.Request, res *recorded) {
			res.status, res.body = 501, errorBody(501, "not_implemented")
		})
	o := conform(t, serve(t, h))
	if f := o.failed(); len(f) != 1 || !strings.Contains(f[0], "coverage the document at least one operation") {
		t.Fatalf("failed = %q, want the coverage check alone", f)
	}
	if len(o.res.NotExercised) != 4 {
		t.Errorf("not exercised: %v, want all four operations", o.res.NotExercised)
	}
	if st, msg := o.state(t, "create createPet (POST /pets) a valid body"); st.String() != "skipped" || !strings.Contains(msg, "501 Not Implemented") {
		t.Errorf("the create check is %s (%q), want skipped for the 501", st, msg)
	}
}

// TestWrongBaseURL: a base URL where every operation answers 404 is a
// usage error naming the document's base path, found by the probe or,
// for a document the probe cannot tell from, by the run.
func TestWrongBaseURL(t *testing.T) {
	t.Parallel()
	root := serveRaw(t, petstore(t))
	_, err := conformance.Run(context.Background(), conformance.Config{BaseURL: root, APIKey: testKey})
	var ue *conformance.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "is the base URL right? every operation answered 404") || !strings.Contains(err.Error(), "the document's base path is /v1, which --url does not end with") {
		t.Errorf("Petstore at the root: %v, want a usage error naming /v1", err)
	}
	// Only item paths: the probe has no plain GET to try, the run finds it.
	items, err := spec.Parse([]byte(`openapi: 3.1.0
info: {title: Items, version: "1"}
servers: [{url: /items/v2}]
paths:
  /items/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        '200': {description: An item., content: {application/json: {schema: {type: object, properties: {id: {type: integer}}}}}}
        '404': {description: Not found.}
`), "items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := serveRaw(t, http.NotFoundHandler())
	res, err := conformance.Run(context.Background(), conformance.Config{BaseURL: nowhere + "/v2", Spec: items, Out: &syncBuffer{}})
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the document's base path is /items/v2") || res == nil {
		t.Errorf("an item document at the wrong path: %v (result %v), want a usage error naming /items/v2 after the run", err, res != nil)
	}
}

// TestRecordNames: the text the run invents is letters and spaces, starts
// with --record-name-prefix and carries the run id in letters; a
// deployment that refuses it anyway is recorded, and the checks that need
// a record say they could not create one, skipped, not failed.
func TestRecordNames(t *testing.T) {
	t.Parallel()
	var names []string
	record := func(h http.Handler) http.Handler {
		return editRequest(h, is("POST", "/v1/pets"), func(r *http.Request) {
			var obj map[string]any
			if json.Unmarshal(readBody(r), &obj) == nil {
				if n, ok := obj["name"].(string); ok {
					names = append(names, n)
				}
			}
		})
	}
	o := runAgainst(t, nil, record, func(c *conformance.Config) { c.RecordNamePrefix, c.RunID = "Acme Staging", "gh-4711" })
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	valid := regexp.MustCompile(`^Acme Staging ghEHBB [A-J]+$`)
	for _, n := range names {
		if !valid.MatchString(n) && !strings.Contains(n, "conform-unknown") {
			t.Errorf("a created name %q: want letters and spaces, 'Acme Staging ghEHBB' and the record's number", n)
		}
	}
	if len(names) < 5 {
		t.Errorf("%d names sent, want every create's", len(names))
	}
	// The console says what the records are called, to find them by.
	if !strings.Contains(o.out, `"Acme Staging ghEHBB", then the record's number`) {
		t.Errorf("the console does not name the records as sent:\n%s", o.out[:min(len(o.out), 300)])
	}
	// A deployment stricter than its document that refuses the run's names.
	picky := func(h http.Handler) http.Handler {
		return editResponse(h, is("POST", "/v1/pets"), func(r *http.Request, res *recorded) {
			if res.status == 201 {
				res.status, res.body = 422, errorBody(422, "name_not_allowed")
			}
		})
	}
	o = runAgainst(t, nil, picky, nil)
	if f := o.failed(); len(f) > 0 {
		t.Fatalf("failed checks: %q\n%s", f, o.out)
	}
	if st, msg := o.state(t, "create createPet (POST /pets) a valid body"); st.String() != "skipped" || !strings.Contains(msg, "refused a body its document accepts (422") {
		t.Errorf("the create check is %s (%q), want skipped, saying the body was refused", st, msg)
	}
	if st, msg := o.state(t, "stateful getPet (GET /pets/{petId}) the created item reads back equal"); st.String() != "skipped" || !strings.Contains(msg, "no record to follow") {
		t.Errorf("the read-back is %s (%q), want skipped: no record could be created", st, msg)
	}
	if v, ok := o.observation("refusal of a body the document accepts by createPet"); !ok || !strings.HasPrefix(v, "422") {
		t.Errorf("the refusal is not recorded: %q", v)
	}
}
