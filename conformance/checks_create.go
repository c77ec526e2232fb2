package conformance

// The create checks: a valid body creates the item as sent; a body that
// breaks one constraint of the schema (a required field missing, a field of
// the wrong type, an unknown enum value, a bound, a format, malformed JSON)
// is refused with a status the document declares for it. The run's one
// valid create of a resource is shared with the checks that need an item.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/petctl/petctl/spec"
)

func (s *suite) createChecks(r *spec.Resource, add func(*check)) {
	ro := r.Op(spec.KindCreate)
	if ro == nil || ro.Op.Body == nil {
		return
	}
	op := ro.Op
	ok := successStatuses(op)
	add(&check{group: groupCreate, op: op, writes: true,
		text: fmt.Sprintf("a valid body gives %s and the created item with the fields sent", statusList(ok)),
		fn:   func(t *T) { t.checkCreate(r, ro) }})
	bad := badRequestStatuses(op)
	for _, m := range s.mutations(op, ro) {
		if m.format {
			add(s.formatCheck(op, ro, m, ok, bad))
			continue
		}
		add(&check{group: groupCreate, op: op, writes: true, text: m.text + " gives " + statusList(bad), fn: func(t *T) {
			req := s.brokenRequest(op, ro, m)
			if req == nil {
				t.skipf("no body conform made is one %s breaks: where the body is a choice of kinds, each it made was of a kind the document lets hold the change", m.text)
			}
			ex := t.send(req)
			t.expectStatus(ex, bad, fmt.Sprintf("%s: the body breaks the schema (%s)", statusList(bad), m.text))
		}})
	}
	if optional := optionalFields(s.spec.BodySchema(op), ro); len(optional) > 0 {
		add(&check{group: groupCreate, op: op, writes: true, labels: []string{labelObserve},
			text: fmt.Sprintf("with only the required fields gives %s; what it gives %s is observed", statusList(ok), strings.Join(optional, ", ")),
			fn: func(t *T) {
				req := s.requestWith(op, authKey, 0)
				// A nested item is created under a parent that exists.
				if why := t.parents(r, req); why != "" {
					t.skipf("%s", why)
				}
				ex := t.send(req)
				t.refused(ex, ro)
				t.expectStatus(ex, ok, fmt.Sprintf("%s: a body with the required fields is valid", statusList(ok)))
				item := itemOf(ro, ex.Body)
				sent := sentFields(req.body, ro)
				for _, n := range optional {
					if sent[n] {
						continue // a kind of the choice the body is requires it
					}
					v, ok := item[n]
					text := "absent"
					if ok {
						text = jsonText(v, t.s.client.redact)
					}
					t.observe(fmt.Sprintf("%s given when none is sent", n), text)
				}
			}})
	}
}

// formatCheck sends a body that breaks only a format (mutation.format):
// whether the deployment refuses it or takes it is its choice, observed;
// any other answer than a success or a refusal of the body fails.
func (s *suite) formatCheck(op *spec.Operation, ro *spec.ResourceOp, m mutation, ok, bad []int) *check {
	either := append(slices.Clone(ok), bad...)
	return &check{group: groupCreate, op: op, writes: true, labels: []string{labelObserve},
		text: fmt.Sprintf("%s is taken (%s) or refused (%s), as the deployment chooses (a format is no assertion); observed", m.text, statusList(ok), statusList(bad)),
		fn: func(t *T) {
			req := s.brokenRequest(op, ro, m)
			if req == nil {
				t.skipf("no body conform made is one %s breaks", m.text)
			}
			ex := t.send(req)
			verdict := "refused"
			if ex.Status < 300 {
				verdict = "taken"
			}
			t.observe(fmt.Sprintf("%s by %s", m.text, op.ID), fmt.Sprintf("%s (%d)", verdict, ex.Status))
			t.expectStatus(ex, either, fmt.Sprintf("%s or %s: the body taken or refused (%s)", statusList(ok), statusList(bad), m.text))
		}}
}

// brokenRequest is a valid request with m applied to its body, drawn
// again (up to four times) where the validator accepts the change: a body
// that is a choice of kinds (a cat or a dog) breaks by a cat's field only
// when it is a cat. Nil where no draw breaks.
func (s *suite) brokenRequest(op *spec.Operation, ro *spec.ResourceOp, m mutation) *request {
	for try := 0; try < 4; try++ {
		req := s.validRequest(op, authKey)
		if req.unmade != "" || req.broken != "" {
			return req // sent as it is, the check reports why it is not made
		}
		req.body = s.mutate(req.body, ro, m)
		if m.raw != nil || len(s.problems(req)) > 0 {
			return req
		}
	}
	return nil
}

// sentFields are the names of the fields a create's body carries for the
// item.
func sentFields(body []byte, ro *spec.ResourceOp) map[string]bool {
	obj, _ := decodeJSON(body).(map[string]any)
	if ro.Request.Kind == "wrapped" {
		obj, _ = obj[ro.Request.Field].(map[string]any)
	}
	out := make(map[string]bool, len(obj))
	for k := range obj {
		out[k] = true
	}
	return out
}

