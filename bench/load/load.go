// Package load is a closed-loop HTTP/1.1 load generator: N keep-alive
// connections each send a request, wait for the whole response, and send the
// next, for a fixed time. It writes pre-built request bytes and parses only
// the status line and framing headers, so on a two-core machine it takes
// little of the CPU the server under test needs.
package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is what every connection sends, over and over.
type Request struct {
	Method string
	Path   string // with the query: "/v1/pets?limit=20"
	Header http.Header
	Body   []byte
	// Seq, when set, numbers the requests: each one sent takes the next
	// value of the count, written wherever Path and Body hold SeqMark (a
	// DELETE of another record each time, a create of a new natural key).
	// The count is the caller's, so that it goes on from one run to the
	// next, or starts again after the caller has reset the server's store.
	Seq *atomic.Int64
}

// SeqMark, in a Request's Path or Body, stands for the request's number
// (see Request.Seq).
const SeqMark = "{seq}"

// Config says how hard and how long to push.
type Config struct {
	Addr     string        // host:port
	Conns    int           // concurrent connections (default 16)
	Duration time.Duration // measured time (default 5s)
	Warmup   time.Duration // unmeasured time before it
	Timeout  time.Duration // for one request (default 5s)
}

// Result is what one run measured: only requests that finished within the
// measured window count, transport errors included.
type Result struct {
	Requests int64
	Errors   int64
	Status   map[int]int64 // responses by status code
	Elapsed  time.Duration
	RPS      float64
	P50, P99 time.Duration
	Max      time.Duration
	// FirstError is the first transport error, for a message.
	FirstError error
}

// Unexpected counts responses whose status is not want, and transport errors.
func (r Result) Unexpected(want int) int64 {
	n := r.Errors
	for code, c := range r.Status {
		if code != want {
			n += c
		}
	}
	return n
}

// String is a one-line summary.
func (r Result) String() string {
	codes := make([]int, 0, len(r.Status))
	for c := range r.Status {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var st []string
	for _, c := range codes {
		st = append(st, fmt.Sprintf("%d×%d", c, r.Status[c]))
	}
	return fmt.Sprintf("%.0f req/s, p50 %s, p99 %s, max %s, %d requests [%s], %d errors",
		r.RPS, FormatDuration(r.P50), FormatDuration(r.P99), FormatDuration(r.Max), r.Requests, strings.Join(st, " "), r.Errors)
}

// Encode builds the bytes of req as an HTTP/1.1 request to host.
func Encode(req Request, host string) []byte {
	var b bytes.Buffer
	if writeHead(&b, req, host) {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(req.Body))
	}
	b.WriteString("\r\n")
	b.Write(req.Body)
	return b.Bytes()
}

// writeHead writes the request line and the headers but the
// Content-Length, and says whether one must follow.
func writeHead(b *bytes.Buffer, req Request, host string) (length bool) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	fmt.Fprintf(b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, req.Path, host)
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range req.Header[k] {
			fmt.Fprintf(b, "%s: %s\r\n", k, v)
		}
	}
	return req.Body != nil || method == http.MethodPost || method == http.MethodPut
}

// template makes the bytes of each request a run sends: always the same
// ones for a request without a Seq, built once; else the head and the
// body split at each SeqMark, joined with the request's number.
type template struct {
	fixed      []byte
	head, body [][]byte
	length     bool
	seq        *atomic.Int64
}

func newTemplate(req Request, host string) *template {
	if req.Seq == nil {
		return &template{fixed: Encode(req, host)}
	}
	var b bytes.Buffer
	length := writeHead(&b, req, host)
	mark := []byte(SeqMark)
	return &template{head: bytes.Split(b.Bytes(), mark), body: bytes.Split(req.Body, mark), length: length, seq: req.Seq}
}

// render returns the next request's bytes, built in w's buffers.
func (t *template) render(w *worker) []byte {
	if t.fixed != nil {
		return t.fixed
	}
	n := t.seq.Add(1)
	w.body = join(w.body[:0], t.body, n)
	w.raw = join(w.raw[:0], t.head, n)
	if t.length {
		w.raw = append(w.raw, "Content-Length: "...)
		w.raw = strconv.AppendInt(w.raw, int64(len(w.body)), 10)
		w.raw = append(w.raw, "\r\n"...)
	}
	w.raw = append(w.raw, "\r\n"...)
	return append(w.raw, w.body...)
}

// join appends parts to dst with n written between each two.
func join(dst []byte, parts [][]byte, n int64) []byte {
	for i, p := range parts {
		if i > 0 {
			dst = strconv.AppendInt(dst, n, 10)
		}
		dst = append(dst, p...)
	}
	return dst
}

// worker is one connection's share of a run.
type worker struct {
	lat      []time.Duration
	status   map[int]int64
	errors   int64
	firstErr error
	// raw and body are where a numbered request is built.
	raw, body []byte
}

