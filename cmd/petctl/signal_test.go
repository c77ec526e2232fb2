package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/petctl/petctl/internal/parallel"
)

// TestMain lets the tests run this binary as petctl itself, to send it
// real signals.
//
// The tests here spend their time waiting: on servers started, latencies
// configured, processes started, signalled and killed. So those that share
// nothing run side by side (t.Parallel), more of them at once than one per
// CPU. Those that bound a time (TestConformDeadline, the signal and stderr
// tests) stay out of it: beside the others under -race on a loaded
// machine they measured starvation, not petctl.
func TestMain(m *testing.M) {
	if os.Getenv("PETCTL_TEST_BE_PETCTL") == "1" {
		if v := os.Getenv("PETCTL_TEST_FILE_SIZE_LIMIT"); v != "" {
			limitFileSize(v) // TestStateDiskFull's full disk
		}
		main()
		return
	}
	parallel.AtLeast(4)
	os.Exit(m.Run())
}

// startProcess runs this test binary as `petctl serve` with the config
// text and the API key sig-key, on a free port, and returns the process,
// the base URL, its host:port and standard error. The process is killed
// when the test ends, if it is still running.
func startProcess(t *testing.T, config string) (*exec.Cmd, string, string, *safeBuffer) {
	t.Helper()
	stderr := &safeBuffer{}
	cmd, base, host := startProcessWith(t, config, stderr)
	return cmd, base, host, stderr
}

// startProcessWith is startProcess with the process's standard error
// given: an *os.File (a pipe's end) becomes the process's own stderr, so
// that it writes to it directly, as it would to a terminal or a service
// manager's pipe.
func startProcessWith(t *testing.T, config string, stderr io.Writer) (*exec.Cmd, string, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "petctl.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--config", cfg, "--api-key", "sig-key", "--state", "none")
	cmd.Env = append(os.Environ(), "PETCTL_TEST_BE_PETCTL=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	base := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "base" {
			base = f[2]
			break
		}
	}
	if base == "" {
		t.Fatalf("no base URL in the banner; stderr: %v", stderr)
	}
	go io.Copy(io.Discard, stdout)
	return cmd, base, strings.TrimPrefix(strings.TrimSuffix(base, "/v1"), "http://")
}

// TestSIGTERMUnderLoad: with requests in flight, SIGTERM lets them finish,
// refuses new connections, and the process exits 0 in bounded time.
//
// A request is in flight once its handler runs. Each of the 16 creates
// asks for 100 Continue and holds its body back: the server sends 100
// Continue only when the handler starts reading the body, so every one is
// provably inside its handler when the signal lands, however loaded the
// machine. (A connection accepted but not yet read when the server begins
// to shut down is closed unanswered by net/http, as by any server: it was
// never in flight.)
func TestSIGTERMUnderLoad(t *testing.T) {
	cmd, _, host, stderr := startProcess(t, "server:\n  timeouts: {shutdown: 5s, read: 30s, write: 30s}\n")

	const inFlight = 16
	body := `{"name":"Sigterm","categoryId":1}`
	conns := make([]*bufio.Reader, inFlight)
	raw := make([]net.Conn, inFlight)
	for i := range inFlight {
		c, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "POST /v1/pets HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sig-key\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", host, len(body))
		raw[i], conns[i] = c, bufio.NewReader(c)
	}
	for i, r := range conns {
		res, err := http.ReadResponse(r, nil)
		if err != nil || res.StatusCode != http.StatusContinue {
			t.Fatalf("request %d: %v %v, want 100 Continue", i, res, err)
		}
	}

	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The listener closes once the process has handled the signal; the 16
	// handlers are still waiting for their bodies meanwhile.
	refused := false
	for time.Since(signalled) < 3*time.Second && !refused {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err == nil {
			c.Close()
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if errors.Is(err, syscall.ECONNRESET) {
			// The dial reached the backlog as the listener closed: the
			// kernel resets what it had queued. Not served either; the
			// next dial finds the port closed.
			continue
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("a new connection after SIGTERM: %v, want connection refused", err)
		}
		refused = true
	}
	if !refused {
		t.Error("new connections were still accepted 3s after SIGTERM")
	}
	for i, c := range raw {
		if _, err := io.WriteString(c, body); err != nil {
			t.Errorf("request %d: sending its body after SIGTERM: %v", i, err)
		}
	}
	for i, r := range conns {
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Errorf("an in-flight request did not finish: request %d: %v", i, err)
			continue
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Errorf("an in-flight request did not finish: request %d: %d, want 201", i, res.StatusCode)
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("petctl exited with %v after SIGTERM, want 0; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("petctl did not exit within 10s of SIGTERM")
	}
	if d := time.Since(signalled); d > 6*time.Second {
		t.Errorf("exit took %v", d)
	}
	if strings.Contains(stderr.String(), "sig-key") {
		t.Error("the log contains the API key")
	}
}

// TestSecondSignalExitsAtOnce: a request that keeps the clean stop waiting
// (a body that never finishes arriving) does not keep the process alive
// against a second signal.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	cmd, _, host, _ := startProcess(t, "server:\n  timeouts: {read: 60s, write: 60s, shutdown: 60s}\n")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	conn, err := net.DialTimeout("tcp", host, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Headers, then, once the 100 Continue shows the handler reading the
	// body (a sleep proves nothing on a loaded machine), 10 of its 1,000
	// bytes: the handler waits for the rest, and the clean stop for it.
	fmt.Fprintf(conn, "POST /v1/pets HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer sig-key\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n", host)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("waiting for 100 Continue: %q, %v", line, err)
	}
	fmt.Fprint(conn, "{\"name\":\"")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("petctl exited (%v) at the first signal with a request in flight; the test proves nothing", err)
	case <-time.After(500 * time.Millisecond):
	}
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Success() {
			t.Errorf("petctl exited with %v at the second signal, want a failure", err)
		}
		if d := time.Since(signalled); d > 2*time.Second {
			t.Errorf("exit took %v after the second signal", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("petctl still running 5s after a second SIGTERM")
	}
}
