package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// edit replaces old, which must occur exactly once in the base document.
type edit struct{ old, new string }

// want is a change as the report gives it.
type want struct {
	sev     Severity
	subject string
	what    string
}

func (w want) String() string { return fmt.Sprintf("%s | %s | %s", w.sev, w.subject, w.what) }

// judgedOn is the date every pair is judged at, unless the case says
// otherwise: before getBook's removal date, 2030-12-05.
var judgedOn = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// load writes doc to a file of its own and reads it as petctl does.
func load(t *testing.T, name, doc string) *spec.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatalf("%s does not load: %v", name, err)
	}
	return s
}

// pair is the base document and the base with edits applied.
func pair(t *testing.T, edits []edit) (old, new *spec.Spec) {
	t.Helper()
	base, err := os.ReadFile("testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(base)
	for _, e := range edits {
		if n := strings.Count(doc, e.old); n != 1 {
			t.Fatalf("the edit %q occurs %d times in the base document; want once", e.old, n)
		}
		doc = strings.Replace(doc, e.old, e.new, 1)
	}
	return load(t, "old.yaml", string(base)), load(t, "new.yaml", doc)
}

// TestCompare is the table of document pairs: each edit of the base
// document and how each change it makes is classified.
func TestCompare(t *testing.T) {
	removePost := edit{"    post:\n      operationId: createBook\n      requestBody:\n        required: true\n        content:\n          application/json:\n            schema:\n              $ref: '#/components/schemas/NewBook'\n      responses:\n        '201':\n          description: The created book.\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Book'\n        '400':\n          description: Invalid.\n", ""}
	removeGetBook := edit{"  /books/{bookId}:\n    get:\n      operationId: getBook\n      deprecated: true\n      x-sunset: '2030-12-05'\n      parameters:\n        - name: bookId\n          in: path\n          required: true\n          schema:\n            type: integer\n      responses:\n        '200':\n          description: The book.\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Book'\n        '404':\n          description: No such book.\n", ""}
	deprecateAuthors := "  /authors:\n    get:\n      operationId: listAuthors\n"
	tests := []struct {
		name   string
		edits  []edit
		policy Policy
		want   []want
	}{
		{name: "no change", want: nil},
		{name: "documentation only", edits: []edit{{"description: The books.", "description: Every book on the shelves."}},
			want: []want{{Safe, "GET /books (listBooks) response 200", "description The books. → Every book on the shelves."}}},
		{name: "an operation removed that was never deprecated", edits: []edit{removePost},
			want: []want{{Breaking, "POST /books (createBook)", "operation removed"}}},
		{name: "a deprecated operation removed before its removal date", edits: []edit{removeGetBook},
			want: []want{{Breaking, "GET /books/{bookId} (getBook)", "operation removed before 5 December 2030 (x-sunset), judged on 1 June 2026"}}},
		{name: "a deprecated operation removed after its removal date", edits: []edit{removeGetBook}, policy: Policy{Now: time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)},
			want: []want{{Safe, "GET /books/{bookId} (getBook)", "operation removed after 5 December 2030 (x-sunset)"}}},
		{name: "a parameter removed", edits: []edit{{"        - name: shelf\n          in: query\n          schema:\n            $ref: '#/components/schemas/Shelf'\n", ""}},
			want: []want{{Breaking, "GET /books (listBooks) parameter shelf", "removed"}}},
		{name: "a required parameter added", edits: []edit{{"        - name: limit\n", "        - name: library\n          in: query\n          required: true\n          schema:\n            type: string\n        - name: limit\n"}},
			want: []want{{Breaking, "GET /books (listBooks) parameter library", "added, required"}}},
		{name: "an optional parameter added", edits: []edit{{"        - name: limit\n", "        - name: library\n          in: query\n          schema:\n            type: string\n        - name: limit\n"}},
			want: []want{{Safe, "GET /books (listBooks) parameter library", "added, optional"}}},
		{name: "a response field removed", edits: []edit{{"        rating:\n          $ref: '#/components/schemas/Rating'\n", ""}},
			want: []want{{Breaking, "schema Book (in responses) field rating", "removed"}}},
		{name: "a type narrowed in a request", edits: []edit{{"        pages:\n          type: number\n        genre:\n          $ref: '#/components/schemas/Genre'\n    Book:", "        pages:\n          type: integer\n        genre:\n          $ref: '#/components/schemas/Genre'\n    Book:"}},
			want: []want{{Breaking, "schema NewBook (in requests) field pages", "type number → integer"}}},
		{name: "a type narrowed in a response only", edits: []edit{{"        pages:\n          type: number\n        genre:\n          $ref: '#/components/schemas/Genre'\n        rating:", "        pages:\n          type: integer\n        genre:\n          $ref: '#/components/schemas/Genre'\n        rating:"}},
			want: []want{{Safe, "schema Book (in responses) field pages", "type number → integer"}}},
		{name: "a type widened in a response", edits: []edit{{"        id:\n          type: integer\n", "        id:\n          type: number\n"}},
			want: []want{{Breaking, "schema Book (in responses) field id", "type integer → number"}}},
		{name: "a type changed in a path parameter", edits: []edit{{"          required: true\n          schema:\n            type: integer\n", "          required: true\n          schema:\n            type: string\n"}},
			want: []want{{Breaking, "GET /books/{bookId} (getBook) parameter bookId", "type integer → string"}}},
		{name: "a new required request field", edits: []edit{{"required: [title]", "required: [title, pages]"}},
			want: []want{{Breaking, "schema NewBook (in requests) field pages", "now required"}}},
		{name: "a response field no longer required", edits: []edit{{"required: [id, title]", "required: [id]"}},
			want: []want{{Breaking, "schema Book (in responses) field title", "no longer required"}}},
		{name: "a new enum value in a response", edits: []edit{{"enum: [good, bad]", "enum: [good, bad, ugly]"}},
			want: []want{{Breaking, "schema Rating (in responses)", "enum value ugly added"}}},
		{name: "a new enum value in a request", edits: []edit{{"enum: [top, bottom]", "enum: [top, bottom, middle]"}},
			want: []want{{Safe, "schema Shelf (in requests)", "enum value middle added"}}},
		{name: "a new enum value in a schema both ways", edits: []edit{{"enum: [fiction, poetry]", "enum: [fiction, poetry, drama]"}},
			want: []want{{Breaking, "schema Genre (in requests and responses)", "enum value drama added"}}},
		{name: "an enum value removed in a request", edits: []edit{{"enum: [top, bottom]", "enum: [top]"}},
			want: []want{{Breaking, "schema Shelf (in requests)", "enum value bottom removed"}}},
		{name: "a bound tightened in a request", edits: []edit{{"            maximum: 100\n", "            maximum: 50\n"}},
			want: []want{{Breaking, "GET /books (listBooks) parameter limit", "maximum 100 → 50"}}},
		{name: "a bound loosened in a request", edits: []edit{{"            maximum: 100\n", "            maximum: 500\n"}},
			want: []want{{Safe, "GET /books (listBooks) parameter limit", "maximum 100 → 500"}}},
		{name: "a success response removed", edits: []edit{{"        '201':\n          description: The created book.\n          content:\n            application/json:\n              schema:\n                $ref: '#/components/schemas/Book'\n", ""}},
			want: []want{{Breaking, "POST /books (createBook) response 201", "removed"}}},
		{name: "an error response removed", edits: []edit{{"        '404':\n          description: No such book.\n", ""}},
			want: []want{{Safe, "GET /books/{bookId} (getBook) response 404", "removed"}}},
		{name: "changed auth: another scheme", edits: []edit{{"      type: http\n      scheme: bearer\n", "      type: apiKey\n      in: header\n      name: X-Key\n"}},
			want: []want{
				{Breaking, "GET /authors (listAuthors) security", "auth bearer → apiKey in header X-Key"},
				{Breaking, "GET /books (listBooks) security", "auth bearer → apiKey in header X-Key"},
				{Breaking, "GET /books/{bookId} (getBook) security", "auth bearer → apiKey in header X-Key"},
				{Breaking, "POST /books (createBook) security", "auth bearer → apiKey in header X-Key"},
			}},
		{name: "auth loosened: an operation made public", edits: []edit{{deprecateAuthors, deprecateAuthors + "      security: []\n"}},
			want: []want{{Safe, "GET /authors (listAuthors) security", "auth bearer → none"}}},
		{name: "changed auth: a second scheme required", edits: []edit{{"security:\n  - bearer: []\npaths:", "security:\n  - bearer: []\n    key: []\npaths:"}, {"    bearer:\n      type: http\n", "    key:\n      type: apiKey\n      in: header\n      name: X-Key\n    bearer:\n      type: http\n"}},
			want: []want{
				{Breaking, "GET /authors (listAuthors) security", "auth bearer → bearer and apiKey in header X-Key"},
				{Breaking, "GET /books (listBooks) security", "auth bearer → bearer and apiKey in header X-Key"},
				{Breaking, "GET /books/{bookId} (getBook) security", "auth bearer → bearer and apiKey in header X-Key"},
				{Breaking, "POST /books (createBook) security", "auth bearer → bearer and apiKey in header X-Key"},
				{Safe, "components", "securitySchemes key added"},
			}},
		{name: "auth loosened: another scheme accepted besides", edits: []edit{{"security:\n  - bearer: []\npaths:", "security:\n  - bearer: []\n  - key: []\npaths:"}, {"    bearer:\n      type: http\n", "    key:\n      type: apiKey\n      in: header\n      name: X-Key\n    bearer:\n      type: http\n"}},
			want: []want{
				{Safe, "components", "securitySchemes key added"},
				{Safe, "GET /authors (listAuthors) security", "auth bearer → bearer or apiKey in header X-Key"},
				{Safe, "GET /books (listBooks) security", "auth bearer → bearer or apiKey in header X-Key"},
				{Safe, "GET /books/{bookId} (getBook) security", "auth bearer → bearer or apiKey in header X-Key"},
				{Safe, "POST /books (createBook) security", "auth bearer → bearer or apiKey in header X-Key"},
			}},
		{name: "deprecated without a removal date", edits: []edit{{deprecateAuthors, deprecateAuthors + "      deprecated: true\n"}},
			want: []want{{Flagged, "GET /authors (listAuthors) deprecation", "deprecated without a removal date"}}},
		{name: "deprecated with too little notice", edits: []edit{{deprecateAuthors, deprecateAuthors + "      deprecated: true\n      x-sunset: '2026-08-01'\n"}},
			want: []want{{Flagged, "GET /authors (listAuthors) deprecation", "removal on 1 August 2026 gives 61 days of notice from 1 June 2026; the policy asks for 180 days"}}},
		{name: "deprecated with the notice a shorter policy asks", edits: []edit{{deprecateAuthors, deprecateAuthors + "      deprecated: true\n      x-sunset: '2026-08-01'\n"}}, policy: Policy{MinNotice: 30 * 24 * time.Hour},
			want: []want{{Safe, "GET /authors (listAuthors) deprecation", "deprecated, removal on 1 August 2026 (61 days of notice)"}}},
		{name: "deprecated with enough notice", edits: []edit{{deprecateAuthors, deprecateAuthors + "      deprecated: true\n      x-sunset: '2027-06-01'\n"}},
			want: []want{{Safe, "GET /authors (listAuthors) deprecation", "deprecated, removal on 1 June 2027 (365 days of notice)"}}},
		{name: "notice counted from a later deprecation date", edits: []edit{{deprecateAuthors, deprecateAuthors + "      deprecated: true\n      x-deprecated-at: '2027-05-01'\n      x-sunset: '2027-06-01'\n"}},
			want: []want{{Flagged, "GET /authors (listAuthors) deprecation", "removal on 1 June 2027 gives 31 days of notice from 1 May 2027; the policy asks for 180 days"}}},
		{name: "a removal date brought forward", edits: []edit{{"x-sunset: '2030-12-05'", "x-sunset: '2029-12-05'"}},
			want: []want{{Flagged, "GET /books/{bookId} (getBook) deprecation", "removal date brought forward from 5 December 2030 to 5 December 2029"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new := pair(t, tt.edits)
			p := tt.policy
			if p.Now.IsZero() {
				p.Now = judgedOn
			}
			r, err := Compare(old, new, p)
			if err != nil {
				t.Fatal(err)
			}
			checkChanges(t, r, tt.want)
		})
	}
}

// checkChanges holds r to exactly the changes wanted, each with a reason,
// and its gate to their verdicts.
func checkChanges(t *testing.T, r *Report, wanted []want) {
	t.Helper()
	var got []string
	for _, c := range r.Changes {
		got = append(got, want{c.Severity, c.Subject(), c.What}.String())
	}
	var wants []string
	for _, w := range wanted {
		wants = append(wants, w.String())
	}
	if strings.Join(got, "\n") != strings.Join(wants, "\n") {
		t.Errorf("changes:\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(wants, "\n  "))
	}
	for _, c := range r.Changes {
		if c.Why == "" {
			t.Errorf("%s: %s has no reason", c.Subject(), c.What)
		}
	}
	breaking := false
	for _, w := range wanted {
		breaking = breaking || w.sev != Safe
	}
	if got, want := r.OK(), !breaking; got != want {
		t.Errorf("OK() = %v, want %v", got, want)
	}
}

// hashBlindDoc has a schema at each place what-changed compares: a
// component, a query parameter, an inline request body with a property,
// a $ref with a sibling, and a response field.
const hashBlindDoc = `openapi: 3.1.0
info: {title: blind, version: "1"}
paths:
  /a:
    post:
      operationId: postA
      parameters: [{name: q, in: query, schema: {type: integer, minimum: 5}}]
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}
      responses: {"204": {description: ok}}
  /b:
    post:
      operationId: postB
      requestBody: {required: true, content: {application/json: {schema: {type: object, description: d1, properties: {m: {type: string, minLength: 3}, tax: {$ref: '#/components/schemas/Tax'}}}}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object, properties: {r: {type: string, readOnly: true}, u: {type: [string, "null"]}}}}}}
  /c:
    post:
      operationId: postC
      parameters: [{name: p, in: query, content: {application/json: {schema: {type: integer, minimum: 6}}}}]
      requestBody: {required: true, content: {application/json: {schema: {allOf: [{type: object, minProperties: 1}, {properties: {b: {type: string, maxLength: 3}, arr: {type: array, contains: {type: integer, minimum: 7}}}}]}}}}
      responses:
        "200":
          description: ok
          headers: {X-Rate: {schema: {type: integer, minimum: 8}}}
          content: {application/json: {schema: {type: object, properties: {tax: {$ref: '#/components/schemas/Tax', required: [name]}}}}}
components:
  schemas:
    A: {type: object, properties: {n: {type: integer, minimum: 5}}}
    Tax: {type: object, properties: {name: {type: string}, rate: {type: number}}}
`

// TestCompareSeesWhatTheHashMisses: changes libopenapi's schema hash takes
// for none (a value moved to another keyword, a $ref's sibling), which
// what-changed therefore never reports, are found and judged by the same
// rules; so is a list of types, which what-changed gives as "".
func TestCompareSeesWhatTheHashMisses(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []want
	}{
		{"a bound moved to the other keyword, in a component", "n: {type: integer, minimum: 5}", "n: {type: integer, maximum: 5}", []want{
			{Breaking, "schema A (in requests) field n", "maximum 5 added"},
			{Safe, "schema A (in requests) field n", "minimum 5 removed"},
		}},
		{"a bound moved to the other keyword, in a parameter", "schema: {type: integer, minimum: 5}}]", "schema: {type: integer, maximum: 5}}]", []want{
			{Breaking, "POST /a (postA) parameter q", "maximum 5 added"},
			{Safe, "POST /a (postA) parameter q", "minimum 5 removed"},
		}},
		{"a blind change below one what-changed sees", "description: d1, properties: {m: {type: string, minLength: 3}", "description: d2, properties: {m: {type: string, maxLength: 3}", []want{
			{Breaking, "POST /b (postB) request body application/json field m", "maxLength 3 added"},
			{Safe, "POST /b (postB) request body application/json", "description d1 → d2"},
			{Safe, "POST /b (postB) request body application/json field m", "minLength 3 removed"},
		}},
		{"a required sibling beside a $ref", "tax: {$ref: '#/components/schemas/Tax'}", "tax: {$ref: '#/components/schemas/Tax', required: [name]}", []want{
			{Breaking, "POST /b (postB) request body application/json field tax.name", "now required"},
		}},
		{"readOnly made nullable in a response", "r: {type: string, readOnly: true}", "r: {type: string, nullable: true}", []want{
			{Breaking, "POST /b (postB) response 200 application/json field r", "nullable true added"},
			{Safe, "POST /b (postB) response 200 application/json field r", "readOnly true removed"},
		}},
		{"a list of types changed in a response", `u: {type: [string, "null"]}`, "u: {type: [integer]}", []want{
			{Breaking, "POST /b (postB) response 200 application/json field u", "type [string, null] → [integer]"},
		}},
		{"allOf's members reordered", "allOf: [{type: object, minProperties: 1}, {properties: {b: {type: string, maxLength: 3}, arr: {type: array, contains: {type: integer, minimum: 7}}}}]",
			"allOf: [{properties: {b: {type: string, maxLength: 3}, arr: {type: array, contains: {type: integer, minimum: 7}}}}, {type: object, minProperties: 1}]", nil},
		{"a blind change in one allOf member, a change what-changed sees in another", "{type: object, minProperties: 1}, {properties: {b: {type: string, maxLength: 3}",
			"{type: object, maxProperties: 1}, {properties: {b: {type: string, maxLength: 4}", []want{
				{Breaking, "POST /c (postC) request body application/json allOf[0]", "maxProperties 1 added"},
				{Safe, "POST /c (postC) request body application/json allOf member field b", "maxLength 3 → 4"},
				{Safe, "POST /c (postC) request body application/json allOf[0]", "minProperties 1 removed"},
			}},
		{"a bound moved inside contains", "contains: {type: integer, minimum: 7}", "contains: {type: integer, maximum: 7}", []want{
			{Breaking, "POST /c (postC) request body application/json allOf[1] contains field arr", "maximum 7 added"},
			{Safe, "POST /c (postC) request body application/json allOf[1] contains field arr", "minimum 7 removed"},
		}},
		{"a bound moved in a response header", "X-Rate: {schema: {type: integer, minimum: 8}}", "X-Rate: {schema: {type: integer, maximum: 8}}", []want{
			{Breaking, "POST /c (postC) response 200 header X-Rate", "minimum 8 removed"},
			{Safe, "POST /c (postC) response 200 header X-Rate", "maximum 8 added"},
		}},
		{"a bound moved in a parameter's content", "schema: {type: integer, minimum: 6}", "schema: {type: integer, maximum: 6}", []want{
			{Breaking, "POST /c (postC) parameter p application/json", "maximum 6 added"},
			{Safe, "POST /c (postC) parameter p application/json", "minimum 6 removed"},
		}},
		{"a $ref with a required sibling made an inline copy without it", "tax: {$ref: '#/components/schemas/Tax', required: [name]}",
			"tax: {type: object, properties: {name: {type: string}, rate: {type: number}}}", []want{
				{Breaking, "POST /c (postC) response 200 application/json field tax.name", "no longer required"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Count(hashBlindDoc, tt.old) != 1 {
				t.Fatalf("%q is not in the document once", tt.old)
			}
			old := load(t, "old.yaml", hashBlindDoc)
			new := load(t, "new.yaml", strings.Replace(hashBlindDoc, tt.old, tt.new, 1))
			r, err := Compare(old, new, Policy{Now: judgedOn})
			if err != nil {
				t.Fatal(err)
			}
			checkChanges(t, r, tt.want)
		})
	}
}

// copyTree copies the folder src into a new temporary folder, with the
// edits applied to the files they name, and returns the new folder.
func copyTree(t *testing.T, src string, edits map[string][]edit) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		doc := string(data)
		for _, e := range edits[filepath.ToSlash(rel)] {
			if n := strings.Count(doc, e.old); n != 1 {
				t.Fatalf("the edit %q occurs %d times in %s; want once", e.old, n, rel)
			}
			doc = strings.Replace(doc, e.old, e.new, 1)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), []byte(doc), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCompareMultiFile: a document split over files is compared file by
// file, behind $refs that stay the same while the files they name change,
// and each change is placed at its line of the file it is in. Without
// the schemas hashed by what their $refs name (spec.ComparisonModel),
// what-changed sees no change at all in these pairs.
func TestCompareMultiFile(t *testing.T) {
	tests := []struct {
		name  string
		edits map[string][]edit
		want  []want
		at    []string // the file and line of each change, relative to the folder
	}{
		{name: "no change"},
		{name: "a new enum value in a response schema's file",
			edits: map[string][]edit{"schemas/Thing.yaml": {{"enum: [small, large]", "enum: [small, large, huge]"}}},
			// One change at one place: its other uses (getThing,
			// createThing) are the same line, reported once (dedupe).
			want: []want{{Breaking, "GET /things (listThings) response 200 application/json field [].kind", "enum value huge added"}},
			at:   []string{"schemas/Thing.yaml:10"}},
		{name: "a new required field in a request schema's file",
			edits: map[string][]edit{"schemas/NewThing.yaml": {{"required: [name]", "required: [name, size]"}}},
			want:  []want{{Breaking, "POST /things (createThing) request body application/json field size", "now required"}},
			at:    []string{"schemas/NewThing.yaml:2"}},
		{name: "an operation removed from a path's file",
			edits: map[string][]edit{"paths/thing.yaml": {{"delete:\n  operationId: deleteThing\n  parameters:\n    - name: thingId\n      in: path\n      required: true\n      schema:\n        type: integer\n  responses:\n    '204':\n      description: Deleted.\n", ""}}},
			want:  []want{{Breaking, "DELETE /things/{thingId} (deleteThing)", "operation removed"}},
			at:    []string{"paths/thing.yaml:17"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldDir, newDir := copyTree(t, "testdata/multi", nil), copyTree(t, "testdata/multi", tt.edits)
			r := compareTrees(t, oldDir, newDir)
			var got, wants, gotAt, wantAt []string
			for _, c := range r.Changes {
				got = append(got, want{c.Severity, c.Subject(), c.What}.String())
				gotAt = append(gotAt, c.At)
			}
			for i, w := range tt.want {
				wants = append(wants, w.String())
				dir := newDir
				if w.what == "operation removed" {
					dir = oldDir
				}
				wantAt = append(wantAt, filepath.Join(dir, tt.at[i]))
			}
			if strings.Join(got, "\n") != strings.Join(wants, "\n") {
				t.Errorf("changes:\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(wants, "\n  "))
			}
			if strings.Join(gotAt, "\n") != strings.Join(wantAt, "\n") {
				t.Errorf("places:\ngot:\n  %s\nwant:\n  %s", strings.Join(gotAt, "\n  "), strings.Join(wantAt, "\n  "))
			}
		})
	}
}

// TestCompareJudgesEachDirection: a schema file reached both from a
// request body and from a response has a change libopenapi's hash misses
// judged in each direction: what breaks requests and what breaks
// responses are both breaking, each reported once.
func TestCompareJudgesEachDirection(t *testing.T) {
	bothWays := edit{"$ref: '../schemas/NewThing.yaml'", "$ref: '../schemas/Thing.yaml'"}
	name := "  name:\n    type: string\n"
	oldDir := copyTree(t, "testdata/multi", map[string][]edit{"paths/things.yaml": {bothWays}, "schemas/Thing.yaml": {{name, name + "    minLength: 3\n"}}})
	newDir := copyTree(t, "testdata/multi", map[string][]edit{"paths/things.yaml": {bothWays}, "schemas/Thing.yaml": {{name, name + "    maxLength: 3\n"}}})
	checkChanges(t, compareTrees(t, oldDir, newDir), []want{
		{Breaking, "GET /things (listThings) response 200 application/json field [].name", "minLength 3 removed"},
		{Breaking, "POST /things (createThing) request body application/json field name", "maxLength 3 added"},
	})
}

// compareTrees compares the documents split over files in two folders,
// each entered at openapi.yaml.
func compareTrees(t *testing.T, oldDir, newDir string) *Report {
	t.Helper()
	old, err := spec.Load(filepath.Join(oldDir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	new, err := spec.Load(filepath.Join(newDir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compare(old, new, Policy{Now: judgedOn})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
