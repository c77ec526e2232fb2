package conformance

// How a profile is recorded: after the checks, a few requests of its own
// ask each open question once (an out-of-range page size, a create with
// only the required fields, a page of one, each way to fail, the
// unpublished operations); then every answer the run saw, the checks'
// included, gives the codes used, the headers always sent and the latency.

import (
	"bytes"
	"cmp"
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
	for _, r := range s.spec.Resources {
		if cp, ok := pr.collection(r); ok {
			pr.p.Collections = append(pr.p.Collections, cp)
		}
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
	if r.unmade != "" {
		pr.skip("%s: %s", r.op.ID, r.unmade)
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

// skip notes what could not be recorded, once.
func (pr *profiler) skip(format string, args ...any) {
	if n := pr.s.client.redact(fmt.Sprintf(format, args...)); !slices.Contains(pr.p.NotRecorded, n) {
		pr.p.NotRecorded = append(pr.p.NotRecorded, n)
	}
}

// list sends r's list, its first page, with the page size set ("" for none).
func (pr *profiler) list(r *spec.Resource, lo *spec.ResourceOp, limit string) (*Exchange, []map[string]any, bool) {
	req := pr.s.validRequest(lo.Op, authKey)
	pr.s.firstPage(r, lo, req)
	if limit != "" && r.List.Limit != nil {
		req.query.Set(r.List.Limit.Param, limit)
	}
	ex, ok := pr.send(req)
	if !ok {
		return nil, nil, false
	}
	got, isList := listItems(r, ex)
	return ex, got, isList
}

// refused reports whether the document refuses r's list with the page
// size limit.
func (pr *profiler) refused(r *spec.Resource, lo *spec.ResourceOp, limit string) bool {
	req := pr.s.validRequest(lo.Op, authKey)
	pr.s.firstPage(r, lo, req)
	req.query.Set(r.List.Limit.Param, limit)
	return len(pr.s.problems(req)) > 0
}

// collection records what r's list and create do where the document is
// open. A resource nested under another's items is left out: its list
// pages and orders as every list of the deployment does (petctl has one
// setting for all), and its items need a parent to be made. ok is false
// when r has neither a list nor a create to ask.
func (pr *profiler) collection(r *spec.Resource) (cp CollectionProfile, ok bool) {
	cp = CollectionProfile{Name: r.Key}
	if len(r.ParentParams) > 0 || r.Singleton {
		return cp, false
	}
	var made []madeItem
	if cr := r.Op(spec.KindCreate); cr != nil && cr.Op.Body != nil {
		cp.Create = cr.Op.ID
		made = pr.makeTwo(r, cr)
		cp.Defaults = pr.defaults(r, cr, made)
	}
	lo := r.Op(spec.KindList)
	if lo == nil {
		return cp, cp.Create != ""
	}
	cp.List = lo.Op.ID
	l := r.List.Limit
	largest := ""
	if l != nil && l.Max > 0 {
		largest = strconv.FormatInt(l.Max, 10)
	}
	ex, all, ok := pr.list(r, lo, largest)
	if !ok || ex.Status < 200 || ex.Status > 299 {
		if ex != nil {
			pr.skip("%s: the list answered %d, so its order, pagination and page sizes are not recorded", r.Key, ex.Status)
		}
		return cp, true
	}
	cp.Order, cp.OrderSeen = pr.order(r, lo, largest, all, made)
	if cp.Order == "" {
		pr.skip("%s: the order of its list cannot be told (%s)", r.Key, cp.OrderSeen)
		cp.OrderSeen = ""
	}
	if l == nil {
		return cp, true
	}
	for _, v := range []int64{l.Min - 1, l.Max + 1} {
		if v == l.Max+1 && l.Max <= 0 {
			continue
		}
		bound := l.Min
		if v > l.Max {
			bound = l.Max
		}
		if !pr.refused(r, lo, strconv.FormatInt(v, 10)) {
			continue // the document gives no bound there: what the value does is open, not out of range
		}
		ex, got, _ := pr.list(r, lo, strconv.FormatInt(v, 10))
		if ex == nil {
			continue
		}
		cp.OutOfRange = append(cp.OutOfRange, LimitAnswer{
			Param: l.Param, Value: strconv.FormatInt(v, 10), Status: ex.Status, Code: pr.errorCode(ex),
			Items: len(got), Bound: bound, Default: l.Default, Population: len(all),
		})
	}
	if r.List.Paging == "none" || r.List.Paging == "limit" {
		// Where the document shows no paging, how the deployment pages
		// is open; where it shows one, the checks hold it to it.
		cp.Pagination = pr.pagination(r, lo, len(all))
	}
	return cp, true
}

// order tells how a list is ordered: by its items' ids where they are
// integers (the order they were made in, where a store numbers them);
// else by where the two items the profile made, one after the other, come
// in the list, since ids such as uuids say nothing of when an item was
// made. The second value says what showed it, or why nothing did.
func (pr *profiler) order(r *spec.Resource, lo *spec.ResourceOp, largest string, all []map[string]any, made []madeItem) (string, string) {
	if !carriesID(r) {
		return "", "its items do not hold their id"
	}
	field := cmp.Or(r.IDField, r.SelfField)
	integers := len(all) >= 2
	for _, it := range all {
		if _, err := strconv.ParseInt(idOfItem(r, it), 10, 64); err != nil {
			integers = false
		}
	}
	if integers || len(made) < 2 {
		return orderByID(r, all, field)
	}
	ex, page, ok := pr.list(r, lo, largest)
	if !ok || ex.Status < 200 || ex.Status > 299 {
		return "", "the list failed after two items were made"
	}
	at := map[string]int{}
	for i, it := range page {
		at[idOfItem(r, it)] = i
	}
	first, okFirst := at[made[0].id]
	second, okSecond := at[made[1].id]
	switch {
	case okFirst && okSecond && first < second:
		return OrderAscending, fmt.Sprintf("%d items, the older of two made one after the other first", len(page))
	case okFirst && okSecond:
		return OrderDescending, fmt.Sprintf("%d items, the newer of two made one after the other first", len(page))
	case pr.s.morePages(r, ex, len(page), pageSize(r.List.Limit, largest)):
		// A list that showed the newest first would show them here.
		return OrderAscending, fmt.Sprintf("%d items on the first page, not the two made last", len(page))
	}
	return "", "the two items made were not listed"
}

// orderByID tells how a list is ordered by its items' ids.
func orderByID(r *spec.Resource, got []map[string]any, field string) (string, string) {
	if len(got) < 2 {
		return "", fmt.Sprintf("%d items listed", len(got))
	}
	asc, desc := true, true
	for i := 1; i < len(got); i++ {
		c := compareIDs(idOfItem(r, got[i-1]), idOfItem(r, got[i]))
		asc = asc && c < 0
		desc = desc && c > 0
	}
	seen := fmt.Sprintf("%d items by %s", len(got), field)
	switch {
	case asc:
		return OrderAscending, seen + ", ascending"
	case desc:
		return OrderDescending, seen + ", descending"
	}
	return OrderOther, seen
}

// pageSize is the page a list was asked for: the largest, else the default.
func pageSize(l *spec.Limit, largest string) int64 {
	switch {
	case l == nil:
		return 0
	case largest != "":
		return l.Max
	}
	return l.Default
}

// madeItem is an item the profile made: its id and the item answered.
type madeItem struct {
	id   string
	item map[string]any
}

// makeTwo makes two items of r, one after the other, each with only the
// required fields: what the deployment gives the others, and where the
// newer is listed, are read from them. Under --read-only it makes none.
func (pr *profiler) makeTwo(r *spec.Resource, cr *spec.ResourceOp) []madeItem {
	s := pr.s
	if s.cfg.ReadOnly {
		return nil
	}
	var made []madeItem
	for range 2 {
		req := s.requestWith(cr.Op, authKey, 0)
		ex, ok := pr.send(req)
		if !ok {
			return made
		}
		if !slices.Contains(successStatuses(cr.Op), ex.Status) {
			pr.skip("%s: a create with only the required fields answered %d", r.Key, ex.Status)
			return made
		}
		id := idOfAnswer(r, cr, ex)
		pr.created = append(pr.created, Record{Name: req.recordName, ID: s.client.redact(id), Check: "profile: what a new item gets, and where it is listed"})
		made = append(made, madeItem{id: id, item: itemOf(cr, ex.Body)})
	}
	return made
}

// pagination asks for a page of one and reads how the deployment offers
// the next.
func (pr *profiler) pagination(r *spec.Resource, lo *spec.ResourceOp, population int) *Pagination {
	l := r.List.Limit
	if population < 2 {
		pr.skip("%s: %d items listed; pagination shows with two or more", r.Key, population)
		return nil
	}
	one := max(l.Min, 1)
	ex, _, ok := pr.list(r, lo, strconv.FormatInt(one, 10))
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

// defaults reads what the items made with only the required fields got
// for the others: a value both got alike is a default; one that differs
// between them is made anew for each item (a time, a random token) and is
// no default. The fields that hold the item's id or its parent's are the
// deployment's to fill, never a default. A value that is a credential or
// personal data is withheld, not recorded (see sanitizer).
func (pr *profiler) defaults(r *spec.Resource, cr *spec.ResourceOp, made []madeItem) []FieldDefault {
	s := pr.s
	var optional []string
	for _, n := range optionalFields(s.spec.BodySchema(cr.Op), cr) {
		if n != r.IDField && n != r.SelfField && n != r.ParentField && !slices.Contains(r.Assigned, n) {
			optional = append(optional, n)
		}
	}
	switch {
	case len(optional) == 0:
		return nil
	case s.cfg.ReadOnly:
		pr.skip("%s: the values a new item gets are not recorded: --read-only creates nothing", r.Key)
		return nil
	case len(made) == 0:
		return nil
	}
	for _, m := range made {
		if m.item == nil {
			pr.skip("%s: the values a new item gets are not recorded: %s does not answer with the item", r.Key, cr.Op.ID)
			return nil
		}
	}
	var out []FieldDefault
	for _, n := range optional {
		d := FieldDefault{Field: n}
		v, ok := made[0].item[n]
		for _, m := range made[1:] {
			if w, wok := m.item[n]; wok != ok || !bytes.Equal(marshal(v), marshal(w)) {
				d.Varies = true
			}
		}
		if ok && !d.Varies {
			z := &sanitizer{redact: s.client.redact, items: sampleItems}
			if kept := z.value("$."+n, n, v); len(z.replaced) > 0 {
				d.Withheld = true
			} else {
				d.Value = marshal(kept)
			}
		}
		out = append(out, d)
	}
	return out
}

// errors makes a request fail in each way the document allows, once: on
// the first resource of the document that can be asked it.
func (pr *profiler) errors() {
	s := pr.s
	var secured *spec.Operation
	var create, read *spec.ResourceOp
	var readRes *spec.Resource
	for _, r := range s.spec.Resources {
		if len(r.ParentParams) > 0 {
			continue // a request to it needs a parent first
		}
		if lo := r.Op(spec.KindList); secured == nil && lo != nil && lo.Op.Secured() && !s.removed(lo.Op) {
			secured = lo.Op
		}
		if cr := r.Op(spec.KindCreate); create == nil && cr != nil && cr.Op.Body != nil && !s.removed(cr.Op) {
			create = cr
		}
		if ro := r.Op(spec.KindRead); read == nil && ro != nil && r.IDParam != "" && !s.removed(ro.Op) {
			read, readRes = ro, r
		}
	}
	if secured == nil {
		for _, op := range s.spec.Operations {
			if op.Secured() && safe(op) && !s.removed(op) && !strings.Contains(op.Path, "{") {
				secured = op
				break
			}
		}
	}
	try := func(cond string, r *request) {
		if ex, ok := pr.send(r); ok {
			pr.p.Errors = append(pr.p.Errors, ErrorAnswer{Condition: cond, Operation: r.op.ID, Status: ex.Status, Code: pr.errorCode(ex)})
		}
	}
	if secured != nil {
		try(CondNoCredentials, s.validRequest(secured, authNone))
		try(CondWrongKey, s.validRequest(secured, authWrongKey))
	}
	if create != nil && !s.cfg.ReadOnly {
		// The create checks' own ways to break a body: the first required
		// field left out, and the body cut short.
		for _, m := range s.mutations(create.Op, create) {
			cond := ""
			switch {
			case m.raw != nil:
				cond = CondMalformedJSON
			case strings.HasPrefix(m.text, "without "):
				cond = CondInvalidBody
			}
			if cond == "" || slices.ContainsFunc(pr.p.Errors, func(e ErrorAnswer) bool { return e.Condition == cond }) {
				continue
			}
			r := s.validRequest(create.Op, authKey)
			r.body = s.mutate(r.body, create, m)
			try(cond, r)
		}
	}
	if read != nil {
		r := s.validRequest(read.Op, authKey)
		r.path[readRes.IDParam] = s.unknownIDFor(read.Op, readRes.IDParam)
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
			if c := pr.errorCode(ex); c != "" {
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
	for i, h := range pr.p.Headers {
		for _, exs := range byOp {
			pr.p.Headers[i].Varies = pr.p.Headers[i].Varies || pr.varies(h, exs)
		}
	}
	for _, op := range s.spec.Operations {
		exs := byOp[op]
		if len(exs) == 0 {
			continue
		}
		hs := headerList(perOp[op], everyAnswer)
		for i, h := range hs {
			hs[i].Varies = pr.varies(h, exs)
		}
		pr.p.Operations = append(pr.p.Operations, OperationProfile{ID: op.ID, Deprecated: op.Deprecated, Headers: hs, Latency: latencyOf(exs)})
	}
}

// alwaysSent are the headers on every answer of op the document leaves
// open, with the first value seen.
func (pr *profiler) alwaysSent(op *spec.Operation, exs []*Exchange) map[string]string {
	declared := map[string]bool{}
	for _, r := range op.Responses {
		for _, h := range r.Headers {
			declared[http.CanonicalHeaderKey(h.Name)] = true
		}
	}
	out := map[string]string{}
	for k, vs := range exs[0].Header {
		k = http.CanonicalHeaderKey(k)
		if unrecordedHeaders[k] || declared[k] || strings.HasPrefix(k, "Access-Control-") || credentialKey.MatchString(k) || len(vs) == 0 {
			continue
		}
		out[k] = pr.headerValue(vs[0])
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

// headerValue is a header's value as a profile may keep it: the run's
// key, personal data or a token in it replaced.
func (pr *profiler) headerValue(v string) string {
	z := &sanitizer{redact: pr.s.client.redact}
	kept, _ := z.text("", v)
	return kept
}

// varies reports whether h, sent on every answer of exs, had another
// value on one of them (a count of requests left, a time) than h.Value.
func (pr *profiler) varies(h Header, exs []*Exchange) bool {
	for _, ex := range exs {
		if vs := ex.Header.Values(h.Name); len(vs) > 0 && pr.headerValue(vs[0]) != h.Value {
			return true
		}
	}
	return false
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

// errorCode is the machine code of an error answer, read where the
// document's error format for the operation and status puts it ({code},
// {error: {code}}; "" when it has none), as a profile may keep it: a code
// that holds the run's key or personal data is replaced.
func (pr *profiler) errorCode(ex *Exchange) string {
	path := pr.s.spec.ErrorFormat(ex.Op, ex.Status).CodeField()
	if path == nil {
		path = []string{"code"} // petctl's own, where the document declares none
	}
	obj, _ := decodeJSON(ex.Body).(map[string]any)
	v, ok := at(obj, path).(string)
	if !ok {
		return "" // a number is a status, and no errorCodes setting can give one
	}
	z := &sanitizer{redact: pr.s.client.redact}
	code, _ := z.text("", v)
	return code
}
