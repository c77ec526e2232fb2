package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// unpagedEnvelope lists its notes in an envelope whose meta is optional
// and whose example is valid, without paging parameters.
const unpagedEnvelope = `openapi: 3.1.0
info: {title: Notes, version: "1"}
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        '200':
          description: All notes.
          content:
            application/json:
              schema:
                type: object
                required: [notes]
                properties:
                  notes: {type: array, items: {$ref: '#/components/schemas/Note'}}
                  meta:
                    type: object
                    required: [total_count, total_pages, source]
                    properties:
                      total_count: {type: integer}
                      total_pages: {type: integer}
                      source: {type: string, enum: [notes]}
                example: {notes: [], meta: {total_count: 0, total_pages: 0, source: notes}}
    post:
      operationId: createNote
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Note'}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Note'}
  /notes/{id}:
    get:
      operationId: getNote
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: A note.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Note'}
components:
  schemas:
    Note:
      type: object
      required: [id, text]
      properties:
        id: {type: integer, readOnly: true}
        text: {type: string}
`

// TestUnpagedListMeta: a list the document does not page is one page
// holding every item, and no page when it holds none, as a paged list
// counts them; the envelope comes from the schema's example each time,
// unchanged by the answers made from it before.
func TestUnpagedListMeta(t *testing.T) {
	s, err := spec.Parse([]byte(unpagedEnvelope), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "X-Key", "") // the document asks for no key: it is ignored
	play(t, env, []exchange{
		{name: "empty", path: "/notes", status: 200, want: map[string]string{
			"notes.#": "0", "meta.total_count": "0", "meta.total_pages": "0", "meta.source": "notes"}},
		{name: "create", method: "POST", path: "/notes", body: `{"text":"a"}`, status: 201, want: map[string]string{"id": "1"}},
		{name: "create again", method: "POST", path: "/notes", body: `{"text":"b"}`, status: 201, want: map[string]string{"id": "2"}},
		{name: "one page of all", path: "/notes", status: 200, want: map[string]string{
			"notes.#": "2", "meta.total_count": "2", "meta.total_pages": "1", "meta.source": "notes"}},
		{name: "again, from the same example", path: "/notes", status: 200, want: map[string]string{
			"notes.#": "2", "meta.total_count": "2", "meta.total_pages": "1"}},
	})
}

// TestMadeValuesAreCopies: every value made from a schema is the server's
// to change (an envelope gets its items and metadata set in it), so made
// hands out a deep copy of what it keeps, and a change to one reaches
// neither what it keeps nor the next.
func TestMadeValuesAreCopies(t *testing.T) {
	s, err := spec.Parse([]byte(unpagedEnvelope), "notes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Spec: s}) // no Logger: nothing logged
	if err != nil {
		t.Fatal(err)
	}
	var schema *spec.Schema
	for op, o := range srv.ops {
		if op.ID == "listNotes" {
			schema = o.rop.Response.Schema
		}
	}
	if schema == nil {
		t.Fatal("no listNotes answer schema")
	}
	const want = `{"meta":{"source":"notes","total_count":0,"total_pages":0},"notes":[]}`
	for i := range 3 {
		v, ok := srv.made(schema).(map[string]any)
		if !ok {
			t.Fatalf("made %d: %#v, want an object", i, v)
		}
		if got := string(encodeJSON(v)); got != want {
			t.Fatalf("made %d: %s, want %s (an earlier one's changes reached it)", i, got, want)
		}
		meta := v["meta"].(map[string]any)
		meta["source"], meta["added"] = "changed", true
		v["notes"] = append(v["notes"].([]any), "an item")
		v["top"] = 1
	}
}

// stampedEnvelope answers its notes in an envelope with an instant the
// server makes (generatedAt) and no example.
const stampedEnvelope = `openapi: 3.1.0
info: {title: Notes, version: "1"}
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        '200':
          description: All notes.
          content:
            application/json:
              schema:
                type: object
                required: [notes, generatedAt, source]
                properties:
                  notes: {type: array, items: {type: object, required: [id], properties: {id: {type: integer}}}}
                  generatedAt: {type: string, format: date-time}
                  source: {type: string, enum: [notes]}
                  total: {type: integer}
`

// TestEnvelopeMadeAtTheClock: an envelope is made from its schema once and
// reused while nothing in it depends on the clock, but an instant it holds
// shows the clock of each answer, not of the first.
func TestEnvelopeMadeAtTheClock(t *testing.T) {
	s, err := spec.Parse([]byte(stampedEnvelope), "stamped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var clock atomic.Int64
	clock.Store(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC).Unix())
	env := start(t, Options{Spec: s, Now: func() time.Time { return time.Unix(clock.Load(), 0).UTC() }}, "X-Key", "")
	play(t, env, []exchange{
		{name: "first", path: "/notes", status: 200, want: map[string]string{
			"notes.#": "0", "generatedAt": "2030-01-02T03:04:05Z", "source": "notes", "total": "0"}},
		{name: "a day later", path: "/notes", status: 200, check: func(t *testing.T, r result) {
			clock.Add(24 * 3600) // before the next step's request
		}},
		{name: "the later clock", path: "/notes", status: 200, want: map[string]string{
			"generatedAt": "2030-01-03T03:04:05Z", "source": "notes"}},
	})
}
