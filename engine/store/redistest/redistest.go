// Package redistest starts a real redis-server for tests, on a free
// loopback port, without persistence, stopped when the test ends.
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

// Start runs redis-server for t and returns its URL (redis://127.0.0.1:PORT/0).
// Without a redis-server binary the test is skipped, saying how to get one.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath(Binary)
	if err != nil {
		t.Skipf("no %s binary: the Redis store's tests need one (apt-get install redis-server; .ci/run installs it)", Binary)
	}
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		dir := t.TempDir()
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no",
			"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", Binary, err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if ping(addr, 5*time.Second) {
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			return "redis://" + addr + "/0"
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if attempt == 2 {
			t.Fatalf("%s did not answer on %s", Binary, addr)
		}
	}
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
