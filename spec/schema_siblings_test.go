package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefSiblingsRequired: in OpenAPI 3.1 a required list beside a $ref
// applies (JSON Schema 2020-12), so values made for the schema carry those
// properties; 3.0 ignores it.
func TestRefSiblingsRequired(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    bool
	}{{"3.1.0", true}, {"3.0.3", false}} {
		t.Run(tc.version, func(t *testing.T) {
			doc := `openapi: ` + tc.version + `
info: {title: Siblings, version: "1"}
paths:
  /things:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                thing:
                  $ref: '#/components/schemas/Base'
                  required: [name]
      responses:
        '204': {description: Done.}
components:
  schemas:
    Base:
      type: object
      properties:
        name: {type: string}
`
			path := filepath.Join(t.TempDir(), "doc.yaml")
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			thing := s.SchemaView(s.Operations[0].Body.Schema).Prop("thing")
			_, required := thing.Props()
			if required["name"] != tc.want {
				t.Errorf("name required: %v, want %v", required["name"], tc.want)
			}
			v := (&Values{}).Value(thing, "").(map[string]any)
			if _, ok := v["name"]; ok != tc.want {
				t.Errorf("made %v: name present %v, want %v", v, ok, tc.want)
			}
		})
	}
}
