package spec

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// pathShape lets the request memo key requests to an item path on the
// operation's path template rather than the path: /pets/1 and /pets/2
// share one entry. The validator's verdict on a request depends on its path
// only through the path parameters' values; where a quick check decides
// exactly that the validator accepts a value (an integer in its bounds, a
// uuid, an unconstrained string), any accepted value gives the verdict of
// any other. Without it every read, update and delete of another item is
// validated in full (a third of a delete's time on the Petstore's animals).
type pathShape struct {
	// literal are the template's segments below the base path, "" where a
	// parameter stands; checks are the parameters' checks, in order.
	literal []string
	checks  []func(string) bool
}

// newPathShape is the shape of op's path, or nil where a parameter is not
// a whole segment, or its schema or style is outside what a quick check
// decides exactly.
func newPathShape(op *Operation) *pathShape {
	ps := &pathShape{}
	for _, seg := range strings.Split(strings.TrimPrefix(op.Path, "/"), "/") {
		if !strings.ContainsAny(seg, "{}") {
			if seg == "" {
				return nil // "" marks a parameter: /pets/{id}/ has no quick path
			}
			ps.literal = append(ps.literal, seg)
			continue
		}
		if !strings.HasPrefix(seg, "{") || strings.Index(seg, "}") != len(seg)-1 {
			return nil // a parameter beside text: /files/{name}.json
		}
		name := seg[1 : len(seg)-1]
		check := pathParamCheck(op, name)
		if check == nil {
			return nil
		}
		ps.literal = append(ps.literal, "")
		ps.checks = append(ps.checks, check)
	}
	if len(ps.checks) == 0 {
		return nil
	}
	return ps
}

// template reports whether path (below the base path, as the request
// carries it, unescaped) has the shape's literal segments and parameter
// values every check accepts.
func (ps *pathShape) template(path string) bool {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) != len(ps.literal) {
		return false
	}
	i := 0
	for n, seg := range segs {
		if lit := ps.literal[n]; lit != "" {
			if seg != lit {
				return false
			}
			continue
		}
		if !ps.checks[i](seg) {
			return false
		}
		i++
	}
	return true
}

// pathParamCheck is the exact check of op's path parameter name, or nil
// where there is none: the parameter's style must be simple (the
// default), and its schema a plain integer, a uuid or an unconstrained
// string.
func pathParamCheck(op *Operation, name string) func(string) bool {
	// The validator checks every declaration of the name, the path
	// item's and the operation's: the value must pass each.
	var checks []func(string) bool
	for _, params := range [][]*v3.Parameter{pathItemParams(op), operationParams(op)} {
		for _, p := range params {
			if p == nil || p.In != "path" || p.Name != name {
				continue
			}
			if p.Style != "" && p.Style != "simple" || p.Schema == nil {
				return nil
			}
			check := schemaCheck(p.Schema.Schema())
			if check == nil {
				return nil
			}
			checks = append(checks, check)
		}
	}
	if len(checks) == 0 {
		return nil
	}
	return func(v string) bool {
		for _, c := range checks {
			if !c(v) {
				return false
			}
		}
		return true
	}
}

// libParams are op's parameter declarations, its path item's then its
// own, as libopenapi-validator validates both.
func libParams(op *Operation) []*v3.Parameter {
	return append(slices.Clip(pathItemParams(op)), operationParams(op)...)
}

func pathItemParams(op *Operation) []*v3.Parameter {
	if op.PathItem == nil {
		return nil
	}
	return op.PathItem.Parameters
}

func operationParams(op *Operation) []*v3.Parameter {
	if op.Op == nil {
		return nil
	}
	return op.Op.Parameters
}

// schemaCheck is the exact check of a path parameter's schema, or nil.
func schemaCheck(schema *base.Schema) func(string) bool {
	if schema == nil || constrainedBeyondType(schema) {
		return nil
	}
	if len(schema.Type) != 1 {
		return nil
	}
	switch schema.Type[0] {
	case "integer":
		if schema.MultipleOf != nil || schema.ExclusiveMinimum != nil || schema.ExclusiveMaximum != nil {
			return nil
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch schema.Format {
		case "", "int64":
		case "int32":
			lo, hi = math.MinInt32, math.MaxInt32
		default:
			return nil
		}
		if m := schema.Minimum; m != nil {
			if math.IsNaN(*m) || *m > math.MaxInt64/2 {
				return nil
			}
			lo = max(lo, int64(math.Max(math.Ceil(*m), math.MinInt64/2)))
		}
		if m := schema.Maximum; m != nil {
			if math.IsNaN(*m) || *m < math.MinInt64/2 {
				return nil
			}
			hi = min(hi, int64(math.Min(math.Floor(*m), math.MaxInt64/2)))
		}
		return func(v string) bool {
			// Plain decimal digits only, few enough that the compiled
			// schema's float64 comparison with the bounds is exact.
			if !plainInteger.MatchString(v) {
				return false
			}
			n, err := strconv.ParseInt(v, 10, 64)
			return err == nil && n >= lo && n <= hi
		}
	case "string":
		if schema.MinLength != nil || schema.MaxLength != nil || schema.Pattern != "" {
			return nil
		}
		switch schema.Format {
		case "":
			return func(v string) bool { return v != "" }
		case "uuid":
			return canonicalUUID.MatchString
		}
	}
	return nil
}

var (
	plainInteger  = regexp.MustCompile(`^(0|-?[1-9][0-9]{0,14})$`)
	canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// constrainedBeyondType reports whether a parameter schema says more than
// its type, format and bounds: then only the validator decides.
func constrainedBeyondType(s *base.Schema) bool {
	return len(s.Enum) > 0 || s.Const != nil || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil ||
		s.If != nil || s.Nullable != nil && *s.Nullable || s.Items != nil || s.Properties != nil
}