// optionalFields are the fields a create may leave out and the item
// shows: optional, sent by clients (not readOnly) and read back (not
// writeOnly).
func optionalFields(body *spec.Schema, ro *spec.ResourceOp) []string {
	if ro.Request.Kind == "wrapped" {
		body = body.Prop(ro.Request.Field)
	}
	props, required := body.Props()
	var out []string
	for _, p := range props {
		if !required[p.Name] && p.Schema != nil && !p.Schema.ReadOnly && !p.Schema.WriteOnly {
			out = append(out, p.Name)
		}
	}
	return out
}

func (t *T) checkCreate(r *spec.Resource, ro *spec.ResourceOp) {
	cr := t.creation(r, ro)
	switch {
	case cr.ex == nil:
		t.skipf("%s", cr.err) // no request could be made
	case cr.ex.Status == 0:
		t.failf(cr.ex, "%s with the created item (%s)", statusList(successStatuses(ro.Op)), cr.err)
	}
	t.notImplemented(cr.ex)
	t.refused(cr.ex, ro)
	t.expectStatus(cr.ex, successStatuses(ro.Op), fmt.Sprintf("%s with the created item", statusList(successStatuses(ro.Op))))
	if ro.Response.Kind != "item" && ro.Response.Kind != "wrapped" {
		return // the document's answer does not carry the item
	}
	if cr.item == nil {
		t.failf(cr.ex, "the created item as a JSON object")
	}
	if r.IDField != "" {
		if id, ok := cr.item[r.IDField]; !ok || id == nil {
			t.failf(cr.ex, "the created item with its %s", r.IDField)
		}
	}
	if diffs := t.differences(answerSchema(ro), cr.item, cr.sent, r); len(diffs) > 0 {
		t.failf(cr.ex, "the created item holds the fields sent; %s", strings.Join(diffs, "; "))
	}
}

// refused skips the check when a deployment refused a body the document
// accepts with a 4xx that is not about the credentials or the operation:
// conform's values are conservative, but a deployment may be stricter than
// its document, and that is recorded, not blamed.
func (t *T) refused(ex *Exchange, ro *spec.ResourceOp) {
	if why := t.s.refusal(ex); why != "" {
		t.observe(fmt.Sprintf("refusal of a body the document accepts by %s", ro.Op.ID), why)
		t.skipf("%s refused a body its document accepts (%s): a deployment stricter than its document; no record could be created", ro.Op.ID, why)
	}
}

// refusal describes a 4xx answer to a valid request that refuses its
// values, its body's start redacted and visible (shortExcerpt); "" for any
// other answer.
func (s *suite) refusal(ex *Exchange) string {
	switch ex.Status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity:
		return fmt.Sprintf("%d %s", ex.Status, shortExcerpt(s, ex))
	}
	return ""
}

// answerSchema is the schema of the item an answer of ro carries: its
// response's, inside the wrapper when it wraps the item.
func answerSchema(ro *spec.ResourceOp) *spec.Schema {
	s := ro.Response.Schema
	if ro.Response.Kind == "wrapped" {
		s = s.Prop(ro.Response.Field)
	}
	return s
}

// differences lists the fields of sent that item, an answer whose schema
// is schema, does not hold as sent: those the answer declares (not
// writeOnly, which no answer carries; a create may answer a summary, an id
// and a status), except r's id and parent fields. Instants compare as
// instants: a deployment may write them otherwise.
func (t *T) differences(schema *spec.Schema, item, sent map[string]any, r *spec.Resource) []string {
	redact := t.s.client.redact
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(sent)) {
		ps := schema.Prop(k)
		if ps == nil || ps.WriteOnly || k == r.IDField || k == r.ParentField && r.ParentField != "" {
			// Whether a body's id wins over one the deployment assigns
			// the document does not say; reads compare the id apart. A
			// nested item's parent is the one its path names, whatever
			// the body's field says.
			continue
		}
		got, ok := item[k]
		switch {
		case !ok && sent[k] == nil:
			// A null sent may remove the field (JSON Merge Patch).
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is missing (sent %s)", k, jsonText(sent[k], redact)))
		case !sameValue(ps, got, sent[k]):
			diffs = append(diffs, fmt.Sprintf("%s is %s (sent %s)", k, jsonText(got, redact), jsonText(sent[k], redact)))
		}
	}
	return diffs
}

