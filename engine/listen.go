package engine

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"
)

// Timeouts bound how long a connection may take; zero fields get the
// defaults of DefaultOptions.
type Timeouts struct {
	ReadHeader time.Duration // to read a request's header: slow clients cannot hold a connection
	Read       time.Duration // to read a whole request
	Write      time.Duration // to write a response
	Idle       time.Duration // a keep-alive connection may wait between requests
	Shutdown   time.Duration // in-flight requests may finish after a stop signal
}

// defaultTimeouts are the time-outs of DefaultOptions.
func defaultTimeouts() Timeouts {
	return Timeouts{
		ReadHeader: 5 * time.Second,
		Read:       30 * time.Second,
		Write:      30 * time.Second,
		Idle:       120 * time.Second,
		Shutdown:   10 * time.Second,
	}
}

func (t Timeouts) withDefaults() Timeouts {
	d := defaultTimeouts()
	orDefault(&t.ReadHeader, d.ReadHeader)
	orDefault(&t.Read, d.Read)
	orDefault(&t.Write, d.Write)
	orDefault(&t.Idle, d.Idle)
	orDefault(&t.Shutdown, d.Shutdown)
	return t
}

// Serve serves h on ln until ctx is done, then stops accepting, lets
// in-flight requests finish within the shutdown time-out and returns. It
// returns nil after a clean shutdown.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, t Timeouts, log *slog.Logger) error {
	t = t.withDefaults()
	drain := make(chan struct{})
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		// The handler bounds header fields itself (431 with the Error body);
		// this is the transport's last resort.
		MaxHeaderBytes: 1 << 20,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// Requests are not cancelled when ctx is: in-flight ones may finish.
		// They can see that the server is draining, to end waits of their own.
		BaseContext: func(net.Listener) context.Context {
			return context.WithValue(context.WithoutCancel(ctx), drainKey{}, (<-chan struct{})(drain))
		},
	}
	releaseStartupGarbage()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(coalescingListener{ln}) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", t.Shutdown.String())
	close(drain)
	sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
		return errors.New("in-flight requests did not finish within the shutdown grace period")
	}
	return err
}

type drainKey struct{}

// draining returns a channel closed when the server serving ctx's request
// begins to shut down; nil (never ready) outside Serve.
func draining(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(drainKey{}).(<-chan struct{})
	return ch
}

// startupGarbage is the heap size above which Serve collects before it
// serves: loading a large fixtures file leaves the file and the scratch of
// building its records behind, and the collector would otherwise size the
// serving heap after them (twice the heap at its last cycle).
const startupGarbage = 64 << 20

// releaseStartupGarbage collects and returns freed memory to the system
// when start-up left much behind. By now the caller's fixtures files are
// unreachable, so resident memory comes down to the store itself.
func releaseStartupGarbage() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > startupGarbage {
		debug.FreeOSMemory()
	}
}
