package spec

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const styles = "../fixtures/styles/"

// TestMultiFileDocument: relative $refs to files beside the document are
// read, '../' included, and a $ref standing for a whole components map; a
// broken $ref inside an x- extension does not stop loading.
func TestMultiFileDocument(t *testing.T) {
	s, err := Load(styles + "multifile/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Operations) != 3 {
		t.Fatalf("%d operations, want 3", len(s.Operations))
	}
	if len(s.Collections) != 1 || s.Collections[0].IDField != "id" || s.Collections[0].Create == nil {
		t.Fatalf("collections %+v, want notes with id and create", s.Collections)
	}
	if len(s.Warnings) > 0 {
		t.Errorf("warnings %q, want none", s.Warnings)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "http://notes.local/notes/v1/notes", strings.NewReader(`{"text": ""}`))
	r.Header.Set("Content-Type", JSON)
	if ps := v.Request(r, s.Operation("addNote")); len(ps) == 0 || !strings.Contains(ps.Error(), "text") {
		t.Errorf("problems %v, want the empty text refused by the schema in schemas/note-draft.yaml", ps)
	}
}

// TestChainedFileRefsValidate: a body whose schema reaches a whole-file
// $ref through files in other folders (note.yaml -> people/author.yaml ->
// contact.yaml) is validated, request and response, rather than reported as
// a schema that does not compile: libopenapi-validator's compiler misses
// such a file and reads it from disk as JSON.
func TestChainedFileRefsValidate(t *testing.T) {
	s, err := Load(styles + "multifile/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	add, list := s.Operation("addNote"), s.Operation("listNotes")
	for _, tc := range []struct {
		name, body string
		wantField  string // "" when the body is valid
	}{
		{"valid", `[{"id": 1, "text": "hi", "author": {"name": "Ada", "contact": {"email": "ada@example.com"}}}]`, ""},
		{"bad email in the last file", `[{"id": 1, "text": "hi", "author": {"name": "Ada", "contact": {"email": "nope"}}}]`, "email"},
		{"bad name in the middle file", `[{"id": 1, "text": "hi", "author": {"name": ""}}]`, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://notes.local/notes/v1/notes", nil)
			ps := v.Response(r, list, 200, http.Header{"Content-Type": {JSON}}, []byte(tc.body))
			checkProblems(t, "response", ps, tc.wantField)
			item := strings.TrimSuffix(strings.TrimPrefix(tc.body, "["), "]")
			r = httptest.NewRequest("POST", "http://notes.local/notes/v1/notes", strings.NewReader(item))
			r.Header.Set("Content-Type", JSON)
			checkProblems(t, "request", v.Request(r, add), tc.wantField)
			if schema := add.Response(201).Schema; schema != nil {
				rs, err := v.CompileResponseSchema(schema)
				if err != nil {
					t.Fatalf("record schema: %v", err)
				}
				var doc any
				if err := json.Unmarshal([]byte(item), &doc); err != nil {
					t.Fatal(err)
				}
				if err := rs.Validate(doc); (err != nil) != (tc.wantField != "") {
					t.Errorf("record: %v, want an error: %v", err, tc.wantField != "")
				}
			}
		})
	}
}

