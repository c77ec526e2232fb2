package conformance

// The items of a resource in the answers of its operations, read the way
// the document shapes them (spec.Resource): an item alone or wrapped in
// one property, a list bare or in an envelope, an id in a field, in the
// item's link to itself, or in the Location of a create's answer.

import (
	"net/url"
	"strings"

	"github.com/petctl/petctl/spec"
)

// creates reports whether ro makes new items: a create, or a replace that
// creates the item where the client chooses ids.
func creates(ro *spec.ResourceOp) bool {
	return ro.Kind == spec.KindCreate || ro.Kind == spec.KindReplace && ro.CreatesOnPut
}

// itemOf is the item an answer of ro carries; nil when it carries none.
func itemOf(ro *spec.ResourceOp, body []byte) map[string]any {
	obj, _ := decodeJSON(body).(map[string]any)
	switch ro.Response.Kind {
	case "item":
		return obj
	case "wrapped":
		inner, _ := obj[ro.Response.Field].(map[string]any)
		return inner
	}
	return nil
}

// idOfItem reads an item's id: its id field, else the last segment of its
// link to itself.
func idOfItem(r *spec.Resource, item map[string]any) string {
	if item == nil {
		return ""
	}
	if r.IDField != "" {
		return scalarString(item[r.IDField])
	}
	if r.SelfField != "" {
		return lastSegment(scalarString(item[r.SelfField]))
	}
	return ""
}

// carriesID reports whether r's items hold their id: in a field, or in
// their link to themselves. Where the id is in their path only (and the
// Location of a create's answer), an item read or listed does not say
// which it is.
func carriesID(r *spec.Resource) bool {
	return r.IDField != "" || r.SelfField != ""
}

// idOfAnswer reads the id of the item an answer of ro names: in the item
// it carries, else in its Location.
func idOfAnswer(r *spec.Resource, ro *spec.ResourceOp, ex *Exchange) string {
	if id := idOfItem(r, itemOf(ro, ex.Body)); id != "" {
		return id
	}
	if ex.Header != nil {
		return lastSegment(ex.Header.Get("Location"))
	}
	return ""
}

func lastSegment(link string) string {
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		return ""
	}
	p := strings.TrimRight(u.Path, "/")
	seg := p[strings.LastIndex(p, "/")+1:]
	if s, err := url.PathUnescape(seg); err == nil {
		return s
	}
	return seg
}

// listItems decodes the items of a list answer of r: the array at the
// list's items path, each an object; ok is false when the body holds none.
func listItems(r *spec.Resource, ex *Exchange) ([]map[string]any, bool) {
	v := decodeJSON(ex.Body)
	if r.List != nil {
		for _, k := range r.List.Items {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			v = obj[k]
		}
	}
	return objects(v)
}

// items decodes a body that is a bare JSON array of objects.
func items(ex *Exchange) ([]map[string]any, bool) {
	return objects(decodeJSON(ex.Body))
}

// objects reads a decoded array of objects; ok is false for anything else.
func objects(v any) ([]map[string]any, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]map[string]any, 0, len(arr))
	for _, it := range arr {
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, false
		}
		out = append(out, obj)
	}
	return out, true
}

// itemsPath names where a list's items are, for messages.
func itemsPath(r *spec.Resource) string {
	if r.List == nil || len(r.List.Items) == 0 {
		return "a JSON array of items"
	}
	return "items in " + strings.Join(r.List.Items, ".")
}
