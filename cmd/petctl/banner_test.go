package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestBannerTryLineWorks: the banner's curl command sends the key where the
// served document's security scheme takes it, and running it (with the key
// filled in) is let in.
func TestBannerTryLineWorks(t *testing.T) {
	t.Parallel() // shares nothing with the other tests (TestMain says why)
	dir := t.TempDir()
	doc := string(spec.DefaultDocument())
	bearer := "    bearerAuth:\n      type: http\n      scheme: bearer\n"
	if !strings.Contains(doc, bearer) {
		t.Fatal("the Petstore no longer declares bearerAuth as expected")
	}
	appid := filepath.Join(dir, "appid.yaml")
	if err := os.WriteFile(appid, []byte(strings.Replace(doc, bearer, "    bearerAuth:\n      type: apiKey\n      in: query\n      name: appid\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		key  string
		want string // the try line, with BASE for the base URL
	}{
		{"http bearer, development key", nil, devKey, "curl -H 'Authorization: Bearer petctl-dev-key' 'BASE/pets'"},
		{"apiKey header", []string{"--spec", "../../fixtures/library/openapi.yaml", "--fixtures", "../../fixtures/library/books.json", "--api-key", "k1"},
			"k1", "curl -H 'X-Library-Key: <API_KEY>' 'BASE/books'"},
		{"apiKey query", []string{"--spec", appid, "--fixtures", "../../fixtures/petstore/pets.json", "--api-key", "k1"},
			"k1", "curl 'BASE/pets?appid=<API_KEY>'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, banner := startServe(t, nil, c.args...)
			want := strings.ReplaceAll(c.want, "BASE", base)
			if !strings.Contains(banner.String(), "try        "+want+"\n") {
				t.Fatalf("banner lacks %q:\n%s", want, banner)
			}
			// Run the command as a shell would: -H 'h' and a quoted URL.
			args := regexp.MustCompile(`'[^']*'`).FindAllString(strings.ReplaceAll(want, "<API_KEY>", c.key), -1)
			req, err := http.NewRequest(http.MethodGet, strings.Trim(args[len(args)-1], "'"), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range args[:len(args)-1] {
				name, value, _ := strings.Cut(strings.Trim(h, "'"), ": ")
				req.Header.Set(name, value)
			}
			res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Errorf("the banner's command got %d, want 200", res.StatusCode)
			}
		})
	}
}
