package config

// A profile as petctl.yaml: the settings that make petctl serve answer as
// the profiled deployment does, each with a comment saying what was seen,
// and where no setting can reproduce it, a comment saying so. The file is
// read back with --profile (LoadWithProfile).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/engine"
	"go.yaml.in/yaml/v4"
)

// conditionCodes are petctl's codes for each way the profile makes a
// request fail: the errorCodes entry that reproduces the deployment's code
// for it.
var conditionCodes = []struct {
	cond string
	code engine.Code
}{
	{conformance.CondInvalidBody, engine.CodeValidation},
	{conformance.CondMalformedJSON, engine.CodeMalformedJSON},
	{conformance.CondNoCredentials, engine.CodeUnauthorized},
	{conformance.CondWrongKey, engine.CodeUnauthorized},
	{conformance.CondUnknownID, engine.CodeNotFound},
}

// limitCondition names an out-of-range page size among the conditions;
// petctl refuses it as any other invalid parameter.
const limitCondition = "a page size out of range"

// minRecordedLatency is the least median latency written as a setting:
// below it the deployment answers about as fast as petctl does by itself,
// and what was measured is the measuring machine's own noise, which a
// replay would add to the mock's.
const minRecordedLatency = 20 * time.Millisecond

// ProfileYAML writes a deployment's profile as a commented petctl.yaml.
// The result is checked by reading it back as a configuration file.
func ProfileYAML(p *conformance.Profile, name string) ([]byte, error) {
	w := &profileWriter{p: p, root: &yaml.Node{Kind: yaml.MappingNode}}
	w.lists()
	w.defaults()
	w.responses()
	w.errorCodes()
	w.headers()
	w.latency()
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: w.head(name), Content: []*yaml.Node{w.root}}
	if len(w.root.Content) == 0 {
		// Nothing to set: an empty mapping, so the file is still a configuration.
		w.root.Style = yaml.FlowStyle
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if _, err := parse(name, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("the profile written is not a valid configuration (a petctl bug): %v", err)
	}
	return buf.Bytes(), nil
}

type profileWriter struct {
	p    *conformance.Profile
	root *yaml.Node
	// notes are what no setting reproduces, for the head comment.
	notes []string
}

func (w *profileWriter) head(name string) string {
	lines := []string{
		"petctl profile of " + w.p.URL + ", recorded by petctl conform on " + w.p.RecordedAt.Format(time.RFC3339) + ":",
		"what the deployment does where the API description leaves behaviour open.",
		"It is a petctl.yaml (docs/configuration.md); read it, edit it, commit it. Serve it with",
		"  petctl serve --profile " + name,
		"and compare the two with petctl drift (docs/drift.md).",
	}
	if len(w.notes) > 0 {
		lines = append(lines, "", "Not reproduced by any setting:")
		for _, n := range w.notes {
			lines = append(lines, "  - "+n)
		}
	}
	if len(w.p.NotRecorded) > 0 {
		lines = append(lines, "", "Not recorded:")
		for _, n := range w.p.NotRecorded {
			lines = append(lines, "  - "+n)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// note adds what no setting reproduces, once.
func (w *profileWriter) note(n string) {
	if !slices.Contains(w.notes, n) {
		w.notes = append(w.notes, n)
	}
}

// section returns the mapping at key of the root, adding it with comment.
func (w *profileWriter) section(key, comment string) *yaml.Node {
	for i := 0; i+1 < len(w.root.Content); i += 2 {
		if w.root.Content[i].Value == key {
			return w.root.Content[i+1]
		}
	}
	m := &yaml.Node{Kind: yaml.MappingNode}
	put(w.root, key, m, comment)
	return m
}

// put adds key: value to mapping m, the comment above the key.
func put(m *yaml.Node, key string, value *yaml.Node, comment string) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, HeadComment: comment}, value)
}

func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func integer(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}
}

// jsonNode is a JSON value as YAML, numbers kept as numbers.
func jsonNode(raw json.RawMessage) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	n := &yaml.Node{}
	if err := n.Encode(numbers(v)); err != nil {
		return nil, err
	}
	return n, nil
}

// numbers turns json.Numbers into int64 or float64, which YAML writes as
// numbers (a json.Number is a string to it).
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	}
	return v
}

