package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/reference"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
)

// referenceOptions place the reference beside the mock: at /docs, or under
// the admin prefix when the document's own paths claim /docs.
var referenceOptions = reference.Options{Reserved: engine.AdminPrefix}

// printReferenceLine is the banner's line for the reference served beside
// the mock at origin.
func printReferenceLine(w io.Writer, s *spec.Spec, origin string) {
	switch p := reference.Path(s, referenceOptions); p {
	case "":
	case reference.DefaultPath:
		fmt.Fprintf(w, "  reference  %s%s (try-it sends to this mock)\n", origin, p)
	default:
		fmt.Fprintf(w, "  reference  %s%s (the document's own paths claim %s)\n", origin, p, reference.DefaultPath)
	}
}

func newDocsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Write the API reference that petctl serve shows at /docs",
	}
	cmd.AddCommand(newDocsBuildCmd(a, nil))
	return cmd
}

type docsBuildOptions struct {
	out    string
	spec   string
	server string
}

func newDocsBuildCmd(a *app, runF func(*docsBuildOptions) error) *cobra.Command {
	opts := &docsBuildOptions{}
	cmd := &cobra.Command{
		Use:   "build --out DIR",
		Short: "Write the API reference as static files, ready to publish",
		Long: `Write the reference that 'petctl serve' shows at /docs as static files:
DIR/index.html, its style sheet and its script, which need no network and no
CDN. Its try-it panels send requests to --server, or to the document's first
server; a reader can pick another of the document's servers on the page.
Other files in DIR are left alone.`,
		Example: `  petctl docs build --out site
  petctl docs build --out site --spec openapi.yaml --server https://staging.example.com/v1`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return docsBuildRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.out, "out", "", "folder to write index.html, reference.css and reference.js to (created if needed)")
	f.StringVar(&opts.spec, "spec", "", "OpenAPI document (default: the embedded Petstore)")
	f.StringVar(&opts.server, "server", "", "server try-it sends requests to, an absolute http(s) URL (default: the document's first server)")
	return cmd
}

func docsBuildRun(a *app, opts *docsBuildOptions) error {
	if opts.out == "" {
		return usageErrorf("docs build needs --out DIR, the folder to write the reference to")
	}
	if fi, err := os.Stat(opts.out); err == nil && !fi.IsDir() {
		return usageErrorf("--out %s: is a file, not a folder", opts.out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return usageErrorf("--out %s: %v", opts.out, unwrapPathErr(err))
	}
	if opts.server != "" {
		if err := checkServerURL(opts.server); err != nil {
			return usageErrorf("--server %q: %v", opts.server, err)
		}
	}
	s, err := spec.Load(opts.spec)
	if err != nil {
		return usageError(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(a.err, "petctl: warning: %s\n", w)
	}
	server := opts.server
	if server == "" && len(s.Servers) > 0 {
		server = s.Servers[0]
	}
	// The folder is made here, once the document has loaded, so
	// that one that cannot be made is a usage error naming --out.
	if err := os.MkdirAll(opts.out, 0o755); err != nil {
		return usageErrorf("--out %s: cannot create the folder: %v", opts.out, unwrapPathErr(err))
	}
	files, err := reference.Write(opts.out, s, reference.Options{Server: server})
	if err != nil {
		return failure(fmt.Errorf("docs build: %v", err)) // the error names the file
	}
	fmt.Fprintf(a.out, "wrote the reference of %s %s (%d operations) to %s\n", s.Title, s.Version, len(s.Operations), strings.Join(files, ", "))
	switch {
	case server == "":
		fmt.Fprintf(a.err, "petctl: warning: the document names no server: try-it has nowhere to send requests; give one with --server URL\n")
	case checkServerURL(server) != nil:
		fmt.Fprintf(a.err, "petctl: warning: try-it sends to %s, relative to where the page is published; give an absolute URL with --server\n", server)
	default:
		fmt.Fprintf(a.out, "  try-it sends to %s (the server must allow the page's origin: CORS)\n", server)
	}
	return nil
}

// checkServerURL accepts an absolute http or https URL without a query or
// fragment: try-it appends the operation's path to it.
func checkServerURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("want an absolute http:// or https:// URL")
	case u.Host == "":
		return errors.New("names no host")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("want a URL without ?query or #fragment: operation paths are appended to it")
	}
	return nil
}
