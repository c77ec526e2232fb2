package spec

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/petctl/petctl/internal/corpus"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// describeResources renders what was inferred, one line per fact, for the
// golden files: a change in inference shows as a diff a person can read.
func describeResources(s *Spec) string {
	var b strings.Builder
	for _, r := range s.Resources {
		fmt.Fprintf(&b, "%s", r.Path)
		if r.Key != r.Name {
			fmt.Fprintf(&b, " (key %s)", r.Key)
		}
		if r.ETags {
			b.WriteString(" with entity tags")
		}
		b.WriteString("\n")
		if r.ItemPath != "" {
			fmt.Fprintf(&b, "  item %s (param %s)\n", r.ItemPath, r.IDParam)
		}
		switch {
		case r.Singleton:
			b.WriteString("  singleton\n")
		case r.HiddenID:
			fmt.Fprintf(&b, "  id in the path only: %s %s\n", r.ID.Type, r.ID.Format)
		case r.IDField != "":
			fmt.Fprintf(&b, "  id %s: %s %s client-chosen=%v\n", r.IDField, r.ID.Type, r.ID.Format, r.ClientIDs)
		}
		if r.Parent != nil {
			fmt.Fprintf(&b, "  parent %s via %v, field %q\n", r.Parent.Path, r.ParentParams, r.ParentField)
		}
		if len(r.Assigned) > 0 {
			fmt.Fprintf(&b, "  assigned %s\n", strings.Join(r.Assigned, ", "))
		}
		if r.SelfField != "" {
			fmt.Fprintf(&b, "  self link %s\n", r.SelfField)
		}
		for _, o := range r.Ops {
			fmt.Fprintf(&b, "  %-11s %s %s", o.Kind, o.Op.Method, o.Op.Path)
			if o.Request.Kind != "" {
				fmt.Fprintf(&b, " takes %s", o.Request.Kind)
				if o.Request.Field != "" {
					fmt.Fprintf(&b, " in %q", o.Request.Field)
				}
				fmt.Fprintf(&b, " as %s", o.Request.MediaType)
			}
			fmt.Fprintf(&b, " answers %d %s", o.Response.Status, o.Response.Kind)
			if o.Response.Field != "" {
				fmt.Fprintf(&b, " in %q", o.Response.Field)
			}
			if o.CreatesOnPut {
				b.WriteString(", creating at the path")
			}
			if o.IfMatch {
				b.WriteString(", If-Match")
			}
			b.WriteString("\n")
			if o.List != nil && o.Kind == KindSearch {
				b.WriteString("  ")
				describeList(&b, o.List)
			}
		}
		if l := r.List; l != nil {
			describeList(&b, l)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	return b.String()
}

// describeList renders a list's shape on one line.
func describeList(b *strings.Builder, l *ListShape) {
	{
		fmt.Fprintf(b, "  list: items at %v, paging %s", l.Items, l.Paging)
		for _, p := range []struct {
			name string
			v    string
		}{{"limit", l.LimitParam}, {"offset", l.OffsetParam}, {"page", l.PageParam}, {"cursor", l.Cursor}, {"sort", l.SortParam}} {
			if p.v != "" {
				fmt.Fprintf(b, ", %s=%s", p.name, p.v)
			}
		}
		for _, f := range []struct {
			name string
			at   []string
		}{{"total", l.Total}, {"next", l.Next}, {"prev", l.Prev}, {"hasMore", l.HasMore}} {
			if f.at != nil {
				fmt.Fprintf(b, ", %s at %v", f.name, f.at)
			}
		}
		for _, f := range l.Filters {
			fmt.Fprintf(b, ", filter %s", f.Param)
		}
		b.WriteString("\n")
	}
}

// TestResourcesInferred holds resource inference to golden files, one per
// document of fixtures/ and of the shared corpus (corpus-*.golden, skipped
// where the corpus is absent): what each resource is, its id, its parent,
// the kind and shapes of each operation, and its list's paging and
// envelope. Run with -update after a deliberate change and read the diff.
func TestResourcesInferred(t *testing.T) {
	// corpus is the corpus document's name, "" for a fixture.
	type doc struct{ name, path, corpus string }
	var docs []doc
	for _, p := range []string{"", "../fixtures/library/openapi.yaml", styles + "crud.yaml", styles + "multifile/openapi.yaml", styles + "polymorphic.yaml", styles + "settings.yaml", styles + "listed-not-read.yaml"} {
		name := "petstore"
		if p != "" {
			name = strings.TrimSuffix(filepath.Base(filepath.Dir(p)), "/")
			if base := filepath.Base(p); base != "openapi.yaml" {
				name = strings.TrimSuffix(base, ".yaml")
			}
		}
		docs = append(docs, doc{name, p, ""})
	}
	_, found, err := corpus.Find("..")
	if err != nil {
		t.Fatal(err)
	}
	if found == nil {
		t.Log(corpus.SkipReason + ": only the fixtures' inference is checked")
	}
	for _, d := range found {
		docs = append(docs, doc{"corpus-" + d.Name, d.Path, d.Name})
	}
	for _, d := range docs {
		name, doc := d.name, d.path
		t.Run(name, func(t *testing.T) {
			if why := corpus.RaceSkip(d.corpus); d.corpus != "" && why != "" {
				t.Skip(why)
			}
			s, err := Load(doc)
			if err != nil {
				t.Fatal(err)
			}
			got := describeResources(s)
			golden := filepath.Join("testdata", "resources", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./spec -run TestResourcesInferred -update)", err)
			}
			if got != string(want) {
				t.Errorf("inferred resources differ from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestNormIsCheap holds norm to one allocation (the lowered copy): it runs
// for every property inference looks at, and building its Replacer per call
// was a third of what loading the largest corpus documents allocated.
func TestNormIsCheap(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"page_size", "pagesize"}, {"Page-Size", "pagesize"}, {"page.size", "pagesize"}, {"pageSize", "pagesize"},
	} {
		if got := norm(tc.in); got != tc.want {
			t.Errorf("norm(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := testing.AllocsPerRun(100, func() { norm("Page_Size") }); got > 2 {
		t.Errorf("norm allocates %v times per call, want at most 2", got)
	}
}

// TestAssignedLeavesWhatTheCreateDeclares: a readOnly field of the item is
// the server's to assign, unless the create's own body declares it
// writable: then the client gives it when creating.
func TestAssignedLeavesWhatTheCreateDeclares(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /users:
    post:
      operationId: createUser
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                email: {type: string}
                token: {type: string, readOnly: true}
      responses:
        '201':
          description: Created.
          content: {application/json: {schema: {$ref: '#/components/schemas/User'}}}
  /users/{userId}:
    get:
      operationId: getUser
      parameters: [{name: userId, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: The user.
          content: {application/json: {schema: {$ref: '#/components/schemas/User'}}}
  /teams:
    post:
      operationId: createTeam
      requestBody:
        content: {application/json: {schema: {$ref: '#/components/schemas/Team'}}}
      responses:
        '201':
          description: Created.
          content: {application/json: {schema: {$ref: '#/components/schemas/Team'}}}
  /teams/{teamId}:
    get:
      operationId: getTeam
      parameters: [{name: teamId, in: path, required: true, schema: {type: integer}}]
      responses:
        '200':
          description: The team.
          content: {application/json: {schema: {$ref: '#/components/schemas/Team'}}}
components:
  schemas:
    User:
      type: object
      properties:
        id: {type: integer, readOnly: true}
        email: {type: string, readOnly: true}
        token: {type: string, readOnly: true}
        name: {type: string}
    Team:
      type: object
      properties:
        id: {type: integer, readOnly: true}
        slug: {type: string, readOnly: true}
        name: {type: string}
`
	s, err := Parse([]byte(doc), "assigned.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/users", "id, token"}, // email: the create's body declares it
		{"/teams", "id, slug"},  // the create takes the item: slug stays readOnly
	} {
		var got string
		for _, r := range s.Resources {
			if r.Path == tc.path {
				got = strings.Join(r.Assigned, ", ")
			}
		}
		if got != tc.want {
			t.Errorf("%s: assigned %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestIDTakesTheFormatOfPathsUnderTheItem: where the item's own path
// leaves its id parameter a free string and a path under the item declares
// it a uuid (resend's {email_id}), ids are uuids: every path that names the
// item must take its id. A format the item's own paths declare wins, and
// a path under the item that declares another type is not followed.
func TestIDTakesTheFormatOfPathsUnderTheItem(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /emails:
    post:
      operationId: sendEmail
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
      responses:
        '200': {description: Sent., content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
  /emails/{email_id}:
    get:
      operationId: getEmail
      parameters: [{name: email_id, in: path, required: true, schema: {type: string}}]
      responses:
        '200': {description: The email., content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
  /emails/{email_id}/attachments:
    get:
      operationId: listAttachments
      parameters: [{name: email_id, in: path, required: true, schema: {type: string, format: uuid}}]
      responses:
        '200': {description: Its attachments., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Attachment'}}}}}
  /notes:
    post:
      operationId: createNote
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
      responses:
        '201': {description: Created., content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
  /notes/{note_id}:
    get:
      operationId: getNote
      parameters: [{name: note_id, in: path, required: true, schema: {type: string, pattern: '^n[0-9]+$'}}]
      responses:
        '200': {description: The note., content: {application/json: {schema: {$ref: '#/components/schemas/Email'}}}}
  /notes/{note_id}/tags:
    get:
      operationId: listTags
      parameters: [{name: note_id, in: path, required: true, schema: {type: string, format: uuid}}]
      responses:
        '200': {description: Its tags., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Attachment'}}}}}
components:
  schemas:
    Email:
      type: object
      properties:
        id: {type: string, readOnly: true}
        subject: {type: string}
    Attachment:
      type: object
      properties:
        id: {type: string, readOnly: true}
`
	s, err := Parse([]byte(doc), "ids.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, format, pattern string }{
		{"/emails", "uuid", ""},
		{"/notes", "", "^n[0-9]+$"}, // its own path's pattern
	} {
		var got *Resource
		for _, r := range s.Resources {
			if r.Path == tc.path {
				got = r
			}
		}
		if got == nil {
			t.Fatalf("%s: no resource", tc.path)
		}
		if got.ID.Format != tc.format || got.ID.Pattern != tc.pattern {
			t.Errorf("%s: id format %q, pattern %q; want %q, %q", tc.path, got.ID.Format, got.ID.Pattern, tc.format, tc.pattern)
		}
	}
}

// TestDeprecatedPageSizeReadLast: where a list keeps a deprecated page
// size beside its current one (ory-kratos's per_page, deprecated in its
// description, before page_size), the current one is the page size,
// whichever is declared first; deprecated: true says so too.
func TestDeprecatedPageSizeReadLast(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a:
    get:
      operationId: listA
      parameters:
        - {name: per_page, in: query, description: "Deprecated Items per Page\n\nDEPRECATED: Please use page_token.", schema: {type: integer}}
        - {name: page_size, in: query, schema: {type: integer}}
        - {name: page_token, in: query, schema: {type: string}}
      responses:
        '200': {description: A., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/T'}}}}}
  /b:
    get:
      operationId: listB
      parameters:
        - {name: limit, in: query, deprecated: true, schema: {type: integer}}
        - {name: size, in: query, schema: {type: integer}}
      responses:
        '200': {description: B., content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/T'}}}}}
components:
  schemas:
    T:
      type: object
      properties:
        id: {type: integer, readOnly: true}
`
	s, err := Parse([]byte(doc), "deprecated.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/a": "page_size", "/b": "size"} {
		var got string
		for _, r := range s.Resources {
			if r.Path == path {
				if lo := r.Op(KindList); lo != nil && lo.List != nil {
					got = lo.List.LimitParam
				}
			}
		}
		if got != want {
			t.Errorf("%s: page size %q, want %q", path, got, want)
		}
	}
}

// TestCursorNames: a cursor parameter that pages back takes no next
// page's cursor (conform's next-page check leaves such lists out); one
// named for an item takes its id (Stripe's starting_after).
func TestCursorNames(t *testing.T) {
	for name, want := range map[string][2]bool{
		"before": {true, true}, "ending_before": {true, true}, "endingBefore": {true, true}, "prev": {true, false},
		"after": {false, true}, "starting_after": {false, true}, "page_token": {false, false}, "": {false, false},
	} {
		if got := [2]bool{BackwardCursor(name), CursorTakesID(name)}; got != want {
			t.Errorf("%q: backward, takes an id %v, want %v", name, got, want)
		}
	}
}
