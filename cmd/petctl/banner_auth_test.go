package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// securityStyle is the document with every kind of security scheme.
const securityStyle = "../../fixtures/styles/security.yaml"

// securityConfig serves securityStyle with a configured answer for the
// operations the test calls, so that a request that passes authentication
// gets 200; extra is appended to the file.
func securityConfig(t *testing.T, extra string) string {
	t.Helper()
	spec, err := filepath.Abs(securityStyle)
	if err != nil {
		t.Fatal(err)
	}
	file := "spec: " + spec + "\nresponses:\n"
	for _, id := range []string{"globalBearer", "keyOrBasic", "queryAndCookie", "oauthWrite", "oidcRead"} {
		file += "  " + id + ": {status: 200, body: {ok: true}}\n"
	}
	path := filepath.Join(t.TempDir(), "petctl.yaml")
	if err := os.WriteFile(path, []byte(file+extra), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// authLines are the banner's auth lines, by scheme name.
func authLines(t *testing.T, banner string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(banner, "\n") {
		rest, ok := strings.CutPrefix(line, "  auth       ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(rest, `"`), `"`)
		out[name] = rest
	}
	return out
}

// curl runs the curl command at the end of a banner line the way curl
// would: -u, -H, -d, --data-urlencode and the URL, each argument quoted
// or bare. It returns the status and the body.
func curl(t *testing.T, line string) (int, []byte) {
	t.Helper()
	_, cmd, ok := strings.Cut(line, "curl ")
	if !ok {
		t.Fatalf("no curl command in %q", line)
	}
	cmd, _, _ = strings.Cut(cmd, ";") // what follows is advice
	var args []string
	for _, a := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(cmd, -1) {
		args = append(args, strings.Trim(a, "'"))
	}
	var target, user string
	var form []string
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-u":
			i++
			user = args[i]
		case "-H":
			i++
			name, value, _ := strings.Cut(args[i], ": ")
			header.Set(name, value)
		case "-d":
			i++
			form = append(form, args[i])
		case "--data-urlencode":
			i++
			name, value, _ := strings.Cut(args[i], "=")
			form = append(form, name+"="+url.QueryEscape(value))
		default:
			target = args[i]
		}
	}
	method := http.MethodGet
	var body io.Reader
	if form != nil {
		method, body = http.MethodPost, strings.NewReader(strings.Join(form, "&"))
		header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	req.Header = header
	if user != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user)))
	}
	res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// quoted is the first quoted instruction of a banner line: 'X-Api-Key: k'.
func quoted(t *testing.T, line string) string {
	t.Helper()
	m := regexp.MustCompile(`'([^']*)'`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no quoted instruction in %q", line)
	}
	return m[1]
}

// TestBannerTellsHowToAuthenticate: serve prints a line per security
// scheme the document uses, and doing what each line says (running its
// curl command for a token, sending the header, query parameter or cookie
// it shows) is let in; the schemes petctl cannot check are named as
// answering 501.
func TestBannerTellsHowToAuthenticate(t *testing.T) {
	base, banner := startServe(t, nil, "--config", securityConfig(t, ""))
	lines := authLines(t, banner.String())
	for _, name := range []string{"basic", "bearer", "cookieKey", "digest", "headerKey", "mtls", "oauth", "oidc", "queryKey"} {
		if lines[name] == "" {
			t.Errorf("no auth line for %s:\n%s", name, banner)
		}
	}
	for _, name := range []string{"digest", "mtls"} {
		if !strings.Contains(lines[name], "not served; the operations that need it answer 501") {
			t.Errorf("%s: %q", name, lines[name])
		}
	}
	token := func(name string) string {
		status, body := curl(t, lines[name])
		var answer struct {
			AccessToken string `json:"access_token"`
		}
		if err := json.Unmarshal(body, &answer); status != 200 || err != nil || answer.AccessToken == "" {
			t.Fatalf("the %s line's curl: %d %s", name, status, body)
		}
		return answer.AccessToken
	}
	get := func(method, path string, header http.Header) int {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	set := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	header := func(name string) (string, string) {
		k, v, _ := strings.Cut(quoted(t, lines[name]), ": ")
		return k, v
	}
	basicUser := quoted(t, lines["basic"]) // user:password, as curl -u takes it
	hk, hv := header("headerKey")
	bk, bv := header("bearer")
	ck, cv := header("cookieKey")
	query := strings.TrimPrefix(quoted(t, lines["queryKey"]), "?")
	for _, c := range []struct {
		name, method, path string
		header             http.Header
	}{
		{"basic", "GET", "/either", set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(basicUser)))},
		{"headerKey", "GET", "/either", set(hk, hv)},
		{"bearer", "GET", "/global", set(bk, bv)},
		{"queryKey and cookieKey", "GET", "/both?" + query, set(ck, cv)},
		{"oauth", "POST", "/scoped", set("Authorization", "Bearer "+token("oauth"))},
		{"oidc", "GET", "/oidc", set("Authorization", "Bearer "+token("oidc"))},
	} {
		if status := get(c.method, c.path, c.header); status != 200 {
			t.Errorf("%s, as the banner says: %d, want 200", c.name, status)
		}
	}
	if !strings.Contains(lines["oidc"], "discovery "+strings.TrimSuffix(base, "/sec")+"/__petctl/oauth/.well-known/openid-configuration") {
		t.Errorf("the oidc line names no discovery document: %q", lines["oidc"])
	}
}

// TestBannerNamesConfiguredCredentials: for schemes given their own
// credentials the banner names the users and clients, and never prints a
// password, secret, key or token; the commands it shows work once the
// placeholder is filled in.
func TestBannerNamesConfiguredCredentials(t *testing.T) {
	config := securityConfig(t, `auth:
  keys: [my-own-key-zz9]
  schemes:
    basic:
      users: {alice: alice-pw-zz9}
    oauth:
      clients: {ci: ci-secret-zz9}
    oidc:
      users: {bob: bob-pw-zz9}
    bearer:
      tokens: [{token: bearer-token-zz9}]
`)
	_, banner := startServe(t, nil, "--config", config)
	out := banner.String()
	for _, secret := range []string{"zz9", "petctl-dev-key"} {
		if strings.Contains(out, secret) {
			t.Errorf("the banner prints %s:\n%s", secret, out)
		}
	}
	lines := authLines(t, out)
	for name, want := range map[string]string{
		"basic":     "users alice (auth.schemes.basic): curl -u 'alice:<PASSWORD>'",
		"bearer":    "'Authorization: Bearer <TOKEN>'",
		"headerKey": "'X-Api-Key: <API_KEY>'",
		"oauth":     "curl -u 'ci:<SECRET>' -d grant_type=client_credentials --data-urlencode 'scope=pets:read pets:write'",
		"oidc":      "curl -d grant_type=password -d username=bob -d 'password=<PASSWORD>' --data-urlencode 'scope=openid profile'",
	} {
		if !strings.Contains(lines[name], want) {
			t.Errorf("%s: %q, want it to hold %q", name, lines[name], want)
		}
	}
	fill := strings.NewReplacer("<SECRET>", "ci-secret-zz9", "<PASSWORD>", "bob-pw-zz9")
	for _, name := range []string{"oauth", "oidc"} {
		if status, body := curl(t, fill.Replace(lines[name])); status != 200 {
			t.Errorf("the %s line's curl, its placeholder filled: %d %s", name, status, body)
		}
	}
}
