package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends v as JSON. Scalars are written directly; structures
// fall back to encoding/json (without HTML escaping: the bodies are JSON,
// not HTML).
func appendJSON(buf []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case string:
		return AppendJSONString(buf, t), nil
	case json.Number:
		return append(buf, t...), nil
	case bool:
		return strconv.AppendBool(buf, t), nil
	case nil:
		return append(buf, "null"...), nil
	}
	return appendEncoded(buf, v)
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

// AppendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it with HTML escaping off (which is also how slog's JSON handler
// writes strings): quotes, backslashes, control characters, U+2028 and
// U+2029; invalid UTF-8 becomes U+FFFD. TestRecordViewMatchesUnmarshal
// holds it to encoding/json, TestLogHandlersWriteWhatSlogWrites (engine)
// to slog.
func AppendJSONString(buf []byte, s string) []byte {
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
