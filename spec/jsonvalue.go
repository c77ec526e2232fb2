package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// nodeValue decodes a YAML value as JSON would carry it: mappings with
// string keys, integers as int64 where they fit, else float64.
func nodeValue(n *yaml.Node) (any, bool) {
	if n == nil {
		return nil, false
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	return jsonCompatible(v), true
}

// jsonCompatible makes a decoded YAML value one encoding/json can write:
// map keys become strings.
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonCompatible(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			kb, _ := json.Marshal(k)
			ks, ok := k.(string)
			if !ok {
				ks = strings.Trim(string(kb), `"`)
			}
			m[ks] = jsonCompatible(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonCompatible(e)
		}
		return t
	case int:
		return int64(t)
	}
	return v
}

// JSONValue makes a value decoded from YAML that petctl is given as JSON
// (a fixture file, a setting such as defaults or responses.body) one JSON
// can carry, or says where it cannot: a mapping key that is not a string,
// an infinity or NaN. Timestamps become RFC 3339 text. It is the one home
// of that rule for the store and the configuration; the document's own
// values are read leniently instead (jsonCompatible), as a document's
// quirks are.
func JSONValue(v any) (any, error) { return jsonValue(v, "") }

// jsonValue is JSONValue for the value at where: ".a.b[2]" below the top.
func jsonValue(v any, where string) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			var err error
			if t[k], err = jsonValue(e, where+"."+k); err != nil {
				return nil, err
			}
		}
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, atValue(where, fmt.Errorf("key %v is not a string", k))
			}
			var err error
			if out[ks], err = jsonValue(e, where+"."+ks); err != nil {
				return nil, err
			}
		}
		return out, nil
	case []any:
		for i, e := range t {
			var err error
			if t[i], err = jsonValue(e, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return nil, err
			}
		}
	case time.Time:
		return t.Format(time.RFC3339Nano), nil
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return nil, atValue(where, fmt.Errorf("%v is not a JSON number", t))
		}
	}
	return v, nil
}

// atValue names where in a value err is, unless it is the value itself.
func atValue(where string, err error) error {
	if where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", strings.TrimPrefix(where, "."), err)
}

// JSONEqual compares decoded JSON values as JSON does: objects whatever
// their keys' order, and numbers (json.Number, as decoded with UseNumber)
// by their exact value, so that 1.0 is 1 and 2^53+1 is not 2^53, which
// float64 cannot tell apart (RFC 6902 section 4.6: "numerically equal").
// The engine's JSON Patch test and the conformance checks' "as sent" both
// compare with it.
func JSONEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		rx, okx := exactNumber(x.String())
		ry, oky := exactNumber(y.String())
		return okx && oky && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !JSONEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !JSONEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// maxExactExponent bounds the exponent of a number JSONEqual compares by
// value: big.Rat makes 10^exponent whole, so 1e999999, a few bytes of a
// request, would cost a megabyte and seconds for each comparison. No
// number petctl stores needs more than float64's range (about 1e308).
const maxExactExponent = 1000

// exactNumber is the value of a JSON number, false where it is not one or
// its exponent is past maxExactExponent (then compared as written).
func exactNumber(s string) (*big.Rat, bool) {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExactExponent || e < -maxExactExponent {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}
