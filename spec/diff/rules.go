package diff

// The rules: why each kind of change is breaking, flagged or safe, stated
// once. A schema keyword is judged by the way its data flows: a change
// that refuses a value once accepted breaks the clients that send it; a
// change that allows a value once impossible breaks the clients that read
// it.

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	"github.com/pb33f/libopenapi/what-changed/model"
)

// Reasons, one per rule.
const (
	whyDocumentation   = "documentation only"
	whyExtension       = "an extension petctl gives no meaning to"
	whyAdded           = "new; no client uses it yet"
	whyAddedOptional   = "optional; clients that do not send it are unaffected"
	whyComponentListed = "a component is used only through the operations that refer to it, judged there"
	whyLibraryBreaking = "libopenapi's what-changed rule for this property (petctl has none of its own)"
	whyLibrarySafe     = "libopenapi's what-changed rule for this property (petctl has none of its own)"

	whyOperationID      = "generated clients name their methods by the operationId"
	whyRequestBody      = "a request body removed, or a required one added, fails the requests clients send"
	whyBodyRequired     = "a body that becomes required fails the requests sent without one"
	whyParamRemoved     = "a removed parameter: clients that send it are refused or silently lose its effect"
	whyParamRequired    = "a required parameter: requests without it are refused"
	whyParamSerialised  = "the parameter is sent another way: requests written for the old way are misread"
	whySuccessRemoved   = "a success response removed: clients that read it get something else"
	whyErrorRemoved     = "an error response no longer documented: no client request fails because of it"
	whyResponseAdded    = "a new status: clients that did not know it treat it as its class (2xx, 4xx)"
	whyResponseHeader   = "a response header removed: clients that read it find it missing"
	whyMediaTypeRemoved = "a media type removed: clients that send or ask for it are refused (415, 406)"

	whyNarrowedRequest  = "narrowed in requests: values clients could send before are refused now"
	whyWidenedResponse  = "widened in responses: answers may hold values clients were never told to expect"
	whyNewEnumResponse  = "a new enum value in a response: clients that switch over the values meet one they do not know"
	whyRequiredRequest  = "a new required request field: requests without it are refused"
	whyOptionalResponse = "a response field no longer required: clients that read it may find it missing"
	whyFieldRemovedResp = "a response field removed: clients that read it find it missing"
	whyFieldRemovedReq  = "a request field removed: clients that send it are refused or silently lose its effect"
	whyNarrowedResponse = "narrowed in responses only: every answer still fits what clients expect"
	whyWidenedRequest   = "widened in requests only: every request valid before is still accepted"
	whyFieldAdded       = "a new optional field: clients that do not know it ignore it"

	whyAuthChanged    = "changed auth: a credential accepted before is refused now"
	whyAuthCompatible = "auth loosened: every credential accepted before is still accepted"
)

// effect is what a schema keyword's change does to the values it accepts.
type effect struct {
	narrows bool // some value valid before is invalid now
	widens  bool // some value invalid before is valid now
}

// keywordKind is how a keyword constrains values.
type keywordKind int

const (
	lowerBound keywordKind = iota + 1 // minimum: raising it narrows
	upperBound                        // maximum: lowering it narrows
	constraint                        // pattern: adding it narrows, removing widens, changing does both
	docKeyword                        // no effect on the values
)

// keywordKinds classify the schema keywords petctl judges itself; type,
// enum, required, properties and nullable have rules of their own below.
var keywordKinds = map[string]keywordKind{
	"minimum": lowerBound, "exclusiveMinimum": lowerBound, "minLength": lowerBound, "minItems": lowerBound,
	"minProperties": lowerBound, "minContains": lowerBound,
	"maximum": upperBound, "exclusiveMaximum": upperBound, "maxLength": upperBound, "maxItems": upperBound,
	"maxProperties": upperBound, "maxContains": upperBound,
	"pattern": constraint, "format": constraint, "multipleOf": constraint, "const": constraint, "uniqueItems": constraint,
	"description": docKeyword, "title": docKeyword, "example": docKeyword, "examples": docKeyword,
	"default": docKeyword, "deprecated": docKeyword, "readOnly": docKeyword, "writeOnly": docKeyword,
	"externalDocs": docKeyword, "$comment": docKeyword, "xml": docKeyword,
}

