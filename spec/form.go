package spec

// Form bodies: application/x-www-form-urlencoded, as Stripe-style APIs and
// browser flows post them. The body is read into the JSON document its
// schema describes, so that it is validated, stored and answered exactly as
// the same body sent as JSON would be.
//
// libopenapi-validator has such a reading (TransformURLEncodedToSchemaJSON),
// but it refuses any decoded value that holds a reserved character (an
// email's @) unless the document sets allowReserved, which governs how a
// value is percent-encoded on the wire, not what it may hold; and it reads
// nested keys by their first level only. Hence this one.

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/url"
	"slices"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// FormMediaType is the media type of a form body.
const FormMediaType = "application/x-www-form-urlencoded"

// IsForm reports whether a Content-Type is a form body's.
func IsForm(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && strings.EqualFold(mt, FormMediaType)
}

// formMedia is a body's form media type, nil where it declares none.
func formMedia(content *orderedmap.Map[string, *v3.MediaType]) *v3.MediaType {
	if content == nil {
		return nil
	}
	for name, m := range content.FromOldest() {
		if IsForm(name) {
			return m
		}
	}
	return nil
}

// FormError says why a form body could not be read.
type FormError struct{ Reason string }

func (e *FormError) Error() string { return e.Reason }

// maxFormDepth bounds the brackets of one key (a[b][c]...), as JSON bodies
// are bounded in nesting.
const maxFormDepth = 32

// DecodeForm reads a form body sent to op into the JSON document its form
// media type's schema describes: a key is a property, brackets reach into
// objects and arrays (metadata[plan]=gold, items[0][price]=p, tags[]=a),
// a key repeated or a single value is an array where the schema's is one
// (and is split at commas, spaces or pipes where the document's encoding
// sets explode: false), and each value is read as its schema's type says:
// integers and numbers as JSON numbers, true and false as booleans, an
// empty value of a nullable non-string as null. A value that does not read
// as its type stays a string, for the validator to refuse with its reason.
// The error is a *FormError for a body that is no form.
func (s *Spec) DecodeForm(op *Operation, body []byte) (map[string]any, error) {
	values, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, &FormError{Reason: fmt.Sprintf("the form body is not application/x-www-form-urlencoded: %v", err)}
	}
	var m *v3.MediaType
	var root *Schema
	if op.Body != nil {
		m, root = op.Body.Form, op.Body.FormSchema
	}
	tree := formNode{}
	// Keys in order, so that a[0] and a[1] meet their arrays the same way
	// on every request.
	for _, key := range slices.Sorted(maps.Keys(values)) {
		name, path, err := splitFormKey(key)
		if err != nil {
			return nil, err
		}
		vs := values[key]
		if len(path) == 0 && m != nil && m.Encoding != nil {
			vs = splitByEncoding(vs, m.Encoding.GetOrZero(name), root.Prop(name))
		}
		tree.add(append([]string{name}, path...), vs)
	}
	out, _ := tree.value(root).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// splitFormKey takes a key apart: "items[0][price]" is items, then 0 and
// price; "tags[]" is tags, then "" (the next element). A key whose
// brackets do not close is a name as it is.
func splitFormKey(key string) (string, []string, error) {
	open := strings.IndexByte(key, '[')
	if open <= 0 || !strings.HasSuffix(key, "]") {
		return key, nil, nil
	}
	name, rest := key[:open], key[open:]
	var path []string
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 || strings.IndexByte(rest[1:end], '[') >= 0 {
			return key, nil, nil
		}
		path = append(path, rest[1:end])
		rest = rest[end+1:]
	}
	if len(path) > maxFormDepth {
		return "", nil, &FormError{Reason: fmt.Sprintf("form key %q nests deeper than %d levels", truncateKey(key), maxFormDepth)}
	}
	return name, path, nil
}

func truncateKey(k string) string {
	if len(k) > 60 {
		return k[:60] + "..."
	}
	return k
}

// splitByEncoding splits the one value of an array property sent unexploded
// (encoding explode: false, or a style other than form), as the document's
// encoding object says.
func splitByEncoding(vs []string, enc *v3.Encoding, schema *Schema) []string {
	if enc == nil || len(vs) != 1 || schema.Type() != "array" {
		return vs
	}
	style, explode := enc.Style, true
	if enc.Explode != nil {
		explode = *enc.Explode
	} else if style != "" && style != "form" {
		explode = false
	}
	if explode {
		return vs
	}
	sep := ","
	switch style {
	case "spaceDelimited":
		sep = " "
	case "pipeDelimited":
		sep = "|"
	}
	return strings.Split(vs[0], sep)
}

// formNode is what the keys under one name hold: values (a leaf, or the
// elements "[]" appends), and named or numbered children.
type formNode struct {
	values   []string
	children map[string]*formNode
}

