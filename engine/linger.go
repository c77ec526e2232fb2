package engine

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// A request body petctl answers without reading to the end (413, 415, 401,
// a body an operation does not take) is still on its way. Left alone it
// turns the answer into a connection reset, for many clients:
//
//   - One that writes its whole body before it reads (Python's urllib and
//     requests, many HTTP libraries). net/http closes the connection
//     without reading what is left, the kernel answers the data that keeps
//     arriving with a reset, and the reset destroys the answer in the
//     client's buffers before it reads it. So, as nginx does ("lingering
//     close"), petctl sends the answer, then reads and discards the rest
//     of the body for up to lingerBytes and lingerTime, then closes.
//   - One that sent Expect: 100-continue and waits for the go-ahead: it
//     sends nothing more, and net/http would wait for the body until the
//     read time-out. petctl closes at once after the answer.
//
// A small body (up to netHTTPDiscard) without Expect is left to net/http,
// which reads it before the answer and keeps the connection.

// netHTTPDiscard is how much of an unread body net/http reads itself to
// keep a connection (its maxPostHandlerReadBytes); beyond it, it closes.
const netHTTPDiscard = 256 << 10

// leftover is what becomes of a request body petctl did not read whole.
type leftover int

const (
	leftNothing leftover = iota // none, read whole, or small: net/http's default
	leftWaiting                 // the client waits for 100 Continue: close at once
	leftLinger                  // answer, discard the rest within bounds, close
)

// unreadBody decides the leftover of r. readWhole says that petctl read the
// body to its end (a wholeBody); cut, that it began to read it and stopped.
func unreadBody(r *http.Request, readWhole, cut bool) leftover {
	if r.ContentLength == 0 || readWhole {
		return leftNothing
	}
	// net/http answers any Expect but 100-continue with 417 itself, and
	// waits for the go-ahead on HTTP/1.1 only; reading the body sends it.
	if r.ProtoAtLeast(1, 1) && r.Header.Get("Expect") != "" && !cut {
		return leftWaiting
	}
	if r.ContentLength < 0 || r.ContentLength > netHTTPDiscard {
		return leftLinger
	}
	return leftNothing
}

// closeNow ends the connection right after the answer: the next read, by
// which net/http would look for the end of a body that will not come,
// fails at once.
func closeNow(rc *http.ResponseController) {
	_ = rc.SetReadDeadline(time.Now())
}

// linger sends the answer already written, then reads and discards body
// for up to s.lingerBytes and s.lingerTime, ending early when the server
// begins to shut down. The connection closes after it (the answer said
// Connection: close); what is still unread then is the client's loss.
func (s *Server) linger(ctx context.Context, rc *http.ResponseController, body io.Reader) {
	if err := rc.Flush(); err != nil && err != http.ErrNotSupported {
		return // the client is gone
	}
	_ = rc.SetReadDeadline(time.Now().Add(s.lingerTime))
	if stop := draining(ctx); stop != nil {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-stop:
				closeNow(rc)
			case <-done:
			}
		}()
		defer wg.Wait()
		defer close(done)
	}
	_, _ = io.CopyN(io.Discard, body, s.lingerBytes)
	closeNow(rc)
}
