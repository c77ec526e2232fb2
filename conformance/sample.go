package conformance

// Requests the document accepts, and the values in them: a sample value
// for every schema, a wrong-typed one for the create checks, and the
// values no deployment can hold.

import (
	"encoding/json"
	"math"
	"math/big"
	"net/url"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/petctl/petctl/spec"
)

// Values the suite sends where it needs one the deployment cannot hold or accept.
const (
	unknownEnum    = "petctl-conform-unknown"
	unknownIntID   = "9007199254740991" // 2^53-1: a valid int64 no deployment is likely to have reached
	unknownUUID    = "ffffffff-ffff-4fff-bfff-ffffffffffff"
	unknownString  = "petctl-conform-unknown-id"
	sampleUUID     = "00000000-0000-4000-8000-000000000001"
	sampleDateTime = "2026-01-01T00:00:00Z"
)

// validRequest is a request to op the document accepts: path parameters
// from their schemas (the sample id for a read), required query
// parameters, and a body with every field, named after the run.
func (s *suite) validRequest(op *spec.Operation, mode authMode) *request {
	r := &request{op: op, auth: mode, path: map[string]string{}, query: url.Values{}}
	coll := s.spec.Collection(op)
	for _, p := range op.Params {
		switch p.In {
		case "path":
			if coll != nil && coll.Read == op && p.Name == coll.IDParam {
				r.path[p.Name] = sampleID(coll)
			} else {
				r.path[p.Name] = scalarString(sample(p.Schema, "petctl-conform", 0))
			}
		case "query":
			if p.Required {
				r.query.Set(p.Name, scalarString(sample(p.Schema, "petctl-conform", 0)))
			}
		}
	}
	if op.Body != nil && op.Body.Schema != nil {
		r.recordName = s.nextName()
		r.body = marshal(sample(op.Body.Schema, r.recordName, 0))
	}
	return r
}

func sampleID(c *spec.Collection) string {
	if f := c.Field(c.IDField); f != nil && f.Schema != nil && strings.EqualFold(f.Schema.Format, "uuid") {
		return sampleUUID
	}
	return "1"
}

// sample builds a value the schema accepts. Free strings carry name, so a
// record the value ends up in says where it came from. Objects get every
// property, optional ones too, so a create sends every field it can.
func sample(s *base.Schema, name string, depth int) any {
	if s == nil {
		return name
	}
	if v, ok := firstEnum(s); ok {
		return v
	}
	if s.Const != nil {
		var v any
		if s.Const.Decode(&v) == nil {
			return v
		}
	}
	if depth > 8 {
		return nil
	}
	for _, alt := range [][]*base.SchemaProxy{s.OneOf, s.AnyOf} {
		if len(alt) > 0 && spec.SchemaType(s) == "" {
			return sample(alt[0].Schema(), name, depth+1)
		}
	}
	switch spec.SchemaType(s) {
	case "object":
		names, props, _ := spec.ObjectProperties(s)
		obj := map[string]any{}
		for _, n := range names {
			obj[n] = sample(props[n], name, depth+1)
		}
		return obj
	case "array":
		var item any = name
		if s.Items != nil && s.Items.IsA() && s.Items.A != nil {
			item = sample(s.Items.A.Schema(), name, depth+1)
		}
		n := 1
		if s.MinItems != nil && *s.MinItems > 1 {
			n = int(*s.MinItems)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = item
		}
		return out
	case "integer":
		return json.Number(big.NewInt(int64(sampleNumber(s, true))).String())
	case "number":
		return json.Number(big.NewFloat(sampleNumber(s, false)).Text('g', -1))
	case "boolean":
		return true
	}
	return sampleString(s, name)
}

func firstEnum(s *base.Schema) (any, bool) {
	for _, n := range s.Enum {
		if n == nil || n.Tag == "!!null" {
			continue
		}
		var v any
		if n.Decode(&v) == nil {
			if f, ok := v.(int); ok {
				return json.Number(big.NewInt(int64(f)).String()), true
			}
			return v, true
		}
	}
	return nil, false
}

func sampleNumber(s *base.Schema, integer bool) float64 {
	v := 1.0
	if s.Minimum != nil && v < *s.Minimum {
		v = *s.Minimum
	}
	if s.ExclusiveMinimum != nil && s.ExclusiveMinimum.IsB() && v <= s.ExclusiveMinimum.B {
		v = s.ExclusiveMinimum.B + 1
	}
	if s.Maximum != nil && v > *s.Maximum {
		v = *s.Maximum
	}
	if integer {
		v = math.Ceil(v)
		if s.Maximum != nil && v > *s.Maximum {
			v = math.Floor(*s.Maximum)
		}
	}
	return v
}

func sampleString(s *base.Schema, name string) string {
	switch strings.ToLower(s.Format) {
	case "uuid":
		return sampleUUID
	case "date-time":
		return sampleDateTime
	case "date":
		return sampleDateTime[:10]
	case "email":
		return name + "@example.com"
	case "uri", "url":
		return "https://example.com/" + url.PathEscape(name)
	case "hostname":
		return "example.com"
	case "ipv4":
		return "192.0.2.1"
	case "ipv6":
		return "2001:db8::1"
	}
	v := name
	if s.MaxLength != nil && int64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	if s.MinLength != nil {
		for int64(len(v)) < *s.MinLength {
			v += "x"
		}
	}
	return v
}

// wrongType is a JSON value of another type than the schema's.
func wrongType(s *base.Schema) any {
	switch spec.SchemaType(s) {
	case "string":
		return json.Number("42")
	case "integer", "number", "boolean", "array", "object":
		return "petctl-conform-wrong-type"
	}
	if _, ok := firstEnum(s); ok {
		return json.Number("42")
	}
	return nil
}

// typeName names the JSON type of a wrong-type value, for check names.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	}
	return "null"
}

// marshal encodes a body; map keys come out sorted, so the same document
// gives the same bytes every run.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil { // cannot happen: sample builds maps, slices and scalars
		panic(err)
	}
	return b
}