// lists writes what the lists do. Each setting is the same for every
// list, so one list decides it: the first that showed it; where another
// list does otherwise, a note says so.
func (w *profileWriter) lists() {
	first := func(showed func(*conformance.CollectionProfile) bool) *conformance.CollectionProfile {
		for i := range w.p.Collections {
			if c := &w.p.Collections[i]; c.List != "" && showed(c) {
				return c
			}
		}
		return &conformance.CollectionProfile{}
	}
	w.disagreements(first)
	var keys []*yaml.Node
	add := func(key, value, comment string) {
		keys = append(keys, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, HeadComment: comment}, str(value))
	}
	c := first(func(c *conformance.CollectionProfile) bool { return len(c.OutOfRange) > 0 })
	if len(c.OutOfRange) > 0 {
		var seen []string
		rejected, clamped := 0, 0
		for _, a := range c.OutOfRange {
			seen = append(seen, fmt.Sprintf("%s=%s: %s", a.Param, a.Value, a.Outcome()))
			switch {
			case a.Rejected():
				rejected++
			case a.Clamped():
				clamped++
			}
		}
		mode := outOfRangeMode(c.OutOfRange)
		comment := c.List + " " + strings.Join(seen, "; ")
		if rejected > 0 && clamped > 0 || rejected+clamped < len(c.OutOfRange) {
			w.note(fmt.Sprintf("%s answers out-of-range page sizes neither all rejected nor all clamped (%s); petctl does one or the other", c.List, strings.Join(seen, "; ")))
		}
		for _, a := range c.OutOfRange {
			if st := engine.Codes()[engine.CodeValidation]; a.Rejected() && a.Status != st {
				w.note(fmt.Sprintf("%s refuses a %s out of range with %d; petctl refuses it with %d, and no setting changes that", c.List, a.Param, a.Status, st))
			}
		}
		add("outOfRangeLimit", mode, comment)
	}
	c = first(func(c *conformance.CollectionProfile) bool { return c.Order != "" })
	switch c.Order {
	case conformance.OrderAscending:
		add("order", "id", fmt.Sprintf("%s lists %s: oldest first", c.List, c.OrderSeen))
	case conformance.OrderDescending:
		add("order", "newest-first", fmt.Sprintf("%s lists %s: newest first", c.List, c.OrderSeen))
	case conformance.OrderOther:
		w.note(fmt.Sprintf("%s lists %s in neither ascending nor descending order; petctl lists by id, either way", c.List, c.OrderSeen))
	}
	c = first(func(c *conformance.CollectionProfile) bool { return c.Pagination != nil })
	if pg := c.Pagination; pg != nil {
		seen := fmt.Sprintf("%s with a page of one: %s", c.List, describePagination(pg))
		switch pg.Style {
		case "none":
			add("pagination", "none", seen)
		case "cursor", "offset", "page":
			if pg.Style != "cursor" {
				w.note(fmt.Sprintf("%s's next link sets %s to a number (%s); petctl's cursor is opaque: clients that follow the link work alike, clients that compute the value do not", c.List, pg.Param, pg.Style))
			}
			add("pagination", "cursor", seen)
			add("cursorParam", pg.Param, "")
		default:
			w.note(fmt.Sprintf("%s pages as %s; petctl pages with a cursor in a Link rel=\"next\" only", c.List, describePagination(pg)))
		}
	}
	if len(keys) > 0 {
		m := w.section("lists", "")
		m.Content = append(m.Content, keys...)
	}
}

// disagreements notes the lists that order or answer out-of-range page
// sizes otherwise than the list that decides the setting.
func (w *profileWriter) disagreements(first func(func(*conformance.CollectionProfile) bool) *conformance.CollectionProfile) {
	byOrder := first(func(c *conformance.CollectionProfile) bool { return c.Order != "" })
	byLimit := first(func(c *conformance.CollectionProfile) bool { return len(c.OutOfRange) > 0 })
	for _, o := range w.p.Collections {
		if o.List == "" {
			continue
		}
		if o.Order != "" && o.Order != byOrder.Order {
			w.note(fmt.Sprintf("%s lists %s but %s lists %s; petctl orders every list one way, as %s does", o.List, o.Order, byOrder.List, byOrder.Order, byOrder.List))
		}
		if mode, other := outOfRangeMode(byLimit.OutOfRange), outOfRangeMode(o.OutOfRange); other != "" && mode != other {
			w.note(fmt.Sprintf("%s answers a page size out of range as %s, but %s as %s; petctl answers every list one way, as %s does", o.List, other, byLimit.List, mode, byLimit.List))
		}
	}
}