func (n *formNode) add(path []string, vs []string) {
	if len(path) == 0 {
		n.values = append(n.values, vs...)
		return
	}
	if n.children == nil {
		n.children = map[string]*formNode{}
	}
	key := path[0]
	if key == "" && len(path) > 1 { // a[][b]: each value a new element
		for _, v := range vs {
			c := &formNode{}
			c.add(path[1:], []string{v})
			n.children[strconv.Itoa(len(n.children))] = c
		}
		return
	}
	if key == "" { // a[]=x: elements in order
		key = "\x00"
	}
	c := n.children[key]
	if c == nil {
		c = &formNode{}
		n.children[key] = c
	}
	c.add(path[1:], vs)
}

// value is the node as the JSON value schema describes.
func (n *formNode) value(schema *Schema) any {
	if n.children == nil {
		return formLeaf(n.values, schema)
	}
	if schema.Type() == "array" || schema.Type() == "" && numbered(n.children) {
		return n.array(schema)
	}
	obj := make(map[string]any, len(n.children))
	for k, c := range n.children {
		if k == "\x00" {
			k = ""
		}
		obj[k] = c.value(childSchema(schema, k))
	}
	return obj
}

// array is a node's elements: numbered children in their numbers' order,
// then the values appended with [] (or sent under the name alone). A node
// with a named child is an object, for the validator to refuse where the
// schema declares an array.
func (n *formNode) array(schema *Schema) any {
	var items *Schema
	if schema != nil {
		items = schema.Items
	}
	var keys []int
	for k := range n.children {
		i, err := strconv.Atoi(k)
		switch {
		case k == "\x00":
		case err != nil || i < 0:
			obj := make(map[string]any, len(n.children))
			for k, c := range n.children {
				obj[k] = c.value(nil)
			}
			return obj
		default:
			keys = append(keys, i)
		}
	}
	slices.Sort(keys)
	out := []any{}
	for _, i := range keys {
		out = append(out, n.children[strconv.Itoa(i)].value(items))
	}
	if c := n.children["\x00"]; c != nil {
		for _, v := range c.values {
			out = append(out, formScalar(v, items))
		}
	}
	for _, v := range n.values {
		out = append(out, formScalar(v, items))
	}
	return out
}

func numbered(children map[string]*formNode) bool {
	for k := range children {
		if _, err := strconv.Atoi(k); err != nil && k != "\x00" {
			return false
		}
	}
	return true
}

// childSchema is the schema of an object's property, its additional
// properties' where it declares none by that name.
func childSchema(schema *Schema, name string) *Schema {
	if schema == nil {
		return nil
	}
	if p := schema.Prop(name); p != nil && p != undeclared {
		return p
	}
	return schema.AdditionalProperties
}

// formLeaf is the value of a key sent once or more.
func formLeaf(vs []string, schema *Schema) any {
	if schema.Type() == "array" { // so schema is not nil
		out := make([]any, len(vs))
		for i, v := range vs {
			out[i] = formScalar(v, schema.Items)
		}
		return out
	}
	if len(vs) == 1 {
		return formScalar(vs[0], schema)
	}
	out := make([]any, len(vs)) // sent more than once where one value is declared
	for i, v := range vs {
		out[i] = formScalar(v, schema)
	}
	return out
}

// formScalar reads one value as its schema's type.
func formScalar(v string, schema *Schema) any {
	t := schema.Type()
	if v == "" && schema != nil && schema.Nullable && t != "string" {
		return nil
	}
	switch t {
	case "integer", "number":
		if isJSONNumber(v) {
			return json.Number(v)
		}
	case "boolean":
		switch v {
		case "true":
			return true
		case "false":
			return false
		}
	case "object", "array":
		// A part sent as JSON (the encoding's contentType), as clients
		// send structured values in one field.
		var doc any
		if json.Unmarshal([]byte(v), &doc) == nil {
			return doc
		}
	}
	return v
}

// isJSONNumber reports whether v is written as a JSON number is: strconv
// also reads "+1", "0x1p3", ".5" and "Inf", which JSON has no place for.
func isJSONNumber(v string) bool {
	if v == "" || strings.TrimSpace(v) != v || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(v), &n) == nil
}

// FormBody validates a form body, as DecodeForm read it, against the
// schema of op's form media type; nil where op declares none.
func (v *Validator) FormBody(op *Operation, doc map[string]any) Problems {
	if op.Body == nil || op.Body.FormSchema == nil {
		return nil
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return Problems{{Where: "body", Reason: err.Error()}}
	}
	ps := v.Schema(op.Body.FormSchema.lib, data)
	for i := range ps { // the form's fields are the body's
		ps[i].Where = strings.TrimSpace("body " + ps[i].Where)
	}
	return ps
}
