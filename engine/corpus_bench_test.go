package engine

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/petctl/petctl/bench/corpusload"
	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
	"github.com/petctl/petctl/spec"
)

// corpusBench is one of the documents corpuscmp measures, served
// in-process with the collection it measures filled as it fills it.
type corpusBench struct {
	name         string
	srv          *Server
	list, create load.Request
	work         *corpusload.Workload
	// seq numbers the creates, across every run on the same server: a
	// second run (-count) would otherwise repeat the first's keys.
	seq int64
}

// corpusBenches serves the largest single-file and the multi-file corpus
// documents as corpuscmp picks them, with corpuscmp's workload prepared
// over a real socket; it skips without a corpus.
func corpusBenches(b *testing.B) []*corpusBench {
	b.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	dir := harness.CorpusDir(root)
	if dir == "" {
		b.Skip("no shared/corpus folder beside the repository or above it (set PETCTL_CORPUS)")
	}
	docs, err := harness.ListCorpus(dir)
	if err != nil {
		b.Fatal(err)
	}
	single, multi, hasSingle, hasMulti := harness.Largest(docs)
	var out []*corpusBench
	for _, d := range []struct {
		doc harness.CorpusDoc
		ok  bool
	}{{single, hasSingle}, {multi, hasMulti}} {
		if !d.ok {
			continue
		}
		out = append(out, serveCorpusBench(b, d.doc))
	}
	return out
}

func serveCorpusBench(b *testing.B, d harness.CorpusDoc) *corpusBench {
	b.Helper()
	s, err := spec.Load(d.Path)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Logger: slog.New(NewTextHandler(io.Discard, nil))}) // serve's handler, as BenchmarkHandler
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, r := range corpusload.Candidates(s) {
		w, err := corpusload.Plan(s, r, testKey)
		if err == nil {
			err = w.Prepare(context.Background(), strings.TrimPrefix(hs.URL, "http://"))
		}
		if err != nil {
			continue
		}
		var seq atomic.Int64
		seq.Store(corpusload.Stored)
		list, create := w.Requests(&seq)
		return &corpusBench{name: d.Name, srv: srv, list: list, create: create, work: w, seq: corpusload.Stored}
	}
	b.Fatalf("%s: no collection could be listed and created in", d.Name)
	return nil
}

// send sends rq, numbered seq, to the server in-process.
func (c *corpusBench) send(rq load.Request, seq int64) *httptest.ResponseRecorder {
	var body io.Reader
	if rq.Body != nil {
		body = bytes.NewReader(bytes.ReplaceAll(rq.Body, []byte(load.SeqMark), []byte(strconv.FormatInt(seq, 10))))
	}
	r := httptest.NewRequest(rq.Method, rq.Path, body)
	r.Header = rq.Header.Clone()
	w := httptest.NewRecorder()
	c.srv.ServeHTTP(w, r)
	return w
}

// serve sends rq and checks the status.
func (c *corpusBench) serve(b *testing.B, rq load.Request, seq int64, want int) {
	if w := c.send(rq, seq); w.Code != want {
		b.Fatalf("%s %s: %d %s, want %d", rq.Method, rq.Path, w.Code, truncate(w.Body.String(), 300), want)
	}
}

// BenchmarkCorpusList is corpuscmp's page of the largest corpus documents
// in-process; bytes/op is the page's size, so MB/s compares its cost per
// byte with BenchmarkHandler/list20's.
func BenchmarkCorpusList(b *testing.B) {
	for _, c := range corpusBenches(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(c.work.ListBytes))
			for b.Loop() {
				c.serve(b, c.list, 0, http.StatusOK)
			}
			b.ReportMetric(float64(c.work.Items), "items/page")
		})
	}
}

// BenchmarkCorpusCreate is corpuscmp's create in the largest corpus
// documents in-process; bytes/op is the request body's size.
func BenchmarkCorpusCreate(b *testing.B) {
	for _, c := range corpusBenches(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(c.work.CreateBytes))
			for b.Loop() {
				c.seq++
				c.serve(b, c.create, c.seq, c.work.CreateStatus)
			}
		})
	}
}

// BenchmarkCorpusInvalidCreate is the create in the largest corpus
// documents with a body its schema refuses (an empty object: each
// requires a property): the cost of a bad request, which a client under
// development sends often, with the API's own error body.
func BenchmarkCorpusInvalidCreate(b *testing.B) {
	for _, c := range corpusBenches(b) {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			bad := c.create
			bad.Body = []byte(`{}`)
			// The document says which status a refused body gets
			// (adyen 422, lago 400).
			want := c.refusedWith(b, bad)
			for b.Loop() {
				c.serve(b, bad, 0, want)
			}
		})
	}
}

// refusedWith is the status the server refuses rq with: 400 or 422.
func (c *corpusBench) refusedWith(b *testing.B, rq load.Request) int {
	b.Helper()
	w := c.send(rq, 0)
	if w.Code != http.StatusBadRequest && w.Code != http.StatusUnprocessableEntity {
		b.Fatalf("%s %s with %s: %d, want 400 or 422", rq.Method, rq.Path, rq.Body, w.Code)
	}
	return w.Code
}
