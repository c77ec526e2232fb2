package engine

import (
	"encoding/base64"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// probe is a request made to fail in one way.
type probe struct {
	why    string
	op     *spec.Operation // nil for a path no operation declares
	method string
	target string // path and query, after the server's address
	body   string
	header http.Header
	// status is the answer's status when the failure decides it alone; 0
	// when an earlier check may answer first (a key petctl cannot send).
	status int
}

// maxProbes bounds the requests of each kind per document.
const maxProbes = 8

// TestCorpusErrors serves every document of the corpus over a real socket
// and makes requests fail in each way (an unknown path, a bad body, a bad
// query value, no credentials where the operation needs some, an unknown
// id, a method or a media type not declared, an Accept not answered): every answer is an error, none is petctl's 500, and each is valid
// against the response the document declares for its operation and
// status, or against its most common error schema where it declares none.
func TestCorpusErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus takes seconds per document; -short leaves it out")
	}
	if forcePlain {
		// Plain changes how success answers are checked; errors are
		// checked in full either way, and the corpus takes seconds.
		t.Skip("errors are checked the same way in the plain run")
	}
	t.Parallel() // as TestCorpusAuth
	docs := corpusDocuments(t)
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		t.Run(name, func(t *testing.T) {
			if why := corpus.RaceSkip(name); why != "" {
				t.Skip(why)
			}
			s, err := spec.Load(docs[name])
			if err != nil {
				t.Fatalf("does not load: %v", err)
			}
			srv, err := New(Options{Spec: s, Keys: []string{corpusKey}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatalf("does not start: %v", err)
			}
			hs := httptest.NewServer(srv)
			t.Cleanup(hs.Close)
			v, err := s.NewValidator()
			if err != nil {
				t.Fatal(err)
			}
			probes := corpusProbes(s)
			for _, p := range probes {
				url := hs.URL + p.target
				r := rawDo(t, p.method, url, p.body, flatHeader(p.header))
				switch {
				case r.status < 400 || r.status == http.StatusInternalServerError:
					t.Errorf("%s: %s %s: %d %s, want an error of the request, not %d", p.why, p.method, p.target, r.status, truncate(string(r.body), 300), r.status)
				case p.status != 0 && r.status != p.status:
					t.Errorf("%s: %s %s: %d %s, want %d", p.why, p.method, p.target, r.status, truncate(string(r.body), 300), p.status)
				}
				validError(t, s, v, p.op, p.method, url, r)
			}
			t.Logf("%d operations, %d failing requests, every answer valid against the document", len(s.Operations), len(probes))
		})
	}
}

// corpusProbes are the failing requests sent to s: up to maxProbes of each
// kind, over the operations in document order.
func corpusProbes(s *spec.Spec) []probe {
	probes := []probe{{why: "unknown path", method: http.MethodGet, target: s.BasePath + "/petctl-no-such-path/x", status: http.StatusNotFound}}
	var body, query, auth, id int
	for _, op := range s.Operations {
		if op.Unpublished {
			continue
		}
		path := s.BasePath + fillPath(op, func(p *spec.Param) string { return "1" })
		h, key := credentials(op)
		if mt := jsonMediaType(op); mt != "" && body < maxProbes {
			body++
			bh := h.Clone()
			bh.Set("Content-Type", mt)
			probes = append(probes, probe{why: "malformed body", op: op, method: op.Method, target: withQuery(path, key), body: "{", header: bh})
		}
		if p := typedQueryParam(op); p != nil && query < maxProbes {
			query++
			probes = append(probes, probe{why: "bad query value", op: op, method: op.Method, target: withQuery(path, key, []string{url.QueryEscape(p.Name) + "=petctl-not-a-value"}), header: h})
		}
		if needsCredentials(op) && auth < maxProbes {
			auth++
			probes = append(probes, probe{why: "no credentials", op: op, method: op.Method, target: path, status: http.StatusUnauthorized})
		}
	}
	probes = append(probes, outsideOperationProbes(s)...)
	for _, c := range s.Collections {
		if c.Read == nil || id >= maxProbes {
			continue
		}
		id++
		target := s.BasePath + fillPath(c.Read, func(p *spec.Param) string {
			switch {
			case c.IDType == "integer":
				return "987654321"
			case p.Schema != nil && p.Schema.Format == "uuid":
				return "0badc0de-0000-4000-8000-000000000000"
			}
			return "petctl-no-such-id"
		})
		h, key := credentials(c.Read)
		probes = append(probes, probe{why: "unknown id", op: c.Read, method: c.Read.Method, target: withQuery(target, key), header: h})
	}
	return probes
}

// probeMethods are the methods a 405 probe tries, in order, at a path.
var probeMethods = []string{"DELETE", "PATCH", "PUT", "POST", "GET"}

