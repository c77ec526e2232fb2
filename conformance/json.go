package conformance

// The JSON of responses and request bodies as the checks read it: decoded
// with numbers kept exact, compared by value, and shown in messages with
// the key redacted.

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeJSON decodes a body, numbers kept exact; nil when it is not JSON.
func decodeJSON(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	if dec.More() {
		return nil
	}
	return v
}

// scalarString renders a JSON scalar as it would appear in a path or query.
func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

// jsonText renders a decoded value for a message. redact is applied
// before the text is cut, so a cut never leaves a part of the key.
func jsonText(v any, redact func(string) string) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	text := redact(string(b))
	if len(text) > 80 {
		n := 77
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		return text[:n] + "…"
	}
	return text
}

func describeField(obj map[string]any, name string, redact func(string) string) string {
	v, ok := obj[name]
	if !ok {
		return "missing"
	}
	return jsonText(v, redact)
}