// Run pushes req at cfg.Addr and measures. It returns an error only when
// nothing could be measured (the server refuses connections).
func Run(ctx context.Context, cfg Config, req Request) (Result, error) {
	if cfg.Conns <= 0 {
		cfg.Conns = 16
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 5 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	tmpl := newTemplate(req, cfg.Addr)
	// Every connection is opened before the clock starts.
	conns := make([]net.Conn, cfg.Conns)
	for i := range conns {
		c, err := (&net.Dialer{Timeout: cfg.Timeout}).DialContext(ctx, "tcp", cfg.Addr)
		if err != nil {
			for _, c := range conns[:i] {
				c.Close()
			}
			return Result{}, fmt.Errorf("connect to %s: %w", cfg.Addr, err)
		}
		conns[i] = c
	}
	begin := time.Now().Add(cfg.Warmup)
	end := begin.Add(cfg.Duration)
	workers := make([]worker, cfg.Conns)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			workers[i].run(ctx, cfg, tmpl, conns[i], begin, end)
		}()
	}
	wg.Wait()
	res := Result{Status: map[int]int64{}, Elapsed: cfg.Duration}
	var all []time.Duration
	for i := range workers {
		w := &workers[i]
		all = append(all, w.lat...)
		for c, n := range w.status {
			res.Status[c] += n
		}
		res.Errors += w.errors
		if res.FirstError == nil {
			res.FirstError = w.firstErr
		}
	}
	res.Requests = int64(len(all)) + res.Errors
	res.RPS = float64(len(all)) / cfg.Duration.Seconds()
	slices.Sort(all)
	res.P50 = Percentile(all, 50)
	res.P99 = Percentile(all, 99)
	if len(all) > 0 {
		res.Max = all[len(all)-1]
	}
	if len(all) == 0 && res.FirstError != nil {
		return res, res.FirstError
	}
	return res, ctx.Err()
}

func (w *worker) run(ctx context.Context, cfg Config, tmpl *template, conn net.Conn, begin, end time.Time) {
	w.status = map[int]int64{}
	w.lat = make([]time.Duration, 0, 1<<14)
	br := bufio.NewReaderSize(conn, 64<<10)
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for ctx.Err() == nil {
		t0 := time.Now()
		if !t0.Before(end) {
			return
		}
		if conn == nil {
			c, err := (&net.Dialer{Timeout: cfg.Timeout}).DialContext(ctx, "tcp", cfg.Addr)
			if err != nil {
				w.fail(t0, begin, err)
				time.Sleep(time.Millisecond)
				continue
			}
			conn = c
			br.Reset(conn)
		}
		_ = conn.SetDeadline(t0.Add(cfg.Timeout))
		status, keep, err := roundTrip(conn, br, tmpl.render(w))
		t1 := time.Now()
		if err != nil {
			w.fail(t0, begin, err)
			conn.Close()
			conn = nil
			continue
		}
		if !keep {
			conn.Close()
			conn = nil
		}
		// A request counts when it started in the window and ended by its end.
		if !t0.Before(begin) && !t1.After(end) {
			w.status[status]++
			w.lat = append(w.lat, t1.Sub(t0))
		}
	}
}

func (w *worker) fail(t0, begin time.Time, err error) {
	if t0.Before(begin) {
		return
	}
	w.errors++
	if w.firstErr == nil {
		w.firstErr = err
	}
}

// roundTrip writes one request and reads its whole response; keep is false
// when the server closes the connection after it.
func roundTrip(conn net.Conn, br *bufio.Reader, raw []byte) (status int, keep bool, err error) {
	if _, err := conn.Write(raw); err != nil {
		return 0, false, err
	}
	return ReadResponse(br, io.Discard)
}

// ReadResponse reads one HTTP/1.1 response from br, copies its body to
// body, and returns its status and whether the connection stays open.
func ReadResponse(br *bufio.Reader, body io.Writer) (status int, keep bool, err error) {
	line, err := readLine(br)
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK"
	proto, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(rest) < 3 {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	status, ok = atoi(rest[:3])
	if !ok {
		return 0, false, fmt.Errorf("malformed status line %q", line)
	}
	keep = string(proto) == "HTTP/1.1"
	length, chunked := int64(-1), false
	for {
		h, err := readLine(br)
		if err != nil {
			return 0, false, err
		}
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := atoi(value)
			if !ok {
				return 0, false, fmt.Errorf("malformed Content-Length %q", value)
			}
			length = int64(n)
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				keep = false
			} else if bytes.EqualFold(value, []byte("keep-alive")) {
				keep = true
			}
		}
	}
	switch {
	case chunked:
		err = readChunked(br, body)
	case length >= 0 && body == io.Discard:
		_, err = br.Discard(int(length))
	case length >= 0:
		_, err = io.CopyN(body, br, length)
	case status == http.StatusNoContent || status == http.StatusNotModified || status < 200:
	default:
		// No framing: the body runs to the end of the connection.
		_, err = io.Copy(body, br)
		keep = false
	}
	return status, keep, err
}

// atoi reads a non-negative decimal without allocating.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func readChunked(br *bufio.Reader, body io.Writer) error {
	for {
		line, err := readLine(br)
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			for { // trailers
				t, err := readLine(br)
				if err != nil || len(t) == 0 {
					return err
				}
			}
		}
		if _, err := io.CopyN(body, br, n); err != nil {
			return err
		}
		if crlf, err := readLine(br); err != nil || len(crlf) != 0 {
			return errors.Join(err, errors.New("chunk not followed by CRLF"))
		}
	}
}

// readLine returns a line without its CRLF; it is valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// Percentile returns the p-th percentile (nearest rank) of sorted durations.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted)) + 0.999999)
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// FormatDuration prints a latency in µs below 1 ms and in ms above.
func FormatDuration(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
}
