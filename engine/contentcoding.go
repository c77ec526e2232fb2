package engine

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
)

// contentCoding is a content coding (RFC 9110 §8.4.1) petctl decodes in a
// request body.
type contentCoding struct {
	name string
	// open starts decoding r; it reads the coding's header, if it has one.
	open func(r io.Reader) (io.Reader, error)
	// format names the data the coding expects, for the 400 when the body
	// is not that.
	format string
}

// contentCodings are the codings petctl decodes, in the order the
// Accept-Encoding of a 415 lists them. identity, no coding, needs no entry.
var contentCodings = []contentCoding{
	{"gzip", func(r io.Reader) (io.Reader, error) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		return zr, nil
	}, "gzip data (RFC 1952)"},
	// RFC 9110 §8.4.1.2: deflate is the zlib format, not a bare deflate
	// stream.
	{"deflate", func(r io.Reader) (io.Reader, error) {
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, err
		}
		return zr, nil
	}, "zlib data (RFC 1950), which is what deflate means in HTTP"},
}

// acceptEncoding is the Accept-Encoding of a 415 for a coding petctl does
// not decode: RFC 9110 §12.5.3 has it tell the client which codings to use
// instead, and tell a coding problem from a media type problem.
var acceptEncoding = func() string {
	names := make([]string, len(contentCodings))
	for i, c := range contentCodings {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}()

// requestCoding returns the coding of r's body: nil when it has none
// (identity), or the 415 when it is one petctl does not decode. One coding
// at most is decoded: each would hold a decompressor's memory, and no
// client stacks them.
func requestCoding(h http.Header) (*contentCoding, *Error) {
	values := h["Content-Encoding"]
	if len(values) == 0 {
		return nil, nil
	}
	var found []string
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "" && name != "identity" {
				found = append(found, name)
			}
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case len(found) > 1:
		return nil, Errorf(CodeUnsupportedContentEncoding, "the body is encoded %d times (Content-Encoding: %s); petctl decodes one coding, %s", len(found), truncate(strings.Join(found, ", "), 100), acceptEncoding)
	}
	name := found[0]
	if name == "x-gzip" { // RFC 9110 §8.4.1.3: the same as gzip
		name = "gzip"
	}
	for i := range contentCodings {
		if contentCodings[i].name == name {
			return &contentCodings[i], nil
		}
	}
	return nil, Errorf(CodeUnsupportedContentEncoding, "Content-Encoding %q is not supported; send the body with one of %s, or without Content-Encoding", truncate(name, 100), acceptEncoding)
}

// readWhole reads the body of r, which what names in the errors ("the
// request body", "the import"), bounded by max bytes as sent and, when its
// Content-Encoding is one petctl decodes, once decoded. cut is set when the
// reading began and stopped before the end: the rest may be on its way.
// Every body of the API and every import goes through it, so that none is
// taken with its coding ignored (plain JSON labelled br stored, gzip
// refused as not UTF-8). The token endpoint reads its small form itself,
// bounded, and takes it unencoded, as OAuth clients send it.
func readWhole(r *http.Request, max int64, what string) (body []byte, cut bool, e *Error) {
	if r.ContentLength > max {
		return nil, false, Errorf(CodePayloadTooLarge, "%s has %d bytes; the limit is %d", what, r.ContentLength, max)
	}
	var coding *contentCoding
	if r.ContentLength != 0 {
		if coding, e = requestCoding(r.Header); e != nil {
			return nil, false, e
		}
	}
	src := http.MaxBytesReader(nil, r.Body, max)
	if coding != nil {
		if body, e = coding.decode(src, max, what); e != nil {
			return nil, true, e
		}
		return body, false, nil
	}
	body, err := io.ReadAll(src)
	if err != nil {
		return nil, true, readError(err, max, what)
	}
	return body, false, nil
}

// decode reads body, encoded with c, bounded by max bytes both as sent
// (body is bounded by the caller) and once decoded: a small body that
// decodes to gigabytes (a "zip bomb") is refused after max+1 decoded
// bytes, having cost no more memory than a plain body at the limit.
func (c *contentCoding) decode(body io.Reader, max int64, what string) ([]byte, *Error) {
	// Errors of the connection (the limit, a time-out, a client that went
	// away) are told apart from the decoder's own.
	src := &readErr{r: body}
	// The decoders read through a buffer; one of our own shows what is
	// left after the coded data ends.
	buf := bufio.NewReader(src)
	dec, err := c.open(buf)
	if err == nil {
		var data []byte
		data, err = io.ReadAll(io.LimitReader(dec, max+1))
		if err == nil && int64(len(data)) > max {
			return nil, Errorf(CodePayloadTooLarge, "%s exceeds the limit of %d bytes once decoded (Content-Encoding: %s)", what, max, c.name)
		}
		if err == nil {
			// The coded data ended; anything after it is not part of it.
			switch _, err = buf.ReadByte(); err {
			case io.EOF:
				return data, nil
			case nil:
				return nil, Errorf(CodeMalformedContentEncoding, "%s has data after the end of its %s; send %s only", what, c.format, c.format)
			}
		}
	}
	if src.err != nil {
		return nil, readError(src.err, max, what)
	}
	return nil, Errorf(CodeMalformedContentEncoding, "%s is labelled Content-Encoding: %s but is not %s (%s)", what, c.name, c.format, decodeProblem(err))
}

// decodeProblem says what a decoder found wrong, for the 400.
func decodeProblem(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends too early"
	}
	return truncate(err.Error(), 200)
}

// readError is the answer when reading a request body, which what names,
// failed: 413 past the limit, else 400.
func readError(err error, max int64, what string) *Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return Errorf(CodePayloadTooLarge, "%s exceeds the limit of %d bytes", what, max)
	}
	return Errorf(CodeMalformedJSON, "%s could not be read: %v", what, err)
}

// readErr remembers the error of its reader other than EOF.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}