// outsideOperationProbes are failing requests whose status few operations
// declare, so that their answers are written in the document's most common
// error format: a method a path does not declare (405) and a body in a
// media type the operation does not take (415), and an Accept its
// successes are sent in none of (406); up to maxProbes of each.
func outsideOperationProbes(s *spec.Spec) []probe {
	var probes []probe
	declared := map[string][]string{}
	for _, op := range s.Operations {
		declared[op.Path] = append(declared[op.Path], op.Method)
	}
	var methods, types, accepts int
	seen := map[string]bool{}
	unaskable := parseAccept([]string{"image/x-petctl-none"})
	for _, op := range s.Operations {
		if op.Unpublished {
			continue
		}
		path := s.BasePath + fillPath(op, func(p *spec.Param) string { return "1" })
		if i := slices.IndexFunc(probeMethods, func(m string) bool {
			return !slices.Contains(declared[op.Path], m)
		}); i >= 0 && !seen[op.Path] && methods < maxProbes {
			seen[op.Path] = true
			methods++
			m := probeMethods[i]
			probes = append(probes, probe{why: "method not allowed", method: m, target: path, status: http.StatusMethodNotAllowed})
		}
		if jsonMediaType(op) != "" && types < maxProbes && !slices.ContainsFunc(op.Body.MediaTypes, func(mt string) bool {
			return strings.Contains(mt, "*") || strings.HasPrefix(mt, "text/")
		}) {
			types++
			h, key := credentials(op)
			h.Set("Content-Type", "text/csv")
			probes = append(probes, probe{why: "a body in a type the operation does not take", op: op, method: op.Method, target: withQuery(path, key), body: "a,b", header: h, status: http.StatusUnsupportedMediaType})
		}
		if sent := successMediaTypes(op); len(sent) > 0 && accepts < maxProbes && !slices.ContainsFunc(sent, func(mt string) bool {
			return acceptQuality(unaskable, mt) > 0
		}) {
			accepts++
			h, key := credentials(op)
			h.Set("Accept", "image/x-petctl-none")
			probes = append(probes, probe{why: "an Accept no success is sent as", op: op, method: op.Method, target: withQuery(path, key), header: h, status: http.StatusNotAcceptable})
		}
	}
	return probes
}

// fillPath is op's path with each path parameter replaced by value(p).
func fillPath(op *spec.Operation, value func(*spec.Param) string) string {
	path := op.Path
	for _, p := range op.Params {
		if p.In == "path" {
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(value(p)))
		}
	}
	return path
}

// jsonMediaType is the JSON media type of op's request body, "" when it
// takes none.
func jsonMediaType(op *spec.Operation) string {
	if op.Body == nil {
		return ""
	}
	for _, mt := range op.Body.MediaTypes {
		if mt == spec.JSON || strings.HasSuffix(mt, "+json") {
			return mt
		}
	}
	return ""
}

// typedQueryParam is a query parameter of op whose schema no word can
// satisfy (a number, a boolean, an enum); nil when it has none.
func typedQueryParam(op *spec.Operation) *spec.Param {
	for _, p := range op.Params {
		if p.In != "query" || p.Schema == nil {
			continue
		}
		if t := spec.SchemaType(p.Schema); t == "integer" || t == "number" || t == "boolean" || len(p.Schema.Enum) > 0 {
			return p
		}
	}
	return nil
}

// needsCredentials reports whether op refuses a request without any: it
// has requirements, and none of them is empty (optional authentication).
func needsCredentials(op *spec.Operation) bool {
	if len(op.Requirements) == 0 {
		return false
	}
	for _, req := range op.Requirements {
		if len(req) == 0 {
			return false
		}
	}
	return true
}

// credentials carry corpusKey where op's first requirement takes it: in
// headers, and in query pairs for a key the scheme takes in the query.
func credentials(op *spec.Operation) (http.Header, []string) {
	h := http.Header{}
	var query []string
	if len(op.Requirements) == 0 {
		return h, nil
	}
	for _, use := range op.Requirements[0] {
		sc := use.Scheme
		switch {
		case sc == nil:
		case sc.Bearer():
			h.Set("Authorization", "Bearer "+corpusKey)
		case sc.Kind == spec.SchemeBasic:
			h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(corpusKey+":"+corpusKey)))
		case sc.In == "header":
			h.Set(sc.Param, corpusKey)
		case sc.In == "cookie":
			h.Add("Cookie", sc.Param+"="+corpusKey)
		case sc.In == "query":
			query = append(query, url.QueryEscape(sc.Param)+"="+corpusKey)
		}
	}
	return h, query
}

// withQuery is path with the query pairs.
func withQuery(path string, pairs ...[]string) string {
	var all []string
	for _, p := range pairs {
		all = append(all, p...)
	}
	if len(all) == 0 {
		return path
	}
	return path + "?" + strings.Join(all, "&")
}

// flatHeader is h as rawDo takes it.
func flatHeader(h http.Header) map[string]string {
	out := map[string]string{}
	for k := range h {
		out[k] = strings.Join(h.Values(k), "; ")
	}
	return out
}
