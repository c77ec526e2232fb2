package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// referenceConfig is a deliberately unusual deployment: every behaviour
// the description leaves open is set off petctl's default. A conform run
// against it sends 18 listPets and 7 getPet, and TestProfileServeDrift
// makes eight such runs: at 100ms..150ms and 80ms the test took 32 s, at
// these 22 s. These are the least that keep listPets's median (85ms) apart
// from a plain mock's, slowed by a busy machine to 25ms, by more than the
// default tolerance (50ms, or half the larger median).
const referenceConfig = `log:
  requests: false
lists:
  outOfRangeLimit: clamp
  order: newest-first
  pagination: cursor
  cursorParam: page_token
defaults:
  pets:
    status: pending
responses:
  listStoreOrders:
    status: 200
    body:
      - {id: 7, item: kibble, quantity: 3, customerEmail: jane.doe@example.org, phone: "+44 20 7946 0958", card: "4111 1111 1111 1111", sessionToken: abcdef0123456789abcdef0123456789}
errorCodes:
  validation_failed: invalid_request
  malformed_json: bad_json
  unauthorized: unauthenticated
  not_found: no_such_pet
headers:
  '*':
    X-RateLimit-Limit: '100'
    X-Served-By: staging-eu-1
latency:
  listPets: 70ms..100ms
  getPet: 45ms
`

