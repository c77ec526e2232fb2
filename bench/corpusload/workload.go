// Package corpusload plans the load corpuscmp measures on a corpus
// document, from the document alone: a collection that can be listed and
// created in, its parents created first, a page of it and a create.
package corpusload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/petctl/petctl/bench/load"
	"github.com/petctl/petctl/spec"
)

// PageSize is the page the list asks for where it takes a page size: the
// Petstore's list asks for 20.
const PageSize = 20

// Stored is how many items the collection holds before it is measured:
// as many as the Petstore's fixtures.
const Stored = 150

// Workload is what corpuscmp measures on one document (and the engine's
// BenchmarkCorpus serves in-process): a page of one of its collections,
// and a create in it. The items the collection's path names (its parents)
// are created first, once.
type Workload struct {
	// Res is the collection listed and created in.
	Res *spec.Resource
	// chain are the resource's parents, outermost first.
	chain []*spec.Resource
	// creates are the parents' creates, then the resource's.
	creates []*creation
	// header carries the credentials and the required header parameters;
	// query the credentials sent in the query.
	header http.Header
	query  url.Values
	// listQuery are the list's parameters (its page size).
	listQuery url.Values
	listOp    *spec.ResourceOp
	base      string
	// Made by Prepare: the paths, with the parents' ids in them.
	listPath, createPath string
	// CreateStatus is the status a create answers with.
	CreateStatus int
	// Items and ListBytes describe the list's answer; CreateBytes the
	// create's body.
	Items, ListBytes, CreateBytes int
}

// creation is the create of an item of one resource: its operation and a
// body template, SeqMark where the body needs a different value each time.
type creation struct {
	res       *spec.Resource
	ro        *spec.ResourceOp
	body      []byte
	mediaType string
}

// Candidates are the document's collections that can be listed and
// created in, those without parents first.
func Candidates(s *spec.Spec) []*spec.Resource {
	var out []*spec.Resource
	for _, r := range s.Resources {
		if !r.Singleton && r.Op(spec.KindList) != nil && r.Op(spec.KindCreate) != nil {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b *spec.Resource) int { return len(a.ParentParams) - len(b.ParentParams) })
	return out
}

// Plan makes the workload of collection r from the document alone, or
// says why it cannot.
func Plan(s *spec.Spec, r *spec.Resource, key string) (*Workload, error) {
	w := &Workload{Res: r, base: s.BasePath, header: http.Header{}, query: url.Values{}, listQuery: url.Values{}, listOp: r.Op(spec.KindList)}
	for p := r.Parent; p != nil; p = p.Parent {
		w.chain = append([]*spec.Resource{p}, w.chain...)
	}
	if len(w.chain) != len(r.ParentParams) {
		return nil, fmt.Errorf("its path names %d parents, %d of them resources with a read", len(r.ParentParams), len(w.chain))
	}
	for _, res := range append(slices.Clone(w.chain), r) {
		ro := res.Op(spec.KindCreate)
		if ro == nil {
			return nil, fmt.Errorf("parent %s has no create", res.Key)
		}
		if res != r && (res.HiddenID || res.IDField == "") {
			return nil, fmt.Errorf("parent %s: its items carry no id field to read back", res.Key)
		}
		c, err := newCreation(s, res, ro)
		if err != nil {
			return nil, fmt.Errorf("create of %s: %w", res.Key, err)
		}
		w.creates = append(w.creates, c)
		if err := w.credentials(ro.Op, key); err != nil {
			return nil, err
		}
		if err := w.required(s, ro.Op, w.header, "header"); err != nil {
			return nil, err
		}
	}
	if err := w.credentials(w.listOp.Op, key); err != nil {
		return nil, err
	}
	if err := w.required(s, w.listOp.Op, w.header, "header"); err != nil {
		return nil, err
	}
	if err := w.required(s, w.listOp.Op, w.listQuery, "query"); err != nil {
		return nil, err
	}
	if l := listShape(w); l != nil && l.Limit != nil && l.LimitParam != "" {
		n := int64(PageSize)
		if l.Limit.Max > 0 {
			n = min(n, l.Limit.Max)
		}
		w.listQuery.Set(l.LimitParam, strconv.FormatInt(max(n, l.Limit.Min), 10))
	}
	return w, nil
}

func listShape(w *Workload) *spec.ListShape {
	if w.listOp.List != nil {
		return w.listOp.List
	}
	return w.Res.List
}