// outOfRangeMode is the lists.outOfRangeLimit setting that comes nearest to
// the answers to out-of-range page sizes: reject when any was refused, ""
// when there were none.
func outOfRangeMode(as []conformance.LimitAnswer) string {
	if len(as) == 0 {
		return ""
	}
	for _, a := range as {
		if a.Rejected() {
			return "reject"
		}
	}
	return "clamp"
}

func describePagination(pg *conformance.Pagination) string {
	switch pg.Style {
	case "none":
		return "no next link and no pagination header"
	case "headers":
		return "pagination headers " + strings.Join(pg.Headers, ", ") + ", no next link"
	}
	return fmt.Sprintf("a Link rel=\"next\" (%s) setting %s: %s", pg.Next, pg.Param, pg.Style)
}

func (w *profileWriter) defaults() {
	for _, c := range w.p.Collections {
		var fields *yaml.Node
		for _, d := range c.Defaults {
			switch {
			case d.Withheld:
				w.note(fmt.Sprintf("%s gives a new item's %s a value that is a credential or personal data: not recorded", c.Create, d.Field))
			case d.Varies:
				w.note(fmt.Sprintf("%s gives each new item's %s a value of its own; petctl leaves it out where it has no default", c.Create, d.Field))
			}
			if d.Value == nil {
				continue
			}
			v, err := jsonNode(d.Value)
			if err != nil {
				continue
			}
			if fields == nil {
				fields = &yaml.Node{Kind: yaml.MappingNode}
				put(w.section("defaults", ""), c.Name, fields, fmt.Sprintf("%s with only the required fields gave these", c.Create))
			}
			put(fields, d.Field, v, "")
		}
	}
}

func (w *profileWriter) responses() {
	for _, a := range w.p.Unpublished {
		seen := fmt.Sprintf("%s %s (%s) answered %d", a.Method, a.Path, a.Operation, a.Status)
		if a.ContentType != "" {
			seen += " " + a.ContentType
		}
		if len(a.Replaced) > 0 {
			seen += "\nvalues replaced (credentials, personal data): " + strings.Join(a.Replaced, ", ")
		}
		switch {
		case a.Status == http.StatusUnauthorized || a.Status == http.StatusForbidden:
			w.note(fmt.Sprintf("%s refused the key (%d): its answer is not recorded", a.Operation, a.Status))
			continue
		case a.Note != "":
			w.note(fmt.Sprintf("%s answered %d with a body not recorded: %s", a.Operation, a.Status, a.Note))
			continue
		case a.Status >= 400 && !isErrorBody(a.Body, a.Status):
			w.note(fmt.Sprintf("%s answered %d without the Error body {code, message, status}, which petctl requires of a configured error", a.Operation, a.Status))
			continue
		}
		r := &yaml.Node{Kind: yaml.MappingNode}
		put(r, "status", integer(a.Status), "")
		if a.Body != nil && a.ContentType != "" && a.ContentType != "application/json" {
			h := &yaml.Node{Kind: yaml.MappingNode}
			put(h, "Content-Type", str(a.ContentType), "")
			put(r, "headers", h, "")
		}
		if a.Body != nil {
			b, err := jsonNode(a.Body)
			if err != nil {
				continue
			}
			put(r, "body", b, "")
		}
		put(w.section("responses", ""), a.Operation, r, seen)
	}
}

// isErrorBody reports whether body is the Error body petctl requires of a
// configured 4xx or 5xx answer.
func isErrorBody(body json.RawMessage, status int) bool {
	var e struct {
		Code    *string
		Message *string
		Status  *int
	}
	return json.Unmarshal(body, &e) == nil && e.Code != nil && *e.Code != "" && e.Message != nil && e.Status != nil && *e.Status == status
}