// TestNullableIn31: OpenAPI 3.0's nullable in a 3.1 document (a generator
// quirk: adyen's) is read as 3.0 reads it, null allowed, instead of every
// request to the operation refused because the schema does not compile.
func TestNullableIn31(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(doc, []byte(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things:
    post:
      operationId: addThing
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              properties:
                name: {type: string}
                note: {type: string, nullable: true, maxLength: 5}
      responses:
        "201": {description: created}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ body, wantField string }{
		{`{"name": "a", "note": null}`, ""},
		{`{"name": "a", "note": "short"}`, ""},
		{`{"name": "a", "note": "too long"}`, "note"},
		{`{"name": "a", "note": 3}`, "note"},
	} {
		r := httptest.NewRequest("POST", "/things", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", JSON)
		checkProblems(t, tc.body, v.Request(r, s.Operation("addThing")), tc.wantField)
	}
}

// TestNullableParameters: a nullable parameter compiles as its document's
// OpenAPI version reads it. libopenapi-validator compiles every parameter
// as 3.1, so a 3.0 document's nullable query parameter (overseerr's take)
// had every request to its operation refused 400, valid or not. Each
// request runs twice: the second finds the schema cached.
func TestNullableParameters(t *testing.T) {
	for _, version := range []string{"3.0.2", "3.1.0"} {
		doc := filepath.Join(t.TempDir(), "openapi.yaml")
		if err := os.WriteFile(doc, []byte(`openapi: `+version+`
info: {title: t, version: "1"}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: take, in: query, schema: {type: number, nullable: true, maximum: 100}}
        - {name: X-Trace, in: header, schema: {type: string, nullable: true, maxLength: 4}}
      responses:
        "200": {description: the things}
`), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(doc)
		if err != nil {
			t.Fatal(err)
		}
		v, err := s.NewValidator()
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ query, trace, wantField string }{
			{"take=25", "", ""},
			{"take=25", "abcd", ""},
			{"take=500", "", "take"},
			{"take=many", "", "take"},
			{"", "abcdef", "X-Trace"},
		} {
			for range 2 {
				r := httptest.NewRequest("GET", "/things?"+tc.query, nil)
				if tc.trace != "" {
					r.Header.Set("X-Trace", tc.trace)
				}
				checkProblems(t, version+" "+tc.query+" "+tc.trace, v.Request(r, s.Operation("listThings")), tc.wantField)
			}
		}
	}
}

// checkProblems fails unless ps is empty (wantField "") or names wantField,
// and never when ps says a schema did not compile.
func checkProblems(t *testing.T, what string, ps Problems, wantField string) {
	t.Helper()
	switch {
	case strings.Contains(ps.Error(), "compile"):
		t.Errorf("%s: %v, want the schema compiled", what, ps)
	case wantField == "" && len(ps) > 0:
		t.Errorf("%s: %v, want none", what, ps)
	case wantField != "" && !strings.Contains(ps.Error(), wantField):
		t.Errorf("%s: %v, want a problem naming %q", what, ps, wantField)
	}
}

// TestRefsOutsideRefused: a $ref that leaves the document's folder, names a
// remote URL or a missing file is refused with the file, its line, the $ref
// and the reason, in one line; refFolders allows a folder.
func TestRefsOutsideRefused(t *testing.T) {
	_, err := Load(styles + "outside/doc/openapi.yaml")
	for _, want := range []string{"openapi.yaml line 16", `$ref "../shared/thing.yaml"`, "leaves the document's folder", "refFolders"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
	if _, err := LoadWith(styles+"outside/doc/openapi.yaml", LoadOptions{RefFolders: []string{styles + "outside/shared"}}); err != nil {
		t.Errorf("with the folder allowed: %v", err)
	}

	dir := t.TempDir()
	for name, ref := range map[string]string{
		"remote.yaml":  "https://example.com/schemas/thing.yaml",
		"missing.yaml": "./nowhere.yaml",
		"escape.yaml":  "/etc/passwd",
	} {
		doc := strings.Replace(mustRead(t, styles+"outside/doc/openapi.yaml"), "../shared/thing.yaml", ref, 1)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), name+" line 16") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line naming %s line 16 and %q", name, err, name, ref)
		}
	}
}

// TestNoLibraryLogLines: libopenapi logs what it cannot resolve as JSON
// lines on stdout; a user sees petctl's one line instead.
func TestNoLibraryLogLines(t *testing.T) {
	dir := t.TempDir()
	// A $ref to a component that the referenced file lacks: libopenapi
	// logs it and builds the rest.
	mustWrite(t, filepath.Join(dir, "parts.yaml"), "Other: {type: object}\n")
	doc := strings.Replace(mustRead(t, styles+"outside/doc/openapi.yaml"), "../shared/thing.yaml", "./parts.yaml#/Thing", 1)
	mustWrite(t, filepath.Join(dir, "openapi.yaml"), doc)
	out := captureOutput(t, func() {
		_, err := Load(filepath.Join(dir, "openapi.yaml"))
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("err = %v, want one line", err)
		}
	})
	if out != "" {
		t.Errorf("loading wrote %q to stdout or stderr", out)
	}
}