// schema judges the changes of a schema and of every schema inside it.
func (w *walker) schema(at place, sc *model.SchemaChanges) {
	if sc == nil {
		return
	}
	w.covered[at.key()] = true
	for _, c := range changes(sc.PropertyChanges) {
		w.keyword(at, c)
	}
	for _, name := range slices.Sorted(maps.Keys(sc.SchemaPropertyChanges)) {
		w.schema(at.at(name), sc.SchemaPropertyChanges[name])
	}
	w.schema(at.at("[]"), sc.ItemsChanges)
	w.schema(at.in("additionalProperties"), sc.AdditionalPropertiesChanges)
	w.schema(at.in("not"), sc.NotChanges)
	for _, list := range []struct {
		name string
		scs  []*model.SchemaChanges
	}{{"allOf", sc.AllOfChanges}, {"anyOf", sc.AnyOfChanges}, {"oneOf", sc.OneOfChanges}, {"prefixItems", sc.PrefixItemsChanges}} {
		// what-changed lists the members it found changed, paired by
		// content: a change's position in that list is not the member's.
		for _, s := range list.scs {
			w.schema(at.in(list.name+" member"), s)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(sc.PatternPropertiesChanges)) {
		w.schema(at.in("patternProperties "+name), sc.PatternPropertiesChanges[name])
	}
	if sc.ExtensionChanges != nil {
		for _, c := range sc.ExtensionChanges.GetAllChanges() {
			w.add(at, Safe, describe(c), whyExtension, c)
		}
	}
}

func added(c *model.Change) bool {
	return c.ChangeType == model.PropertyAdded || c.ChangeType == model.ObjectAdded
}

func removed(c *model.Change) bool {
	return c.ChangeType == model.PropertyRemoved || c.ChangeType == model.ObjectRemoved
}

// keyword judges one changed keyword of a schema.
func (w *walker) keyword(at place, c *model.Change) {
	switch c.Property {
	case "type":
		c.Original, c.New = typeText(c.Original, c.OriginalObject), typeText(c.New, c.NewObject)
		old, new := typeSet(c.Original), typeSet(c.New)
		w.judge(at, describe(c), effect{narrows: !accepts(new, old), widens: !accepts(old, new)}, c)
	case "enum":
		if added(c) {
			sev, why := Safe, whyWidenedRequest
			if at.dir&toClient != 0 {
				sev, why = Breaking, whyNewEnumResponse
			}
			w.add(at, sev, "enum value "+c.New+" added", why, c)
			return
		}
		w.judge(at, "enum value "+c.Original+" removed", effect{narrows: true}, c)
	case "required":
		field := at.at(c.New)
		if removed(c) {
			field = at.at(c.Original)
		}
		switch {
		case added(c) && at.dir&toServer != 0:
			w.add(field, Breaking, "now required", whyRequiredRequest, c)
		case added(c):
			w.add(field, Safe, "now required", whyNarrowedResponse, c)
		case at.dir&toClient != 0:
			w.add(field, Breaking, "no longer required", whyOptionalResponse, c)
		default:
			w.add(field, Safe, "no longer required", whyWidenedRequest, c)
		}
	case "properties":
		switch {
		case removed(c) && at.dir&toClient != 0:
			w.add(at.at(c.Original), Breaking, "removed", whyFieldRemovedResp, c)
		case removed(c):
			w.add(at.at(c.Original), Breaking, "removed", whyFieldRemovedReq, c)
		case added(c):
			w.add(at.at(c.New), Safe, "added", whyFieldAdded, c)
		default:
			w.fallback(at, c)
		}
	case "nullable":
		nullNow := c.New == "true"
		w.judge(at, describe(c), effect{widens: nullNow, narrows: !nullNow}, c)
	default:
		switch keywordKinds[c.Property] {
		case docKeyword:
			w.add(at, Safe, describe(c), whyDocumentation, c)
		case lowerBound, upperBound, constraint:
			w.judge(at, describe(c), boundEffect(keywordKinds[c.Property], c), c)
		default:
			w.fallback(at, c)
		}
	}
}

// judge classifies a change by its effect on values and the way they flow.
func (w *walker) judge(at place, what string, e effect, c *model.Change) {
	switch {
	case e.narrows && at.dir&toServer != 0:
		w.add(at, Breaking, what, whyNarrowedRequest, c)
	case e.widens && at.dir&toClient != 0:
		w.add(at, Breaking, what, whyWidenedResponse, c)
	case e.narrows:
		w.add(at, Safe, what, whyNarrowedResponse, c)
	default:
		w.add(at, Safe, what, whyWidenedRequest, c)
	}
}

// boundEffect is what adding, removing or moving a bound or a constraint does.
func boundEffect(k keywordKind, c *model.Change) effect {
	switch {
	case added(c):
		return effect{narrows: true}
	case removed(c):
		return effect{widens: true}
	}
	old, errOld := strconv.ParseFloat(c.Original, 64)
	new, errNew := strconv.ParseFloat(c.New, 64)
	if k == constraint || errOld != nil || errNew != nil {
		// A pattern or format changed, or a bound that is not a number
		// (OpenAPI 3.0's boolean exclusiveMinimum): some values may move
		// either way.
		return effect{narrows: true, widens: true}
	}
	if k == upperBound {
		old, new = -old, -new
	}
	return effect{narrows: new > old, widens: new < old}
}

// typeText is a type as a change gives it, or, where what-changed gives
// a list of types as "", the list in flow style from the schema it names
// (obj).
func typeText(s string, obj any) string {
	if schema, ok := obj.(*lowbase.Schema); ok && s == "" && schema != nil && !schema.Type.IsEmpty() && schema.Type.ValueNode != nil {
		return text(schema.Type.ValueNode)
	}
	return s
}

// typeSet reads a type as what-changed writes it: "integer", or a list
// such as "[integer, null]"; empty for no type (any value).
func typeSet(s string) []string {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, t)
	}
	return out
}

// accepts reports whether a schema of types b accepts every value of
// types a: no type accepts anything, and number accepts integers.
func accepts(b, a []string) bool {
	if len(b) == 0 {
		return true
	}
	if len(a) == 0 {
		return false
	}
	for _, t := range a {
		ok := false
		for _, u := range b {
			if t == u || t == "integer" && u == "number" {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
