package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// reloadProject writes a two-file document (PetStatus in status.yaml), a
// fixtures file and petctl.yaml into a folder, and returns the paths.
func reloadProject(t *testing.T, config string) (dir, status, cfg string) {
	t.Helper()
	dir = t.TempDir()
	doc := strings.ReplaceAll(string(spec.DefaultDocument()), "$ref: '#/components/schemas/PetStatus'", "$ref: './status.yaml'")
	write(t, filepath.Join(dir, "openapi.yaml"), doc)
	status = filepath.Join(dir, "status.yaml")
	write(t, status, "type: string\ndescription: Availability status.\nenum: [available, pending, sold]\n")
	write(t, filepath.Join(dir, "pets.json"), `[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":2}]`)
	cfg = filepath.Join(dir, "petctl.yaml")
	write(t, cfg, "spec: openapi.yaml\nfixtures:\n  files: [pets.json]\n"+config)
	return dir, status, cfg
}

func write(t *testing.T, path, data string) {
	t.Helper()
	// Written aside and renamed, as editors do, so a reader never sees half.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// keyed sends a request with the key sig-key and returns the status and body.
func keyed(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sig-key")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// servedVersion is the version number /__petctl/health reports.
func servedVersion(t *testing.T, base string) int {
	t.Helper()
	_, body := keyed(t, "GET", strings.TrimSuffix(base, "/v1")+"/__petctl/health", "")
	var h struct {
		Version struct{ Number int } `json:"version"`
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("health: %v: %s", err, body)
	}
	return h.Version.Number
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("waited 10 s for %s", what)
}

// TestHotReload: a change to any file of the document, to petctl.yaml or
// to a fixtures file serves a new version without a restart and keeps the
// store; a change that breaks the document keeps the old version serving
// and logs the problem by file and line; a request in flight finishes on
// the version it started with.
func TestHotReload(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	_, status, cfg := reloadProject(t, "latency:\n  listPets: 600ms\n")
	base, _, stderr := startServeStreams(t, nil, "--config", cfg, "--api-key", "sig-key")
	if got := servedVersion(t, base); got != 1 {
		t.Fatalf("version %d at start, want 1", got)
	}
	code, body := keyed(t, "POST", base+"/pets", `{"name":"Kept","categoryId":3,"status":"pending"}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}

	// A list in flight (600 ms of latency) while the order changes.
	inflight := make(chan string, 1)
	go func() {
		_, body := keyed(t, "GET", base+"/pets?limit=10", "")
		inflight <- body
	}()
	time.Sleep(150 * time.Millisecond)
	write(t, cfg, "spec: openapi.yaml\nfixtures:\n  files: [pets.json]\nlists:\n  order: newest-first\n")
	waitFor(t, "version 2 after petctl.yaml changed", func() bool { return servedVersion(t, base) == 2 })
	if body := <-inflight; !strings.HasPrefix(body, `[{"id":1,`) {
		t.Errorf("the list in flight was answered %.80s; want the order of the version it started on (id 1 first)", body)
	}
	if _, body := keyed(t, "GET", base+"/pets?limit=10", ""); !strings.HasPrefix(body, `[{"id":3,`) {
		t.Errorf("after the reload the list is %.80s, want newest first (id 3)", body)
	}
	if code, body := keyed(t, "GET", base+"/pets/3", ""); code != http.StatusOK || !strings.Contains(body, "Kept") {
		t.Errorf("the pet created before the reload: %d %s", code, body)
	}

	// The document's second file: a status the store has not seen.
	write(t, status, "type: string\ndescription: Availability status.\nenum: [available, pending, sold, adopted]\n")
	waitFor(t, "version 3 after status.yaml changed", func() bool { return servedVersion(t, base) == 3 })
	if code, body := keyed(t, "POST", base+"/pets", `{"name":"New","categoryId":1,"status":"adopted"}`); code != http.StatusCreated {
		t.Errorf("a status the reloaded document allows: %d %s", code, body)
	}

	// A broken document: the old version serves on, the log says where.
	write(t, status, "type: string\nenum: [available, pending\n")
	waitFor(t, "the failed reload in the log", func() bool { return strings.Contains(stderr.String(), "reload failed") })
	if got := servedVersion(t, base); got != 3 {
		t.Errorf("after a failed reload version %d is served, want 3", got)
	}
	if log := stderr.String(); !strings.Contains(log, "status.yaml: go-yaml load error") || !strings.Contains(log, "at L2.") {
		t.Errorf("the failed reload is not located by file and line:\n%s", log)
	}
	if code, _ := keyed(t, "GET", base+"/pets/3", ""); code != http.StatusOK {
		t.Errorf("after a failed reload the store answers %d", code)
	}

	// A document that refuses a stored record: refused, each record named.
	write(t, status, "type: string\nenum: [available, pending, sold]\n")
	waitFor(t, "the refused record in the log", func() bool {
		return strings.Contains(stderr.String(), "the records served until now: pets[3] (id 4)")
	})
	if got := servedVersion(t, base); got != 3 {
		t.Errorf("after a reload the records refuse, version %d is served, want 3", got)
	}

	// The fixtures file: what a reset returns to.
	write(t, status, "type: string\nenum: [available, pending, sold, adopted]\n")
	waitFor(t, "version 4", func() bool { return servedVersion(t, base) == 4 })
	write(t, filepath.Join(filepath.Dir(cfg), "pets.json"), `[{"id":9,"name":"Fresh","categoryId":1}]`)
	waitFor(t, "version 5 after pets.json changed", func() bool { return servedVersion(t, base) == 5 })
	if code, _ := keyed(t, "GET", base+"/pets/4", ""); code != http.StatusOK {
		t.Errorf("the store was lost by the fixtures' reload: %d", code)
	}
	keyed(t, "POST", strings.TrimSuffix(base, "/v1")+"/__petctl/reset", "")
	if _, body := keyed(t, "GET", base+"/pets?limit=10", ""); !strings.Contains(body, "Fresh") || strings.Contains(body, "Rex") {
		t.Errorf("a reset after the fixtures changed gives %s, want the new fixtures", body)
	}
}

// TestSIGHUPReloads: SIGHUP to a real petctl reloads it, keeping the
// records of its state.
func TestSIGHUPReloads(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	state := filepath.Join(t.TempDir(), "state")
	cmd, base := startPetctl(t, "--state", state)
	if code, body := keyed(t, "POST", base+"/pets", `{"name":"Hup","categoryId":1}`); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "version 2 after SIGHUP", func() bool { return servedVersion(t, base) == 2 })
	if code, body := keyed(t, "GET", base+"/pets/151", ""); code != http.StatusOK || !strings.Contains(body, "Hup") {
		t.Errorf("after SIGHUP the created pet answers %d %s", code, body)
	}
	if code, body := keyed(t, "POST", base+"/pets", `{"name":"After","categoryId":1}`); code != http.StatusCreated || !strings.Contains(body, fmt.Sprint(`"id":152`)) {
		t.Errorf("a create after SIGHUP: %d %s, want id 152", code, body)
	}
}

// unprovable is a change to the default document after which no error
// body can be written as it declares (a code no text fits): start-up's
// proof of error bodies refuses it.
var unprovable = [2]string{"        code:\n          type: string\n", "        code:\n          type: string\n          minLength: 5\n          maxLength: 2\n"}

// notFound asks base for a path no operation has and returns the X-Served
// header and the code of the error body.
func notFound(t *testing.T, base string) (header, code string) {
	t.Helper()
	res, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct{ Code string }
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("the 404 body is not JSON: %v", err)
	}
	return res.Header.Get("X-Served"), body.Code
}

// TestHotReloadRebuildsStartUp: a reload builds again what a start builds
// beside the document: the profile given with --profile (watched like
// petctl.yaml), the configured headers and error codes, and the proof of
// error bodies. A document the proof refuses keeps the old version serving
// and is logged in one readable line.
func TestHotReloadRebuildsStartUp(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir, _, cfg := reloadProject(t, "headers:\n  '*':\n    X-Served: one\n")
	profile := filepath.Join(dir, "staging.profile.yaml")
	write(t, profile, "errorCodes:\n  route_not_found: no_route\n")
	base, _, stderr := startServeStreams(t, nil, "--config", cfg, "--profile", profile, "--api-key", "sig-key")
	check := func(when, wantHeader, wantCode string) {
		t.Helper()
		if header, code := notFound(t, base); header != wantHeader || code != wantCode {
			t.Errorf("%s: the 404 has X-Served %q and code %q, want %q and %q", when, header, code, wantHeader, wantCode)
		}
	}
	check("at start", "one", "no_route")

	write(t, profile, "errorCodes:\n  route_not_found: missing_route\n")
	waitFor(t, "version 2 after the profile changed", func() bool { return servedVersion(t, base) == 2 })
	check("after the profile changed", "one", "missing_route")

	write(t, cfg, "spec: openapi.yaml\nfixtures:\n  files: [pets.json]\nheaders:\n  '*':\n    X-Served: two\n")
	waitFor(t, "version 3 after petctl.yaml changed", func() bool { return servedVersion(t, base) == 3 })
	check("after petctl.yaml changed", "two", "missing_route")

	docPath := filepath.Join(dir, "openapi.yaml")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(doc), unprovable[0], unprovable[1], 1)
	if broken == string(doc) {
		t.Fatal("the document has no error code to break")
	}
	write(t, docPath, broken)
	waitFor(t, "the failed reload in the log", func() bool { return strings.Contains(stderr.String(), "reload failed") })
	if got := servedVersion(t, base); got != 3 {
		t.Errorf("after a reload the proof refused, version %d is served, want 3", got)
	}
	check("after a reload the proof refused", "two", "missing_route")
	// Each problem is one line located by file: the proof's, and the
	// configured code the new error schema refuses too.
	var proof []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if !strings.Contains(line, "reload problem") {
			continue
		}
		if !strings.Contains(line, dir) {
			t.Errorf("a problem of the reload names no file: %s", line)
		}
		if strings.Contains(line, "cannot be written as the document declares them") {
			proof = append(proof, line)
		}
	}
	if len(proof) != 1 || !strings.Contains(proof[0], "openapi.yaml") || !strings.Contains(proof[0], "minLength: got 2, want 5") {
		t.Errorf("the refused proof is logged in %d lines, want one naming the document and why:\n%s", len(proof), stderr)
	}

	write(t, docPath, string(doc))
	waitFor(t, "version 4 after the document was mended", func() bool { return servedVersion(t, base) == 4 })
	check("after the document was mended", "two", "missing_route")
}

// TestSIGHUPAtStart: a SIGHUP sent the moment petctl printed its banner
// (a supervisor that signals a change it saw) reloads it, rather than
// ending it as the signal's default action does.
func TestSIGHUPAtStart(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	cmd, base := startPetctl(t, "--state", "none")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	health := strings.TrimSuffix(base, "/v1") + "/__petctl/health"
	waitFor(t, "version 2 after SIGHUP", func() bool {
		res, err := (&http.Client{Timeout: 5 * time.Second}).Get(health)
		if err != nil {
			t.Fatalf("petctl ended on a SIGHUP just after its banner (%v); stderr:\n%s", err, cmd.Stderr)
		}
		res.Body.Close()
		return servedVersion(t, base) == 2
	})
}

// TestReloadUnderWrites: creates streaming through reloads (SIGHUP to a
// real petctl, over and over) are each answered 201, and every one is in
// the store at the end, under its id: the changes that waited while a
// version took the records are made in the next version's store, on the
// state file and in memory only alike.
func TestReloadUnderWrites(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	for _, state := range []string{"file", "none"} {
		t.Run(state, func(t *testing.T) {
			path := "none"
			if state == "file" {
				path = filepath.Join(t.TempDir(), "state")
			}
			cmd, base := startPetctl(t, "--state", path)
			const writers, reloads = 4, 5
			var mu sync.Mutex
			acked := map[string]string{}
			stop := streamWrites(writers, func(w, i int) bool {
				name := fmt.Sprintf("w%d-%d", w, i)
				code, body := keyed(t, "POST", base+"/pets", fmt.Sprintf(`{"name":%q,"categoryId":%d}`, name, w))
				if code != http.StatusCreated {
					t.Errorf("create %s during the reloads: %d %s", name, code, body)
					return false
				}
				var pet struct{ ID int64 }
				_ = json.Unmarshal([]byte(body), &pet)
				mu.Lock()
				acked[fmt.Sprint(pet.ID)] = name
				mu.Unlock()
				return true
			})
			waitFor(t, "the first create", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) > 0 })
			for n := range reloads {
				if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
				waitFor(t, fmt.Sprintf("version %d", n+2), func() bool { return servedVersion(t, base) == n+2 })
			}
			stop()
			mu.Lock()
			defer mu.Unlock()
			if len(acked) < reloads {
				t.Fatalf("%d creates answered through %d reloads: the test did not write", len(acked), reloads)
			}
			pets := exportedPets(t, base)
			checkPets(t, reloads, pets, acked)
			if got, want := len(pets), 150+len(acked); got != want {
				t.Errorf("%d pets after %d creates through %d reloads, want %d", got, len(acked), reloads, want)
			}
		})
	}
}