// TestQuirksServedWithWarnings: the quirks of generated documents are
// served with a warning naming each line, and refused under Strict with a
// reason and a line each (the unquoted status code too, whose refusal used
// to say neither).
func TestQuirksServedWithWarnings(t *testing.T) {
	s, err := Load(styles + "quirks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	warnings := strings.Join(s.Warnings, "\n")
	for _, want := range []string{
		"line 21 (paths./items.get.responses.200): the key 200 is not a string",
		"line 28 (paths./items.get.responses.401): the key 401 is not a string",
		"line 5 (info.description): got null, want string",
		"line 12 (tags.0.externalDocs.description): got null, want string",
		"(paths./items.get.responses.401): missing property 'description'",
		`line 17 (paths./items.get.security): names scheme "sessionCookie"`,
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings do not say %q:\n%s", want, warnings)
		}
	}
	if s.Operation("listItems") == nil || s.Operation("listItems").Response(200) == nil {
		t.Errorf("the unquoted 200 was not read as a response")
	}
	_, err = LoadWith(styles+"quirks.yaml", LoadOptions{Strict: true})
	for _, want := range []string{"quirks.yaml is not a valid OpenAPI 3.0.3 document", "line 21 (paths./items.get.responses.200): the key 200 is not a string (quote it: '200')"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("strict: err = %v, want %q", err, want)
		}
	}
}

// TestServerVariables: the base path comes from servers[0] with its
// variables filled from their defaults, checked against their enums;
// configuration overrides a variable or the whole base path.
func TestServerVariables(t *testing.T) {
	tests := []struct {
		name    string
		o       LoadOptions
		base    string
		server  string
		wantErr string
	}{
		{"defaults", LoadOptions{}, "/v2", "https://api.example.com/v2", ""},
		{"override", LoadOptions{ServerVariables: map[string]string{"basePath": "v3", "scheme": "http"}}, "/v3", "http://api.example.com/v3", ""},
		{"not in enum", LoadOptions{ServerVariables: map[string]string{"scheme": "ftp"}}, "", "", `{scheme}: the configured value "ftp" is not one of http, https`},
		{"base path", LoadOptions{BasePath: "/mock/"}, "/mock", "https://api.example.com/v2", ""},
		{"root", LoadOptions{BasePath: "/"}, "", "https://api.example.com/v2", ""},
		{"bad base path", LoadOptions{BasePath: "mock"}, "", "", `base path "mock" does not start with /`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := LoadWith(styles+"servervars.yaml", tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.BasePath != tc.base || s.Servers[0] != tc.server {
				t.Errorf("base %q server %q, want %q %q", s.BasePath, s.Servers[0], tc.base, tc.server)
			}
		})
	}
	doc := strings.Replace(mustRead(t, styles+"servervars.yaml"), "default: https", "default: gopher", 1)
	if _, err := Parse([]byte(doc), "bad-default.yaml"); err == nil || !strings.Contains(err.Error(), `its default "gopher" is not one of http, https`) {
		t.Errorf("a default outside the enum: err = %v", err)
	}
}

