// Command listrss measures the peak resident memory of concurrent list
// requests over large records: it serves the embedded Petstore in-process
// (engine.New and engine.Serve on a loopback port, as `petctl serve` does),
// fills the store over HTTP with -records creates whose names are -name
// bytes long, resets the process's high-water mark, sends -concurrent
// GET /v1/pets?limit=N at once, reads every body to the end, and prints
// VmRSS before and VmHWM during the lists (from /proc/self/status).
//
//	go run ./bench/cmd/listrss [-records 100] [-name 1000000] [-concurrent 16]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

const benchKey = "bench-key-0123456789"

func main() {
	fl := flag.NewFlagSet("listrss", flag.ContinueOnError)
	records := fl.Int("records", 100, "animals to create before the lists (each a create over HTTP)")
	name := fl.Int("name", 1000000, "bytes in each animal's name (the body limit is 1 MiB)")
	concurrent := fl.Int("concurrent", 16, "list requests sent at once")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *records < 1 || *records > 100 || *name < 1 || *concurrent < 1 {
		fmt.Fprintln(os.Stderr, "listrss: want 1 <= -records <= 100 (one page), -name >= 1, -concurrent >= 1")
		os.Exit(2)
	}
	if err := measure(*records, *name, *concurrent, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "listrss:", err)
		os.Exit(1)
	}
}

func measure(records, nameLen, concurrent int, out io.Writer) error {
	s, err := spec.Default()
	if err != nil {
		return err
	}
	srv, err := engine.New(engine.Options{Spec: s, Keys: []string{benchKey},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go engine.Serve(ctx, ln, srv, engine.Timeouts{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	base := "http://" + ln.Addr().String() + s.BasePath
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: concurrent}}

	body := `{"name":"` + strings.Repeat("n", nameLen) + `","categoryId":1}`
	for i := 0; i < records; i++ {
		status, _, err := call(client, http.MethodPost, base+"/pets", body)
		if err != nil {
			return err
		}
		if status != http.StatusCreated {
			return fmt.Errorf("create %d: status %d", i+1, status)
		}
	}
	body = ""
	debug.FreeOSMemory()
	before, err := harness.ReadMemory(os.Getpid())
	if err != nil {
		return err
	}
	// Writing 5 to clear_refs resets VmHWM to the current VmRSS (Linux 4.0
	// and later), so the peak below is that of the lists, not of start-up.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting VmHWM: %v", err)
	}
	url := base + "/pets?limit=100"
	var wg sync.WaitGroup
	errs := make([]error, concurrent)
	sizes := make([]int64, concurrent)
	startGate := make(chan struct{})
	t0 := time.Now()
	for i := 0; i < concurrent; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startGate
			status, n, err := call(client, http.MethodGet, url, "")
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("list: status %d", status)
			}
			errs[i], sizes[i] = err, n
		}()
	}
	close(startGate)
	wg.Wait()
	elapsed := time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	during, err := harness.ReadMemory(os.Getpid())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "store: %d animals with %d-byte names\n", records, nameLen)
	fmt.Fprintf(out, "%d concurrent GET /v1/pets?limit=100, %s each, all read in %s\n", concurrent, harness.MB(sizes[0]), elapsed.Round(time.Millisecond))
	fmt.Fprintf(out, "VmRSS before the lists   %s\n", harness.MB(before.RSS))
	fmt.Fprintf(out, "VmHWM during the lists   %s\n", harness.MB(during.HWM))
	return nil
}

// call sends one request and reads the whole answer, returning its status
// and the number of body bytes read.
func call(c *http.Client, method, url, body string) (int, int64, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+benchKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	return res.StatusCode, n, err
}
