package spec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestDecodeForm holds the form reading to the JSON each body stands for
// under fixtures/styles/forms.yaml's createCustomer: numbers only where
// JSON writes them, brackets into objects and arrays, a name with an
// unclosed bracket taken as it is, and a body that is no form refused.
func TestDecodeForm(t *testing.T) {
	s, err := Load("../fixtures/styles/forms.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var op *Operation
	for _, o := range s.Operations {
		if o.ID == "createCustomer" {
			op = o
		}
	}
	for _, tc := range []struct{ body, want string }{
		{"email=a%40b.c&balance=-12", `{"balance":-12,"email":"a@b.c"}`},
		{"balance=%2B1", `{"balance":"+1"}`}, // strconv reads +1; JSON has no such number
		{"balance=Inf", `{"balance":"Inf"}`},
		{"balance=1%20", `{"balance":"1 "}`},
		{"balance=", `{"balance":null}`},
		{"name=", `{"name":""}`},
		{"taxExempt=true", `{"taxExempt":true}`},
		{"taxExempt=yes", `{"taxExempt":"yes"}`},
		{"tags=x", `{"tags":["x"]}`},
		{"tags[2]=c&tags[0]=a&tags[1]=b", `{"tags":["a","b","c"]}`},
		{"tags[]=a&tags[]=b", `{"tags":["a","b"]}`},
		{"tags[x]=a", `{"tags":{"x":"a"}}`}, // an object where an array is declared: the validator refuses it
		{"items[][price]=p&items[][price]=q", `{"items":[{"price":"p"},{"price":"q"}]}`},
		{"items[1][quantity]=2&items[0][price]=p", `{"items":[{"price":"p"},{"quantity":2}]}`},
		{"metadata[a]=1", `{"metadata":{"a":"1"}}`}, // additionalProperties: strings
		{"roles=admin,viewer", `{"roles":["admin","viewer"]}`},
		{"name[=x", `{"name[":"x"}`},
		{"metadata=%7B%22a%22%3A%22b%22%7D", `{"metadata":{"a":"b"}}`}, // a part sent as JSON
		{"other[1]=x", `{"other":["x"]}`},
		{"", `{}`},
	} {
		doc, err := s.DecodeForm(op, []byte(tc.body))
		if err != nil {
			t.Errorf("%q: %v", tc.body, err)
			continue
		}
		got, _ := json.Marshal(doc)
		if string(got) != tc.want {
			t.Errorf("%q: got %s, want %s", tc.body, got, tc.want)
		}
	}
	for _, body := range []string{"a=%zz", "a" + strings.Repeat("[b]", maxFormDepth+1) + "=1"} {
		var fe *FormError
		if _, err := s.DecodeForm(op, []byte(body)); !errors.As(err, &fe) {
			t.Errorf("%q: error %v, want a FormError", body, err)
		}
	}
}
