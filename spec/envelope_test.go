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
