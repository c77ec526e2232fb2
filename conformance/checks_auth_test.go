package conformance_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/petctl/petctl/conformance"
	"github.com/petctl/petctl/spec"
)

// schemesDocument has one operation per kind of security scheme, and two
// whose alternative needs two schemes at once.
const schemesDocument = `openapi: 3.0.3
info: {title: Schemes, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    digest: {type: http, scheme: digest}
    hdr: {type: apiKey, in: header, name: X-Key}
    qry: {type: apiKey, in: query, name: appid}
    ck: {type: apiKey, in: cookie, name: sid}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: "https://auth.example.com/token", scopes: {}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration"}
  schemas:
    Error:
      type: object
      required: [code, message, status]
      properties: {code: {type: string}, message: {type: string}, status: {type: integer}}
  responses:
    Answer:
      description: any answer
      content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
paths:
%s`

// TestAuthChecksPerScheme: the run sends its key as each scheme asks
// (http bearer; apiKey in a header, the query or a cookie) and checks the
// refusals that fit it; for a scheme it has no credential for (basic,
// digest, oauth2, openIdConnect) it sends none and checks only that a
// request without credentials is refused.
func TestAuthChecksPerScheme(t *testing.T) {
	t.Parallel()
	const key = "scheme-test-key-77a1"
	tests := []struct {
		op      string
		schemes []string // one alternative
		checks  []string // the auth checks, in order
		sent    string   // the credentials of a request with the key
	}{
		{"bearerOp", []string{"bearer"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)", "with a wrong key"}, "Authorization: Bearer " + key},
		{"headerOp", []string{"hdr"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "X-Key: " + key},
		{"queryOp", []string{"qry"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "?appid=" + key},
		{"cookieOp", []string{"ck"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "Cookie: sid=" + key},
		{"basicOp", []string{"basic"}, []string{"without credentials"}, ""},
		{"digestOp", []string{"digest"}, []string{"without credentials"}, ""},
		{"oauthOp", []string{"oauth"}, []string{"without credentials"}, ""},
		{"oidcOp", []string{"oidc"}, []string{"without credentials"}, ""},
		{"headerAndQueryOp", []string{"hdr", "qry"}, []string{"without credentials", "with an empty key", "with a wrong key"}, "X-Key: " + key + "; ?appid=" + key},
		{"bearerAndBasicOp", []string{"basic", "bearer"}, []string{"without credentials", "with an empty bearer token", "with another scheme (Basic)"}, "Authorization: Bearer " + key},
	}
	var paths strings.Builder
	for _, tc := range tests {
		var list []string
		for _, s := range tc.schemes {
			list = append(list, s+": []")
		}
		fmt.Fprintf(&paths, "  /%s:\n    get:\n      operationId: %s\n      security: [{%s}]\n      responses: {'401': {$ref: '#/components/responses/Answer'}}\n",
			strings.ToLower(tc.op), tc.op, strings.Join(list, ", "))
	}
	doc, err := spec.Parse([]byte(fmt.Sprintf(schemesDocument, paths.String())), "schemes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The deployment refuses everything, and notes the credentials of
	// each request that carries the key.
	var mu sync.Mutex
	sent := map[string][]string{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var creds []string
		for _, name := range []string{"Authorization", "X-Key", "Cookie"} {
			if v := r.Header.Get(name); strings.Contains(v, key) {
				creds = append(creds, name+": "+v)
			}
		}
		if v := r.URL.Query().Get("appid"); v == key {
			creds = append(creds, "?appid="+v)
		}
		if len(creds) > 0 {
			mu.Lock()
			p := strings.TrimPrefix(r.URL.Path, "/v1")
			sent[p] = append(sent[p], strings.Join(creds, "; "))
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(errorBody(http.StatusUnauthorized, "unauthorized"))
	})
	o := conform(t, serve(t, h), func(c *conformance.Config) {
		c.APIKey, c.Spec, c.Validator = key, doc, nil
		c.LabelFilter = "auth || deprecation" // a deprecation check sends the key to each operation
	})
	for _, tc := range tests {
		var got []string
		for _, sr := range o.res.Report.SpecReports {
			if len(sr.ContainerHierarchyTexts) > 2 && sr.ContainerHierarchyTexts[1] == "auth" && strings.HasPrefix(sr.ContainerHierarchyTexts[2], tc.op+" ") {
				got = append(got, strings.TrimSuffix(sr.LeafNodeText, " gives 401"))
				if st := sr.State.String(); st != "passed" {
					t.Errorf("%s %s: %s, want passed: %s", tc.op, sr.LeafNodeText, st, sr.Failure.Message)
				}
			}
		}
		if !slices.Equal(got, tc.checks) {
			t.Errorf("%s (%s): auth checks %q, want %q", tc.op, strings.Join(tc.schemes, " and "), got, tc.checks)
		}
		mu.Lock()
		creds := slices.Compact(sent["/"+strings.ToLower(tc.op)])
		mu.Unlock()
		var want []string
		if tc.sent != "" {
			want = []string{tc.sent}
		}
		if !slices.Equal(creds, want) {
			t.Errorf("%s (%s): the key went as %q, want %q", tc.op, strings.Join(tc.schemes, " and "), creds, want)
		}
	}
}
