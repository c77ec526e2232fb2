package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// startPetctl runs this test binary as `petctl serve args...` on a free
// port with the API key sig-key, and returns the process and the base URL.
// The process is killed when the test ends, if it is still running.
func startPetctl(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return startPetctlEnv(t, nil, args...)
}

// startPetctlEnv is startPetctl with more environment variables.
func startPetctlEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return startPetctlIn(t, "", env, args...)
}

// startPetctlIn is startPetctlEnv in the working directory dir ("": the
// test's own).
func startPetctlIn(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--api-key", "sig-key", "--log-requests=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), "PETCTL_TEST_BE_PETCTL=1"), env...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &safeBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "base" {
			base = f[2]
			break
		}
	}
	if base == "" {
		_ = cmd.Wait()
		t.Fatalf("no base URL in the banner; stderr: %v", stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, base
}

// exportedPets reads every pet of the store at base through the admin export.
func exportedPets(t *testing.T, base string) []map[string]any {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(base, "/v1") + "/__petctl/store")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var store map[string][]map[string]any
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	if err := dec.Decode(&store); err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	return store["pets"]
}

// TestKill9KeepsAcknowledgedWrites kills a real petctl with SIGKILL at a
// random moment of a stream of concurrent creates, many times over one
// state file: after each restart every create that was answered 201 is
// there, whole and under its id, ids are unique, and nothing else but the
// fixtures and creates that were under way is. So under every store.sync:
// interval and never answer once the operating system has the change,
// which a killed process cannot take back (docs/state.md); the default,
// always, is killed most.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	for _, mode := range []struct {
		sync   string
		rounds int
	}{{"always", 10}, {"interval", 4}, {"never", 4}} {
		t.Run(mode.sync, func(t *testing.T) {
			const writers = 8
			acked := map[string]string{} // id -> name
			var mu sync.Mutex
			client := &http.Client{Timeout: 5 * time.Second}
			check := func(round int, base string) { checkPets(t, round, exportedPets(t, base), acked) }
			write := func(base string, round, w, i int) bool {
				name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
				body := fmt.Sprintf(`{"name":%q,"categoryId":%d,"status":"pending"}`, name, w)
				req, _ := http.NewRequest("POST", base+"/pets", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer sig-key")
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					return false // killed
				}
				data, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					t.Errorf("create answered %d: %s", res.StatusCode, data)
					return false
				}
				var pet map[string]any
				if err := json.Unmarshal(data, &pet); err != nil {
					t.Errorf("create answered %s", data)
					return false
				}
				mu.Lock()
				acked[fmt.Sprint(pet["id"])] = name
				mu.Unlock()
				return true
			}
			args := []string{"--state", filepath.Join(t.TempDir(), "state"), "--store-sync", mode.sync}
			sent := killMidStream(t, args, mode.rounds, writers, check, write)
			t.Logf("%d creates answered over %d kills", sent, mode.rounds)
		})
	}
}

// killMidStream runs rounds of a stream of writes against a real petctl
// serve args... (one state throughout), each ended by SIGKILL at a random
// moment once the stream flows, however slow the machine. check(round,
// base) looks at the server each round starts, before any write of the
// round (round 0: the fresh one; round rounds: the last restart, after the
// last kill). Each of writers goroutines calls write(base, round, w, i)
// for i = 0, 1, ... while it returns true (the write was acknowledged);
// false ends the goroutine's round (its request got no answer: the kill;
// or write reported what it got). killMidStream returns how many writes
// were acknowledged in all, and fails the test when there were fewer than
// rounds.
func killMidStream(t *testing.T, args []string, rounds, writers int, check func(round int, base string), write func(base string, round, w, i int) bool) int {
	t.Helper()
	var acked atomic.Int64
	for round := range rounds {
		cmd, base := startPetctl(t, args...)
		check(round, base)
		stop := streamWrites(writers, func(w, i int) bool {
			if !write(base, round, w, i) {
				return false
			}
			acked.Add(1)
			return true
		})
		// Killed at a random moment once the stream is flowing (the first
		// write of the round acknowledged).
		before := acked.Load()
		for deadline := time.Now().Add(10 * time.Second); acked.Load() == before && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(200)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		stop()
		_ = cmd.Wait()
	}
	_, base := startPetctl(t, args...)
	check(rounds, base)
	if n := acked.Load(); n < int64(rounds) {
		t.Errorf("only %d writes were acknowledged in %d rounds: the test did not write", n, rounds)
	}
	return int(acked.Load())
}

