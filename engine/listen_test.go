package engine

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

func TestServeShutsDownGracefully(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(300 * time.Millisecond)
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, h, Timeouts{Shutdown: 5 * time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	url := "http://" + ln.Addr().String() + "/"
	got := make(chan string, 1)
	go func() {
		res, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got <- string(b)
	}()
	<-started
	cancel() // a signal arrives while the request is in flight
	if body := <-got; body != "finished" {
		t.Errorf("in-flight request got %q, want it to finish", body)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil after a clean shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	if _, err := (&http.Client{Timeout: time.Second}).Get(url); err == nil {
		t.Error("a new request after shutdown was served")
	}
}

func TestServeShutdownGraceExpires(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, h, Timeouts{Shutdown: 100 * time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	go (&http.Client{Timeout: 5 * time.Second}).Get("http://" + ln.Addr().String() + "/")
	<-started
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Serve = nil, want an error saying requests did not finish")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
}

// TestShutdownEndsInjectedLatency: a request held by a rehearsed delay
// longer than the grace period is answered when shutdown begins, not
// dropped when the grace period ends.
func TestShutdownEndsInjectedLatency(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: log,
		Latency: map[string]Delay{"listPets": {Min: 20 * time.Second, Max: 20 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Shutdown only waits for requests the server has begun to handle.
	handling := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handling <- struct{}{}
		srv.ServeHTTP(w, r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, Timeouts{Shutdown: time.Second}, log) }()

	type answer struct {
		status int
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/v1/pets?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+testKey)
		res, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		got <- answer{status: res.StatusCode}
	}()
	<-handling
	time.Sleep(50 * time.Millisecond) // into the delay; the outcome is the same if not
	cancel()
	if a := <-got; a.err != nil || a.status != 200 {
		t.Fatalf("the delayed request during shutdown: %d, %v; want 200", a.status, a.err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	if !strings.Contains(logs.String(), "injected, cut short after") {
		t.Errorf("the log does not say the delay was cut short:\n%s", logs.String())
	}
}
