package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

// schemesFile gives every kind of scheme of fixtures/styles/security.yaml
// its own credentials, and the authorization server its settings.
const schemesFile = `auth:
  schemes:
    basic:
      users: {alice: wonder-PASSWORD-1}
    headerKey:
      keys: [header-KEY-2]
    bearer:
      tokens:
        - token: bearer-TOKEN-3
    oauth:
      clients: {ci: client-SECRET-4}
      users: {bob: builder-PASSWORD-5}
      tokens:
        - token: oauth-TOKEN-6
          scopes: [pets:read]
  oauth:
    issuer: https://issuer.example
    audience: https://api.example
    tokenLifetime: 5m
`

// TestSchemeCredentialsReachTheEngine: auth.schemes and auth.oauth become
// the engine's AuthOptions, one field for one key.
func TestSchemeCredentialsReachTheEngine(t *testing.T) {
	l, err := parse("petctl.yaml", []byte(schemesFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatal(err)
	}
	o, err := l.EngineOptions(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := engine.AuthOptions{
		Schemes: map[string]engine.SchemeCredentials{
			"basic":     {Users: map[string]string{"alice": "wonder-PASSWORD-1"}},
			"headerKey": {Keys: []string{"header-KEY-2"}},
			"bearer":    {Tokens: []engine.StaticToken{{Token: "bearer-TOKEN-3"}}},
			"oauth": {
				Clients: map[string]string{"ci": "client-SECRET-4"},
				Users:   map[string]string{"bob": "builder-PASSWORD-5"},
				Tokens:  []engine.StaticToken{{Token: "oauth-TOKEN-6", Scopes: []string{"pets:read"}}},
			},
		},
		Issuer:        "https://issuer.example",
		Audience:      "https://api.example",
		TokenLifetime: 5 * time.Minute,
	}
	if !reflect.DeepEqual(o.Auth, want) {
		t.Errorf("auth options:\n got %+v\nwant %+v", o.Auth, want)
	}
	// No auth.keys: the development key serves the schemes without an
	// entry (here cookieKey, queryKey and oidc).
	if !l.Config.UsesDevKey() || len(o.Keys) != 1 || o.Keys[0] != DevKey {
		t.Errorf("keys %q, want the development key for the schemes without an entry", o.Keys)
	}
}

// TestShowRedactsSchemeSecrets: config show prints user names, client ids
// and scopes, never a password, secret, key or token; and showing leaves
// the configuration as it was.
func TestShowRedactsSchemeSecrets(t *testing.T) {
	l, err := parse("petctl.yaml", []byte(schemesFile))
	if err != nil {
		t.Fatal(err)
	}
	out, err := l.Show()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, secret := range []string{"PASSWORD", "KEY-2", "TOKEN", "SECRET"} {
		if strings.Contains(s, secret) {
			t.Errorf("show prints a %s:\n%s", secret, s)
		}
	}
	for _, w := range []string{"alice: <redacted>", "ci: <redacted>", "token: <redacted>", "pets:read", "tokenLifetime: 5m0s", "https://issuer.example"} {
		if !strings.Contains(s, w) {
			t.Errorf("show lacks %q:\n%s", w, s)
		}
	}
	if got := l.Config.Auth.Schemes["basic"].Users["alice"]; got != "wonder-PASSWORD-1" {
		t.Errorf("after show, alice's password is %q: show changed the configuration", got)
	}
	if got := l.Config.Auth.Schemes["oauth"].Tokens[0].Token; got != "oauth-TOKEN-6" {
		t.Errorf("after show, the token is %q: show changed the configuration", got)
	}
	if _, err := parse("shown.yaml", out); err != nil {
		t.Errorf("show's output does not parse: %v", err)
	}
}

// TestSchemeProblemsLocated: a scheme entry the document does not declare,
// credentials that do not fit the scheme's kind and an unknown key are
// each reported at their line, with the others.
func TestSchemeProblemsLocated(t *testing.T) {
	file := `auth:
  schemes:
    nope:
      keys: [k]
    basic:
      keys: [k]
    headerKey:
      password: x
    bearer:
      tokens:
        - token: "has space"
  oauth:
    tokenLifetime: 0s
`
	l, err := parse("petctl.yaml", []byte(file))
	if err == nil {
		t.Fatal("an unknown key in a scheme entry was accepted")
	}
	if got := err.Error(); !strings.Contains(got, "petctl.yaml:8: auth.schemes.headerKey.password: unknown key; the keys here are keys, users, clients, tokens") {
		t.Errorf("the unknown key: %s", got)
	}
	l, err = parse("petctl.yaml", []byte(strings.Replace(file, "      password: x\n", "      keys: [fine]\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	got := validateWith(t, l, "../fixtures/styles/security.yaml").Error()
	for _, w := range []string{
		`petctl.yaml:3: auth.schemes.nope: the document declares no security scheme "nope"`,
		`petctl.yaml:6: auth.schemes.basic.keys: "basic" (http basic) takes users, not keys`,
		"petctl.yaml:11: auth.schemes.bearer.tokens[0].token: the token contains white space",
		"petctl.yaml:13: auth.oauth.tokenLifetime: 0s: want at least 1s",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// validateWith checks l as `petctl config validate` does, serving the
// document at path.
func validateWith(t *testing.T, l *Loaded, path string) error {
	t.Helper()
	var ps Problems
	if err := l.Check(); err != nil && !errors.As(err, &ps) {
		t.Fatal(err)
	}
	s, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o, convErr := l.EngineOptions(time.Now())
	o.Spec = s
	_, err = engine.New(o)
	return l.Combine(ps, errors.Join(convErr, err))
}
