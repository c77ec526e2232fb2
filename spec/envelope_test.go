package spec

import (
	"fmt"
	"strings"
	"testing"
)

// TestEnvelopeItemsHash holds EnvelopeItemsHash to its rule: the items'
// hash where nothing but properties leads to a plain array, none where
// any keyword could see the array's contents.
func TestEnvelopeItemsHash(t *testing.T) {
	tests := []struct {
		name   string
		schema string // the list answer's schema, under a 200's application/json
		at     []string
		ok     bool
	}{
		{"plain", `{type: object, required: [data], properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}, total: {type: integer, maximum: 5}}}`, []string{"data"}, true},
		{"nested", `{type: object, properties: {page: {type: object, required: [items], properties: {items: {type: array, items: {$ref: '#/components/schemas/Item'}}}}}}`, []string{"page", "items"}, true},
		{"additionalProperties false", `{type: object, additionalProperties: false, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, true},
		{"wrong path", `{type: object, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"items"}, false},
		{"no path", `{type: array, items: {$ref: '#/components/schemas/Item'}}`, nil, false},
		{"maxItems", `{type: object, properties: {data: {type: array, maxItems: 3, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"allOf", `{type: object, allOf: [{required: [data]}], properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"oneOf", `{type: object, oneOf: [{required: [data]}], properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"not", `{type: object, not: {required: [x]}, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"if", `{type: object, if: {required: [x]}, then: {required: [y]}, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"enum", `{type: object, enum: [{data: []}], properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"patternProperties", `{type: object, patternProperties: {'^d': {maxItems: 1}}, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"dependentSchemas", `{type: object, dependentSchemas: {data: {properties: {data: {maxItems: 1}}}}, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"unevaluatedProperties", `{type: object, unevaluatedProperties: false, properties: {data: {type: array, items: {$ref: '#/components/schemas/Item'}}}}`, []string{"data"}, false},
		{"nested level with anyOf", `{type: object, properties: {page: {type: object, anyOf: [{required: [items]}], properties: {items: {type: array, items: {$ref: '#/components/schemas/Item'}}}}}}`, []string{"page", "items"}, false},
		{"other items", `{type: object, properties: {data: {type: array, items: {type: object}}}}`, []string{"data"}, true}, // ok, with another hash
		{"$ref with siblings", `{type: object, properties: {data: {$ref: '#/components/schemas/Items', maxItems: 2}}}`, []string{"data"}, false},
		{"$ref alone", `{type: object, properties: {data: {$ref: '#/components/schemas/Items'}}}`, []string{"data"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := fmt.Sprintf(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /items:
    get:
      operationId: list
      responses:
        '200':
          description: a page
          content:
            application/json:
              schema: %s
components:
  schemas:
    Item: {type: object, properties: {id: {type: integer}}}
    Items: {type: array, items: {$ref: '#/components/schemas/Item'}}
`, tc.schema)
			s, err := Parse([]byte(doc), "envelope.yaml")
			if err != nil {
				t.Fatal(err)
			}
			resp := s.Operation("list").Responses[0]
			hash, ok := EnvelopeItemsHash(resp.Schema, tc.at)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			item, _ := s.Model.Components.Schemas.Get("Item")
			want, _ := SchemaHash(item.Schema())
			if ok && (hash == want) == strings.HasPrefix(tc.name, "other") {
				t.Errorf("hash = %x, the item's %x: want them %s", hash, want, map[bool]string{true: "different", false: "equal"}[strings.HasPrefix(tc.name, "other")])
			}
		})
	}
}

// TestRecordsHoldingArraysAreNoPages: an object with one array of objects
// is a page of them, unless it is a record itself (it requires an id) or
// carries one beside the array (a required object that requires an id: a
// login's session beside the steps that follow it); a required paging
// object (meta) leaves it a page.
func TestRecordsHoldingArraysAreNoPages(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		page         bool
	}{
		{"page", `{type: object, required: [data], properties: {data: {type: array, items: {$ref: '#/components/schemas/Step'}}, total: {type: integer}}}`, true},
		{"page with required meta", `{type: object, required: [data, meta], properties: {data: {type: array, items: {$ref: '#/components/schemas/Step'}}, meta: {type: object, required: [total], properties: {total: {type: integer}}}}}`, true},
		{"page with an optional record", `{type: object, properties: {data: {type: array, items: {$ref: '#/components/schemas/Step'}}, owner: {$ref: '#/components/schemas/Session'}}}`, true},
		{"a record holding steps", `{type: object, required: [id], properties: {id: {type: string}, steps: {type: array, items: {$ref: '#/components/schemas/Step'}}}}`, false},
		{"a result carrying a record", `{type: object, required: [session], properties: {session: {$ref: '#/components/schemas/Session'}, continue_with: {type: array, items: {$ref: '#/components/schemas/Step'}}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := fmt.Sprintf(`openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Answer: %s
    Step: {type: object, properties: {action: {type: string}}}
    Session: {type: object, required: [id], properties: {id: {type: string}}}
`, tc.schema)
			s, err := Parse([]byte(doc), "pages.yaml")
			if err != nil {
				t.Fatal(err)
			}
			answer := s.SchemaView(s.Model.Components.Schemas.GetOrZero("Answer").Schema())
			if items, _ := listItems(answer); (items != nil) != tc.page {
				t.Errorf("read as a page: %t, want %t", items != nil, tc.page)
			}
		})
	}
}
