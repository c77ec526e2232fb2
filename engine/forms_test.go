package engine

import (
	"testing"

	"github.com/petctl/petctl/spec"
)

// TestFormBodies: a create posted as application/x-www-form-urlencoded
// (fixtures/styles/forms.yaml) is read as the JSON its schema describes,
// validated, stored and read back: bracketed keys reach nested objects and
// arrays, a repeated key is an array, values take their schema's type, an
// empty nullable integer is null, an unexploded array is split as the
// encoding says; a value of the wrong type or a missing field is refused
// with the validator's reason, a body that is no form with malformed_form,
// and the same operation still takes JSON.
func TestFormBodies(t *testing.T) {
	s, err := spec.Load("../fixtures/styles/forms.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s}, "X-Key", "") // the document asks for no key: it is ignored
	const form = "application/x-www-form-urlencoded"
	play(t, env, []exchange{
		{name: "a form create", method: "POST", path: "/customers", ctype: form,
			body:   "email=ann%40example.com&name=Ann+Lee&balance=120&taxExempt=true&metadata[plan]=gold&metadata[seats]=3&tags[]=vip&tags[]=eu&items[0][price]=p_1&items[0][quantity]=2&items[1][price]=p_2&roles=admin,billing",
			status: 201, save: map[string]string{"id": "id"},
			want: map[string]string{"email": "ann@example.com", "name": "Ann Lee", "balance": "120", "taxExempt": "true",
				"metadata.plan": "gold", "metadata.seats": "3", "tags.#": "2", "tags.1": "eu",
				"items.#": "2", "items.0.quantity": "2", "items.1.price": "p_2", "roles.#": "2", "roles.1": "billing"}},
		{name: "read back as JSON", method: "GET", path: "/customers/{id}", status: 200,
			want: map[string]string{"email": "ann@example.com", "balance": "120", "items.0.price": "p_1", "metadata.plan": "gold"}},
		{name: "a key repeated is an array, an empty nullable integer null", method: "POST", path: "/customers", ctype: form,
			body: "email=bo%40example.com&tags=a&tags=b&tags=c&balance=", status: 201,
			want: map[string]string{"tags.#": "3", "tags.2": "c", "balance": "null"}},
		{name: "a value of the wrong type", method: "POST", path: "/customers", ctype: form, body: "email=c%40example.com&balance=lots", status: 400,
			check: func(t *testing.T, r result) {
				if r.code(t) != "validation_failed" || r.message(t) != "body field 'balance': got string, want null or integer" {
					t.Errorf("got %s", r.body)
				}
			}},
		{name: "a required field missing", method: "POST", path: "/customers", ctype: form, body: "name=Nobody", status: 400,
			check: func(t *testing.T, r result) {
				if r.message(t) != "body: missing property 'email'" {
					t.Errorf("got %s", r.body)
				}
			}},
		{name: "an unexploded value outside the enum", method: "POST", path: "/customers", ctype: form, body: "email=d%40example.com&roles=admin,root", status: 400},
		{name: "a quantity below its minimum, nested", method: "POST", path: "/customers", ctype: form, body: "email=e%40example.com&items[0][price]=p&items[0][quantity]=0", status: 400},
		{name: "no form", method: "POST", path: "/customers", ctype: form, body: "email=%zz", status: 400,
			check: func(t *testing.T, r result) {
				if r.code(t) != "malformed_form" {
					t.Errorf("got %s", r.body)
				}
			}},
		{name: "the same operation takes JSON", method: "POST", path: "/customers", body: `{"email":"f@example.com","balance":7}`, status: 201,
			want: map[string]string{"balance": "7"}},
		{name: "three created", method: "GET", path: "/customers", status: 200,
			check: func(t *testing.T, r result) {
				if n := len(r.list(t)); n != 3 {
					t.Errorf("%d customers, want 3", n)
				}
			}},
	})
}
