package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/internal/corpus"
	"github.com/petctl/petctl/spec"
)

// TestCorpusLifecycle runs every resource of every document of the shared
// corpus through its life: create, read, list contains it, update, read
// shows the update, delete, read 404, list lacks it; every answer checked
// against the document. A resource the document gives no way to create,
// read or delete is skipped, saying why. It logs, per document, the
// resources inferred, the CRUD operations served from the store (x of y)
// and why each other one is not (go test -v -run TestCorpusLifecycle).
func TestCorpusLifecycle(t *testing.T) {
	_, docs, err := corpus.Find("..")
	if err != nil {
		t.Fatal(err)
	}
	if docs == nil {
		t.Skip(corpus.SkipReason + ": no corpus lifecycle")
	}
	t.Parallel() // as TestCorpusAuth
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-45s %9s %7s %6s %9s\n", "document", "resources", "served", "lived", "CRUD ops")
	for _, d := range docs {
		t.Run(d.Name, func(t *testing.T) {
			if why := corpus.RaceSkip(d.Name); why != "" {
				t.Skip(why)
			}
			lc := newLifecycle(t, d.Path)
			stateful, crud := lc.report()
			var lived []string
			for _, r := range lc.srv.plan.Resources {
				c := lc.srv.colls[r.Key]
				if c == nil {
					continue
				}
				if t.Run(r.Key, func(t *testing.T) { lc.live(t, c) }) && lc.skips[r.Key] == "" {
					lived = append(lived, r.Key)
				}
			}
			var b strings.Builder
			fmt.Fprintf(&b, "\nlifecycle: %d of %d resources served from the store lived it whole: %s\n", len(lived), len(lc.srv.colls), strings.Join(lived, ", "))
			for _, k := range slices.Sorted(maps.Keys(lc.skips)) {
				fmt.Fprintf(&b, "  %s: %s\n", k, lc.skips[k])
			}
			t.Log(b.String())
			fmt.Fprintf(&table, "%-45s %9d %7d %6s %9s\n", d.Name, len(lc.srv.plan.Resources), len(lc.srv.colls),
				fmt.Sprintf("%d/%d", len(lived), len(lc.srv.colls)), fmt.Sprintf("%d/%d", stateful, crud))
		})
	}
	// One table for the whole corpus: resources inferred, those served
	// from the store, those that lived create to delete over HTTP, and the
	// CRUD operations served from the store of those the document declares.
	t.Log(table.String())
}

// lifecycle drives one document's server in process.
type lifecycle struct {
	t   *testing.T
	srv *Server
	seq int64
	// parents are the items made for nested resources, by resource.
	parents map[*spec.Resource][]string
	// skips say why a resource did not live its whole life, by key.
	skips map[string]string
	// base is the served document's URL; client sends to it.
	base   string
	client *http.Client
	// listed are the values of a list's required filter parameters, by
	// resource, made once: its creates carry the same values, so the
	// list (findAllWallets?external_customer_id=) shows their items.
	listed map[*spec.Resource]map[string]any
}

// skip ends a resource's life early, saying why.
func (lc *lifecycle) skip(t *testing.T, key, why string) {
	t.Helper()
	lc.skips[key] = why
	t.Skip(why)
}

// partly notes that a resource lived part of its life, and why not all.
func (lc *lifecycle) partly(t *testing.T, key, why string) {
	t.Helper()
	lc.skips[key] = why
	t.Log(why)
}

