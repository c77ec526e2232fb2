package store

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// mutations turn a valid record into documents near it, valid or not.
var mutations = []func(map[string]any, *rand.Rand){
	func(m map[string]any, _ *rand.Rand) {},
	func(m map[string]any, r *rand.Rand) { delete(m, pick(m, r)) },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = nil },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "text" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 1.5 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 42 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = 1e19 },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = true },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = []any{1} },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = map[string]any{} },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "" },
	func(m map[string]any, r *rand.Rand) { m["extra"] = r.IntN(3) },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "00000000-0000-4000-8000-00000000000z" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = "2024-13-45T99:00:00Z" },
	func(m map[string]any, r *rand.Rand) { m[pick(m, r)] = -7 },
}

func pick(m map[string]any, r *rand.Rand) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return "id"
	}
	// deterministic order before the random choice
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys[r.IntN(len(keys))]
}

// TestProvenResponsesAgreeWithValidator is the evidence behind
// proveComposition: for records near the valid ones, valid or not, the
// per-record check says exactly what libopenapi-validator says of a read
// response carrying the record, and of list responses made of them.
func TestProvenResponsesAgreeWithValidator(t *testing.T) {
	for _, d := range []*testDoc{openPetstore(t), openLibrary(t)} {
		for _, c := range d.store.colls {
			readOp, listOp := c.def.Op(spec.KindRead).Op, c.def.Op(spec.KindList).Op
			seeds := c.table.snapshot()
			rng := rand.New(rand.NewPCG(1, 2))
			hdr := http.Header{"Content-Type": {"application/json"}}
			readURL := d.spec.BasePath + strings.Replace(c.def.ItemPath, "{"+c.def.IDParam+"}", "1", 1)
			var batch [][]byte
			batchValid := true
			agreeValid, agreeInvalid, planAccepted := 0, 0, 0
			for i := 0; i < 600; i++ {
				var m map[string]any
				json.Unmarshal(seeds[i%len(seeds)], &m)
				mutations[rng.IntN(len(mutations))](m, rng)
				raw, _ := json.Marshal(m)
				var view any
				json.Unmarshal(raw, &view)
				ours := c.schema.Validate(view) == nil
				theirs := d.val.Response(httptest.NewRequest("GET", readURL, nil), readOp, 200, hdr, raw) == nil
				if ours != theirs {
					t.Fatalf("%s: record %s: per-record check says valid=%v, the validator on a read response says %v", c.def.Key, raw, ours, theirs)
				}
				// The quick plan may decline a valid record, never accept an invalid one.
				doc, err := DecodeStrict(raw)
				if err != nil {
					t.Fatal(err)
				}
				fv := c.newFieldValues()
				if extra := c.fromObject(doc.(map[string]any), &fv); len(extra) == 0 && c.plan.Accepts(fv.vals, fv.has) && !theirs {
					t.Fatalf("%s: record %s: the plan accepts it, the validator on a read response does not", c.def.Key, raw)
				}
				if c.plan.Accepts(fv.vals, fv.has) {
					planAccepted++
				}
				if ours {
					agreeValid++
				} else {
					agreeInvalid++
				}
				batch = append(batch, raw)
				batchValid = batchValid && ours
				if len(batch) == 7 {
					list := joinArray(batch)
					theirs := d.val.Response(httptest.NewRequest("GET", d.spec.BasePath+c.def.Path, nil), listOp, 200, hdr, list) == nil
					if theirs != batchValid {
						t.Fatalf("%s: list %s: composition says valid=%v, the validator says %v", c.def.Key, list, batchValid, theirs)
					}
					batch, batchValid = nil, true
				}
			}
			if c.plan != nil && planAccepted < 50 {
				t.Errorf("%s: the plan accepted %d records; the comparison needs it to accept some", c.def.Key, planAccepted)
			}
			if agreeValid < 50 || agreeInvalid < 50 {
				t.Errorf("%s: %d valid and %d invalid documents compared; the mutations should give both in numbers", c.def.Key, agreeValid, agreeInvalid)
			}
		}
	}
}

// TestRecordViewMatchesUnmarshal holds build's validation view to what
// encoding/json makes of the record's JSON, which is what the response
// validator checks.
func TestRecordViewMatchesUnmarshal(t *testing.T) {
	c := openLibrary(t).store.colls["books"]
	inputs := []string{
		`{"bookId":"6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6aff","title":"T \u2028 \"q\" \\ é","author":"A","genre":"poetry","year":1.0e3,"addedAt":"2024-01-01T00:00:00Z"}`,
		`{"bookId":"6f1c2a8e-3b7d-4c1e-9a2f-0d5e8b7c6afe","title":"\u0001\t\n<&>","author":"😀","genre":"science","addedAt":"2024-01-01T00:00:00Z"}`,
	}
	for _, in := range inputs {
		doc, err := DecodeStrict([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.build(doc.(map[string]any), 1, fromFixture, Write{Now: time.Now()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(b.raw, &want); err != nil {
			t.Fatalf("built JSON %s does not parse: %v", b.raw, err)
		}
		if got := c.json(b.view); !reflect.DeepEqual(any(got), want) {
			t.Errorf("view %#v, want %#v", got, want)
		}
		if !json.Valid(b.raw) {
			t.Errorf("invalid JSON %s", b.raw)
		}
	}
	for i := 0; i < 300; i++ {
		s := fmt.Sprintf("%c%c\x7f", rune(i), rune(0x2020+i%16))
		got := AppendJSONString(nil, s)
		want, _ := json.Marshal(s)
		var a, b string
		json.Unmarshal(got, &a)
		json.Unmarshal(want, &b)
		if a != b || (strings.Contains(string(want), `\u2028`) && !strings.Contains(string(got), `\u2028`)) {
			t.Errorf("AppendJSONString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}
