package spec

import (
	"regexp"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patternTimeout bounds one match of a pattern that only the backtracking
// engine can run: a document's pattern must not let one request hold a core.
const patternTimeout = 100 * time.Millisecond

// compilePattern is the regular-expression engine for every schema
// `pattern`: Go's regexp (RE2, linear time) where it can read the pattern,
// and ECMA-262 syntax, which JSON Schema prescribes, where it cannot:
// lookaheads such as '^(?!api/).*' are common in real documents and valid
// there. A pattern neither engine reads is refused as before.
func compilePattern(s string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(s); err == nil {
		return re, nil
	}
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = patternTimeout
	return ecmaPattern{re}, nil
}

// ecmaPattern adapts regexp2 to jsonschema.Regexp. A match that times out
// counts as no match: the value is refused, never accepted unchecked.
type ecmaPattern struct{ re *regexp2.Regexp }

func (p ecmaPattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return ok && err == nil
}

func (p ecmaPattern) String() string { return p.re.String() }
