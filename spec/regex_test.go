package spec

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestJavaClassPatterns: patterns written with Java's character classes,
// as documents generated from Java (AWS's) write them, are enforced as
// Java reads them; what Go would read otherwise than Java (an
// intersection, a class within a class) stays unread.
func TestJavaClassPatterns(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		refuse  []string
	}{
		{`^\p{XDigit}{8}-\p{XDigit}{4}-\p{XDigit}{4}-\p{XDigit}{4}-\p{XDigit}{12}$`,
			[]string{"0123abcd-4567-89ef-ABCD-0123456789ab"}, []string{"0123abcg-4567-89ef-abcd-0123456789ab", "0123"}},
		{`^arn:[\p{Alnum}\-]+:lambda:[\p{Alnum}\-]+:[0-9]{12}:function:.*$`,
			[]string{"arn:aws:lambda:eu-west-1:123456789012:function:f"}, []string{"arn:a_b:lambda:eu-west-1:123456789012:function:f"}},
		{`^[\p{all}]*$`, []string{"", "any\nthing ✓"}, nil},
		{`\A\S[\p{Print}]*\z`, []string{"Hello, world!"}, []string{" Hello", "tab\there", "ünï"}},
		{`^[\p{Graph}\x20]*$`, []string{"a b!~"}, []string{"a\tb"}},
		{`^\P{Digit}+$`, []string{"abc"}, []string{"a1"}},
		{`^[^\p{Cntrl}]*$`, []string{"plain"}, []string{"bell\a"}},
		{`^([A-Za-z\-' 0-9._]|\p{IsLetter})*$`, []string{"Zoë O'Neil"}, []string{"a+b"}},
		{`^\p{ASCII}{0,8}$`, []string{"ascii"}, []string{"ëëë", "nine chars"}},
	}
	for _, tt := range tests {
		re, err := compilePattern(tt.pattern)
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		for _, s := range tt.match {
			if !re.MatchString(s) {
				t.Errorf("%s refuses %q, which Java's reading matches", tt.pattern, s)
			}
		}
		for _, s := range tt.refuse {
			if re.MatchString(s) {
				t.Errorf("%s matches %q, which Java's reading refuses", tt.pattern, s)
			}
		}
		if v, ok := patternString(tt.pattern, 7, nil, nil, nil); !ok || !re.MatchString(v) {
			t.Errorf("%s: the value made for it, %q (%v), does not match", tt.pattern, v, ok)
		}
	}
	for _, unread := range []string{`[\p{Print}&&[^|:/]]+`, `[a[\p{Alpha}]]`, `\p{NoSuchClass}`} {
		if _, err := compilePattern(unread); err == nil {
			t.Errorf("%s compiled: Go would read it otherwise than Java, so it must stay unread (and warned)", unread)
		}
	}
}

// TestPatternsOf30Documents: OpenAPI 3.0's schema has every pattern be a
// "regex", which 3.1's leaves open; a 3.0 document's pattern written with
// Java's classes loads without a word, and one no engine reads is a
// warning, once, as under 3.1 (TestUnreadablePatternsWarned), not a
// refusal of the document.
func TestPatternsOf30Documents(t *testing.T) {
	const doc = `openapi: 3.0.3
info: {title: patterns, version: "1"}
paths:
  /policies/{policyId}:
    get:
      operationId: getPolicy
      parameters:
        - {name: policyId, in: path, required: true, schema: {type: string, pattern: '^policy-\p{XDigit}{8}$'}}
        - {name: q, in: query, schema: {type: string, pattern: '[\p{Print}&&[^|]]+'}}
      responses:
        '200': {description: ok}
`
	s, err := Parse([]byte(doc), "patterns.yaml")
	if err != nil {
		t.Fatalf("a 3.0 document with a pattern no engine reads is refused: %v", err)
	}
	warnings := strings.Join(s.Warnings, "\n")
	if strings.Count(warnings, "is not a regular expression") != 1 || !strings.Contains(warnings, `[\\p{Print}&&[^|]]+`) || strings.Contains(warnings, "XDigit") {
		t.Errorf("want the one unreadable pattern named once:\n%s", warnings)
	}
	v, err := s.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	for path, ok := range map[string]bool{"policy-0a1B2c3D": true, "policy-0a1B2c3G": false} {
		r := httptest.NewRequest("GET", "/policies/"+path, nil)
		if ps := v.Request(r, s.Operation("getPolicy")); (len(ps) == 0) != ok {
			t.Errorf("%s: problems %v, want accepted %v", path, ps, ok)
		}
	}
}
