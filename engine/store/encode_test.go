package store

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestAppendJSONWritesWhatJSONWrites holds AppendJSON to encoding/json
// (HTML escaping off) on random values: what DecodeStrict makes, what the
// engine puts among it (ints, the items' json.RawMessage), and values only
// encoding/json writes (floats, other maps and slices, times, structs),
// nested in each other; numbers encoding/json refuses must be refused.
func TestAppendJSONWritesWhatJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 7))
	for i := range 20000 {
		v := randomJSONValue(rng, 4)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		wantErr := enc.Encode(v)
		got, err := AppendJSON([]byte("prefix:"), v)
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("value %d, %#v: AppendJSON's error %v, encoding/json's %v", i, v, err, wantErr)
		case err != nil:
			continue
		case !bytes.Equal(got, append([]byte("prefix:"), bytes.TrimSuffix(want.Bytes(), []byte("\n"))...)):
			t.Fatalf("value %d, %#v:\nAppendJSON    %s\nencoding/json prefix:%s", i, v, got, want.Bytes())
		}
	}
}

// randomJSONValue is a value of any kind AppendJSON meets, depth levels
// deep at most.
func randomJSONValue(rng *rand.Rand, depth int) any {
	kinds := 14
	if depth == 0 {
		kinds = 10 // scalars only
	}
	switch rng.IntN(kinds) {
	case 0:
		return randomJSONString(rng)
	case 1:
		numbers := []string{"0", "-0", "12", "-3.5", "1e400", "6.02E+23", "0.000001", "123456789012345678901234567890",
			"", "01", "1.", "+1", "abc", "1e", "--1", " 1"}
		return json.Number(numbers[rng.IntN(len(numbers))])
	case 2:
		return rng.IntN(2) == 0
	case 3:
		return nil
	case 4:
		return []int{0, -1, math.MaxInt, math.MinInt}[rng.IntN(4)]
	case 5:
		return int64(rng.Uint64())
	case 6:
		floats := []float64{0, math.Copysign(0, -1), 1.5, 1e21, 1e20, 1e-7, 1e-6, -123.456, math.MaxFloat64, math.NaN(), math.Inf(1)}
		return floats[rng.IntN(len(floats))]
	case 7:
		raws := []string{`"petctl-items-00ff"`, `"a<b>&c\x7f"`, `"\u00e9"`, ` [ 1 , {"a" : null} ] `, "{\n\"x\":\t\"<&>\"}", `[1,`, ``}
		if rng.IntN(8) == 0 {
			return json.RawMessage(nil)
		}
		return json.RawMessage(raws[rng.IntN(len(raws))])
	case 8:
		return time.Date(2026, 12, 7, 6, rng.IntN(60), 0, rng.IntN(1e9), time.UTC)
	case 9:
		return struct {
			A string `json:"a"`
			B int    `json:"b,omitempty"`
		}{randomJSONString(rng), rng.IntN(3)}
	case 10, 11:
		if rng.IntN(10) == 0 {
			return map[string]any(nil)
		}
		m := map[string]any{}
		for range rng.IntN(6) {
			m[randomJSONString(rng)] = randomJSONValue(rng, depth-1)
		}
		return m
	case 12:
		if rng.IntN(10) == 0 {
			return []any(nil)
		}
		l := make([]any, rng.IntN(5))
		for i := range l {
			l[i] = randomJSONValue(rng, depth-1)
		}
		return l
	default:
		return map[string]string{randomJSONString(rng): randomJSONString(rng), "b": "<x>"}
	}
}

// randomJSONString draws on the characters encoding/json treats apart:
// quotes, backslashes, controls, HTML's, U+2028 and U+2029, invalid UTF-8.
func randomJSONString(rng *rand.Rand) string {
	pieces := []string{"a", "Zz", "é", "日本", `"`, `\`, "\n", "\t", "\x00", "\b", "\f", "\r", "\x1f", "<", ">", "&", "\u2028", "\u2029", "\xff", "\xe2\x80", "🐾", " "}
	var b []byte
	for range rng.IntN(6) {
		b = append(b, pieces[rng.IntN(len(pieces))]...)
	}
	if rng.IntN(5) == 0 {
		b = strconv.AppendInt(b, rng.Int64N(1000), 10)
	}
	return string(b)
}
