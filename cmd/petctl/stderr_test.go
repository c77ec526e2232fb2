package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnreadStderrDoesNotBlockServing: petctl serve as a process whose
// stderr is a pipe nobody reads answers every request promptly, long after
// the pipe's 64 KiB are full; the health endpoint counts the log lines it
// dropped, and once stderr is read again a warning says how many.
func TestUnreadStderrDoesNotBlockServing(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, base, host := startProcessWith(t, "", w)
	w.Close() // the process has its own copy; this end is never read until the end

	// Each request logs its path: 2,000 of them with a 2 KiB path make
	// more than 4 MiB of log, 64 times what the pipe holds.
	const requests = 2000
	path := base + "/" + strings.Repeat("x", 2048)
	client := &http.Client{Timeout: 5 * time.Second}
	slowest := time.Duration(0)
	for i := 0; i < requests; i++ {
		start := time.Now()
		res, err := client.Get(path)
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			t.Fatalf("request %d of %d: %v (the log write holds the request up)", i+1, requests, ue.Err)
		} else if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Fatalf("request %d: status %d, want 404", i+1, res.StatusCode)
		}
		slowest = max(slowest, time.Since(start))
	}
	if slowest > 2*time.Second {
		t.Errorf("the slowest of %d requests took %v, want every one answered promptly", requests, slowest)
	}

	res, err := client.Get("http://" + host + "/__petctl/health")
	if err != nil {
		t.Fatal(err)
	}
	var health struct {
		Status  string `json:"status"`
		Dropped *int64 `json:"logLinesDropped"`
	}
	err = json.NewDecoder(res.Body).Decode(&health)
	res.Body.Close()
	if err != nil || health.Status != "ok" || health.Dropped == nil || *health.Dropped == 0 {
		t.Fatalf("health: %+v (%v), want status ok and logLinesDropped > 0", health, err)
	}

	// Reading stderr again lets the writer catch up, and it says what was lost.
	seen := make(chan string, 1)
	go func() {
		var all strings.Builder
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			all.Write(buf[:n])
			if strings.Contains(all.String(), "log lines dropped") || err != nil {
				seen <- all.String()
				return
			}
		}
	}()
	select {
	case out := <-seen:
		i := strings.Index(out, "log lines dropped")
		if i < 0 {
			t.Fatalf("stderr ended without a line about the dropped lines (%d bytes read)", len(out))
		}
		line := out[strings.LastIndexByte(out[:i], '\n')+1:]
		line, _, _ = strings.Cut(line, "\n")
		if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "lines=") {
			t.Errorf("the warning is %q, want a WARN line with the count", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no line about the dropped lines within 20s of reading stderr again")
	}
}

// TestLogSettings: log.requests and log.level, from the flag, the
// environment or the file, decide which lines reach stderr. Stderr is read
// once serve has stopped, when every buffered line has been written.
func TestLogSettings(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	cfg := filepath.Join(t.TempDir(), "petctl.yaml")
	if err := os.WriteFile(cfg, []byte("log:\n  requests: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                   string
		args                   []string
		env                    map[string]string
		requestLine, infoLines bool
	}{
		{"defaults", nil, nil, true, true},
		{"--log-requests=false", []string{"--log-requests=false"}, nil, false, true},
		{"PETCTL_LOG_REQUESTS", nil, map[string]string{"PETCTL_LOG_REQUESTS": "false"}, false, true},
		{"log.requests in the file", []string{"--config", cfg}, nil, false, true},
		{"--log-level warn", []string{"--log-level", "warn"}, nil, false, false},
		{"PETCTL_LOG_LEVEL", nil, map[string]string{"PETCTL_LOG_LEVEL": "error"}, false, false},
	}
	for _, tc := range tests {
		var stderr *safeBuffer
		t.Run(tc.name, func(t *testing.T) {
			var base string
			base, _, stderr = startServeStreams(t, tc.env, tc.args...)
			if r := call(t, "GET", base+"/pets?limit=1", devKey, ""); r.status != 200 {
				t.Fatalf("GET /pets: %d %s", r.status, r.body)
			}
		}) // serve has stopped here
		got := stderr.String()
		if has := strings.Contains(got, "msg=request"); has != tc.requestLine {
			t.Errorf("%s: a request line: %v, want %v; stderr:\n%s", tc.name, has, tc.requestLine, got)
		}
		if has := strings.Contains(got, "msg=\"shutting down\""); has != tc.infoLines {
			t.Errorf("%s: the info line 'shutting down': %v, want %v; stderr:\n%s", tc.name, has, tc.infoLines, got)
		}
	}
	code, _, stderr := runCLI(t, nil, "serve", "--log-level", "loud")
	if want := `--log-level: log.level: "loud" is not one of debug, info, warn, error`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("serve --log-level loud: exit %d, %q; want %d and %q", code, stderr, exitUsage, want)
	}
}

// TestJSONLog: with --log-format json every line serve writes is one JSON
// object, the request line among them with its fields typed as slog's
// JSON handler types them.
func TestJSONLog(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	var stderr *safeBuffer
	t.Run("serve", func(t *testing.T) {
		var base string
		base, _, stderr = startServeStreams(t, nil, "--log-format", "json")
		if r := call(t, "GET", base+"/pets?limit=1", devKey, ""); r.status != 200 {
			t.Fatalf("GET /pets: %d %s", r.status, r.body)
		}
	}) // serve has stopped here
	var request map[string]any
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a line is not JSON (%v): %q", err, l)
		}
		if m["msg"] == "request" {
			request = m
		}
	}
	if request == nil {
		t.Fatalf("no request line among %d:\n%s", len(lines), stderr.String())
	}
	for k, want := range map[string]any{"level": "INFO", "method": "GET", "path": "/v1/pets", "status": 200.0, "query": "limit=1", "operation": "listPets"} {
		if got := request[k]; got != want {
			t.Errorf("the request line's %s is %#v, want %#v: %v", k, got, want, request)
		}
	}
	if _, ok := request["time"].(string); !ok {
		t.Errorf("the request line has no time: %v", request)
	}
}
