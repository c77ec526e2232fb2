package store

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends v as encoding/json writes it with HTML escaping off
// (the bodies are JSON, not HTML), byte for byte. What DecodeStrict makes
// (objects, arrays, strings, json.Number, bools, null) and ints are written
// here, an object's keys sorted as encoding/json sorts them: reflection
// made encoding a list's envelope a third of a lago page's cost. Any other
// value, and a number encoding/json would refuse, goes through
// encoding/json, which gives the error. TestAppendJSONWritesWhatJSONWrites
// holds the two to the same bytes.
func AppendJSON(buf []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case string:
		return AppendJSONString(buf, t), nil
	case json.Number:
		if end, want := scanNumber(string(t), 0); want == "" && end == len(t) {
			return append(buf, t...), nil
		}
		if t == "" {
			return append(buf, '0'), nil // as encoding/json writes it
		}
	case bool:
		return strconv.AppendBool(buf, t), nil
	case nil:
		return append(buf, "null"...), nil
	case int:
		return strconv.AppendInt(buf, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(buf, t, 10), nil
	case map[string]any:
		if t == nil {
			return append(buf, "null"...), nil
		}
		var small [16]string // an envelope's or a record's keys, kept off the heap
		keys := small[:0]
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf = append(buf, '{')
		var err error
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(AppendJSONString(buf, k), ':')
			if buf, err = AppendJSON(buf, t[k]); err != nil {
				return buf, err
			}
		}
		return append(buf, '}'), nil
	case json.RawMessage: // a list's items while its envelope is written
		if t == nil {
			return append(buf, "null"...), nil
		}
		if plainJSONString(t) {
			return append(buf, t...), nil // compact already: Compact's scan costs more than the rest
		}
		b := bytes.NewBuffer(buf)
		if json.Compact(b, t) == nil {
			return b.Bytes(), nil
		}
	case []any:
		if t == nil {
			return append(buf, "null"...), nil
		}
		buf = append(buf, '[')
		var err error
		for i, e := range t {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = AppendJSON(buf, e); err != nil {
				return buf, err
			}
		}
		return append(buf, ']'), nil
	}
	return appendEncoded(buf, v)
}

// plainJSONString reports whether raw is a JSON string of printable ASCII
// without escapes, such as the mark a list's items stand in for while its
// envelope is written: valid and compact as it is.
func plainJSONString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendEncoded appends v as encoding/json writes it, without HTML
// escaping.
func appendEncoded(buf []byte, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return buf, err
	}
	return append(buf, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}

// AppendJSONString appends s as a JSON string, escaped byte for byte as
// encoding/json escapes it with HTML escaping off: quotes, backslashes,
// control characters (\b and \f in their short forms), U+2028 and U+2029;
// invalid UTF-8 becomes U+FFFD. TestAppendJSONWritesWhatJSONWrites holds it
// to encoding/json.
func AppendJSONString(buf []byte, s string) []byte {
	return appendJSONString(buf, s, true)
}

// AppendSlogJSONString appends s as slog's JSON handler writes it: as
// AppendJSONString does, except that slog writes \b and \f as \u0008 and
// \u000c. TestLogHandlersWriteWhatSlogWrites (engine) holds it to slog.
func AppendSlogJSONString(buf []byte, s string) []byte {
	return appendJSONString(buf, s, false)
}

// appendJSONString is AppendJSONString, with \b and \f short only when
// shortBF is set.
func appendJSONString(buf []byte, s string, shortBF bool) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			case '\b':
				if shortBF {
					buf = append(buf, '\\', 'b')
				} else {
					buf = append(buf, `\u0008`...)
				}
			case '\f':
				if shortBF {
					buf = append(buf, '\\', 'f')
				} else {
					buf = append(buf, `\u000c`...)
				}
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
