// Command petctl serves an OpenAPI description as a stateful, validating mock
// and checks any deployment of it for conformance.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks for a clean stop (in-flight requests finish,
	// reports are written); a second one, with the default handling
	// restored, ends the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
