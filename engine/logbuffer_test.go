package engine

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stuckWriter blocks its first Write until released, as a pipe nobody
// reads does once full; entered says the writer is stuck.
type stuckWriter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	buf              bytes.Buffer
}

func newStuckWriter() *stuckWriter {
	return &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.once.Do(func() {
		close(w.entered)
		<-w.release
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *stuckWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor polls cond for up to 5 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 5s: %s", what)
		}
	}
}

// TestLogBufferDropsWhileBlocked: while the writer is stuck, Write returns
// at once, keeps what the buffer holds and counts the rest; once the
// writer catches up, the kept lines come out in order, then one warning
// with the count.
func TestLogBufferDropsWhileBlocked(t *testing.T) {
	out := newStuckWriter()
	// Lines of 100 bytes, so that the buffer of 10 holds the warning too.
	const lineLen, fits, sent = 100, 10, 30
	b := NewLogBuffer(out, fits*lineLen)
	b.ReportLossTo(slog.New(slog.NewTextHandler(b, nil)))
	line := func(i int) []byte { return fmt.Appendf(nil, "line %04d %s\n", i, strings.Repeat(".", lineLen-11)) }

	b.Write(line(0))
	<-out.entered // line 0 is being written, and the writer is stuck
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= sent; i++ {
			if n, err := b.Write(line(i)); n != lineLen || err != nil {
				t.Errorf("Write(line %d) = %d, %v; want %d, nil", i, n, err, lineLen)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Write blocked behind a stuck writer")
	}
	if got, want := b.Dropped(), int64(sent-fits); got != want {
		t.Errorf("Dropped() = %d, want %d", got, want)
	}

	close(out.release)
	waitFor(t, "no warning about the dropped lines", func() bool { return strings.Contains(out.String(), "log lines dropped") })
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if got, want := len(lines), 1+fits+1; got != want {
		t.Fatalf("got %d lines, want %d (line 0, the %d kept, the warning):\n%s", got, want, fits, out.String())
	}
	for i := 0; i <= fits; i++ {
		if got, want := lines[i]+"\n", string(line(i)); got != want {
			t.Errorf("line %d = %q, want %q", i, got, want)
		}
	}
	if warn := lines[fits+1]; !strings.Contains(warn, "level=WARN") || !strings.Contains(warn, fmt.Sprintf("lines=%d", sent-fits)) {
		t.Errorf("warning = %q, want level=WARN and lines=%d", warn, sent-fits)
	}

	// Caught up: nothing more is lost, and the warning is not repeated.
	b.Write(line(99))
	waitFor(t, "a line written after the loss never came out", func() bool { return strings.HasSuffix(out.String(), string(line(99))) })
	if got := strings.Count(out.String(), "log lines dropped"); got != 1 {
		t.Errorf("%d warnings, want 1", got)
	}
	b.Close(time.Second)
}

// writeCounter counts the writes it is given.
type writeCounter struct {
	syncBuffer
	writes atomic.Int64
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	return w.syncBuffer.Write(p)
}

// TestLogBufferGathers: lines logged within the gathering window reach
// the writer in one write (before, each line was a write of its own, a
// system call per request under load), in order; a quarter of the buffer
// pending is written without waiting for the window to end.
func TestLogBufferGathers(t *testing.T) {
	gathered := false
	for try := 0; try < 5 && !gathered; try++ {
		out := &writeCounter{}
		b := NewLogBuffer(out, 0)
		start := time.Now()
		b.Write([]byte("first\n"))
		time.Sleep(time.Millisecond) // the old writer had written the first line by now
		b.Write([]byte("second\n"))
		if time.Since(start) > logGather/2 {
			b.Close(time.Second)
			continue // a machine this busy says nothing about the window: again
		}
		waitFor(t, "the lines never came out", func() bool { return out.String() == "first\nsecond\n" })
		if n := out.writes.Load(); n != 1 {
			t.Errorf("two lines logged 1 ms apart took %d writes, want one", n)
		}
		gathered = true
		b.Close(time.Second)
	}
	if !gathered {
		t.Skip("the machine is too busy: 1 ms sleeps took more than half the gathering window five times")
	}

	// A buffer of 40 bytes, a line of 10, a quarter: written at once, long
	// before a window of an hour ends.
	out := &writeCounter{}
	small := newLogBuffer(out, 40, time.Hour)
	defer small.Close(time.Second)
	small.Write([]byte("123456789\n"))
	waitFor(t, "a line of a quarter of the buffer waited for the window", func() bool { return out.String() == "123456789\n" })
}

// TestLogBufferClose: Close writes what is pending, and gives up on a
// writer that stays stuck after its time-out instead of hanging the exit.
func TestLogBufferClose(t *testing.T) {
	var out syncBuffer
	b := NewLogBuffer(&out, 0)
	b.Write([]byte("last words\n"))
	b.Close(5 * time.Second)
	if got, want := out.String(), "last words\n"; got != want {
		t.Errorf("after Close: %q, want %q", got, want)
	}

	stuck := newStuckWriter()
	defer close(stuck.release)
	b = NewLogBuffer(stuck, 0)
	b.Write([]byte("never read\n"))
	<-stuck.entered
	start := time.Now()
	b.Close(100 * time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v with a stuck writer, want about its 100ms time-out", d)
	}
}

// TestQuietRequests: with QuietRequests the log has no line per request
// (API or admin), and /__petctl/requests still lists them.
func TestQuietRequests(t *testing.T) {
	env := newPetstore(t, func(o *Options) { o.QuietRequests = true })
	env.get("/pets?limit=1")
	env.get("/nope")
	if r := env.admin("GET", "requests", "", ""); !strings.Contains(string(r.body), `"/v1/nope"`) {
		t.Errorf("/__petctl/requests does not list the requests: %s", r.body)
	}
	if got := env.log.String(); strings.Contains(got, "msg=request") || strings.Contains(got, "msg=admin") {
		t.Errorf("the log has request lines with QuietRequests:\n%s", got)
	}
	loud := newPetstore(t)
	loud.get("/pets?limit=1")
	if got := loud.log.String(); !strings.Contains(got, "msg=request") {
		t.Errorf("without QuietRequests the log has no request line; the test proves nothing:\n%s", got)
	}
}