func (w *profileWriter) errorCodes() {
	codes := engine.Codes()
	type choice struct {
		to, why string
		status  int
	}
	chosen := map[engine.Code]choice{}
	var order []engine.Code
	// consider chooses to for code, unless another condition chose
	// another code for it first; a status unlike petctl's is noted.
	consider := func(code engine.Code, to, why string, status int) {
		if to == "" {
			return
		}
		if c, ok := chosen[code]; ok {
			if c.to != to {
				w.note(fmt.Sprintf("the deployment answers %s with code %s but %s with %s; petctl has one code, %s, for both", c.why, c.to, why, to, code))
			}
			return
		}
		chosen[code] = choice{to: to, why: why, status: status}
		order = append(order, code)
		if st := codes[code]; status != st {
			w.note(fmt.Sprintf("%s is answered %d; petctl answers it %d, and no setting changes that", why, status, st))
		}
	}
	for _, cc := range conditionCodes {
		for _, e := range w.p.Errors {
			if e.Condition == cc.cond {
				consider(cc.code, e.Code, fmt.Sprintf("%s to %s", e.Condition, e.Operation), e.Status)
			}
		}
	}
	for _, c := range w.p.Collections {
		for _, a := range c.OutOfRange {
			if a.Rejected() {
				// Its status is noted with the lists already.
				consider(engine.CodeValidation, a.Code, fmt.Sprintf("%s (%s)", limitCondition, a.Param), codes[engine.CodeValidation])
			}
		}
	}
	var seen []string
	for _, st := range slices.Sorted(maps.Keys(w.p.Codes)) {
		seen = append(seen, fmt.Sprintf("%d: %s", st, strings.Join(w.p.Codes[st], ", ")))
	}
	comment := "codes seen: " + strings.Join(seen, "; ")
	for _, code := range order {
		c := chosen[code]
		if c.to == string(code) {
			continue // petctl's own
		}
		put(w.section("errorCodes", comment), string(code), str(c.to), c.why)
	}
}

func (w *profileWriter) headers() {
	set := func(id string, hs []conformance.Header, comment string) {
		if len(hs) == 0 {
			return
		}
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, h := range hs {
			put(m, h.Name, str(h.Value), "")
		}
		put(w.section("headers", "sent on every answer; the values are the first seen"), id, m, comment)
	}
	set(engine.AllOperations, w.p.Headers, "")
	for _, o := range w.p.Operations {
		var own, documented []conformance.Header
		for _, h := range o.Headers {
			if o.Deprecated && slices.Contains(conformance.DeprecationHeaders, h.Name) {
				documented = append(documented, h)
			} else {
				own = append(own, h)
			}
		}
		comment := ""
		if len(documented) > 0 {
			var names []string
			for _, h := range documented {
				names = append(names, h.Name)
			}
			comment = fmt.Sprintf("%s also sends %s, as the document's deprecation says: petctl sends them itself", o.ID, strings.Join(names, ", "))
		}
		set(o.ID, own, comment) // the documented ones alone need no setting

	}
}

func (w *profileWriter) latency() {
	for _, o := range w.p.Operations {
		l := o.Latency
		if l.N < conformance.MinLatencyAnswers || l.P50 < minRecordedLatency {
			continue
		}
		r := Range{Min: l.Min.Round(time.Millisecond), Max: min(l.Max.Round(time.Millisecond), engine.MaxInjectedLatency)}
		prev := r.Min
		for _, pt := range []struct {
			q float64
			d time.Duration
		}{{0.5, l.P50}, {0.9, l.P90}, {0.99, l.P99}} {
			d := min(max(pt.d.Round(time.Millisecond), prev), r.Max)
			r.Percentiles = append(r.Percentiles, engine.Percentile{Q: pt.q, D: d})
			prev = d
		}
		if r.Min == r.Max {
			r.Percentiles = nil // a fixed delay
		}
		put(w.section("latency", fmt.Sprintf("measured by the client, the network's time in it; an operation with a median under %s gets none (petctl answers about as fast), nor one with fewer than %d answers (the first is often cold)", minRecordedLatency, conformance.MinLatencyAnswers)), o.ID, str(r.String()), fmt.Sprintf("%s: %s", o.ID, l))
	}
}
