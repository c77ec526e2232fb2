package reference

import (
	"regexp"
	"strings"
	"testing"
)

// templateOracle is what matchTemplate must agree with: the template as a
// regular expression, a {variable} standing for [^/]+.
func templateOracle(template string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, part := range regexp.MustCompile(`\{[^}]*\}`).Split(template, -1) {
		if b.Len() > 1 {
			b.WriteString("[^/]+")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString("/?$")
	return regexp.MustCompile(b.String())
}

// TestTemplateAnswers: answers' matcher takes the paths a template stands
// for, and only those, as the regular expression of each template does.
func TestTemplateAnswers(t *testing.T) {
	templates := []string{"/", "/docs", "/{collection}", "/docs/{file}.js", "/files/{name}.json",
		"/{a}.{b}", "/v1/{id}/", "/v1/pets/{id}", "/{x}{y}", "/a/{b}/c", "/docs/reference.js"}
	paths := []string{"/", "", "/docs", "/docs/", "/docs//", "/docs/reference.js", "/docs/reference.css",
		"/docs/.js", "/docs/a.js/", "/files/x.json", "/files/.json", "/files/a/b.json", "/a.b", "/a.b.c", "/.b",
		"/v1/7/", "/v1/7", "/v1//", "/v1/pets/1", "/v1/pets/", "/xy", "/x", "/a/b/c", "/a//c", "/a/b/c/"}
	for _, tmpl := range templates {
		oracle := templateOracle(tmpl)
		for _, p := range paths {
			want := oracle.MatchString(p)
			if got := templateAnswers(tmpl, p); got != want {
				t.Errorf("template %q, path %q: matched %v, want %v", tmpl, p, got, want)
			}
		}
	}
}
