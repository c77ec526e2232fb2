// Package reference renders an OpenAPI document as an interactive API
// reference: every operation grouped by tag, its parameters and schemas
// (expandable), examples made from the schemas, deprecation notices, and a
// try-it panel that sends real requests. The page is HTML, CSS and a little
// JavaScript embedded in the binary: it needs no network and no CDN.
//
// It reads the document only through package spec, and is composed around
// the API's handler by the CLI (Mount), or written to files for publishing
// (Write).
package reference

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/petctl/petctl/spec"
)

// DefaultPath is where the reference is served beside the mock, unless the
// document's own paths claim it.
const DefaultPath = "/docs"

// Options say where the reference is served and where its try-it panel
// sends requests.
type Options struct {
	// Reserved is a path prefix ending in "/" that the document cannot
	// claim, petctl's own (the engine's admin prefix): when the document's
	// paths claim DefaultPath, the reference is served at Reserved+"docs"
	// instead. Empty: it is then not served at all.
	Reserved string
	// Server is the try-it panel's default server, an absolute URL. Empty:
	// the mock beside which the page is served (Mount), or the document's
	// first server (Write).
	Server string
}

// Path returns where Mount serves the reference of s: DefaultPath, or
// o.Reserved+"docs" when one of the document's operations would answer
// at DefaultPath or at one of the page's files; "" when neither is free.
func Path(s *spec.Spec, o Options) string {
	if !claimed(s, DefaultPath) {
		return DefaultPath
	}
	if o.Reserved != "" && strings.HasPrefix(o.Reserved, "/") && strings.HasSuffix(o.Reserved, "/") {
		return o.Reserved + "docs"
	}
	return ""
}

// claimed reports whether an operation of s answers at the page's path or
// under it (its files are served there).
func claimed(s *spec.Spec, page string) bool {
	for _, p := range append([]string{page}, assetPaths(page)...) {
		if answers(s, p) {
			return true
		}
	}
	return false
}

// answers reports whether one of the document's path templates, under its
// base path, matches path: "/{name}" matches "/docs", as does "/docs/".
func answers(s *spec.Spec, path string) bool {
	for _, op := range s.Operations {
		if templateAnswers(s.BasePath+op.Path, path) {
			return true
		}
	}
	return false
}

// templateAnswers reports whether a request for path reaches the
// template's operation: path is one the template stands for, or one of
// them with a "/" after it.
func templateAnswers(template, path string) bool {
	return matchTemplate(template, path) || strings.HasSuffix(path, "/") && matchTemplate(template, path[:len(path)-1])
}

// matchTemplate reports whether path is one the template stands for: a
// {variable} matches one non-empty segment, or part of one
// ("/files/{name}.json"); the rest, itself. It is called for every
// operation at each start, so it compiles nothing (a regexp each took a
// tenth of a large document's start-up).
func matchTemplate(template, path string) bool {
	for template != "" {
		open := strings.IndexByte(template, '{')
		end := strings.IndexByte(template, '}')
		if open < 0 || end < open {
			return template == path
		}
		lit := template[:open]
		if !strings.HasPrefix(path, lit) {
			return false
		}
		path, template = path[len(lit):], template[end+1:]
		// The variable takes one character or more of its segment: try
		// each length, the shortest first, against the rest.
		seg := strings.IndexByte(path, '/')
		if seg < 0 {
			seg = len(path)
		}
		for n := 1; n < seg; n++ {
			if matchTemplate(template, path[n:]) {
				return true
			}
		}
		if seg == 0 {
			return false
		}
		path = path[seg:]
	}
	return path == ""
}

// Mount serves the reference of s beside api: the page at Path(s, o) with
// its files under it, and a redirect from / to the page when the document
// does not claim /. Every other request goes to api. The page is rendered
// on its first request, once: rendering and compressing a large
// document's page takes a tenth of a second and more of CPU, which the
// server's first answer would otherwise wait for, and most runs of a mock
// never read it. A page that cannot be rendered is answered with a 500
// that says why, and the API is served all the same.
func Mount(s *spec.Spec, api http.Handler, o Options) http.Handler {
	path := Path(s, o)
	if path == "" {
		return api
	}
	m := &mount{api: api, page: path, redirect: !answers(s, "/")}
	m.render = func() {
		m.renders.Add(1)
		// Once a panic here would leave the page a 404 for good, with no
		// reason: it is the 500's reason instead.
		defer func() {
			if p := recover(); p != nil {
				m.err, m.files = fmt.Errorf("rendering failed: %v", p), nil
			}
		}()
		files, err := render(s, o, true, path)
		m.err, m.files = err, make(map[string]*file, len(files))
		for name, data := range files {
			m.files[name] = newFile(name, data)
		}
	}
	return m
}

type mount struct {
	api      http.Handler
	page     string
	redirect bool
	// rendered guards render, which sets err and files on the first
	// request for the page or one of its files.
	rendered sync.Once
	render   func()
	renders  atomic.Int32 // times render ran: its test's witness
	err      error
	files    map[string]*file // by path: the page and its assets
}

func (m *mount) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/" && m.redirect && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		http.Redirect(w, r, m.page, http.StatusFound)
		return
	}
	if p == m.page+"/" {
		http.Redirect(w, r, m.page, http.StatusMovedPermanently)
		return
	}
	if p != m.page && !strings.HasPrefix(p, m.page+"/") {
		m.api.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "the reference is read with GET", http.StatusMethodNotAllowed)
		return
	}
	m.rendered.Do(m.render)
	if m.err != nil {
		http.Error(w, "petctl: the reference could not be rendered: "+m.err.Error(), http.StatusInternalServerError)
		return
	}
	f := m.files[p]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	f.serve(w, r)
}

// file is one of the page's files, with its gzip form and validator made once.
type file struct {
	data, gz    []byte
	contentType string
	etag        string
}

func newFile(name string, data []byte) *file {
	sum := sha256.Sum256(data)
	f := &file{data: data, contentType: contentType(name), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if b.Len() < len(data) {
		f.gz = b.Bytes()
	}
	return f
}

func (f *file) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("ETag", f.etag)
	// Revalidated each time: the page changes when the document does.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Vary", "Accept-Encoding")
	if strings.HasPrefix(f.contentType, "text/html") {
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	}
	if r.Header.Get("If-None-Match") == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.data
	if f.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func contentType(name string) string {
	switch {
	case strings.HasSuffix(name, ".css"):
		return "text/css; charset=utf-8"
	case strings.HasSuffix(name, ".js"):
		return "text/javascript; charset=utf-8"
	}
	return "text/html; charset=utf-8"
}