// TestECMAPatterns: a pattern Go's regexp cannot read (a lookahead) is
// valid JSON Schema; the document loads and the pattern is enforced.
func TestECMAPatterns(t *testing.T) {
	s, err := Load(styles + "servervars.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operation("getFile")
	for path, ok := range map[string]bool{"readme": true, "private-notes": false} {
		r := httptest.NewRequest("GET", "https://api.example.com/v2/files/"+path+"?apikey=k", nil)
		if ps := v.Request(r, op); (len(ps) == 0) != ok {
			t.Errorf("%s: problems %v, want accepted %v", path, ps, ok)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// captureOutput returns what fn writes to the process's stdout and stderr.
func captureOutput(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout, os.Stderr = stdout, stderr }()
	fn()
	os.Stdout, os.Stderr = stdout, stderr
	w.Close()
	return <-done
}

// TestSecuritySchemes: every scheme is classified once, and every
// requirement shape is read with its scopes.
func TestSecuritySchemes(t *testing.T) {
	s, err := Load(styles + "security.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for name, sc := range s.Schemes {
		kinds[name] = string(sc.Kind) + " " + sc.In + " " + sc.Param
	}
	want := map[string]string{
		"bearer": "bearer header Authorization", "basic": "basic header Authorization",
		"headerKey": "apiKey header X-Api-Key", "queryKey": "apiKey query apikey", "cookieKey": "apiKey cookie session",
		"oauth": "oauth2 header Authorization", "oidc": "openIdConnect header Authorization", "mtls": "unsupported header Authorization",
	}
	for name, w := range want {
		if kinds[name] != w {
			t.Errorf("scheme %s = %q, want %q", name, kinds[name], w)
		}
	}
	if f := s.Schemes["oauth"].Flows; len(f) != 2 || f[0].Kind != "clientCredentials" || f[0].TokenURL != "/sec/oauth/token" || strings.Join(f[0].Scopes, ",") != "pets:read,pets:write" {
		t.Errorf("oauth flows = %+v", f)
	}
	shape := func(id string) string {
		var alts []string
		for _, req := range s.Operation(id).Requirements {
			var uses []string
			for _, u := range req {
				uses = append(uses, u.Scheme.Name+strings.Join(u.Scopes, "+"))
			}
			alts = append(alts, strings.Join(uses, "&"))
		}
		return strings.Join(alts, "|")
	}
	for id, w := range map[string]string{
		"globalBearer": "bearer", "keyOrBasic": "headerKey|basic", "queryAndCookie": "cookieKey&queryKey",
		"noAuth": "", "optionalKey": "", "oauthWrite": "oauthpets:write", "oidcRead": "oidcopenid+profile", "needsClientCertificate": "mtls",
	} {
		if got := shape(id); got != w {
			t.Errorf("%s requirements = %q, want %q", id, got, w)
		}
	}
	if ex := s.Schemes["cookieKey"].Example("k"); ex != "Cookie: session=k" {
		t.Errorf("example %q", ex)
	}
}

// TestExtensionRefsNotFollowed: a $ref inside an x- extension, even in a
// schema, where libopenapi follows it, neither stops loading (a broken one
// did) nor is read (one leaving the folder was); a property or a header named
// x-something is no extension, and its $ref is followed and checked. In
// the other files of a split document libopenapi follows such a $ref
// itself: one leaving the folder is refused there.
func TestExtensionRefsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "api"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Read, its own $ref to a missing file would fail the document.
	mustWrite(t, filepath.Join(dir, "outside.yaml"), "$ref: ./gone.yaml\n")
	doc := filepath.Join(dir, "api", "openapi.yaml")
	text := `openapi: 3.0.3
info:
  title: Extensions
  version: "1"
  x-logo: {$ref: 'https://example.com/logo.yaml'}
paths:
  x-outside: {$ref: '../outside.yaml'}
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        x-broken: {$ref: ./gone.yaml}
        '200':
          description: The thing.
          headers:
            x-request-id: {$ref: '#/components/headers/RequestId'}
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
components:
  responses:
    x-named: {$ref: '#/components/responses/Plain'}
    Plain: {description: A response named x-named refers to.}
  headers:
    RequestId:
      schema: {type: string, format: uuid}
  schemas:
    Thing:
      type: object
      required: [x-total]
      x-broken: {$ref: '#/components/schemas/Missing'}
      x-outside: {$ref: '../outside.yaml'}
      x-file: {items: [{$ref: './nowhere.yaml'}]}
      properties:
        x-total: {$ref: '#/components/schemas/Count'}
    Count: {type: integer, minimum: 0}
`
	mustWrite(t, doc, text)
	s, err := Load(doc)
	if err != nil {
		t.Fatalf("does not load: %v", err)
	}
	op := s.Operation("getThing")
	if r := op.Response(200); len(r.Headers) != 1 || r.Headers[0].Name != "x-request-id" || r.Headers[0].Schema == nil || r.Headers[0].Schema.Format != "uuid" {
		t.Errorf("headers %q, want the header named x-request-id, its schema a uuid", r.HeaderNames())
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/things/1", nil)
	h := http.Header{"Content-Type": {JSON}}
	checkProblems(t, "valid", v.Response(r, op, 200, h, []byte(`{"x-total": 3}`)), "")
	checkProblems(t, "the property's $ref followed", v.Response(r, op, 200, h, []byte(`{"x-total": -1}`)), "x-total")

	// In another file of the document, read by libopenapi from its bytes,
	// neither a broken $ref inside an extension nor one leaving the folder
	// stops loading, nor is the file outside read; written quoted, in a flow
	// or a block map, beside others on its line. The schema still holds.
	thing := `type: object
required: [x-total]
x-outside: {$ref: '../outside.yaml'}
x-broken: {"$ref": './gone.yaml', note: 1}
x-list: [{'$ref': '#/nowhere'}, {a: {$ref: '../outside.yaml'}}]
x-block:
  $ref: '#/nowhere'
properties:
  x-total: {type: integer, minimum: 0, x-own: {$ref: ./gone.yaml}}
`
	mustWrite(t, filepath.Join(dir, "api", "thing.yaml"), thing)
	mustWrite(t, doc, strings.Replace(text, "schema: {$ref: '#/components/schemas/Thing'}", "schema: {$ref: './thing.yaml'}", 1))
	s, err = Load(doc)
	if err != nil {
		t.Fatalf("an extension in another file: %v", err)
	}
	if want := []string{doc, filepath.Join(dir, "api", "thing.yaml")}; !slices.Equal(s.Files, want) {
		t.Errorf("files read %q, want %q", s.Files, want)
	}
	if v, err = s.NewValidator(); err != nil {
		t.Fatal(err)
	}
	op = s.Operation("getThing")
	checkProblems(t, "valid, another file", v.Response(r, op, 200, h, []byte(`{"x-total": 3}`)), "")
	checkProblems(t, "another file's schema", v.Response(r, op, 200, h, []byte(`{"x-total": -1}`)), "x-total")

	// So too where that file lies in a folder refFolders allows, outside
	// the document's.
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(shared, "thing.yaml"), thing)
	mustWrite(t, doc, strings.Replace(text, "schema: {$ref: '#/components/schemas/Thing'}", "schema: {$ref: '../shared/thing.yaml'}", 1))
	if s, err = LoadWith(doc, LoadOptions{RefFolders: []string{shared}}); err != nil {
		t.Fatalf("an extension in a file of refFolders: %v", err)
	}
	if v, err = s.NewValidator(); err != nil {
		t.Fatal(err)
	}
	op = s.Operation("getThing")
	checkProblems(t, "refFolders' file's schema", v.Response(r, op, 200, h, []byte(`{"x-total": -1}`)), "x-total")

	mustWrite(t, doc, strings.Replace(text, "x-total: {$ref: '#/components/schemas/Count'}", "x-total: {$ref: '../outside.yaml'}", 1))
	_, err = Load(doc)
	for _, want := range []string{"openapi.yaml line 37", `$ref "../outside.yaml" leaves the document's folder`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a property named x-total: err = %v, want %q", err, want)
		}
	}

	// A response of the components named x-named is a name, not an
	// extension: its $ref is read, and one leaving the folder refused.
	mustWrite(t, doc, strings.Replace(text, "x-named: {$ref: '#/components/responses/Plain'}", "x-named: {$ref: '../outside.yaml'}", 1))
	_, err = Load(doc)
	for _, want := range []string{"openapi.yaml line 24", `$ref "../outside.yaml" leaves the document's folder`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a response named x-named: err = %v, want %q", err, want)
		}
	}
}

