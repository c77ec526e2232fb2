package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting so a hostile body cannot exhaust the stack.
const maxJSONDepth = 64

// DecodeStrict decodes one JSON value and refuses what encoding/json lets
// pass silently: invalid UTF-8 (replaced by U+FFFD), duplicate object keys
// (the last one wins), data after the value, and deep nesting. Numbers stay
// json.Number so integers beyond 2^53 keep every digit.
//
// It is a small recursive-descent parser rather than json.Decoder.Token,
// which allocates per token and made decoding the largest cost of loading a
// million fixture records. FuzzDecodeStrict checks that it accepts exactly
// what encoding/json accepts (less the duplicates) and yields the same values.
func DecodeStrict(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	p := parser{data: data}
	p.skipSpace()
	if p.pos == len(data) {
		return nil, errors.New("no JSON value")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(data) {
		return nil, fmt.Errorf("unexpected data after the JSON value at byte %d", p.pos)
	}
	return v, nil
}

// parser reads JSON by hand, for DecodeStrict, decodeFields and the
// fixtures splitter (skipValue): every method of it is in this file.
type parser struct {
	data []byte
	pos  int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) fail(what string) error {
	if p.pos >= len(p.data) {
		return fmt.Errorf("malformed JSON: it ends at byte %d in the middle of a value", p.pos)
	}
	return fmt.Errorf("malformed JSON at byte %d: %s, found %s", p.pos+1, what, quoteByte(p.data[p.pos]))
}

func quoteByte(b byte) string {
	if b < 0x20 || b >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", b)
	}
	return strconv.QuoteRune(rune(b))
}

func (p *parser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("the JSON value nests deeper than %d levels", maxJSONDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.fail("a value expected")
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return nil
	}
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return p.fail("invalid literal (want " + word + ")")
		}
		p.pos++
	}
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	obj := make(map[string]any, 4)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("an object key (a string) expected")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			return nil, fmt.Errorf("duplicate key %q in an object", key)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("':' expected after an object key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail("',' or '}' expected in an object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // '['
	arr := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail("',' or ']' expected in an array")
		}
	}
}

// number scans a JSON number (RFC 8259 section 6) and keeps its text.
func (p *parser) number() (any, error) {
	start := p.pos
	end, want := scanNumber(p.data, p.pos)
	p.pos = end
	if want != "" {
		return nil, p.fail(want)
	}
	return json.Number(p.data[start:end]), nil
}

// scanNumber reads the JSON number (RFC 8259 section 6) that starts at
// pos, and returns where it ends; when it is not one, where it stopped and
// what was expected there. It is the one reading of numbers, for text in
// a string as well as in bytes.
func scanNumber[T string | []byte](data T, pos int) (end int, want string) {
	digits := func() {
		for pos < len(data) && data[pos] >= '0' && data[pos] <= '9' {
			pos++
		}
	}
	if pos < len(data) && data[pos] == '-' {
		pos++
	}
	switch {
	case pos < len(data) && data[pos] == '0':
		pos++
	case pos < len(data) && data[pos] >= '1' && data[pos] <= '9':
		digits()
	default:
		return pos, "a digit expected in a number"
	}
	if pos < len(data) && data[pos] == '.' {
		pos++
		if pos >= len(data) || data[pos] < '0' || data[pos] > '9' {
			return pos, "a digit expected after the decimal point"
		}
		digits()
	}
	if pos < len(data) && (data[pos] == 'e' || data[pos] == 'E') {
		pos++
		if pos < len(data) && (data[pos] == '+' || data[pos] == '-') {
			pos++
		}
		if pos >= len(data) || data[pos] < '0' || data[pos] > '9' {
			return pos, "a digit expected in the exponent"
		}
		digits()
	}
	return pos, ""
}

// string scans a JSON string; the input is known to be valid UTF-8.
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("a control character must be escaped in a string")
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("a control character must be escaped in a string")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.data) {
			break
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("four hex digits expected after \\u")
			}
			if utf16.IsSurrogate(r) {
				// A high surrogate needs its low half; alone it stands for
				// U+FFFD, as encoding/json decodes it.
				r2 := replacementRune
				if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if low, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, low); dec != replacementRune {
							r2 = dec
						} else {
							p.pos = save
						}
					} else {
						return "", p.fail("four hex digits expected after \\u")
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			p.pos--
			return "", p.fail("an invalid escape in a string")
		}
	}
	return "", p.fail("")
}

const replacementRune = '\uFFFD'

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// decodeFields decodes a JSON object into values by field position: pos
// maps a key to its position in fv. Keys that name no field are appended
// to extra, in order, and their values dropped. It is DecodeStrict for the
// common case, without a map per record: on anything unusual (invalid
// UTF-8, not an object, an escaped or duplicate key, malformed JSON) it
// returns ok false and the caller falls back to DecodeStrict, which decides
// and explains. TestDecodeFieldsAgreesWithDecodeStrict holds the two together.
func decodeFields(data []byte, pos map[string]int, fv *fieldValues, extra []string) ([]string, bool) {
	return decodeFieldsCached(data, pos, fv, extra, nil)
}

