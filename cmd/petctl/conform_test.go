package main

import (
	"encoding/json"
	"encoding/xml"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConformServe runs the whole CLI: petctl serve on a free port, then
// petctl conform against it with both reports; then the same with a key
// the deployment does not know.
func TestConformServe(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	const key = "conform-cli-key-77aa"
	dir := t.TempDir()
	// GET /store/orders answered, as a deployment configures it: serve
	// answers it 501 otherwise, which --require-coverage counts.
	config := filepath.Join(dir, "petctl.yaml")
	os.WriteFile(config, []byte("responses:\n  listStoreOrders:\n    status: 200\n    body: []\n"), 0o600)
	base, _ := startServe(t, map[string]string{"PETCTL_API_KEY": key}, "--config", config)
	junit, jsonReport := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out", "report.json")

	start := time.Now()
	code, out, errOut := runCLI(t, map[string]string{"PETCTL_API_KEY": key},
		"conform", "--url", base, "--junit-report", junit, "--json-report", jsonReport, "--require-coverage")
	elapsed := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr: %s", code, out, errOut)
	}
	t.Logf("a full conform against petctl serve took %s", elapsed)
	if errOut != "" {
		t.Errorf("stderr is not empty: %q", errOut)
	}
	if !strings.Contains(out, "PASS") || !strings.Contains(out, "0 failed") || !strings.Contains(out, "records created") {
		t.Errorf("the console report lacks the verdict or the records created:\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour codes in output that is not a terminal")
	}
	var suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
	}
	if err := xml.Unmarshal([]byte(readFileT(t, junit)), &suites); err != nil || suites.Tests < 50 || suites.Failures != 0 {
		t.Errorf("JUnit report: %v, %+v", err, suites)
	}
	var reports []map[string]any
	if err := json.Unmarshal([]byte(readFileT(t, jsonReport)), &reports); err != nil || len(reports) != 1 || reports[0]["SuiteSucceeded"] != true {
		t.Errorf("JSON report: %v", err)
	}

	code, out, errOut = runCLI(t, nil, "conform", "--url", base, "--api-key", "not-the-key", "--label-filter", "create")
	if code != exitFailure {
		t.Errorf("wrong key: exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "warning: the deployment answered 401") ||
		!strings.HasPrefix(lines[1], "petctl: ") || !strings.Contains(lines[1], "checks failed") {
		t.Errorf("stderr: %q; want the warning about the 401 to the probe, then one error line", errOut)
	}
	for _, text := range []string{out, errOut, readFileT(t, junit)} {
		if strings.Contains(text, key) {
			t.Error("the key appears in the output")
		}
	}
}

// TestConformExitCodes: usage, configuration and spec errors exit 2, an
// unreachable target 3, each with one line; Ginkgo never exits the process.
func TestConformExitCodes(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	base, _ := startServe(t, nil)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	badSpec := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badSpec, []byte("openapi: 3.1.0\ninfo: [\n"), 0o600)
	key := []string{"--api-key", devKey}
	tests := []struct {
		name   string
		args   []string
		code   int
		wantIn string
	}{
		{"no url", append([]string{"conform"}, key...), exitUsage, "--url is required"},
		{"relative url", append([]string{"conform", "--url", "/v1"}, key...), exitUsage, "--url"},
		{"no key", []string{"conform", "--url", base}, exitUsage, "PETCTL_API_KEY"},
		{"bad server variable", append([]string{"conform", "--url", base, "--server-variable", "novalue"}, key...), exitUsage, "--server-variable"},
		// Read as serve reads it: split over files, quirks served with a
		// warning, server variables filled (then the target is down: 3).
		{"multi-file spec", append([]string{"conform", "--url", closed, "--spec", "../../fixtures/styles/multifile/openapi.yaml"}, key...), exitUnreachable, "cannot reach"},
		{"quirky spec", append([]string{"conform", "--url", closed, "--spec", "../../fixtures/styles/quirks.yaml"}, key...), exitUnreachable, "cannot reach"},
		{"quirky spec, --strict", append([]string{"conform", "--url", closed, "--strict", "--spec", "../../fixtures/styles/quirks.yaml"}, key...), exitUsage, "quirks.yaml"},
		{"server variable set", append([]string{"conform", "--url", closed, "--spec", "../../fixtures/styles/servervars.yaml", "--server-variable", "scheme=http"}, key...), exitUnreachable, "cannot reach"},
		{"server variable outside its enum", append([]string{"conform", "--url", closed, "--spec", "../../fixtures/styles/servervars.yaml", "--server-variable", "scheme=ftp"}, key...), exitUsage, "{scheme}: the configured value \"ftp\" is not one of http, https"},
		{"empty key", []string{"conform", "--url", base, "--api-key", ""}, exitUsage, "--api-key is empty"},
		{"unknown flag", []string{"conform", "--url", base, "--fast"}, exitUsage, "unknown flag: --fast"},
		{"argument", append([]string{"conform", "now"}, key...), exitUsage, "unknown command"},
		{"bad now", append([]string{"conform", "--url", base, "--now", "soon"}, key...), exitUsage, "--now"},
		{"bad timeout", append([]string{"conform", "--url", base, "--timeout", "0s"}, key...), exitUsage, "--timeout"},
		{"bad label filter", append([]string{"conform", "--url", base, "--label-filter", "(auth"}, key...), exitUsage, "Mismatched '('"},
		{"label filter matching nothing", append([]string{"conform", "--url", base, "--label-filter", "auht"}, key...), exitUsage, "selects none"},
		{"missing spec", append([]string{"conform", "--url", base, "--spec", filepath.Join(dir, "none.yaml")}, key...), exitUsage, "no such file"},
		{"malformed spec", append([]string{"conform", "--url", base, "--spec", badSpec}, key...), exitUsage, "bad.yaml"},
		{"report into a folder", append([]string{"conform", "--url", base, "--junit-report", dir}, key...), exitUsage, "is a folder"},
		{"unreachable", append([]string{"conform", "--url", closed}, key...), exitUnreachable, "cannot reach"},
		{"bad retry-after-max", append([]string{"conform", "--url", base, "--retry-after-max", "0s"}, key...), exitUsage, "--retry-after-max"},
		{"bad retry budget", append([]string{"conform", "--url", base, "--retry-budget", "-1m"}, key...), exitUsage, "--retry-budget"},
		{"bad deadline", append([]string{"conform", "--url", base, "--deadline", "0s"}, key...), exitUsage, "--deadline"},
		{"coverage not met", append([]string{"conform", "--url", base, "--read-only", "--require-coverage"}, key...), exitFailure, "checks failed (22 skipped): coverage · the document: every operation of the document is exercised (--require-coverage)"},
		{"wrong base URL", append([]string{"conform", "--url", strings.TrimSuffix(base, "/v1")}, key...), exitUsage, "is the base URL right? every operation answered 404"},
		{"no credential for a scheme, with --require-coverage", []string{"conform", "--url", base, "--basic", "u:p", "--require-coverage"}, exitUsage, `createPet (no credential for "bearerAuth" (http bearer): give --bearer TOKEN (or --api-key))`},
		{"bad basic", append([]string{"conform", "--url", base, "--basic", "nocolon"}, key...), exitUsage, "--basic: want USER:PASSWORD"},
		{"bad header", append([]string{"conform", "--url", base, "--header", "X-Key"}, key...), exitUsage, "--header \"X-Key\": want 'Name: value'"},
		{"bad record name prefix", append([]string{"conform", "--url", base, "--record-name-prefix", "ci-42"}, key...), exitUsage, "--record-name-prefix"},
		{"client id without secret", append([]string{"conform", "--url", base, "--oauth2-client-id", "c"}, key...), exitUsage, "--oauth2-client-id and --oauth2-client-secret go together"},
		{"fail fast", append([]string{"conform", "--url", base, "--api-key", "wrong", "--fail-fast"}, key[:0]...), exitFailure, "checks failed"},
		{"sunset of an operation not deprecated", append([]string{"conform", "--url", base, "--sunset", "listPets=2031-01-01"}, key...), exitUsage, "--sunset listPets: listPets is not deprecated"},
		{"sunset of no operation", append([]string{"conform", "--url", base, "--sunset", "nothing=2031-01-01"}, key...), exitUsage, "--sunset nothing: the document has no operation nothing"},
		{"sunset without a date", append([]string{"conform", "--url", base, "--sunset", "getPet"}, key...), exitUsage, `--sunset "getPet": want OPERATION_ID=DATE`},
		{"sunset before the deprecation", append([]string{"conform", "--url", base, "--sunset", "getPet=2020-01-01"}, key...), exitUsage, "--sunset getPet: x-sunset (2020-01-01) is before x-deprecated-at (2026-11-22)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit code = %d, want %d\nstdout: %s", code, tc.code, out)
			}
			last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
			if !strings.HasPrefix(last, "petctl: ") || !strings.Contains(last, tc.wantIn) {
				t.Errorf("stderr %q: want its last line to start with 'petctl: ' and mention %q", stderr, tc.wantIn)
			}
			if tc.code == exitUsage || tc.code == exitUnreachable {
				// A document's quirks are a warning line each.
				if tc.name == "quirky spec" && !strings.Contains(stderr, "warning: ") {
					t.Errorf("no warning about the document's quirks: %q", stderr)
				}
				if strings.Count(stderr, "\n")-strings.Count(stderr, "warning: ") != 1 || out != "" {
					t.Errorf("want one line on stderr and nothing on stdout; stderr %q, stdout %q", stderr, out)
				}
			}
		})
	}
}

