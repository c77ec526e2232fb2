package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeStrict(t *testing.T) {
	tests := []struct {
		in      string
		want    any
		wantErr string
	}{
		{`{"a":1}`, map[string]any{"a": json.Number("1")}, ""},
		{` [1, -2.5e3, "x", true, false, null, {}] `, []any{json.Number("1"), json.Number("-2.5e3"), "x", true, false, nil, map[string]any{}}, ""},
		{`"\u00e9\n\"\\\/\t"`, "é\n\"\\/\t", ""},
		{`"\ud83d\ude00"`, "😀", ""},
		{`"\ud83d"`, "\uFFFD", ""},
		{`"\ud83dx"`, "\uFFFDx", ""},
		{`"\ud83d\u0041"`, "\uFFFDA", ""},
		{`99999999999999999999999`, json.Number("99999999999999999999999"), ""},
		{``, nil, "no JSON value"},
		{`   `, nil, "no JSON value"},
		{`{"a":1`, nil, "in the middle of a value"},
		{`{"a":1,}`, nil, "object key"},
		{`{"a" 1}`, nil, "':' expected"},
		{`[1 2]`, nil, "',' or ']'"},
		{`{"a":1} {}`, nil, "after the JSON value"},
		{`{"a":1,"a":2}`, nil, `duplicate key "a"`},
		{`{"a":{"b":1,"b":1}}`, nil, `duplicate key "b"`},
		{"\"a\xffb\"", nil, "UTF-8"},
		{"\"a\nb\"", nil, "control character"},
		{`"\x"`, nil, "invalid escape"},
		{`"\u12"`, nil, "hex digits"},
		{`01`, nil, "after the JSON value"},
		{`-`, nil, "ends at byte 1"},
		{`-x`, nil, "digit expected"},
		{`1.`, nil, "ends at byte 2"},
		{`1.e5`, nil, "decimal point"},
		{`1e`, nil, "ends at byte 2"},
		{`1e+x`, nil, "exponent"},
		{`tru`, nil, "in the middle of a value"},
		{`nul!`, nil, "invalid literal"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), nil, "deeper than 64"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := DecodeStrict([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// referenceDecode is the slow, obviously right definition of DecodeStrict:
// encoding/json's tokens, plus the checks encoding/json does not make.
func referenceDecode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("utf8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(depth int) (any, error)
	walk = func(depth int) (any, error) {
		if depth > maxJSONDepth {
			return nil, errors.New("depth")
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if _, dup := obj[k]; dup {
					return nil, errors.New("dup")
				}
				v, err := walk(depth + 1)
				if err != nil {
					return nil, err
				}
				obj[k] = v
			}
			_, err := dec.Token()
			return obj, err
		case json.Delim('['):
			arr := []any{}
			for dec.More() {
				v, err := walk(depth + 1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return tok, nil
	}
	v, err := walk(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing")
	}
	// Token accepts some invalid documents ({"a" 1}? no; but `{"a":1,}` is
	// caught); json.Valid is the authority on syntax.
	if !json.Valid(data) {
		return nil, errors.New("invalid")
	}
	return v, nil
}

// FuzzDecodeStrict checks the hand-written parser against encoding/json.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{
		`{"name":"Rex","categoryId":1,"status":"sold"}`, `[1,2,{"a":[true,false,null]}]`,
		`"\ud83d\ude00"`, `"\ud83d\u0041"`, `{"a":1,"a":2}`, `-0.5e-10`, `{"a":1} x`, "\"\xff\"",
		`{"":{"":[]}}`, `  "\u0000"  `, `[`, `{"a`, `1e400`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeStrict(data)
		want, werr := referenceDecode(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("DecodeStrict err = %v, reference err = %v, input %q", err, werr, data)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeStrict = %#v, reference = %#v, input %q", got, want, data)
		}
	})
}

// decodeNames are the fields checkDecodeFields decodes.
var decodeNames = []string{"id", "name", "a", ""}

// checkDecodeFields holds decodeFields to DecodeStrict on one input: when it
// claims success, the document must be an object DecodeStrict accepts, with
// the same values by position and the other keys in extra; it may decline
// anything. With cache (not nil) it holds decodeFieldsCached to the same,
// and to decodeFields.
func checkDecodeFields(t *testing.T, data []byte, cache *valueCache) (ok bool) {
	t.Helper()
	names := decodeNames
	pos := map[string]int{}
	for i, n := range names {
		pos[n] = i
	}
	fv := fieldValues{vals: make([]any, len(names)), has: make([]bool, len(names))}
	extra, ok := decodeFields(data, pos, &fv, []string{"stale"}[:0])
	if cache != nil {
		cfv := fieldValues{vals: make([]any, len(names)), has: make([]bool, len(names))}
		cextra, cok := decodeFieldsCached(data, pos, &cfv, []string{"stale"}[:0], cache)
		if cok != ok || ok && (!reflect.DeepEqual(cfv, fv) || !slices.Equal(cextra, extra)) {
			t.Fatalf("%q: with the cache %v %#v %q, without %v %#v %q", data, cok, cfv, cextra, ok, fv, extra)
		}
	}
	doc, err := DecodeStrict(data)
	obj, isObj := doc.(map[string]any)
	if !ok {
		return false
	}
	if err != nil || !isObj {
		t.Fatalf("decodeFields accepted %q, which DecodeStrict refuses (%v) or is not an object", data, err)
	}
	got := map[string]any{}
	for i, n := range names {
		if fv.has[i] {
			got[n] = fv.vals[i]
		}
	}
	for _, k := range extra {
		if _, known := pos[k]; known {
			t.Fatalf("%q: known key %q reported as extra", data, k)
		}
		got[k] = obj[k] // the value is dropped; its presence is what counts
	}
	if !reflect.DeepEqual(got, obj) {
		t.Fatalf("%q: decodeFields gives %#v (extra %q), DecodeStrict %#v", data, got, extra, obj)
	}
	return true
}

func TestDecodeFieldsAgreesWithDecodeStrict(t *testing.T) {
	accepted := []string{
		`{"id":1,"name":"Rex","a":[1,{"b":null}]}`, ` { } `, `{"other":1,"id":-2.5e3}`, `{"":true,"x":"y","z":{}}`,
		`{"name":"\u00e9\n"}`,
	}
	declined := []string{
		`{"id":1,"id":2}`, `{"x":1,"x":2}`, `{"na\u006de":1}`, `[1]`, `"x"`, ``, `{"id":1} x`, `{"id":1,}`,
		"{\"name\":\"\xff\"}", `{"id":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, `{"id" 1}`, `{"id":1`,
	}
	// Twice through one cache: the second time its values are taken.
	cache := newValueCache(decodeNames)
	for range 2 {
		for _, in := range accepted {
			if !checkDecodeFields(t, []byte(in), cache) {
				t.Errorf("decodeFields declined %s, the common case", in)
			}
		}
		for _, in := range declined {
			if checkDecodeFields(t, []byte(in), cache) {
				t.Errorf("decodeFields accepted %q", in)
			}
		}
	}
	// Past valueCacheSize distinct texts a field is decoded each time,
	// and decoded right.
	for i := range valueCacheSize + 10 {
		in := fmt.Sprintf(`{"name":"n%d","id":%d,"a":"v%d"}`, i%(valueCacheSize+5), i, i%3)
		checkDecodeFields(t, []byte(in), cache)
	}
	if cache.fields[0] != nil || cache.fields[1] != nil || len(cache.fields[2]) != 3 {
		t.Errorf("fields cached: id %v, name %v, a %d values; want a's 3 only (id and name have too many)", cache.fields[0] != nil, cache.fields[1] != nil, len(cache.fields[2]))
	}
}

// FuzzDecodeFields checks decodeFields against DecodeStrict.
func FuzzDecodeFields(f *testing.F) {
	for _, s := range []string{`{"id":1,"name":"Rex","status":"sold"}`, `{"a":1,"a":2}`, `{"id":{"id":1}}`, `{"x\"":1}`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	cache := newValueCache(decodeNames)
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeFields(t, data, cache) })
}

func TestCanonicalInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "00", "01", "-01", "1", "-1", "10", "1.0", "1e2", "+1", "", "-", "9223372036854775807", "-9223372036854775808", " 1"} {
		i, err := strconv.ParseInt(s, 10, 64)
		want := err == nil && strconv.FormatInt(i, 10) == s
		if got := canonicalInt(s); got != want {
			t.Errorf("canonicalInt(%q) = %v, want %v", s, got, want)
		}
	}
}
