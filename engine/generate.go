package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/petctl/petctl/spec"
)

// exampleValue makes a value that satisfies schema for a field the server
// assigns (a creation time, a version): the format decides where it can,
// then the enum, then the bounds. seq makes values differ between records.
func exampleValue(s *base.Schema, seq int64, now time.Time) any {
	if s == nil {
		return nil
	}
	for _, n := range s.Enum {
		var v any
		if n == nil || n.Tag == "!!null" || n.Decode(&v) != nil {
			continue
		}
		switch t := v.(type) { // numbers are json.Number everywhere in a record
		case int:
			return json.Number(strconv.Itoa(t))
		case float64:
			return json.Number(strconv.FormatFloat(t, 'g', -1, 64))
		}
		return v
	}
	switch spec.SchemaType(s) {
	case "string":
		switch s.Format {
		case "date-time":
			return now.UTC().Format(time.RFC3339)
		case "date":
			return now.UTC().Format(time.DateOnly)
		case "uuid":
			return seqUUID(seq)
		case "email":
			return fmt.Sprintf("user%d@example.com", seq)
		case "uri", "url":
			return fmt.Sprintf("https://example.com/%d", seq)
		}
		v := strconv.FormatInt(seq, 10)
		if s.MinLength != nil && int64(len(v)) < *s.MinLength {
			v += strings.Repeat("x", int(*s.MinLength)-len(v))
		}
		return v
	case "integer":
		if s.Minimum != nil {
			return json.Number(strconv.FormatInt(int64(*s.Minimum), 10))
		}
		return json.Number("0")
	case "number":
		if s.Minimum != nil {
			return json.Number(strconv.FormatFloat(*s.Minimum, 'g', -1, 64))
		}
		return json.Number("0")
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		obj := map[string]any{}
		names, props, required := spec.ObjectProperties(s)
		for _, n := range names {
			if required[n] {
				obj[n] = exampleValue(props[n], seq, now)
			}
		}
		return obj
	}
	return nil
}
