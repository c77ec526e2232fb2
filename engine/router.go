package engine

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// router matches request paths against the document's path templates. It is
// built once; matching allocates only the parameter map.
type router struct {
	base   string // "/v1"
	routes []*route
}

type route struct {
	template string
	segs     []segment
	ops      map[string]*spec.Operation // by method
	methods  []string                   // the declared methods, in a stable order
	// allow is the Allow header: the declared methods, HEAD where GET is
	// declared (RFC 9110 §9.3.2), and OPTIONS.
	allow string
}

// headAsGet reports whether a HEAD request to this route is answered by its
// GET: the document declares GET and no HEAD.
func (r *route) headAsGet() bool {
	return r.ops[http.MethodGet] != nil && r.ops[http.MethodHead] == nil
}

type segment struct {
	literal string
	param   string // set for {param} segments
}

func newRouter(s *spec.Spec) *router {
	rt := &router{base: s.BasePath}
	byTemplate := map[string]*route{}
	for _, op := range s.Operations {
		r, ok := byTemplate[op.Path]
		if !ok {
			r = &route{template: op.Path, ops: map[string]*spec.Operation{}, methods: s.Methods(op.Path)}
			for _, seg := range strings.Split(strings.Trim(op.Path, "/"), "/") {
				if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
					r.segs = append(r.segs, segment{param: seg[1 : len(seg)-1]})
				} else {
					r.segs = append(r.segs, segment{literal: seg})
				}
			}
			byTemplate[op.Path] = r
			rt.routes = append(rt.routes, r)
		}
		r.ops[op.Method] = op
	}
	for _, r := range rt.routes {
		allow := slices.Clone(r.methods)
		if r.headAsGet() {
			allow = slices.Insert(allow, slices.Index(allow, http.MethodGet)+1, http.MethodHead)
		}
		if r.ops[http.MethodOptions] == nil {
			allow = append(allow, http.MethodOptions)
		}
		r.allow = strings.Join(allow, ", ")
	}
	return rt
}

// match finds the route for an escaped request path. Literal segments win
// over parameters, as OpenAPI requires. Dot segments and empty segments
// ("/v1//pets", "/pets/") never match: a client must not reach a resource
// by a path the document does not declare, and the validator pairs the
// request's segments with the template's one by one.
func (rt *router) match(escapedPath string) (*route, map[string]string, bool) {
	if !strings.HasPrefix(escapedPath, rt.base+"/") {
		return nil, nil, false
	}
	raw := strings.Split(escapedPath[len(rt.base)+1:], "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil || u == "" || u == "." || u == ".." {
			return nil, nil, false
		}
		segs[i] = u
	}
	var best *route
	bestScore := -1
	for _, r := range rt.routes {
		if len(r.segs) != len(segs) {
			continue
		}
		score, ok := 0, true
		for i, s := range r.segs {
			if s.param == "" {
				if s.literal != segs[i] {
					ok = false
					break
				}
				score++
			}
		}
		if ok && score > bestScore {
			best, bestScore = r, score
		}
	}
	if best == nil {
		return nil, nil, false
	}
	var params map[string]string
	for i, s := range best.segs {
		if s.param != "" {
			if params == nil {
				params = map[string]string{}
			}
			params[s.param] = segs[i]
		}
	}
	return best, params, true
}

func (s *Server) pathList() string {
	var out []string
	for _, r := range s.router.routes {
		out = append(out, s.spec.BasePath+r.template)
	}
	return strings.Join(out, ", ")
}