// newLifecycle serves the document on a socket. Authentication is left
// out (the security tests cover it): every operation's requirements are
// dropped. Errors are answered in the document's own format.
func newLifecycle(t *testing.T, path string) *lifecycle {
	t.Helper()
	lc := &lifecycle{t: t, parents: map[*spec.Resource][]string{}, skips: map[string]string{}, listed: map[*spec.Resource]map[string]any{},
		client: &http.Client{Timeout: 30 * time.Second}}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range s.Operations {
		op.Security, op.Requirements = nil, nil
	}
	lc.srv, err = New(Options{Spec: s, OpenAuth: true, Now: func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	hs := httptest.NewServer(lc.srv)
	t.Cleanup(hs.Close)
	lc.base = hs.URL
	return lc
}

// report logs what the plan serves from the store, and returns how many
// CRUD operations it serves from the store and how many the document has.
func (lc *lifecycle) report() (stateful, crud int) {
	p := lc.srv.plan
	var not []string
	for _, po := range p.Operations {
		if !po.CRUD {
			continue
		}
		crud++
		if po.Stateful {
			stateful++
		} else {
			not = append(not, fmt.Sprintf("    %s %s: %s", po.Op.Method, po.Op.Path, po.Why))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d resources; CRUD operations served from the store: %d of %d\n", len(p.Resources), stateful, crud)
	if len(not) > 0 {
		b.WriteString("  not served from the store:\n" + strings.Join(not, "\n") + "\n")
	}
	lc.t.Log("\n" + b.String())
	return stateful, crud
}

// send sends a request to the server over HTTP and returns the answer.
func (lc *lifecycle) send(t *testing.T, op *spec.Operation, path string, query url.Values, body any, mediaType string) result {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	u := lc.srv.spec.BasePath + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(op.Method, lc.base+u, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "petctl.test"
	req.Header.Set("Authorization", "Bearer lifecycle")
	if body != nil {
		req.Header.Set("Content-Type", mediaType)
	}
	for _, p := range op.Params {
		if p.In == "header" && p.Required && p.Schema != nil {
			req.Header.Set(p.Name, fmt.Sprint(lc.value(lc.srv.spec.SchemaView(p.Schema), p.Name)))
		}
	}
	res, err := lc.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", op.Method, u, err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("%s %s: %v", op.Method, u, err)
	}
	r := result{status: res.StatusCode, header: res.Header, body: raw}
	if r.status < 300 {
		check := httptest.NewRequest(op.Method, u, nil)
		ps := lc.srv.val.Response(check, op, r.status, r.header, r.body)
		if why := documentFault(result{status: http.StatusInternalServerError, body: []byte(strconv.Quote(describeProblems(ps)))}); len(ps) > 0 && why != "" {
			// The answer cannot be judged: the validator cannot compile
			// the schema (an external file it reads as JSON).
			t.Logf("%s %s: %d not checked: %s", op.Method, u, r.status, why)
		} else if len(ps) > 0 {
			t.Errorf("%s %s: %d does not match the document: %s: %s", op.Method, u, r.status, describeProblems(ps), truncate(string(r.body), 300))
		}
	}
	return r
}

// pathParam is the schema of the path parameter name in def's first
// operation, nil where it declares none.
func (lc *lifecycle) pathParam(def *spec.Resource, name string) *spec.Schema {
	for _, o := range def.Ops {
		for _, p := range o.Op.Params {
			if p.In == "path" && p.Name == name && p.Schema != nil {
				return lc.srv.spec.SchemaView(p.Schema)
			}
		}
	}
	return nil
}

// value makes a value for a schema, different each time.
func (lc *lifecycle) value(s *spec.Schema, name string) any {
	lc.seq++
	g := spec.Values{Seq: lc.seq, Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Direction: spec.InRequest}
	return g.Value(s, name)
}

// fullValue is value with every optional property too, drawn from a seeded
// source: an update that changes what it can.
func (lc *lifecycle) fullValue(s *spec.Schema) any {
	lc.seq++
	g := spec.Values{Seq: lc.seq, Rand: rand.New(rand.NewPCG(uint64(lc.seq), 7)), Optional: 1, Now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), Direction: spec.InRequest}
	return g.Value(s, "")
}

// query is the required query parameters of op, made from their schemas.
func (lc *lifecycle) query(op *spec.Operation) url.Values {
	q := url.Values{}
	for _, p := range op.Params {
		if p.In == "query" && p.Required && p.Schema != nil {
			v := lc.value(lc.srv.spec.SchemaView(p.Schema), p.Name)
			if arr, ok := v.([]any); ok {
				for _, x := range arr {
					q.Add(p.Name, fmt.Sprint(x))
				}
				continue
			}
			q.Set(p.Name, fmt.Sprint(v))
		}
	}
	return q
}

// fill puts the parents' ids and the item's id into a path template;
// other parameters get values made from their schemas.
func (lc *lifecycle) fill(op *spec.Operation, def *spec.Resource, scope []string, id string) string {
	p := op.Path
	for i, name := range def.ParentParams {
		if i < len(scope) {
			p = strings.Replace(p, "{"+name+"}", url.PathEscape(scope[i]), 1)
		}
	}
	if def.IDParam != "" {
		p = strings.Replace(p, "{"+def.IDParam+"}", url.PathEscape(id), 1)
	}
	for _, prm := range op.Params {
		if prm.In == "path" && strings.Contains(p, "{"+prm.Name+"}") {
			p = strings.Replace(p, "{"+prm.Name+"}", url.PathEscape(fmt.Sprint(lc.value(lc.srv.spec.SchemaView(prm.Schema), prm.Name))), 1)
		}
	}
	return p
}

// requestBody makes a body for op, or says why it cannot.
func (lc *lifecycle) requestBody(ro *spec.ResourceOp, full bool) (any, string, string) {
	b := ro.Op.Body
	if b == nil {
		return nil, "", ""
	}
	mt := ro.Request.MediaType
	if b.Schema == nil || !isJSONMediaType(mt) {
		return nil, "", fmt.Sprintf("%s takes %s, which this test does not make", ro.Op.ID, strings.Join(b.MediaTypes, ", "))
	}
	schema := lc.srv.spec.SchemaView(b.Schema)
	if full {
		return lc.fullValue(schema), mt, ""
	}
	return lc.value(schema, ""), mt, ""
}

// scopeFor makes the parents a nested resource's items need, up the
// chain, and returns their ids; why says why it cannot.
func (lc *lifecycle) scopeFor(t *testing.T, def *spec.Resource) ([]string, string) {
	if len(def.ParentParams) == 0 {
		return nil, ""
	}
	if s, ok := lc.parents[def]; ok {
		return s, ""
	}
	if def.Parent == nil {
		// No parent resource reads them: any ids the path's parameters
		// accept will do (an integer for Overseerr's /user/{userId}).
		var scope []string
		for _, name := range def.ParentParams {
			lc.seq++
			id := fmt.Sprintf("p%d", lc.seq)
			if ps := lc.pathParam(def, name); ps != nil {
				id = fmt.Sprint(lc.value(ps, name))
			}
			scope = append(scope, id)
		}
		return scope, ""
	}
	pc := lc.srv.colls[def.Parent.Key]
	if pc == nil {
		return nil, "its parent " + def.Parent.Path + " is not served from the store"
	}
	up, why := lc.scopeFor(t, def.Parent)
	if why != "" {
		return nil, why
	}
	id, _, why := lc.create(t, pc, up)
	if why != "" {
		return nil, "its parent " + def.Parent.Path + " cannot be created: " + why
	}
	scope := append(append([]string(nil), up...), id)
	lc.parents[def] = scope
	return scope, ""
}

// create makes an item of c under scope and returns its id and the
// answer; why says why it cannot (then the test has failed or skips).
func (lc *lifecycle) create(t *testing.T, c *collection, scope []string) (string, result, string) {
	def := c.def
	if co := def.Op(spec.KindCreate); co != nil {
		body, mt, why := lc.requestBody(co, false)
		if why != "" {
			return "", result{}, why
		}
		lc.chooseID(def, co, body)
		lc.sameFilters(def, co, body)
		r := lc.send(t, co.Op, lc.fill(co.Op, def, scope, ""), lc.query(co.Op), body, mt)
		if why := documentFault(r); why != "" {
			return "", r, why
		}
		if r.status >= 300 {
			return "", r, fmt.Sprintf("create %s answered %d: %s", co.Op.ID, r.status, truncate(string(r.body), 300))
		}
		return lc.idOf(def, co, r), r, ""
	}
	if ro := def.Op(spec.KindReplace); ro != nil && ro.CreatesOnPut {
		body, mt, why := lc.requestBody(ro, false)
		if why != "" {
			return "", result{}, why
		}
		id := fmt.Sprint(lc.value(def.ID.Schema, def.IDParam))
		if def.ID.Schema == nil {
			id = fmt.Sprintf("item%d", lc.seq)
		}
		r := lc.send(t, ro.Op, lc.fill(ro.Op, def, scope, id), lc.query(ro.Op), body, mt)
		if why := documentFault(r); why != "" {
			return "", r, why
		}
		if r.status >= 300 {
			return "", r, fmt.Sprintf("create by %s answered %d: %s", ro.Op.ID, r.status, truncate(string(r.body), 300))
		}
		return id, r, ""
	}
	return "", result{}, "no operation creates its items (only fixtures can)"
}

// bodyItem is the item a create body carries (nil for none): the body,
// or its wrapped field, made from the field's schema where the wrapper
// does not require it and the minimal body left it out (lago's {"wallet"}).
func (lc *lifecycle) bodyItem(co *spec.ResourceOp, body any) map[string]any {
	m, _ := body.(map[string]any)
	if co.Request.Kind != "wrapped" || m == nil {
		return m
	}
	if _, ok := m[co.Request.Field]; !ok {
		m[co.Request.Field] = lc.value(co.Request.Schema, co.Request.Field)
	}
	inner, _ := m[co.Request.Field].(map[string]any)
	return inner
}

// chooseID puts an id made from the item path's parameter schema into a
// create body that carries the id field: a client that chooses its ids
// chooses ones its reads can name (lago's create takes any string code,
// its read path only a uuid).
func (lc *lifecycle) chooseID(def *spec.Resource, co *spec.ResourceOp, body any) {
	if !def.ClientIDs || def.IDField == "" || def.ID.Schema == nil {
		return
	}
	m := lc.bodyItem(co, body)
	if _, ok := m[def.IDField]; ok {
		m[def.IDField] = lc.value(def.ID.Schema, def.IDField)
	}
}

// idOf finds a created item's id: in the answer's id field, else the
// Location header's last segment.
func (lc *lifecycle) idOf(def *spec.Resource, co *spec.ResourceOp, r result) string {
	if def.IDField != "" && len(r.body) > 0 {
		var doc any
		_ = json.Unmarshal(r.body, &doc)
		if m, ok := doc.(map[string]any); ok {
			if co.Response.Kind == "wrapped" {
				m, _ = m[co.Response.Field].(map[string]any)
			}
			if v, ok := m[def.IDField]; ok && v != nil {
				b, _ := json.Marshal(v)
				return strings.Trim(string(b), `"`)
			}
		}
	}
	if loc := r.header.Get("Location"); loc != "" {
		last := loc[strings.LastIndex(loc, "/")+1:]
		if id, err := url.PathUnescape(last); err == nil {
			return id
		}
	}
	return ""
}

// listFilters are the values of def's list's required filter
// parameters, by parameter, made on first use.
func (lc *lifecycle) listFilters(def *spec.Resource) map[string]any {
	if v, ok := lc.listed[def]; ok {
		return v
	}
	out := map[string]any{}
	if lo := def.Op(spec.KindList); lo != nil && lo.List != nil {
		for _, f := range lo.List.Filters {
			for _, p := range lo.Op.Params {
				if p.Name == f.Param && p.In == "query" && p.Required && p.Schema != nil {
					out[f.Param] = lc.value(lc.srv.spec.SchemaView(p.Schema), p.Name)
				}
			}
		}
	}
	lc.listed[def] = out
	return out
}

// sameFilters sets the fields of a create body that the list's required
// filters name to the values the list asks for.
func (lc *lifecycle) sameFilters(def *spec.Resource, co *spec.ResourceOp, body any) {
	m := lc.bodyItem(co, body)
	lo := def.Op(spec.KindList)
	if m == nil || lo == nil || lo.List == nil {
		return
	}
	values := lc.listFilters(def)
	for _, f := range lo.List.Filters {
		if v, ok := values[f.Param]; ok {
			if _, sent := m[f.Field]; sent || slices.Contains(co.Request.Schema.Required, f.Field) {
				m[f.Field] = v
			}
		}
	}
}

// listIDs lists the ids of the items of def's list under scope (the
// items' count, for items without an id field).
func (lc *lifecycle) listIDs(t *testing.T, c *collection, scope []string) ([]string, bool) {
	lo := c.def.Op(spec.KindList)
	if lo == nil {
		return nil, false
	}
	q := lc.query(lo.Op)
	for param, v := range lc.listFilters(c.def) {
		q.Set(param, fmt.Sprint(v))
	}
	r := lc.send(t, lo.Op, lc.fill(lo.Op, c.def, scope, ""), q, nil, "")
	if r.status >= 300 {
		if why := documentFault(r); why != "" {
			lc.partly(t, c.def.Key, "no list: "+why)
			return nil, false
		}
		t.Errorf("list %s: %d %s", lo.Op.ID, r.status, truncate(string(r.body), 300))
		return nil, false
	}
	var doc any
	_ = json.Unmarshal(r.body, &doc)
	for _, p := range lo.List.Items {
		m, _ := doc.(map[string]any)
		doc = m[p]
	}
	items, _ := doc.([]any)
	var ids []string
	for i, it := range items {
		m, _ := it.(map[string]any)
		if c.def.IDField == "" {
			ids = append(ids, fmt.Sprint(i))
			continue
		}
		b, _ := json.Marshal(m[c.def.IDField])
		ids = append(ids, strings.Trim(string(b), `"`))
	}
	return ids, true
}

// live runs one resource's life.
func (lc *lifecycle) live(t *testing.T, c *collection) {
	def := c.def
	if def.Singleton {
		lc.liveSingleton(t, c)
		return
	}
	read, del := def.Op(spec.KindRead), def.Op(spec.KindDelete)
	if read == nil {
		lc.skip(t, def.Key, "no read operation")
	}
	scope, why := lc.scopeFor(t, def)
	if why != "" {
		lc.skip(t, def.Key, why)
	}
	before, hasList := lc.listIDs(t, c, scope)
	id, _, why := lc.create(t, c, scope)
	switch {
	case strings.HasPrefix(why, "create"):
		t.Fatal(why)
	case why != "":
		lc.skip(t, def.Key, why)
	case id == "":
		t.Fatalf("the create's answer names no id (no %s field, no Location)", def.IDField)
	}
	itemPath := lc.fill(read.Op, def, scope, id)
	if r := lc.send(t, read.Op, itemPath, lc.query(read.Op), nil, ""); r.status != 200 {
		t.Fatalf("read %s after create: %d %s", itemPath, r.status, truncate(string(r.body), 300))
	}
	if hasList {
		ids, _ := lc.listIDs(t, c, scope)
		if def.IDField != "" && !contains(ids, id) || def.IDField == "" && len(ids) != len(before)+1 {
			t.Errorf("the list does not show the new item %s: %v", id, ids)
		}
	}
	lc.update(t, c, scope, id, read, itemPath)
	if del == nil {
		lc.partly(t, def.Key, "no delete operation: the life ends at the update")
		return
	}
	if r := lc.remove(t, del, def, scope, id); r.status >= 300 {
		t.Fatalf("delete: %d %s", r.status, truncate(string(r.body), 300))
	}
	if r := lc.send(t, read.Op, itemPath, lc.query(read.Op), nil, ""); r.status != 404 {
		t.Errorf("read after delete: %d, want 404", r.status)
	}
	if hasList {
		ids, _ := lc.listIDs(t, c, scope)
		if def.IDField != "" && contains(ids, id) || def.IDField == "" && len(ids) != len(before) {
			t.Errorf("the list still shows the deleted item %s: %v", id, ids)
		}
	}
}

// update replaces or patches the item and checks that a read shows it.
func (lc *lifecycle) update(t *testing.T, c *collection, scope []string, id string, read *spec.ResourceOp, itemPath string) {
	def := c.def
	up := def.Op(spec.KindReplace)
	if up == nil {
		up = def.Op(spec.KindPatch)
	}
	if up == nil {
		lc.partly(t, def.Key, "no replace or patch operation: no update")
		return
	}
	var body any
	var mt, why string
	if up.Request.Kind == "patch" {
		field, value := lc.writableString(def)
		if field == "" {
			lc.partly(t, def.Key, "no writable string property to patch: no update")
			return
		}
		body, mt = []any{map[string]any{"op": "add", "path": "/" + field, "value": value}}, up.Request.MediaType
	} else if body, mt, why = lc.requestBody(up, true); why != "" {
		lc.partly(t, def.Key, "no update: "+why)
		return
	}
	r := lc.send(t, up.Op, lc.fill(up.Op, def, scope, id), lc.query(up.Op), body, mt)
	if why := documentFault(r); why != "" {
		lc.partly(t, def.Key, "no update: "+why)
		return
	}
	if r.status >= 300 {
		t.Fatalf("update %s: %d %s", up.Op.ID, r.status, truncate(string(r.body), 300))
	}
	after := lc.send(t, read.Op, itemPath, lc.query(read.Op), nil, "")
	if after.status != 200 {
		t.Fatalf("read after update: %d", after.status)
	}
	// A string the update sent for a property the item has shows in the read.
	sent := unwrapBody(body, up)
	got := unwrapBody(decodeJSON(after.body), read)
	for _, name := range sortedStringProps(sent, def) {
		if want := sent[name]; got[name] != want {
			t.Errorf("read after update: %s = %v, want %v, which the update sent", name, got[name], want)
		}
		break
	}
}

// writableString names a string property of the item a client may write,
// free of format, pattern and enum, and a value for it.
func (lc *lifecycle) writableString(def *spec.Resource) (string, string) {
	props, _ := def.Item.Props()
	for _, p := range props {
		s := p.Schema
		if s != nil && s.Type() == "string" && !s.ReadOnly && !s.WriteOnly && s.Format == "" && s.Pattern == "" && len(s.Enum) == 0 && !s.HasConst && p.Name != def.IDField && p.Name != def.ParentField && (s.MaxLength == nil || *s.MaxLength >= 9) {
			return p.Name, "lifecycle"
		}
	}
	return "", ""
}

// liveSingleton reads a singleton, updates it, reads the update, deletes it.
func (lc *lifecycle) liveSingleton(t *testing.T, c *collection) {
	def := c.def
	read := def.Op(spec.KindRead)
	scope, why := lc.scopeFor(t, def)
	if why != "" {
		lc.skip(t, def.Key, why)
	}
	path := lc.fill(read.Op, def, scope, "")
	if r := lc.send(t, read.Op, path, lc.query(read.Op), nil, ""); r.status != 200 {
		t.Fatalf("read: %d %s", r.status, truncate(string(r.body), 300))
	}
	lc.update(t, c, scope, "", read, path)
	if del := def.Op(spec.KindDelete); del != nil {
		if r := lc.remove(t, del, def, scope, ""); r.status >= 300 {
			t.Fatalf("delete: %d %s", r.status, truncate(string(r.body), 300))
		}
		if r := lc.send(t, read.Op, path, lc.query(read.Op), nil, ""); r.status != 200 {
			t.Errorf("read after delete: %d, want 200 (a singleton is made again)", r.status)
		}
	}
}

// remove sends a delete, with the body it requires, where it requires one.
func (lc *lifecycle) remove(t *testing.T, del *spec.ResourceOp, def *spec.Resource, scope []string, id string) result {
	var body any
	mt := ""
	if del.Op.Body != nil && del.Op.Body.Required {
		var why string
		if body, mt, why = lc.requestBody(del, false); why != "" {
			lc.skip(t, def.Key, "no delete: "+why)
		}
	}
	return lc.send(t, del.Op, lc.fill(del.Op, def, scope, id), lc.query(del.Op), body, mt)
}

// documentFault says why a failed answer is the document's doing, or the
// validator library's, rather than petctl's: a schema the validator cannot
// compile, a request made from the document's schema that its validator
// refuses, create or update schemas that contradict the item schema. ""
// for any other answer. The answer is in the document's own error format,
// so petctl's message is looked for in every text of the body, and its
// code told by the status.
func documentFault(r result) string {
	if r.status < 300 {
		return ""
	}
	texts := bodyTexts(decodeJSON(r.body), nil)
	if len(texts) == 0 {
		texts = []string{string(r.body)} // a text/plain error
	}
	has := func(match func(string) bool) string {
		for _, s := range texts {
			if match(s) {
				return s
			}
		}
		return ""
	}
	invalid := r.status == http.StatusBadRequest || r.status == http.StatusUnprocessableEntity
	if m := has(func(s string) bool { return strings.Contains(s, "failed to compile") }); m != "" {
		return "libopenapi-validator cannot compile the document's schema: " + truncate(m, 200)
	}
	if m := has(func(s string) bool { return strings.Contains(s, "does not match the item schema") }); m != "" && r.status == http.StatusInternalServerError {
		return "the document's create and item schemas disagree: " + truncate(m, 200)
	}
	if m := has(func(s string) bool { return strings.Contains(s, "would leave the item invalid") }); m != "" && invalid {
		return "the document's update and item schemas disagree: " + truncate(m, 200)
	}
	if m := has(func(s string) bool { return strings.HasPrefix(s, "body") || strings.Contains(s, "parameter") }); m != "" && invalid {
		return "the validator refuses the request made from the document's schemas: " + truncate(m, 200)
	}
	return ""
}

// bodyTexts collects the strings of a decoded JSON value.
func bodyTexts(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = bodyTexts(v[k], out)
		}
	case []any:
		for _, x := range v {
			out = bodyTexts(x, out)
		}
	}
	return out
}

func decodeJSON(raw []byte) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// unwrapBody is the item in a body: the body, or its wrapped field.
func unwrapBody(body any, ro *spec.ResourceOp) map[string]any {
	m, _ := body.(map[string]any)
	if f := ro.Request.Field; ro.Request.Kind == "wrapped" && m != nil {
		m, _ = m[f].(map[string]any)
	} else if f := ro.Response.Field; ro.Response.Kind == "wrapped" && m != nil && ro.Op.Method == http.MethodGet {
		m, _ = m[f].(map[string]any)
	}
	return m
}

// sortedStringProps names the string properties of a body that the item
// has and a client may write, sorted.
func sortedStringProps(body map[string]any, def *spec.Resource) []string {
	var out []string
	for k, v := range body {
		p := def.Item.Prop(k)
		if _, isString := v.(string); isString && p != nil && !p.ReadOnly && !p.WriteOnly && k != def.IDField && k != def.ParentField {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
