package engine

import (
	"net"
	"sync"
	"time"
)

// net/http writes an HTTP/1 answer through a connection buffer of 4 KiB
// (bufio, not configurable): an answer past it, such as a page of twenty
// records of a large document (lago's 4.7 KB, adyen's 8.8 KB), leaves in
// two writes or more, each a system call and a TCP send the client wakes
// for. On loopback a plain net/http server answered a sixth to a quarter
// fewer requests a second with 4.3 KB bodies than with 3.7 KB ones. A
// coalescingConn sends such an answer in one write: it holds a write of
// exactly the buffer's size, which is the buffer flushed full with more of
// the answer to follow, and sends it with the next.
//
// Held bytes go out with the next write, or when the connection changes a
// deadline or closes (unless a write is under way, which sends them):
// net/http clears the write deadline after every answer, so an answer is
// never left waiting, and it is sent under the write deadline it was
// written under. A read does not send them: net/http reads in the
// background while a handler runs, to see a client leave, and that read
// would split the answer it waits beside. A full buffer flushed by
// net/http on its own is always followed by the rest of the answer; only a
// handler that flushes a buffer it filled exactly and then waits, neither
// writing nor changing a deadline, would have that piece wait with it.
// petctl's handlers answer at once, and linger sets a read deadline after
// its flush.

const (
	// heldWrite is the size of net/http's connection buffer.
	heldWrite = 4 << 10
	// maxJoined bounds what is copied to go out as one write; past it the
	// held bytes and the next go out together by writev, without a copy.
	maxJoined = 64 << 10
)

// heldBufs are the buffers of held pieces: a connection takes one only
// while it holds one, so idle keep-alive connections hold nothing.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2*heldWrite); return &b }}

// coalescingListener hands out its listener's connections as
// coalescingConns.
type coalescingListener struct{ net.Listener }

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c}, nil
}

type coalescingConn struct {
	net.Conn
	// mu guards held and err, and is held through every write to the
	// socket, so that writes keep their order.
	mu   sync.Mutex
	held *[]byte // the held piece; nil when none is held
	// err is why a held piece could not be sent: the answer is lost, the
	// connection closed, and every later write fails with it.
	err error
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if c.held == nil {
		if len(p) != heldWrite {
			return c.Conn.Write(p)
		}
		c.held = heldBufs.Get().(*[]byte)
		*c.held = append((*c.held)[:0], p...)
		return len(p), nil
	}
	if err := c.sendLocked(p); err != nil {
		c.err = err
		return 0, err
	}
	return len(p), nil
}

// sendLocked sends the held piece and p after it, in one write, and lets
// the piece go.
func (c *coalescingConn) sendLocked(p []byte) error {
	buf := *c.held
	var err error
	if len(buf)+len(p) <= maxJoined {
		buf = append(buf, p...)
		_, err = c.Conn.Write(buf)
	} else {
		bufs := net.Buffers{buf, p}
		_, err = bufs.WriteTo(c.Conn)
	}
	*c.held = buf[:0]
	heldBufs.Put(c.held)
	c.held = nil
	return err
}

// flush sends the held piece, if any. When it cannot, the answer is lost
// and the connection is closed: net/http took the piece as written, and
// would otherwise keep the connection for the next request while the
// client waits for the rest of this one. A write under way is left alone:
// flush is called by whoever changes a deadline or closes, which may be
// another goroutine ending that very write, and nothing is held beside a
// write under way (a held piece leaves with the write that follows it).
func (c *coalescingConn) flush() {
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if c.held == nil || c.err != nil {
		return
	}
	if err := c.sendLocked(nil); err != nil {
		c.err = err
		c.Conn.Close()
	}
}

// A deadline's change, a close and a half-close send what is held first.

func (c *coalescingConn) SetDeadline(t time.Time) error {
	c.flush()
	return c.Conn.SetDeadline(t)
}

func (c *coalescingConn) SetReadDeadline(t time.Time) error {
	c.flush()
	return c.Conn.SetReadDeadline(t)
}

func (c *coalescingConn) SetWriteDeadline(t time.Time) error {
	c.flush()
	return c.Conn.SetWriteDeadline(t)
}

// CloseWrite half-closes, as net/http asks of a connection it closes
// after an answer (a TCP connection's FIN).
func (c *coalescingConn) CloseWrite() error {
	c.flush()
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *coalescingConn) Close() error {
	c.flush()
	return c.Conn.Close()
}
