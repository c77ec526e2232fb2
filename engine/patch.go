package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/petctl/petctl/spec"
)

// mergePatch applies a JSON Merge Patch (RFC 7396 §2) to target: an object
// patch sets each of its members (null removes one), recursively; any
// other patch replaces the target.
func mergePatch(target, patch any) any { return merge(target, patch, false) }

// saveOver merges what a POST that saves settings sends over what is held
// (spec.ResourceOp.SavesOver) as the applications that save this way do:
// as mergePatch, but a null is stored, not a removal.
func saveOver(target, patch any) any { return merge(target, patch, true) }

func merge(target, patch any, keepNulls bool) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	out := make(map[string]any, len(t)+len(p))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil && !keepNulls {
			delete(out, k)
			continue
		}
		out[k] = merge(out[k], v, keepNulls)
	}
	return out
}

// patchError says why a JSON Patch could not be applied: conflict is set
// for a failed test (RFC 6902 §4.6), which is about the item's state, not
// the request's form.
type patchError struct {
	index    int
	conflict bool
	msg      string
}

func (e *patchError) Error() string {
	return fmt.Sprintf("JSON Patch operation %d: %s", e.index, e.msg)
}

// asError is the engine's error for it.
func (e *patchError) asError() *Error {
	if e.conflict {
		return Errorf(CodeConflict, "%s; nothing was changed", e.Error())
	}
	return Errorf(CodeValidation, "%s; nothing was changed", e.Error())
}

// applyJSONPatch applies a JSON Patch (RFC 6902) to doc, operation by
// operation, on a copy: a failing operation leaves doc as it was, and
// the whole patch fails (§5).
func applyJSONPatch(doc, patch any) (any, error) {
	ops, ok := patch.([]any)
	if !ok {
		return nil, Errorf(CodeValidation, "body: a JSON Patch is an array of operations (RFC 6902)")
	}
	doc = deepCopy(doc)
	for i, raw := range ops {
		op, ok := raw.(map[string]any)
		if !ok {
			return nil, (&patchError{index: i, msg: "want an object with op and path"}).asError()
		}
		var err *patchError
		doc, err = applyOp(doc, op, i)
		if err != nil {
			return nil, err.asError()
		}
	}
	return doc, nil
}

func applyOp(doc any, op map[string]any, i int) (any, *patchError) {
	fail := func(conflict bool, format string, args ...any) (any, *patchError) {
		return nil, &patchError{index: i, conflict: conflict, msg: fmt.Sprintf(format, args...)}
	}
	name, _ := op["op"].(string)
	path, ok := op["path"].(string)
	if !ok {
		return fail(false, "path: want a JSON Pointer string")
	}
	ptr, err := parsePointer(path)
	if err != nil {
		return fail(false, "path %q: %v", path, err)
	}
	value, hasValue := op["value"]
	from := func() ([]string, *patchError) {
		f, ok := op["from"].(string)
		if !ok {
			return nil, &patchError{index: i, msg: "from: want a JSON Pointer string"}
		}
		p, err := parsePointer(f)
		if err != nil {
			return nil, &patchError{index: i, msg: fmt.Sprintf("from %q: %v", f, err)}
		}
		return p, nil
	}
	switch name {
	case "add":
		if !hasValue {
			return fail(false, "add needs a value")
		}
		return pointerAdd(doc, ptr, deepCopy(value), i)
	case "remove":
		out, _, perr := pointerRemove(doc, ptr, i)
		return out, perr
	case "replace":
		if !hasValue {
			return fail(false, "replace needs a value")
		}
		out, _, perr := pointerRemove(doc, ptr, i)
		if perr != nil {
			return nil, perr
		}
		return pointerAdd(out, ptr, deepCopy(value), i)
	case "move":
		src, perr := from()
		if perr != nil {
			return nil, perr
		}
		if len(ptr) > len(src) && reflect.DeepEqual(ptr[:len(src)], src) {
			return fail(false, "move into its own child")
		}
		out, v, perr := pointerRemove(doc, src, i)
		if perr != nil {
			return nil, perr
		}
		return pointerAdd(out, ptr, v, i)
	case "copy":
		src, perr := from()
		if perr != nil {
			return nil, perr
		}
		v, ok := pointerGet(doc, src)
		if !ok {
			return fail(false, "from %q names nothing", op["from"])
		}
		return pointerAdd(doc, ptr, deepCopy(v), i)
	case "test":
		v, ok := pointerGet(doc, ptr)
		if !ok || !spec.JSONEqual(v, value) {
			return fail(true, "test failed: %s is not %s", path, encodeJSON(value))
		}
		return doc, nil
	}
	return fail(false, "op %q: want add, remove, replace, move, copy or test", name)
}

// parsePointer splits a JSON Pointer (RFC 6901) into its reference tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("a JSON Pointer starts with /")
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func pointerGet(doc any, ptr []string) (any, bool) {
	for _, t := range ptr {
		switch c := doc.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n >= len(c) || t != strconv.Itoa(n) {
				return nil, false
			}
			doc = c[n]
		default:
			return nil, false
		}
	}
	return doc, true
}

// pointerAdd adds value at ptr (RFC 6902 §4.1): a member is set, an array
// element inserted ("-" appends); the parent must exist.
func pointerAdd(doc any, ptr []string, value any, i int) (any, *patchError) {
	if len(ptr) == 0 {
		return value, nil
	}
	parent, ok := pointerGet(doc, ptr[:len(ptr)-1])
	if !ok {
		return nil, &patchError{index: i, msg: fmt.Sprintf("the parent of /%s does not exist", strings.Join(ptr, "/"))}
	}
	last := ptr[len(ptr)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = value
	case []any:
		n := len(c)
		if last != "-" {
			var err error
			if n, err = strconv.Atoi(last); err != nil || n < 0 || n > len(c) {
				return nil, &patchError{index: i, msg: fmt.Sprintf("index %s is out of the array's bounds", last)}
			}
		}
		grown := append(c[:n:n], append([]any{value}, c[n:]...)...)
		return pointerSet(doc, ptr[:len(ptr)-1], grown), nil
	default:
		return nil, &patchError{index: i, msg: fmt.Sprintf("the parent of /%s is not an object or array", strings.Join(ptr, "/"))}
	}
	return doc, nil
}

// pointerRemove removes the value at ptr and returns it; it must exist.
func pointerRemove(doc any, ptr []string, i int) (any, any, *patchError) {
	if len(ptr) == 0 {
		return nil, doc, nil
	}
	v, ok := pointerGet(doc, ptr)
	if !ok {
		return nil, nil, &patchError{index: i, msg: fmt.Sprintf("/%s does not exist", strings.Join(ptr, "/"))}
	}
	parent, _ := pointerGet(doc, ptr[:len(ptr)-1])
	last := ptr[len(ptr)-1]
	switch c := parent.(type) {
	case map[string]any:
		delete(c, last)
	case []any:
		n, _ := strconv.Atoi(last)
		shrunk := append(c[:n:n], c[n+1:]...)
		return pointerSet(doc, ptr[:len(ptr)-1], shrunk), v, nil
	}
	return doc, v, nil
}

// pointerSet replaces the value at ptr (which exists) and returns doc.
func pointerSet(doc any, ptr []string, value any) any {
	if len(ptr) == 0 {
		return value
	}
	parent, _ := pointerGet(doc, ptr[:len(ptr)-1])
	last := ptr[len(ptr)-1]
	switch c := parent.(type) {
	case map[string]any:
		c[last] = value
	case []any:
		n, _ := strconv.Atoi(last)
		c[n] = value
	}
	return doc
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
