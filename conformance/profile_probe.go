package conformance

// How a profile is recorded: after the checks, a few requests of its own
// ask each open question once (an out-of-range page size, a create with
// only the required fields, a page of one, each way to fail, the
// unpublished operations); then every answer the run saw, the checks'
// included, gives the codes used, the headers always sent and the latency.

import (
	"context"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

// profiler is one recording: the suite it asks through and what it saw.
type profiler struct {
	s   *suite
	ctx context.Context
	p   *Profile
	// seen are the profile's own exchanges.
	seen    []*Exchange
	created []Record
}

// profile records the deployment's profile; created records are added to res.
func (s *suite) profile(ctx context.Context, res *Result) *Profile {
	pr := &profiler{s: s, ctx: ctx, p: &Profile{URL: s.client.redact(redactURL(s.base.String())), RecordedAt: time.Now().UTC()}}
	for _, coll := range s.spec.Collections {
		pr.p.Collections = append(pr.p.Collections, pr.collection(coll))
	}
	pr.errors()
	pr.unpublished()
	pr.answers()
	res.Created = append(res.Created, pr.created...)
	return pr.p
}

// send sends a request of the profile's own.
func (pr *profiler) send(r *request) (*Exchange, bool) {
	if err := pr.ctx.Err(); err != nil {
		pr.skip("%s %s: %v", r.op.Method, r.op.Path, stopCause(pr.ctx))
		return nil, false
	}
	s := pr.s
	s.client.credentialQuery(r)
	ex, err := s.client.do(pr.ctx, r)
	if err != nil {
		pr.skip("%s %s: the request failed: %v", r.op.Method, r.op.Path, s.client.redactError(err))
		return nil, false
	}
	ex.Check = "profile"
	pr.seen = append(pr.seen, ex)
	return ex, true
}

// skip notes what could not be recorded.
func (pr *profiler) skip(format string, args ...any) {
	pr.p.NotRecorded = append(pr.p.NotRecorded, pr.s.client.redact(fmt.Sprintf(format, args...)))
}

// list sends the collection's list with the page size set ("" for none).
func (pr *profiler) list(coll *spec.Collection, limit string) (*Exchange, []map[string]any, bool) {
	r := pr.s.validRequest(coll.List, authKey)
	if limit != "" && coll.Limit != nil {
		r.query.Set(coll.Limit.Param, limit)
	}
	ex, ok := pr.send(r)
	if !ok {
		return nil, nil, false
	}
	got, isList := items(ex)
	return ex, got, isList
}

func (pr *profiler) collection(coll *spec.Collection) CollectionProfile {
	cp := CollectionProfile{Name: coll.Name}
	if coll.Create != nil {
		cp.Create = coll.Create.ID
		cp.Defaults = pr.defaults(coll)
	}
	if coll.List == nil {
		return cp
	}
	cp.List = coll.List.ID
	l := coll.Limit
	largest := ""
	if l != nil && l.Max > 0 {
		largest = strconv.FormatInt(l.Max, 10)
	}
	ex, all, ok := pr.list(coll, largest)
	if !ok || ex.Status != http.StatusOK {
		if ex != nil {
			pr.skip("%s: the list answered %d, so its order, pagination and page sizes are not recorded", coll.Name, ex.Status)
		}
		return cp
	}
	cp.Order, cp.OrderSeen = order(coll, all)
	if cp.Order == "" {
		pr.skip("%s: the order of a list of %d items cannot be told", coll.Name, len(all))
	}
	if l == nil {
		return cp
	}
	for _, v := range []int64{l.Min - 1, l.Max + 1} {
		if v == l.Max+1 && l.Max <= 0 {
			continue
		}
		bound := l.Min
		if v > l.Max {
			bound = l.Max
		}
		ex, got, _ := pr.list(coll, strconv.FormatInt(v, 10))
		if ex == nil {
			continue
		}
		cp.OutOfRange = append(cp.OutOfRange, LimitAnswer{
			Param: l.Param, Value: strconv.FormatInt(v, 10), Status: ex.Status, Code: errorCode(ex),
			Items: len(got), Bound: bound, Default: l.Default, Population: len(all),
		})
	}
	cp.Pagination = pr.pagination(coll, len(all))
	return cp
}

// order tells how a list is ordered by its items' ids.
func order(coll *spec.Collection, got []map[string]any) (string, string) {
	if len(got) < 2 {
		return "", ""
	}
	asc, desc := true, true
	for i := 1; i < len(got); i++ {
		c := compareIDs(got[i-1][coll.IDField], got[i][coll.IDField])
		asc = asc && c < 0
		desc = desc && c > 0
	}
	seen := fmt.Sprintf("%d items by %s", len(got), coll.IDField)
	switch {
	case asc:
		return OrderAscending, seen
	case desc:
		return OrderDescending, seen
	}
	return OrderOther, seen
}

// pagination asks for a page of one and reads how the deployment offers
// the next.
func (pr *profiler) pagination(coll *spec.Collection, population int) *Pagination {
	l := coll.Limit
	if population < 2 {
		pr.skip("%s: %d items listed; pagination shows with two or more", coll.Name, population)
		return nil
	}
	one := max(l.Min, 1)
	ex, _, ok := pr.list(coll, strconv.FormatInt(one, 10))
	if !ok || ex.Status != http.StatusOK {
		return nil
	}
	pg := &Pagination{Style: "none"}
	for _, k := range slices.Sorted(maps.Keys(ex.Header)) {
		if paginationHeader.MatchString(k) {
			pg.Headers = append(pg.Headers, k)
		}
	}
	next := nextLink(ex.Header.Values("Link"))
	if next == "" {
		if len(pg.Headers) > 0 {
			pg.Style = "headers"
		}
		return pg
	}
	sent, err := url.Parse(ex.URL)
	if err != nil {
		return pg
	}
	to, err := sent.Parse(next)
	if err != nil {
		return pg
	}
	pg.Next = pr.s.client.redact(to.RequestURI())
	var changed []string
	for k, vs := range to.Query() {
		if k != l.Param && !slices.Equal(vs, sent.Query()[k]) {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	pg.Param = strings.Join(changed, ", ")
	pg.Style = "link"
	if len(changed) == 1 {
		v := to.Query().Get(changed[0])
		_, numErr := strconv.ParseInt(v, 10, 64)
		switch {
		case numErr != nil:
			pg.Style = "cursor"
		case strings.Contains(strings.ToLower(changed[0]), "page"):
			pg.Style = "page"
		default:
			pg.Style = "offset"
		}
	}
	return pg
}

// nextLink is the target of the rel="next" link of RFC 8288 Link header
// values, or "".
func nextLink(values []string) string {
	for _, v := range values {
		for _, link := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(link), ";")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				name, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(name, "rel") && slices.Contains(strings.Fields(strings.ToLower(strings.Trim(val, `"`))), "next") {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}

// defaults creates an item with only the required fields and reads what
// it got for the others.
func (pr *profiler) defaults(coll *spec.Collection) []FieldDefault {
	s := pr.s
	if s.cfg.ReadOnly {
		pr.skip("%s: the values a new item gets are not recorded: --read-only creates nothing", coll.Name)
		return nil
	}
	names, _, required := spec.ObjectProperties(coll.NewSchema)
	var optional []string
	for _, n := range names {
		if !required[n] {
			optional = append(optional, n)
		}
	}
	if len(optional) == 0 {
		return nil
	}
	r := s.validRequest(coll.Create, authKey)
	obj, _ := decodeJSON(r.body).(map[string]any)
	for _, n := range optional {
		delete(obj, n)
	}
	r.body = marshal(obj)
	ex, ok := pr.send(r)
	if !ok {
		return nil
	}
	if ex.Status < 200 || ex.Status > 299 {
		pr.skip("%s: a create with only the required fields answered %d", coll.Name, ex.Status)
		return nil
	}
	item, _ := decodeJSON(ex.Body).(map[string]any)
	pr.created = append(pr.created, Record{Name: r.recordName, ID: s.client.redact(scalarString(item[coll.IDField])), Check: "profile: the values a new item gets"})
	var out []FieldDefault
	for _, n := range optional {
		d := FieldDefault{Field: n}
		if v, ok := item[n]; ok {
			z := &sanitizer{redact: s.client.redact, items: sampleItems}
			d.Value = marshal(z.value("$."+n, n, v))
		}
		out = append(out, d)
	}
	return out
}

// errors makes a request fail in each way the document allows, once.
func (pr *profiler) errors() {
	s := pr.s
	var secured, create, read *spec.Operation
	var readColl, createColl *spec.Collection
	for _, coll := range s.spec.Collections {
		if secured == nil && coll.List != nil && coll.List.Secured() {
			secured = coll.List
		}
		if create == nil && coll.Create != nil {
			create, createColl = coll.Create, coll
		}
		if read == nil && coll.Read != nil && !s.removed(coll.Read) {
			read, readColl = coll.Read, coll
		}
	}
	if secured == nil {
		for _, op := range s.spec.Operations {
			if op.Secured() && safe(op) && !s.removed(op) {
				secured = op
				break
			}
		}
	}
	try := func(cond string, r *request) {
		if ex, ok := pr.send(r); ok {
			pr.p.Errors = append(pr.p.Errors, ErrorAnswer{Condition: cond, Operation: r.op.ID, Status: ex.Status, Code: errorCode(ex)})
		}
	}
	if secured != nil {
		try(CondNoCredentials, s.validRequest(secured, authNone))
		try(CondWrongKey, s.validRequest(secured, authWrongKey))
	}
	if create != nil && !s.cfg.ReadOnly {
		_, _, required := spec.ObjectProperties(createColl.NewSchema)
		r := s.validRequest(create, authKey)
		if obj, ok := decodeJSON(r.body).(map[string]any); ok && len(required) > 0 {
			for _, n := range slices.Sorted(maps.Keys(required)) {
				delete(obj, n)
				break
			}
			r.body = marshal(obj)
			try(CondInvalidBody, r)
		}
		r = s.validRequest(create, authKey)
		r.body = r.body[:len(r.body)-1]
		try(CondMalformedJSON, r)
	}
	if read != nil {
		r := s.validRequest(read, authKey)
		r.path[readColl.IDParam] = s.unknownIDFor(read, readColl.IDParam)
		try(CondUnknownID, r)
	}
}

// unpublished records the answer of each operation whose payload the
// document does not show.
func (pr *profiler) unpublished() {
	s := pr.s
	for _, op := range s.spec.Operations {
		if !op.Unpublished {
			continue
		}
		if !safe(op) && s.cfg.ReadOnly {
			pr.skip("%s: not asked: --read-only, and %s may write", op.ID, op.Method)
			continue
		}
		ex, ok := pr.send(s.validRequest(op, authKey))
		if !ok {
			continue
		}
		a := Answer{Operation: op.ID, Method: op.Method, Path: op.Path, Status: ex.Status, ContentType: ex.Header.Get("Content-Type")}
		if mt, _, err := mime.ParseMediaType(a.ContentType); err == nil {
			a.ContentType = mt
		}
		if len(strings.TrimSpace(string(ex.Body))) > 0 {
			a.Body, a.Replaced, a.Note = s.keepSample(ex.Body)
		}
		pr.p.Unpublished = append(pr.p.Unpublished, a)
	}
}

// unrecordedHeaders are sent by any HTTP server, or describe one message
// (its framing, its body, its caching), or carry credentials: never a
// behaviour of the API, and never recorded.
var unrecordedHeaders = map[string]bool{
	"Date": true, "Content-Length": true, "Content-Type": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Content-Encoding": true, "Vary": true, "Trailer": true, "Upgrade": true,
	"Proxy-Connection": true, "Te": true, "Set-Cookie": true, "Age": true, "Etag": true, "Last-Modified": true,
	"Location": true, "Www-Authenticate": true, "Allow": true, "Retry-After": true,
}

// deprecationHeaders are what RFC 9745 and RFC 8594 have a deprecated
// operation send; the deprecation checks judge them by the document.
var deprecationHeaders = []string{"Deprecation", "Sunset", "Link"}

// answers reads every answer of the run and of the profile: the codes per
// status, the headers always sent, the latency of each operation.
func (pr *profiler) answers() {
	s := pr.s
	s.mu.Lock()
	all := append(slices.Clone(s.exchanges), pr.seen...)
	s.mu.Unlock()
	codes := map[int]map[string]bool{}
	byOp := map[*spec.Operation][]*Exchange{}
	for _, ex := range all {
		if ex.Status == 0 || ex.RateLimited != "" {
			continue
		}
		byOp[ex.Op] = append(byOp[ex.Op], ex)
		if ex.Status >= 400 {
			if c := errorCode(ex); c != "" {
				if codes[ex.Status] == nil {
					codes[ex.Status] = map[string]bool{}
				}
				codes[ex.Status][c] = true
			}
		}
	}
	pr.p.Codes = map[int][]string{}
	for st, set := range codes {
		pr.p.Codes[st] = slices.Sorted(maps.Keys(set))
	}
	var everyAnswer map[string]string
	perOp := map[*spec.Operation]map[string]string{}
	for _, op := range s.spec.Operations {
		exs := byOp[op]
		if len(exs) == 0 {
			continue
		}
		perOp[op] = pr.alwaysSent(op, exs)
		if everyAnswer == nil {
			everyAnswer = maps.Clone(perOp[op])
		} else {
			for k := range everyAnswer {
				if _, ok := perOp[op][k]; !ok {
					delete(everyAnswer, k)
				}
			}
		}
	}
	pr.p.Headers = headerList(everyAnswer, nil)
	for _, op := range s.spec.Operations {
		exs := byOp[op]
		if len(exs) == 0 {
			continue
		}
		pr.p.Operations = append(pr.p.Operations, OperationProfile{ID: op.ID, Headers: headerList(perOp[op], everyAnswer), Latency: latencyOf(exs)})
	}
}

// alwaysSent are the headers on every answer of op the document leaves
// open, with the first value seen.
func (pr *profiler) alwaysSent(op *spec.Operation, exs []*Exchange) map[string]string {
	declared := map[string]bool{}
	for _, r := range op.Responses {
		for _, h := range r.Headers {
			declared[http.CanonicalHeaderKey(h)] = true
		}
	}
	if op.Deprecated {
		for _, h := range deprecationHeaders {
			declared[h] = true
		}
	}
	out := map[string]string{}
	for k, vs := range exs[0].Header {
		k = http.CanonicalHeaderKey(k)
		if unrecordedHeaders[k] || declared[k] || strings.HasPrefix(k, "Access-Control-") || credentialKey.MatchString(k) || len(vs) == 0 {
			continue
		}
		v := vs[0]
		z := &sanitizer{redact: pr.s.client.redact}
		if r, replaced := z.text("", v); replaced {
			v = r
		}
		out[k] = v
	}
	for _, ex := range exs[1:] {
		for k := range out {
			if ex.Header.Get(k) == "" {
				delete(out, k)
			}
		}
	}
	return out
}

// headerList lists the headers of m that are not in besides, by name.
func headerList(m, besides map[string]string) []Header {
	var out []Header
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := besides[k]; !ok {
			out = append(out, Header{Name: k, Value: m[k]})
		}
	}
	return out
}

// latencyOf summarises the time the answers took (nearest-rank percentiles).
func latencyOf(exs []*Exchange) Latency {
	var ds []time.Duration
	for _, ex := range exs {
		if ex.Waited == 0 {
			ds = append(ds, ex.Duration)
		}
	}
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	at := func(q float64) time.Duration {
		i := int(q*float64(len(ds))+0.999999) - 1
		return ds[min(max(i, 0), len(ds)-1)]
	}
	return Latency{N: len(ds), Min: ds[0], P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: ds[len(ds)-1]}
}

// errorCode is the code of an Error body ("" when there is none).
func errorCode(ex *Exchange) string {
	obj, ok := decodeJSON(ex.Body).(map[string]any)
	if !ok {
		return ""
	}
	return scalarString(obj["code"])
}