// sameValue compares a value read back, whose schema is ps, with the one
// sent, part by part.
func sameValue(ps *spec.Schema, got, sent any) bool {
	if spec.JSONEqual(got, sent) {
		return true
	}
	if ps == nil {
		return false // a part the answer's schema does not describe: as sent, or not the same
	}
	switch x := sent.(type) {
	case map[string]any:
		// The object read back holds what was sent, and may hold more
		// (a line's id and created_at, assigned as the item's own are).
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		// Where the answer's object holds fewer properties than were sent
		// (maxProperties: camara's session answers one of the device
		// identifiers sent), which it keeps is the deployment's to say.
		most, limited := ps.MostProperties()
		fewer := limited && int64(len(x)) > most
		for k, v := range x {
			w, ok := g[k]
			switch {
			case !ok && fewer:
			case !ok || !sameValue(ps.Prop(k), w, v):
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(x) {
			return false
		}
		for i := range x {
			if !sameValue(ps.Items, g[i], x[i]) {
				return false
			}
		}
		return true
	}
	a, aok := got.(string)
	b, bok := sent.(string)
	if aok && bok && (ps.Format == "date-time" || ps.Format == "date") {
		ta, errA := time.Parse(time.RFC3339Nano, a)
		tb, errB := time.Parse(time.RFC3339Nano, b)
		if errB != nil && ps.Format == "date-time" {
			// Text the write's schema allows and the answer's instant
			// cannot hold (lago's event timestamp: any text to write):
			// what it reads back as is the deployment's to say.
			return true
		}
		return errA == nil && errB == nil && ta.Equal(tb)
	}
	return retyped(ps, got, sent)
}

// retyped compares a scalar sent as another JSON type than the answer's
// schema gives the field: the document's write and read schemas disagree
// (lago's tax rate: text to create, a number to read). Read back as the
// answer's type, it must be the same text or number; a value that cannot
// be the answer's type at all may come back as anything the document
// allows, which is not for this check to judge.
func retyped(ps *spec.Schema, got, sent any) bool {
	want := ps.Type()
	kind := scalarKind(sent)
	if want == "" || kind == "" || kind == want || kind == "integer" && want == "number" {
		return false
	}
	text := scalarString(sent)
	if at, ok := got.(string); ok && kind != "string" && (ps.Format == "date-time" || ps.Format == "date") {
		// A number sent for an instant is Unix seconds.
		secs, ok := new(big.Rat).SetString(text)
		read, err := time.Parse(time.RFC3339Nano, at)
		if ps.Format == "date" {
			read, err = time.Parse(time.DateOnly, at)
		}
		if !ok || err != nil {
			return !ok
		}
		f, _ := secs.Float64()
		sentAt, ok := spec.UnixInstant(f)
		if !ok {
			return true // no instant: what it reads back as is the deployment's to say
		}
		if ps.Format == "date" {
			return sentAt.Format(time.DateOnly) == read.Format(time.DateOnly)
		}
		return sentAt.Equal(read)
	}
	var converts bool
	switch want {
	case "integer":
		r, ok := new(big.Rat).SetString(text)
		converts = ok && r.IsInt()
	case "number":
		_, converts = new(big.Rat).SetString(text)
	case "boolean":
		converts = text == "true" || text == "false"
	case "string":
		// Text with a format, pattern or enum is not made from a value of
		// another type: a deployment answers one of its own.
		converts = ps.Format == "" && ps.Pattern == "" && len(ps.Enum) == 0
	}
	if !converts {
		return true
	}
	g, s := new(big.Rat), new(big.Rat)
	if _, ok := g.SetString(scalarString(got)); ok {
		if _, ok := s.SetString(text); ok {
			return g.Cmp(s) == 0
		}
	}
	return scalarString(got) == text
}

// scalarKind is the JSON Schema type of a decoded scalar, "" for others.
func scalarKind(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return ""
}

// creation is the run's one valid create of a resource, shared by the
// create check and the checks that need an item.
type creation struct {
	req  *request
	ex   *Exchange
	sent map[string]any
	item map[string]any
	id   string
	err  string // why there is no created item
}

func (t *T) creation(r *spec.Resource, ro *spec.ResourceOp) *creation {
	s := t.s
	s.mu.Lock()
	cr := s.creations[r]
	s.mu.Unlock()
	if cr != nil {
		return cr
	}
	cr = t.create(r, ro)
	s.mu.Lock()
	s.creations[r] = cr
	s.mu.Unlock()
	return cr
}

// create sends a valid create of r and reads what it answered.
func (t *T) create(r *spec.Resource, ro *spec.ResourceOp) *creation {
	req := t.s.validRequest(ro.Op, authKey)
	if why := t.parents(r, req); why != "" {
		return &creation{err: why}
	}
	return t.sendCreate(r, ro, req, "")
}

// successStatuses are the 2xx statuses op declares; any 2xx when it
// declares them by range or by default.
func successStatuses(op *spec.Operation) []int {
	var out []int
	for _, r := range op.Responses {
		if r.Status >= 200 && r.Status < 300 {
			out = append(out, r.Status)
		}
	}
	if len(out) == 0 {
		out = []int{http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent}
	}
	return out
}

// badRequestStatuses are the statuses a request whose values break op's
// schemas may get: every 4xx op declares but those with other meanings
// (credentials, a missing item or method, content negotiation, rate
// limiting); 400 or 422, the statuses of invalid input, where it declares
// none of them.
func badRequestStatuses(op *spec.Operation) []int {
	other := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusNotAcceptable, http.StatusRequestTimeout, http.StatusGone, http.StatusTooManyRequests}
	var out []int
	for _, r := range op.Responses {
		if r.Status >= 400 && r.Status < 500 && !slices.Contains(other, r.Status) {
			out = append(out, r.Status)
		}
	}
	if len(out) == 0 {
		out = []int{http.StatusBadRequest, http.StatusUnprocessableEntity}
	}
	slices.Sort(out)
	return out
}
