package engine

import (
	"testing"

	"github.com/petctl/petctl/spec"
)

// readOnlyAtCreateDocument is overseerr's user in small: the item marks
// email readOnly, and the create's own body declares it; the replace takes
// the item itself.
const readOnlyAtCreateDocument = `openapi: 3.0.3
info: {title: Users, version: "1"}
servers: [{url: /api}]
paths:
  /users:
    post:
      operationId: createUser
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                email: {type: string}
                username: {type: string}
      responses:
        '201':
          description: Created.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/User'}
  /users/{userId}:
    parameters:
      - {name: userId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getUser
      responses:
        '200':
          description: The user.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/User'}
        '404': {description: No such user.}
    put:
      operationId: replaceUser
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/User'}
      responses:
        '200':
          description: Replaced.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/User'}
components:
  schemas:
    User:
      type: object
      required: [id, email, createdAt]
      properties:
        id: {type: integer, readOnly: true}
        email: {type: string, readOnly: true}
        username: {type: string}
        createdAt: {type: string, readOnly: true}
`

// TestCreateTakesWhatItsBodyDeclares: a field the item marks readOnly and
// the create's own body declares is the client's to give when creating
// (overseerr's email was answered "1"); no later write changes it, and a
// readOnly field no create declares is still the server's.
func TestCreateTakesWhatItsBodyDeclares(t *testing.T) {
	s, err := spec.Parse([]byte(readOnlyAtCreateDocument), "users.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := start(t, Options{Spec: s, Keys: []string{testKey}}, "Authorization", "Bearer ")
	play(t, env, []exchange{
		{name: "create", method: "POST", path: "/users", body: `{"email":"ann@example.com","username":"ann"}`, status: 201,
			want: map[string]string{"id": "1", "email": "ann@example.com", "username": "ann"}},
		{name: "read", path: "/users/1", status: 200, want: map[string]string{"email": "ann@example.com"}},
		{name: "replace", method: "PUT", path: "/users/1", body: `{"username":"ann b"}`, status: 200,
			want: map[string]string{"email": "ann@example.com", "username": "ann b"}},
		{name: "read after the replace", path: "/users/1", status: 200, want: map[string]string{"email": "ann@example.com", "username": "ann b"}},
	})
}
