package spec

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// resolveServer fills the {variables} of a server URL: a value from
// overrides first, else the variable's default. A value must be one of the
// variable's enum when it declares one (OpenAPI 3.1 §4.8.6: the default
// must be in it too).
func resolveServer(srv *v3.Server, overrides map[string]string) (string, error) {
	// One pass: a value is not read again, so a default that names its
	// own variable (VTEX's environment: '{environment}') ends.
	u, done := srv.URL, ""
	var problems []string
	for {
		i := strings.IndexByte(u, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(u[i:], '}')
		if j < 0 {
			problems = append(problems, "an unclosed {")
			break
		}
		name := u[i+1 : i+j]
		var v *v3.ServerVariable
		if srv.Variables != nil {
			v, _ = srv.Variables.Get(name)
		}
		value, overridden := overrides[name]
		switch {
		case v == nil:
			problems = append(problems, fmt.Sprintf("{%s} is not declared under variables", name))
			value = ""
		case !overridden:
			value = v.Default
		}
		if v != nil && len(v.Enum) > 0 && !slices.Contains(v.Enum, value) {
			source := "its default"
			if overridden {
				source = "the configured value"
			}
			problems = append(problems, fmt.Sprintf("{%s}: %s %q is not one of %s", name, source, value, strings.Join(v.Enum, ", ")))
		}
		done += u[:i] + value
		u = u[i+j+1:]
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("servers url %q: %s", srv.URL, strings.Join(problems, "; "))
	}
	return done + u, nil
}

// serverPath is the path of a resolved server URL, without a trailing
// slash: "https://api.example.com/v1/" and "/v1" both give "/v1".
func serverPath(resolved string) (string, error) {
	u, err := url.Parse(resolved)
	if err != nil {
		return "", fmt.Errorf("servers url %q: %v", resolved, err)
	}
	if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(u.Path, "/") && u.Path != "" {
		// A relative URL ("v1", "./api") is relative to where the document
		// is served; petctl serves it at the root.
		u.Path = "/" + strings.TrimPrefix(u.Path, "./")
	}
	return strings.TrimRight(u.Path, "/"), nil
}

// cleanBasePath normalises a configured base path: "/" and "" mount the
// operations at the root; otherwise it starts with / and has no trailing one.
func cleanBasePath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "/" {
		return "", nil
	}
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("base path %q does not start with /", p)
	}
	if strings.ContainsAny(p, "?#{}") || strings.Contains(p, "//") {
		return "", fmt.Errorf("base path %q is not a plain path", p)
	}
	return strings.TrimRight(p, "/"), nil
}
