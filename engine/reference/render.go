package reference

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/petctl/petctl/spec"
)

//go:embed assets
var assets embed.FS

// The page's own files, served under the page's path and written beside
// index.html by Write.
const (
	cssFile    = "reference.css"
	scriptFile = "reference.js"
)

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"lower":      strings.ToLower,
	"paragraphs": paragraphs,
	"text":       text,
}).ParseFS(assets, "assets/page.html"))

// textEscaper escapes what element content needs escaped, and no more:
// html/template also escapes quotes, which makes the JSON examples a third
// larger for nothing.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// text is s as the content of an element (never an attribute's value).
func text(s string) template.HTML {
	return template.HTML(textEscaper.Replace(s))
}

// assetPaths are the URLs of the page's files when the page is at pagePath.
func assetPaths(pagePath string) []string {
	return []string{pagePath + "/" + cssFile, pagePath + "/" + scriptFile}
}

// render makes the page and its files, by the path each is served at:
// under pagePath when mounted beside the mock, else as index.html and its
// neighbours.
func render(s *spec.Spec, o Options, mock bool, pagePath string) (map[string][]byte, error) {
	prefix := ""
	if mock {
		// Relative to the page's URL, so that the page works under any prefix.
		prefix = path.Base(pagePath) + "/"
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, buildPage(s, o, mock, prefix)); err != nil {
		return nil, fmt.Errorf("reference of %s: %w", s.Source, err)
	}
	files := map[string][]byte{}
	page, dir := "index.html", ""
	if mock {
		page, dir = pagePath, pagePath+"/"
	}
	files[page] = b.Bytes()
	for _, name := range []string{cssFile, scriptFile} {
		data, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return nil, err
		}
		files[dir+name] = data
	}
	return files, nil
}

// Write writes the reference of s to dir as static files (index.html, its
// style sheet and script), ready to publish: try-it sends requests to
// o.Server, or to the document's first server. dir is created if needed;
// files of other names in it are left alone.
func Write(dir string, s *spec.Spec, o Options) ([]string, error) {
	files, err := render(s, o, false, "")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, name := range []string{"index.html", cssFile, scriptFile} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}