// TestConformDeadline: a deployment that drips every body would cost the
// run a --timeout per request; --deadline stops it in bounded time with
// exit 1, one line saying why, and the JUnit report written.
func TestConformDeadline(t *testing.T) {
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	defer drip.Close()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	start := time.Now()
	code, _, stderr := runCLI(t, nil, "conform", "--url", drip.URL+"/v1", "--api-key", "deadline-test-key",
		"--timeout", "1s", "--deadline", "2s", "--junit-report", junit)
	if got, bound := time.Since(start), 7*time.Second; got > bound {
		t.Errorf("the run took %s, want at most %s", got, bound)
	}
	if code != exitFailure {
		t.Errorf("exit %d, want %d", code, exitFailure)
	}
	want := "petctl: the run's --deadline of 2s passed: stopped after "
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q: want one line starting %q", stderr, want)
	}
	var suites struct {
		Suites []struct {
			Tests   int `xml:"tests,attr"`
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(readFileT(t, junit)), &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Tests < 50 || suites.Suites[0].Skipped < 40 {
		t.Errorf("JUnit report: %v, %+v; want every check, those not run skipped", err, suites)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConformSunset: --sunset gives a deprecated operation the removal
// date the deployment announces, and its headers are judged by it: serve
// announces getPet's x-sunset, 5 December 2030, so the document's own date
// passes and another fails the Sunset check, naming both.
func TestConformSunset(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	base, _ := startServe(t, nil)
	args := []string{"conform", "--url", base, "--api-key", devKey, "--label-filter", "deprecation && getPet"}
	if code, out, errOut := runCLI(t, nil, append(args, "--sunset", "getPet=2030-12-05")...); code != exitOK {
		t.Errorf("the document's own removal date: exit %d, want 0\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, nil, append(args, "--sunset", "getPet=2029-06-01")...)
	if code != exitFailure || !strings.Contains(errOut, "every answer of its own carries Sunset: Fri, 01 Jun 2029 00:00:00 GMT (RFC 8594)") {
		t.Errorf("another removal date: exit %d, want 1 for the Sunset check alone\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Sunset: Thu, 05 Dec 2030 00:00:00 GMT, want Fri, 01 Jun 2029 00:00:00 GMT") {
		t.Errorf("the failure does not name the Sunset sent and the date wanted:\n%s", out)
	}
}
