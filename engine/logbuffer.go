package engine

import (
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLogBufferBytes is how much log text a LogBuffer holds while its
// writer is blocked: about five thousand request lines.
const DefaultLogBufferBytes = 1 << 20

// logGather is how long the writer gathers lines after the first before
// it writes them. A write is a system call, 2 to 3 µs here (more under a
// sandboxing kernel): written as they came, under load, lines were a
// system call for nearly every request, 5 % of the Petstore's
// throughput. Gathered, they are at most a hundred a second, and a line
// comes out at most this late, which no one reading a log sees.
const logGather = 10 * time.Millisecond

// LogBuffer stands between a log handler and the writer it logs to (stderr),
// so that logging never blocks serving. A synchronous write to a pipe that
// nobody reads (a stalled service manager, `petctl serve 2>&1 | less` left
// paused) blocks once the pipe's 64 KiB are full, and with it every request
// that logs, which is every request.
//
// Write copies a line into a bounded buffer and returns at once; one
// goroutine hands the buffered lines to the writer. When the buffer is full
// the line is dropped and counted: Dropped gives the count (the health
// endpoint reports it), and once the writer has caught up a warning says
// how many lines were lost. slog's handlers write each record with one
// Write, so lines are dropped whole.
type LogBuffer struct {
	out   io.Writer
	limit int
	// gather is logGather; tests lengthen it.
	gather time.Duration

	mu      sync.Mutex
	pending []byte // lines not yet handed to the writer
	lost    int64  // lines dropped since the last warning
	closed  bool
	report  *slog.Logger
	spare   []byte // the writer's last batch, reused for the next one (writer goroutine only)

	dropped atomic.Int64  // lines dropped since the start
	wake    chan struct{} // has a value while there are pending lines
	full    chan struct{} // has a value once a quarter of the buffer is pending: write without gathering more
	stop    chan struct{} // closed by Close
	done    chan struct{} // closed when the writer goroutine ends
}

// NewLogBuffer starts a buffer of limit bytes (DefaultLogBufferBytes when
// limit <= 0) in front of out. Close it to write what is left.
func NewLogBuffer(out io.Writer, limit int) *LogBuffer {
	return newLogBuffer(out, limit, logGather)
}

func newLogBuffer(out io.Writer, limit int, gather time.Duration) *LogBuffer {
	if limit <= 0 {
		limit = DefaultLogBufferBytes
	}
	b := &LogBuffer{
		out:    out,
		limit:  limit,
		gather: gather,
		wake:   make(chan struct{}, 1),
		full:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go b.run()
	return b
}

// ReportLossTo makes the warning about dropped lines go through l, so it
// has the format of the other lines; l normally writes to b itself.
// Without it the warning is not written (Dropped still counts).
func (b *LogBuffer) ReportLossTo(l *slog.Logger) {
	b.mu.Lock()
	b.report = l
	b.mu.Unlock()
}

// Write buffers p, or drops and counts it when the buffer cannot hold it.
// It never blocks on the writer and never fails: a lost log line must not
// fail the request that logged it.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if len(b.pending)+len(p) > b.limit {
		b.lost++
		b.mu.Unlock()
		b.dropped.Add(1)
		return len(p), nil
	}
	b.pending = append(b.pending, p...)
	full := len(b.pending) >= b.limit/4
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default: // the writer has been woken already
	}
	if full {
		select {
		case b.full <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// Dropped is how many lines were dropped since the start.
func (b *LogBuffer) Dropped() int64 { return b.dropped.Load() }

// run hands the pending lines to the writer, a batch at a time, until Close:
// once a line is pending, it gathers those that follow for logGather (or
// until a quarter of the buffer is pending), then writes them together.
func (b *LogBuffer) run() {
	defer close(b.done)
	gather := time.NewTimer(b.gather)
	gather.Stop()
	for {
		select {
		case <-b.wake:
			gather.Reset(b.gather)
			select {
			case <-gather.C:
			case <-b.full:
				gather.Stop()
			case <-b.stop:
				gather.Stop()
			}
			select {
			case <-b.full: // written by this flush
			default:
			}
			b.flush()
		case <-b.stop:
			// The last batch, then the warning it may bring about, then
			// whatever that was dropped for: a bound, not a loop that
			// late lines could keep going.
			for i := 0; i < 3 && b.flush(); i++ {
			}
			return
		}
	}
}

// flush writes what is pending, then warns about the lines dropped while
// the writer was blocked. The warning is buffered like any line, so it
// follows the lines written before the loss. It reports whether there was
// anything to do.
func (b *LogBuffer) flush() bool {
	b.mu.Lock()
	batch := b.pending
	b.pending = b.spare[:0]
	lost, report := b.lost, b.report
	b.lost = 0
	b.mu.Unlock()
	if len(batch) > 0 {
		_, _ = b.out.Write(batch)
	}
	b.spare = batch[:0]
	if lost > 0 && report != nil {
		report.Warn("log lines dropped: stderr was not read fast enough",
			"lines", lost, "since_start", b.dropped.Load())
	}
	return len(batch) > 0 || lost > 0
}

// Close waits at most timeout for the writer to write the lines pending;
// a writer that stays blocked is left behind. Lines written after Close
// are not written out.
func (b *LogBuffer) Close(timeout time.Duration) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.mu.Unlock()
	close(b.stop)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-b.done:
	case <-t.C:
	}
}