// decodeFieldsCached is decodeFields that takes a field's scalar values
// from cache, when not nil, where the same text was decoded before.
func decodeFieldsCached(data []byte, pos map[string]int, fv *fieldValues, extra []string, cache *valueCache) ([]string, bool) {
	fv.reset()
	if !utf8.Valid(data) {
		return extra, false
	}
	p := parser{data: data}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return extra, false
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return extra, p.atEnd()
	}
	next := 0 // the field expected next
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return extra, false
		}
		key, ok := p.plainKey()
		if !ok {
			return extra, false
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return extra, false
		}
		p.pos++
		p.skipSpace()
		// The map lookup with string(key) does not allocate; with a cache,
		// the field after the last one is tried first (records of a file
		// mostly list their fields in one order).
		i, known := 0, false
		if cache != nil && next < len(cache.names) && cache.names[next] == string(key) {
			i, known = next, true
		} else {
			i, known = pos[string(key)]
		}
		next = i + 1
		var v any
		var err error
		if known && cache != nil {
			v, err = cache.value(&p, i)
		} else {
			v, err = p.value(1)
		}
		if err != nil {
			return extra, false
		}
		if known {
			if fv.has[i] {
				return extra, false
			}
			fv.vals[i], fv.has[i] = v, true
		} else {
			for _, e := range extra {
				if e == string(key) {
					return extra, false
				}
			}
			extra = append(extra, string(key))
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return extra, false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return extra, p.atEnd()
		default:
			return extra, false
		}
	}
}

// valueCache keeps, for each field, the values decoded from the texts it
// has held, so that a field with few distinct values (a status, a
// category) costs no allocation per record. A field that passes
// valueCacheSize distinct texts (an id, a name) is not cached further.
// Only strings and numbers are kept: they never change once decoded.
type valueCache struct {
	names  []string         // the fields' names, by position
	fields []map[string]any // by field position; nil once it is full
}

// valueCacheSize is how many distinct texts a field may have and still be
// cached.
const valueCacheSize = 256

func newValueCache(names []string) *valueCache {
	vc := &valueCache{names: names, fields: make([]map[string]any, len(names))}
	for i := range vc.fields {
		vc.fields[i] = map[string]any{}
	}
	return vc
}

// value reads the value at p.pos for field i, as p.value(1) does.
func (vc *valueCache) value(p *parser, i int) (any, error) {
	m := vc.fields[i]
	if m == nil || p.pos >= len(p.data) {
		return p.value(1)
	}
	start, end := p.pos, -1
	switch c := p.data[start]; {
	case c == '"':
		// A string without escapes or control characters, quotes
		// included: any other is decoded each time.
		q := *p // a copy: plainKey moves past the string
		if _, ok := q.plainKey(); ok {
			end = q.pos
		}
	case c == '-' || c >= '0' && c <= '9':
		if e, want := scanNumber(p.data, start); want == "" {
			end = e
		}
	}
	if end < 0 {
		return p.value(1)
	}
	if v, ok := m[string(p.data[start:end])]; ok {
		p.pos = end
		return v, nil
	}
	v, err := p.value(1)
	if err != nil {
		return nil, err
	}
	if len(m) == valueCacheSize {
		vc.fields[i] = nil
	} else {
		m[string(p.data[start:end])] = v
	}
	return v, nil
}

// plainKey reads a string without escapes or control characters at p.pos
// and returns its bytes; false for any other string.
func (p *parser) plainKey() ([]byte, bool) {
	start := p.pos + 1
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			return p.data[start:i], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (p *parser) atEnd() bool {
	p.skipSpace()
	return p.pos == len(p.data)
}

// skipValue moves past one JSON value, tracking only strings and nesting;
// mismatched brackets are left for DecodeStrict to report. It is the
// serial part of loading a fixtures file (splitRecords), so it works on
// locals: kept in registers, not read back through p on every byte.
func (p *parser) skipValue() error {
	data, i := p.data, p.pos
	if i >= len(data) {
		return p.fail("")
	}
	switch data[i] {
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				var ok bool
				if i, ok = skipString(data, i); !ok {
					p.pos = i
					return p.fail("")
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					p.pos = i + 1
					return nil
				}
			}
			i++
		}
		p.pos = i
		return p.fail("")
	case '"':
		var ok bool
		i, ok = skipString(data, i)
		p.pos = i
		if !ok {
			return p.fail("")
		}
		return nil
	}
	for i < len(data) {
		switch data[i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			p.pos = i
			return nil
		}
		i++
	}
	p.pos = i
	return nil
}

// skipString is the index after the string that starts at data[i]; false
// when it does not end.
func skipString(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return len(data), false
}