// streamWrites runs writers goroutines, each calling write(w, i) for i =
// 0, 1, ... until write returns false or stop is called; stop waits for
// them to end.
func streamWrites(writers int, write func(w, i int) bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				if !write(w, i) {
					return
				}
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

// checkPets holds the stored pets to the acknowledged creates.
func checkPets(t *testing.T, round int, pets []map[string]any, acked map[string]string) {
	t.Helper()
	byID := map[string]map[string]any{}
	for _, p := range pets {
		id := fmt.Sprint(p["id"])
		if byID[id] != nil {
			t.Errorf("round %d: id %s is stored twice", round, id)
		}
		byID[id] = p
		if name, _ := p["name"].(string); p["categoryId"] == nil || name == "" {
			t.Errorf("round %d: pet %s is not whole: %v", round, id, p)
		}
	}
	for id, name := range acked {
		p := byID[id]
		if p == nil {
			t.Errorf("round %d: pet %s (%s) was answered 201 and is gone after kill -9", round, id, name)
			continue
		}
		if p["name"] != name {
			t.Errorf("round %d: pet %s is %v, want the name %s it was created with", round, id, p["name"], name)
		}
	}
}

// TestStateStartErrors: a state that cannot be taken stops serve, exit 2,
// naming the file and, for records the document refuses, each record.
func TestStateStartErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("petctl? "), 2000), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, map[string]string{"PETCTL_STATE": garbage}, "serve", "--addr", "127.0.0.1:0")
	if want := "state " + garbage + " is not a petctl state file"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("a state file that is not one: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--state", garbage)
	if want := "--state: store.path: state " + garbage; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("from the flag: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestStateRecordsTheDocumentRefuses: a start whose document refuses
// stored records stops, exit 2, naming each record and --state-reset, and
// leaves the state as it was; with --state-reset the same start serves the
// fixtures alone, and so does the next start without it.
func TestStateRecordsTheDocumentRefuses(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	strict := filepath.Join(dir, "strict.yaml")
	const category = "          description: ID of the category the animal belongs to.\n"
	doc := string(spec.DefaultDocument())
	if !strings.Contains(doc, category) {
		t.Fatal("the default document has no categoryId to bound")
	}
	write(t, strict, strings.ReplaceAll(doc, category, category+"          maximum: 999\n")) // a new pet's and a stored one's
	stop := func(cmd *exec.Cmd) {
		t.Helper()
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("serve stopped with %v; stderr:\n%s", err, cmd.Stderr)
		}
	}

	cmd, base := startPetctl(t, "--state", state)
	for i := range 2 {
		if code, body := keyed(t, "POST", base+"/pets", fmt.Sprintf(`{"name":"Big%d","categoryId":%d}`, i, 1000+i)); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
	}
	stop(cmd)

	for range 2 { // refused, the state is as it was: refused again
		code, _, stderr := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--spec", strict, "--state", state)
		for _, want := range []string{"state " + state + ": pets[150] (id 151): field 'categoryId'", "state " + state + ": pets[151] (id 152): field 'categoryId'", "--state-reset"} {
			if code != exitUsage || !strings.Contains(stderr, want) {
				t.Errorf("records the document refuses: exit %d, want 2 and %q in:\n%s", code, want, stderr)
			}
		}
	}

	// A document of its own is served without fixtures unless given some.
	fixtures, err := filepath.Abs("../../fixtures/petstore/pets.json")
	if err != nil {
		t.Fatal(err)
	}
	cmd, base = startPetctl(t, "--spec", strict, "--fixtures", fixtures, "--state", state, "--state-reset")
	if got := len(exportedPets(t, base)); got != 150 {
		t.Errorf("--state-reset serves %d pets, want the 150 fixtures", got)
	}
	stop(cmd)
	_, base = startPetctl(t, "--spec", strict, "--fixtures", fixtures, "--state", state)
	if got := len(exportedPets(t, base)); got != 150 {
		t.Errorf("the start after --state-reset serves %d pets, want the 150 fixtures", got)
	}
}

