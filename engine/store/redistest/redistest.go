// Package redistest starts a real redis-server for tests, on a free
// loopback port, stopped when the test ends.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Binary is the server the tests run: Debian's redis-server package.
const Binary = "redis-server"

// Start runs redis-server for t, without persistence, and returns its URL
// (redis://127.0.0.1:PORT/0). Without a redis-server binary the test is
// skipped, saying how to get one.
func Start(t testing.TB) string {
	t.Helper()
	return StartServer(t, false).URL
}

// Server is a redis-server a test can kill and start again, on the same
// port: Redis going away mid-run and coming back.
type Server struct {
	// URL is redis://127.0.0.1:PORT/0.
	URL string

	t          testing.TB
	bin, dir   string
	port       int
	persistent bool
	cmd        *exec.Cmd
}

// StartServer is Start with the server's handle. A persistent server
// writes every change to its append-only file before answering, so that
// one killed and started again holds what it held; another comes back
// empty, as a Redis without persistence restarted does.
func StartServer(t testing.TB, persistent bool) *Server {
	t.Helper()
	bin, err := exec.LookPath(Binary)
	if err != nil {
		t.Skipf("no %s binary: the Redis store's tests need one (apt-get install redis-server; .ci/run installs it)", Binary)
	}
	s := &Server{t: t, bin: bin, persistent: persistent, dir: t.TempDir()}
	t.Cleanup(s.Kill) // before the folder is removed: cleanups run last first
	for attempt := 0; ; attempt++ {
		s.port = freePort(t)
		if s.start() {
			s.URL = fmt.Sprintf("redis://127.0.0.1:%d/0", s.port)
			return s
		}
		if attempt == 2 {
			t.Fatalf("%s did not answer on 127.0.0.1:%d", Binary, s.port)
		}
	}
}

// Kill stops the server at once (SIGKILL).
func (s *Server) Kill() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart starts the killed server again on its port; persistent, it
// holds what it held when it was killed.
func (s *Server) Restart() {
	s.t.Helper()
	// The port was free a moment ago; another may take it meanwhile, which
	// the test then says.
	for attempt := 0; !s.start(); attempt++ {
		if attempt == 2 {
			s.t.Fatalf("%s did not answer again on 127.0.0.1:%d", Binary, s.port)
		}
	}
}

// start runs the server and waits for it to answer; false when it does not.
func (s *Server) start() bool {
	aof := []string{"--appendonly", "no"}
	if s.persistent {
		aof = []string{"--appendonly", "yes", "--appendfsync", "always"}
	}
	cmd := exec.Command(s.bin, append([]string{"--bind", "127.0.0.1", "--port", fmt.Sprint(s.port), "--save", "",
		"--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log")}, aof...)...)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("%s: %v", Binary, err)
	}
	s.cmd = cmd
	if ping(fmt.Sprintf("127.0.0.1:%d", s.port), 5*time.Second) {
		return true
	}
	s.Kill()
	return false
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ping waits for the server at addr to answer PING.
func ping(addr string, within time.Duration) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			continue
		}
		_ = c.SetDeadline(time.Now().Add(time.Second))
		_, _ = c.Write([]byte("PING\r\n"))
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if strings.HasPrefix(line, "+PONG") {
			return true
		}
	}
	return false
}
