// Command load sends one request over and over on N keep-alive connections
// for a fixed time and prints req/s and latency percentiles:
//
//	go run ./bench/cmd/load -addr 127.0.0.1:4010 -H 'Authorization: Bearer petctl-dev-key' /v1/pets?limit=20
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/load"
)

type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fl := flag.NewFlagSet("load", flag.ContinueOnError)
	var cfg load.Config
	fl.StringVar(&cfg.Addr, "addr", "127.0.0.1:4010", "server host:port (loopback only)")
	fl.IntVar(&cfg.Conns, "c", 16, "connections")
	fl.DurationVar(&cfg.Duration, "d", 5*time.Second, "measured time")
	fl.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured time first")
	method := fl.String("X", "GET", "method")
	body := fl.String("body", "", "request body (sent with Content-Type: application/json)")
	var hs headers
	fl.Var(&hs, "H", "header 'Name: value' (repeatable)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 || !strings.HasPrefix(fl.Arg(0), "/") {
		fmt.Fprintln(os.Stderr, "load: give one path, such as /v1/pets?limit=20")
		return 2
	}
	req := load.Request{Method: *method, Path: fl.Arg(0), Header: http.Header{}}
	for _, h := range hs {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			fmt.Fprintf(os.Stderr, "load: -H %q: want 'Name: value'\n", h)
			return 2
		}
		req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if *body != "" {
		req.Body = []byte(*body)
		if req.Header.Get("Content-Type") == "" {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := load.Run(ctx, cfg, req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		return 1
	}
	fmt.Println(res)
	return 0
}