// TestServerVariableNamingItself: a variable whose default is its own name
// in braces (VTEX's documents: environment: {default: '{environment}'})
// is filled once, not again and again: the document loads, that server's
// URL keeps the braces, and the base path comes from servers[0] as ever.
func TestServerVariableNamingItself(t *testing.T) {
	const doc = `openapi: 3.0.0
info: {title: self-named, version: "1"}
servers:
  - url: https://vtex.local/api
  - url: 'https://prchub.{environment}.com.br'
    variables:
      environment: {default: '{environment}'}
paths: {}
`
	type loaded struct {
		s   *Spec
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		s, err := Parse([]byte(doc), "self-named.yaml")
		done <- loaded{s, err}
	}()
	select {
	case l := <-done:
		if l.err != nil {
			t.Fatal(l.err)
		}
		if l.s.BasePath != "/api" || len(l.s.Servers) != 2 || l.s.Servers[1] != "https://prchub.{environment}.com.br" {
			t.Errorf("base %q, servers %q", l.s.BasePath, l.s.Servers)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("loading a server variable whose default names itself does not end")
	}
}

// TestSchemaRequiringItself: a schema that libopenapi finds requiring
// itself without end (GoDaddy's JsonSchema requires models, an object
// whose items, which no object has, are JsonSchemas) is a warning, not
// the refusal of the document; --strict refuses it.
func TestSchemaRequiringItself(t *testing.T) {
	const doc = `openapi: 3.0.1
info: {title: circles, version: "1"}
paths:
  /schemas/{id}:
    get:
      operationId: getSchema
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/JsonSchema'}
components:
  schemas:
    JsonSchema:
      type: object
      required: [id, models]
      properties:
        id: {type: string}
        models:
          type: object
          items: {$ref: '#/components/schemas/JsonSchema'}
`
	path := filepath.Join(t.TempDir(), "circles.yaml")
	mustWrite(t, path, doc)
	s, err := Load(path)
	if err != nil {
		t.Fatalf("the document is refused: %v", err)
	}
	if w := strings.Join(s.Warnings, "\n"); !strings.Contains(w, "schema JsonSchema requires itself without end") {
		t.Errorf("warnings do not name the circle:\n%s", w)
	}
	if s.Operation("getSchema") == nil {
		t.Error("getSchema is not read")
	}
	if _, err := LoadWith(path, LoadOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "JsonSchema requires itself") {
		t.Errorf("strict: err = %v, want the circle named", err)
	}
}
