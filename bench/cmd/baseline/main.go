// Command baseline serves the unvalidated net/http yardstick of
// bench/baseline on an address, with the embedded Petstore animals, until
// it is interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/baseline"
	"github.com/petctl/petctl/fixtures"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fl := flag.NewFlagSet("baseline", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:4020", "address to listen on")
	key := fl.String("key", "petctl-dev-key", "accepted bearer token")
	encoding := fl.String("encoding", "marshal", "list body: marshal (encoding/json per request) or cached (records' JSON joined)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	enc, ok := baseline.ParseEncoding(*encoding)
	if !ok {
		fmt.Fprintf(os.Stderr, "baseline: -encoding %q: want marshal or cached\n", *encoding)
		return 2
	}
	data, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		return 1
	}
	pets, err := baseline.LoadPets(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		return 1
	}
	srv := &http.Server{
		Handler:           baseline.New(pets, *key, enc),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Printf("baseline (%s) serving %d animals at http://%s/v1\n", enc, len(pets), ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		return 1
	}
	return 0
}