// junitCounts reads the totals of a JUnit report.
func junitCounts(t *testing.T, path string) (tests, failures int) {
	t.Helper()
	var s struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal([]byte(readFileT(t, path)), &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s.Tests, s.Failures
}

// TestProfileServeDrift closes the loop over HTTP: profile a deployment
// whose open behaviours are all unusual, serve the profile, and find no
// drift between them; the plain mock drifts in every behaviour, and a mock
// with one behaviour changed drifts in that one alone.
//
// The profile records the latencies it measures, and a busy machine's
// time is in them: beside other tests, or under a load of 30 on two cores,
// it recorded starvation as createPet's latency (66ms and 81ms, configured
// with none), served it, and the drift against the deployment, by then
// answering in 1.65ms, failed on a latency no deployment had. A busy
// machine only ever adds time, so the recorded and served latencies are
// held to the configured ones from below, which no load can break, and
// the drifts expected empty are judged with a tolerance above what a busy
// machine adds (loadTolerance), as a user on a noisy network would run
// them. The drift expected to name the latency keeps the default.
func TestProfileServeDrift(t *testing.T) {
	// Not t.Parallel: alone in the package it runs in the sequential phase,
	// while the others wait their turn, so that less of their time is in
	// its latencies.
	const loadTolerance = "--latency-tolerance=500ms"
	const key = "staging-key-0123456789"
	env := map[string]string{"PETCTL_API_KEY": key}
	dir := t.TempDir()
	refPath := filepath.Join(dir, "reference.yaml")
	writeFileT(t, refPath, referenceConfig)
	staging, _ := startServe(t, env, "--config", refPath)

	profile := filepath.Join(dir, "profiles", "staging.profile.yaml")
	code, out, errOut := runCLI(t, env, "conform", "--url", staging, "--profile-out", profile)
	if code != exitOK {
		t.Fatalf("conform --profile-out: exit %d\nstdout:\n%s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "profile written to "+profile) {
		t.Errorf("conform does not say where the profile went:\n%s", out)
	}
	recorded := readFileT(t, profile)
	t.Logf("the profile:\n%s", recorded)
	for _, want := range []string{
		"outOfRangeLimit: clamp", "order: newest-first", "pagination: cursor", "cursorParam: page_token",
		"status: pending", "validation_failed: invalid_request", "malformed_json: bad_json",
		"unauthorized: unauthenticated", "not_found: no_such_pet", "X-Served-By: staging-eu-1",
		"listStoreOrders:", "customerEmail: person@example.com", "listPets: ", "getPet: ",
	} {
		if !strings.Contains(recorded, want) {
			t.Errorf("the profile lacks %q", want)
		}
	}
	// Whole values: a fragment such as "4111" turns up in the profile's
	// own temporary path or port, which it names in a comment.
	for _, secret := range []string{key, "jane.doe", "4111 1111 1111 1111", "20 7946 0958", "abcdef0123456789"} {
		if strings.Contains(recorded, secret) {
			t.Errorf("the profile holds %q: credentials and personal data must never be recorded", secret)
		}
	}
	// The configured latencies, from below: the fastest answer recorded is
	// at least the configured least delay.
	_, latencies, _ := strings.Cut(recorded, "\nlatency:\n")
	for op, least := range map[string]time.Duration{"listPets": 70 * time.Millisecond, "getPet": 45 * time.Millisecond} {
		m := regexp.MustCompile(`(?m)^  ` + op + `: (\S+?)(\.\.|$)`).FindStringSubmatch(latencies)
		if m == nil {
			t.Errorf("the profile sets no latency for %s", op)
			continue
		}
		if got, err := time.ParseDuration(m[1]); err != nil || got < least {
			t.Errorf("the profile's %s latency starts at %s, want at least the %s configured", op, m[1], least)
		}
	}

	drift := func(t *testing.T, a, b string, args ...string) (int, string) {
		t.Helper()
		junitPath := filepath.Join(t.TempDir(), "drift.xml")
		code, out, errOut := runCLI(t, env, append([]string{"drift", a, b, "--junit-report", junitPath}, args...)...)
		t.Logf("petctl drift:\n%s%s", out, errOut)
		tests, failures := junitCounts(t, junitPath)
		if tests < 50 || failures != strings.Count(out, "\n              A  ") {
			t.Errorf("JUnit: %d tests, %d failures; want a case per check and behaviour, one failure per difference printed", tests, failures)
		}
		return code, out
	}

	t.Run("the profile served: no drift", func(t *testing.T) {
		mock, _ := startServe(t, env, "--profile", profile)
		start := time.Now()
		if r := call(t, "GET", mock+"/pets?limit=1", key, ""); r.status != 200 || time.Since(start) < 70*time.Millisecond {
			t.Errorf("listPets of the mock serving the profile: %d in %s, want 200 after the 70ms or more recorded", r.status, time.Since(start))
		}
		code, out := drift(t, mock, staging, loadTolerance)
		if code != exitOK || !strings.Contains(out, "PASS: no drift") {
			t.Errorf("exit %d, want 0 and no drift", code)
		}
		code, out, _ = runCLI(t, env, "conform", "--url", mock, "--compare", staging, loadTolerance)
		if code != exitOK || !strings.Contains(out, "PASS: no drift") {
			t.Errorf("conform --compare: exit %d, want 0 and no drift:\n%s", code, out)
		}
	})
	t.Run("the plain mock: every open behaviour drifts", func(t *testing.T) {
		mock, _ := startServe(t, env)
		code, out := drift(t, mock, staging)
		if code != exitFailure {
			t.Errorf("exit %d, want 1", code)
		}
		for _, want := range []string{
			"lists       pets: limit=0", "lists       pets: limit=101", "lists       pets: order", "lists       pets: pagination",
			"defaults    pets: status of a new item", "errors      createPet: malformed JSON", "errors      listPets: no credentials",
			"errors      getPet: an unknown id", "headers     on every answer", "latency     listPets: p50", "unpublished listStoreOrders: answer",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the drift does not name %q", want)
			}
		}
	})
	t.Run("one behaviour changed: drift names it alone", func(t *testing.T) {
		changed := map[string]string{"PETCTL_API_KEY": key, "PETCTL_ORDER": "id"}
		mock, _ := startServe(t, changed, "--profile", profile)
		code, out := drift(t, mock, staging, loadTolerance)
		if code != exitFailure {
			t.Errorf("exit %d, want 1", code)
		}
		diff := regexp.MustCompile(`(?s)lists       pets: order\s+A  ascending\s+B  descending`)
		if !diff.MatchString(out) || !strings.Contains(out, "FAIL: 1 of ") {
			t.Errorf("want the order named as the one difference, both answers side by side")
		}
	})
}

// TestDriftUsage: usage problems are one line and exit 2; a deployment
// that cannot be reached exits 3.
func TestDriftUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		want   int
		wantIn string
	}{
		{"one URL", []string{"drift", "http://127.0.0.1:1/v1"}, exitUsage, "drift takes two base URLs"},
		{"no key", []string{"drift", "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"}, exitUsage, "no API key"},
		{"a bad URL", []string{"drift", "ftp://x", "http://127.0.0.1:2/v1", "--api-key", "k0123456789abcdef"}, exitUsage, "--url \"ftp://x\""},
		{"a bad deadline", []string{"drift", "http://a/v1", "http://b/v1", "--deadline", "0s"}, exitUsage, "--deadline 0s"},
		{"a negative latency tolerance", []string{"drift", "http://a/v1", "http://b/v1", "--latency-tolerance", "-1ms"}, exitUsage, "--latency-tolerance -1ms"},
		{"a latency tolerance without a comparison", []string{"conform", "--url", "http://a/v1", "--api-key", "k0123456789abcdef", "--latency-tolerance", "1s"}, exitUsage, "--latency-tolerance judges a comparison"},
		{"the same report twice", []string{"drift", "http://a/v1", "http://b/v1", "--api-key", "k0123456789abcdef", "--junit-report", filepath.Join(dir, "r"), "--json-report", filepath.Join(dir, "r")}, exitUsage, "name the same file"},
		{"unreachable", []string{"drift", "http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1", "--api-key", "k0123456789abcdef"}, exitUnreachable, "cannot reach http://127.0.0.1:1/v1"},
		{"profile and compare", []string{"conform", "--url", "http://a/v1", "--compare", "http://b/v1", "--api-key", "k0123456789abcdef", "--profile-out", filepath.Join(dir, "p.yaml")}, exitUsage, "--profile-out records one deployment"},
		{"a profile path that is a folder", []string{"conform", "--url", "http://a/v1", "--api-key", "k0123456789abcdef", "--profile-out", dir}, exitUsage, "--profile-out: " + dir + " is a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, tt.args...)
			if code != tt.want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.want, out, errOut)
			}
			last := errOut[strings.LastIndex(strings.TrimSuffix(errOut, "\n"), "\n")+1:]
			if !strings.HasPrefix(last, "petctl: ") || !strings.Contains(last, tt.wantIn) {
				t.Errorf("stderr = %q; want a last line naming %q", errOut, tt.wantIn)
			}
		})
	}
}

// TestServeProfileProblems: a profile is read as a configuration file, so
// its problems are located at its own lines, and a missing one is named.
func TestServeProfileProblems(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.profile.yaml")
	writeFileT(t, bad, "lists:\n  order: random\nheaders:\n  '*':\n    Content-Length: '3'\n")
	code, _, errOut := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--profile", bad)
	if code != exitUsage || !strings.Contains(errOut, bad+":2: lists.order") || !strings.Contains(errOut, bad+":5: headers.*.Content-Length") {
		t.Errorf("exit %d, stderr %q; want 2 and each problem at its line of the profile", code, errOut)
	}
	missing := filepath.Join(dir, "none.yaml")
	code, _, errOut = runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--profile", missing)
	if code != exitUsage || !strings.Contains(errOut, "profile "+missing+": no such file") {
		t.Errorf("exit %d, stderr %q; want 2 naming the missing profile", code, errOut)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("serve created the missing profile")
	}
}
