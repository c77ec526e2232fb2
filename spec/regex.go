package spec

import (
	"regexp"
	"strings"
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
//
// A pattern written with Java's character classes (\p{Alnum}, \p{XDigit},
// \p{all}), as the AWS documents and others generated from Java are, is
// read as Java reads it (javaClasses) when neither engine reads it as
// written.
func compilePattern(s string) (jsonschema.Regexp, error) {
	re, err := compileEither(s)
	if err == nil {
		return re, nil
	}
	if t, ok := javaClasses(s); ok {
		if re, terr := compileEither(t); terr == nil {
			return re, nil
		}
	}
	return nil, err
}

// compileEither compiles s with Go's regexp, else as ECMA-262.
func compileEither(s string) (jsonschema.Regexp, error) {
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

// posixClasses are Java's POSIX character classes (java.util.regex.Pattern,
// US-ASCII only, as Java reads them by default): each is the POSIX class
// of the same name in Go's syntax, which is ASCII only too.
var posixClasses = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha",
	"Digit": "digit", "Alnum": "alnum", "Punct": "punct", "Graph": "graph",
	"Print": "print", "Blank": "blank", "Cntrl": "cntrl", "XDigit": "xdigit",
	"Space": "space",
}

// javaBinary are Java's binary properties written \p{IsName} that Go
// spells as a Unicode category.
var javaBinary = map[string]string{
	"IsLetter": `\pL`, "IsAlphabetic": `\pL\p{Nl}`, "IsDigit": `\p{Nd}`,
	"IsUppercase": `\p{Lu}`, "IsLowercase": `\p{Ll}`, "IsPunctuation": `\pP`,
	"IsControl": `\p{Cc}`,
}

// javaClasses rewrites the character classes of Java's syntax that Go's
// has no name for into Go's: \p{Alnum} into [[:alnum:]] (inside a class,
// [:alnum:]), \P{Alnum} into its negation, \p{all} into any character and
// \p{IsLetter} into \pL. ok is false when there was none to rewrite, or
// where the pattern uses what Go would read otherwise than Java does.
func javaClasses(s string) (string, bool) {
	var b strings.Builder
	changed, inClass := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'p' || s[i+1] == 'P') && i+2 < len(s) && s[i+2] == '{':
			end := strings.IndexByte(s[i+3:], '}')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String(), changed
			}
			name, negated := s[i+3:i+3+end], s[i+1] == 'P'
			if text, ok := javaClass(name, negated, inClass); ok {
				b.WriteString(text)
				changed = true
			} else {
				b.WriteString(s[i : i+4+end])
			}
			i += 3 + end
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case inClass && (c == '[' || c == '&' && i+1 < len(s) && s[i+1] == '&'):
			// A class within a class, or an intersection: Java's union
			// and '&&', which Go would read as members. Left unread.
			return s, false
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in a class, or after its '^', is a member.
			if i+1 < len(s) && s[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(s) && s[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

// javaClass is the Go text of Java's class \p{name} (\P{name} where
// negated), inside a bracketed class or outside one.
func javaClass(name string, negated, inClass bool) (string, bool) {
	neg := ""
	if negated {
		neg = "^"
	}
	if posix, ok := posixClasses[name]; ok {
		if inClass {
			return "[:" + neg + posix + ":]", true
		}
		return "[[:" + neg + posix + ":]]", true
	}
	if name == "all" && !negated {
		if inClass {
			return `\x{0}-\x{10FFFF}`, true
		}
		return `[\x{0}-\x{10FFFF}]`, true
	}
	if cats, ok := javaBinary[name]; ok && !negated {
		if inClass {
			return cats, true
		}
		return "[" + cats + "]", true
	}
	return "", false
}

// ecmaPattern adapts regexp2 to jsonschema.Regexp. A match that times out
// counts as no match: the value is refused, never accepted unchecked.
type ecmaPattern struct{ re *regexp2.Regexp }

func (p ecmaPattern) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return ok && err == nil
}

func (p ecmaPattern) String() string { return p.re.String() }