// newCreation makes the body of a create of res: every property a client
// sends (as the conformance suite sends), and, where the client chooses
// the id, an id made of the request's number.
func newCreation(s *spec.Spec, res *spec.Resource, ro *spec.ResourceOp) (*creation, error) {
	c := &creation{res: res, ro: ro}
	schema := s.BodySchema(ro.Op)
	if schema == nil {
		return c, nil
	}
	c.mediaType = ro.Request.MediaType
	if !spec.IsJSON(c.mediaType) {
		return nil, fmt.Errorf("it takes %q, not JSON", c.mediaType)
	}
	g := &spec.Values{Rand: rand.New(rand.NewPCG(1, 2)), Seq: 1, Direction: spec.InRequest, Optional: 1,
		Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	v := g.Value(schema, "")
	numeric := false
	if res.ClientIDs && !res.HiddenID && res.IDField != "" {
		item, _ := v.(map[string]any)
		if ro.Request.Kind == "wrapped" {
			item, _ = item[ro.Request.Field].(map[string]any)
		}
		if item == nil {
			return nil, errors.New("the client chooses the id, and the body is not an object to hold it")
		}
		switch {
		case res.ID.Type == "string" && res.ID.Format == "" && res.ID.Pattern == "":
			item[res.IDField] = "bench-" + load.SeqMark
		case res.ID.Type == "integer" || res.ID.Type == "number":
			item[res.IDField] = load.SeqMark
			numeric = true
		default:
			return nil, fmt.Errorf("the client chooses ids of %s %s %s, which a number cannot make unique", res.ID.Type, res.ID.Format, res.ID.Pattern)
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if numeric {
		raw = bytes.Replace(raw, []byte(`"`+load.SeqMark+`"`), []byte(load.SeqMark), 1)
	}
	c.body = raw
	return c, nil
}

// credentials adds what op's first security alternative that an API key
// satisfies asks for (bearer, apiKey in a header, the query or a cookie).
func (w *Workload) credentials(op *spec.Operation, key string) error {
	if len(op.Requirements) == 0 {
		return nil
	}
	for _, alt := range op.Requirements {
		h, q := http.Header{}, url.Values{}
		ok := true
		for _, use := range alt {
			sc := use.Scheme
			switch {
			case sc.Kind == spec.SchemeBearer:
				h.Set("Authorization", "Bearer "+key)
			case sc.Kind == spec.SchemeAPIKey && sc.In == "header":
				h.Set(sc.Param, key)
			case sc.Kind == spec.SchemeAPIKey && sc.In == "query":
				q.Set(sc.Param, key)
			case sc.Kind == spec.SchemeAPIKey && sc.In == "cookie":
				h.Add("Cookie", sc.Param+"="+key)
			default:
				ok = false
			}
		}
		if ok {
			for k, v := range h {
				w.header[k] = v
			}
			for k, v := range q {
				w.query[k] = v
			}
			return nil
		}
	}
	return fmt.Errorf("%s %s: no security alternative an API key satisfies", op.Method, op.Path)
}

// settable is what header and query parameters are put in.
type settable interface{ Set(k, v string) }

// required gives op's required parameters in `in` their simplest value.
func (w *Workload) required(s *spec.Spec, op *spec.Operation, into settable, in string) error {
	for _, p := range op.Params {
		if p.In != in || !p.Required || w.isCredential(p.Name) {
			continue
		}
		v := (&spec.Values{}).Value(s.ParamSchema(op, p), p.Name)
		switch v.(type) {
		case map[string]any, []any:
			return fmt.Errorf("%s %s: required %s parameter %s is not a scalar", op.Method, op.Path, in, p.Name)
		}
		into.Set(p.Name, fmt.Sprint(v))
	}
	return nil
}

func (w *Workload) isCredential(name string) bool {
	return w.header.Get(name) != "" || w.query.Has(name)
}

// fill writes ids into path's parameters, by name.
func fill(path string, params []string, ids []string) string {
	for i, p := range params {
		path = strings.ReplaceAll(path, "{"+p+"}", url.PathEscape(ids[i]))
	}
	return path
}

// withQuery is path with the credentials and extra in its query.
func (w *Workload) withQuery(path string, extra url.Values) string {
	q := url.Values{}
	for k, v := range w.query {
		q[k] = v
	}
	for k, v := range extra {
		q[k] = v
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// Prepare creates the parents and Stored items on the server at addr,
// then lists them once: what the load will send, it checks first.
func (w *Workload) Prepare(ctx context.Context, addr string) error {
	client := &http.Client{Timeout: 30 * time.Second}
	var ids []string
	for _, c := range w.creates {
		path := w.base + fill(c.res.Path, c.res.ParentParams, ids)
		if c.res != w.Res {
			status, body, err := w.send(ctx, client, addr, "POST", w.withQuery(path, nil), c, 0)
			if err != nil {
				return err
			}
			if status/100 != 2 {
				return fmt.Errorf("POST %s (parent %s): %d %s", path, c.res.Key, status, first(body))
			}
			id, err := idOf(body, c)
			if err != nil {
				return fmt.Errorf("POST %s (parent %s): %w", path, c.res.Key, err)
			}
			ids = append(ids, id)
			continue
		}
		w.createPath = w.withQuery(path, nil)
		w.CreateBytes = len(c.body)
		for n := 1; n <= Stored; n++ {
			status, body, err := w.send(ctx, client, addr, "POST", w.createPath, c, int64(n))
			if err != nil {
				return err
			}
			if status/100 != 2 {
				return fmt.Errorf("POST %s: %d %s", path, status, first(body))
			}
			w.CreateStatus = status
		}
	}
	w.listPath = w.withQuery(w.base+fill(w.Res.Path, w.Res.ParentParams, ids), w.listQuery)
	status, body, err := w.send(ctx, client, addr, "GET", w.listPath, nil, 0)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", w.listPath, status, first(body))
	}
	n, err := countItems(body, listShape(w))
	if err != nil {
		return fmt.Errorf("GET %s: %w", w.listPath, err)
	}
	if n == 0 {
		return fmt.Errorf("GET %s: no items after %d creates", w.listPath, Stored)
	}
	w.Items, w.ListBytes = n, len(body)
	return nil
}

// send makes one request; c's body, if any, has seq for its mark.
func (w *Workload) send(ctx context.Context, client *http.Client, addr, method, path string, c *creation, seq int64) (int, []byte, error) {
	var rd io.Reader
	if c != nil && c.body != nil {
		rd = bytes.NewReader(bytes.ReplaceAll(c.body, []byte(load.SeqMark), []byte(strconv.FormatInt(seq, 10))))
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+addr+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header = w.header.Clone()
	if rd != nil {
		req.Header.Set("Content-Type", c.mediaType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, body, err
}

// Requests are the load's list and create; the create's numbers go on
// from seq.
func (w *Workload) Requests(seq *atomic.Int64) (list, create load.Request) {
	list = load.Request{Method: "GET", Path: w.listPath, Header: w.header.Clone()}
	c := w.creates[len(w.creates)-1]
	create = load.Request{Method: "POST", Path: w.createPath, Header: w.header.Clone(), Body: c.body, Seq: seq}
	if c.body != nil {
		create.Header.Set("Content-Type", c.mediaType)
	}
	return list, create
}

// idOf reads the id of the item a create answered.
func idOf(body []byte, c *creation) (string, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "", fmt.Errorf("the answer is not JSON: %v", err)
	}
	item, _ := v.(map[string]any)
	if c.ro.Response.Kind == "wrapped" {
		item, _ = item[c.ro.Response.Field].(map[string]any)
	}
	id, ok := item[c.res.IDField]
	if !ok || id == nil {
		return "", fmt.Errorf("no %s in the answer %s", c.res.IDField, first(body))
	}
	return fmt.Sprint(id), nil
}

// countItems counts the items of a list answer, at the path the list's
// shape gives (the answer itself when it is a bare array).
func countItems(body []byte, shape *spec.ListShape) (int, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, fmt.Errorf("the answer is not JSON: %v", err)
	}
	if shape != nil {
		for _, f := range shape.Items {
			m, _ := v.(map[string]any)
			v = m[f]
		}
	}
	items, ok := v.([]any)
	if !ok {
		return 0, fmt.Errorf("no list of items in the answer %s", first(body))
	}
	return len(items), nil
}

func first(body []byte) string {
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ShownList and ShownCreate name the requests for a person: the document's
// paths, without the credentials.
func (w *Workload) ShownList() string {
	s := "GET " + w.base + w.Res.Path
	if len(w.listQuery) > 0 {
		s += "?" + w.listQuery.Encode()
	}
	return s
}

func (w *Workload) ShownCreate() string { return "POST " + w.base + w.Res.Path }