// TestRefusedStartKeepsState: a start refused by the proof of error
// bodies, with other fixtures, leaves the state as it was: the next start
// with the first document and fixtures takes it without a word about other
// fixtures.
func TestRefusedStartKeepsState(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	good := filepath.Join(dir, "openapi.yaml")
	write(t, good, string(spec.DefaultDocument()))
	bad := filepath.Join(dir, "unprovable.yaml")
	write(t, bad, strings.Replace(string(spec.DefaultDocument()), unprovable[0], unprovable[1], 1))
	// Fixtures files are named for their collection.
	first, other := filepath.Join(dir, "first", "pets.json"), filepath.Join(dir, "other", "pets.json")
	for _, d := range []string{first, other} {
		if err := os.Mkdir(filepath.Dir(d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, first, `[{"id":1,"name":"Rex","categoryId":1}]`)
	write(t, other, `[{"id":1,"name":"Tom","categoryId":1}]`)
	stop := func(cmd *exec.Cmd) string {
		t.Helper()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("serve stopped with %v; stderr:\n%s", err, cmd.Stderr)
		}
		return cmd.Stderr.(*safeBuffer).String()
	}

	cmd, _ := startPetctl(t, "--spec", good, "--fixtures", first, "--state", state)
	stop(cmd)
	code, _, stderr := runCLI(t, nil, "serve", "--addr", "127.0.0.1:0", "--spec", bad, "--fixtures", other, "--state", state)
	if code != 2 || !strings.Contains(stderr, "cannot be written as the document declares them") {
		t.Fatalf("the unprovable document: exit %d, want 2 and the proof's refusal:\n%s", code, stderr)
	}
	cmd, base := startPetctl(t, "--spec", good, "--fixtures", first, "--state", state)
	if code, body := keyed(t, "GET", base+"/pets/1", ""); code != http.StatusOK || !strings.Contains(body, "Rex") {
		t.Errorf("the stored pet after the refused start: %d %s", code, body)
	}
	if log := stop(cmd); strings.Contains(log, "other fixtures") {
		t.Errorf("the refused start changed the state: the next start says\n%s", log)
	}
}

// TestEachDocumentItsOwnState: with the default store.path, serving
// another document in the same folder starts (a state is made for one
// document and refuses others), and the Petstore's records are still
// there when it is served again.
func TestEachDocumentItsOwnState(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir := t.TempDir()
	library, err := filepath.Abs("../../fixtures/library/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	stop := func(cmd *exec.Cmd) {
		t.Helper()
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	cmd, base := startPetctlIn(t, dir, nil)
	before := len(exportedPets(t, base))
	req, _ := http.NewRequest("POST", base+"/pets", strings.NewReader(`{"name":"Kept","categoryId":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sig-key")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", res, err)
	}
	res.Body.Close()
	stop(cmd)

	cmd, _ = startPetctlIn(t, dir, nil, "--spec", library) // refused before: the state held the Petstore's pets
	stop(cmd)

	_, base = startPetctlIn(t, dir, nil)
	if got := len(exportedPets(t, base)); got != before+1 {
		t.Errorf("the Petstore again: %d pets, want %d (the one created kept)", got, before+1)
	}
	all, _ := filepath.Glob(filepath.Join(dir, ".petctl", "*"))
	// The running server's log beside its state (state-wal) is no state.
	files := slices.DeleteFunc(all, func(f string) bool { return strings.HasSuffix(f, "-wal") })
	if len(files) != 2 {
		t.Errorf("state files %v, want the Petstore's and the library's", files)
	}
}

// TestStateNone: --state none keeps the records in memory only, as petctl
// did before it had a state: no file is made in the working directory,
// and a restart serves the fixtures alone.
func TestStateNone(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir := t.TempDir()
	for round := range 2 {
		cmd, base := startPetctlIn(t, dir, nil, "--state", "none")
		if got := len(exportedPets(t, base)); got != 150 {
			t.Errorf("start %d: %d pets, want the 150 fixtures", round, got)
		}
		if code, body := keyed(t, "POST", base+"/pets", `{"name":"Forgotten","categoryId":1}`); code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("--state none made %v in the working directory", files)
	}
}

// limitFileSize caps the size of the files this process writes
// (RLIMIT_FSIZE) at bytes: a write past it fails as on a full disk (EFBIG;
// Go ignores the SIGXFSZ that comes with it).
func limitFileSize(bytes string) {
	n, err := strconv.ParseUint(bytes, 10, 64)
	if err == nil {
		err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "PETCTL_TEST_FILE_SIZE_LIMIT:", err)
		os.Exit(2)
	}
}

// TestStateDiskFull: when the state file cannot grow (a full disk), the
// create it cannot take is answered 503 store_unavailable naming the file,
// so is every change after it, /__petctl/health says why, and a restart
// on a disk with room serves every create answered 201 before.
func TestStateDiskFull(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	state := filepath.Join(t.TempDir(), "state")
	cmd, base := startPetctlEnv(t, []string{"PETCTL_TEST_FILE_SIZE_LIMIT=" + fmt.Sprint(1<<20)}, "--state", state)
	name := strings.Repeat("n", 2000)
	acked := map[string]string{}
	refused := ""
	for i := 0; i < 2000 && refused == ""; i++ {
		code, body := keyed(t, "POST", base+"/pets", fmt.Sprintf(`{"name":"%s-%d","categoryId":1}`, name, i))
		switch code {
		case http.StatusCreated:
			var pet struct{ ID int64 }
			_ = json.Unmarshal([]byte(body), &pet)
			acked[fmt.Sprint(pet.ID)] = fmt.Sprintf("%s-%d", name, i)
		case http.StatusServiceUnavailable:
			refused = body
		default:
			t.Fatalf("create %d: %d %s", i, code, body)
		}
	}
	if refused == "" || len(acked) == 0 {
		t.Fatalf("%d creates answered 201 and none refused: the file never met its limit", len(acked))
	}
	if !strings.Contains(refused, `"code":"store_unavailable"`) || !strings.Contains(refused, "state "+state) {
		t.Errorf("the create the file could not take was answered %s, want store_unavailable naming the file", refused)
	}
	if code, body := keyed(t, "POST", base+"/pets", `{"name":"After","categoryId":1}`); code != http.StatusServiceUnavailable || !strings.Contains(body, "an earlier write failed") {
		t.Errorf("a create after the failure: %d %s, want 503 saying an earlier write failed", code, body)
	}
	_, health := keyed(t, "GET", strings.TrimSuffix(base, "/v1")+"/__petctl/health", "")
	if !strings.Contains(health, `"ok":false`) {
		t.Errorf("health after the failure: %s, want the store not ok", health)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	_, base = startPetctl(t, "--state", state)
	pets := exportedPets(t, base)
	checkPets(t, 1, pets, acked)
	if got, want := len(pets), 150+len(acked); got != want {
		t.Errorf("after a restart %d pets, want the 150 fixtures and the %d creates answered 201", got, len(acked))
	}
}

// TestRewriteThatFailsKeepsTheState: a start with another document
// rewrites the state whole (its records built again for the new
// document); when the disk cannot take the rewrite, the start is refused
// and the state is left as it was, so that the next start still has every
// record. A rewrite that put a new, empty file in the state's place first
// lost them all: that start found a file with no state and seeded it.
func TestRewriteThatFailsKeepsTheState(t *testing.T) {
	t.Parallel() // its own servers, state and ports; its time is mostly waiting on them
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	petstore, err := os.ReadFile("../../spec/petstore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "petstore-v2.yaml")
	writeFileT(t, other, strings.Replace(string(petstore), "version: 1.0.0", "version: 1.0.1", 1))

	cmd, base := startPetctl(t, "--state", state)
	acked := map[string]string{}
	for i := range 200 {
		name := fmt.Sprintf("%s-%d", strings.Repeat("k", 1000), i)
		code, body := keyed(t, "POST", base+"/pets", fmt.Sprintf(`{"name":%q,"categoryId":1}`, name))
		if code != http.StatusCreated {
			t.Fatalf("create %d: %d %s", i, code, body)
		}
		var pet struct{ ID int64 }
		_ = json.Unmarshal([]byte(body), &pet)
		acked[fmt.Sprint(pet.ID)] = name
	}
	_ = cmd.Process.Signal(os.Interrupt)
	_ = cmd.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	full := exec.CommandContext(ctx, os.Args[0], "serve", "--addr", "127.0.0.1:0", "--api-key", "sig-key", "--state", state, "--spec", other)
	full.Env = append(os.Environ(), "PETCTL_TEST_BE_PETCTL=1", "PETCTL_TEST_FILE_SIZE_LIMIT="+fmt.Sprint(64<<10))
	b, err := full.CombinedOutput()
	out := string(b)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("the start whose rewrite the disk cannot take was not refused:\n%s", out)
	}
	if !strings.Contains(out, "state "+state+" could not be rewritten") || !strings.Contains(out, "left as it was") {
		t.Errorf("the refused start does not name the state file:\n%s", out)
	}

	_, base = startPetctl(t, "--state", state, "--spec", other)
	pets := exportedPets(t, base)
	checkPets(t, 1, pets, acked)
	if got, want := len(pets), 150+len(acked); got != want {
		t.Errorf("after the refused rewrite %d pets, want the 150 fixtures and the %d creates", got, len(acked))
	}
}
