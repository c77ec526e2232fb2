package main

import (
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"sort"
	"strings"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
)

// devKey is the key `petctl serve` accepts when none is given. It is printed
// at start-up; the server listens on loopback by default.
const devKey = "petctl-dev-key"

type serveOptions struct {
	addr      string
	keys      []string
	specPath  string
	fixtures  []string
	maxBody   int64
	logFormat string
	// ready, when set, receives the base URL once the server listens (tests).
	ready func(baseURL string)
}

func newServeCmd(a *app, runF func(*serveOptions) error) *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the API as a stateful, validating mock server",
		Long: `Serve the API described by the spec (the embedded Petstore by default) as a
stateful mock: POST creates, GET lists and reads back. Every request and every
response is validated against the spec; errors are the API's Error body.

API keys come from --api-key (repeatable), or PETCTL_API_KEYS (comma-separated)
or PETCTL_API_KEY; with none, the development key is used and printed.`,
		Example: `  petctl serve
  petctl serve --addr 127.0.0.1:8080 --api-key secret1 --api-key secret2
  petctl serve --spec openapi.yaml --fixtures pets.json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return serveRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:4010", "address to listen on (host:port; port 0 picks a free one)")
	f.StringArrayVar(&opts.keys, "api-key", nil, "accepted API key (repeatable)")
	f.StringVar(&opts.specPath, "spec", "", "OpenAPI document to serve (default: the embedded Petstore)")
	f.StringArrayVar(&opts.fixtures, "fixtures", nil, "seed data file, JSON (repeatable; default: the embedded Petstore animals with the embedded spec)")
	f.Int64Var(&opts.maxBody, "max-body", engine.DefaultMaxBodyBytes, "largest request body in bytes (413 beyond)")
	f.StringVar(&opts.logFormat, "log-format", "text", "request log format on stderr: text or json")
	return cmd
}

func serveRun(a *app, opts *serveOptions) error {
	if _, _, err := net.SplitHostPort(opts.addr); err != nil {
		return usageErrorf("--addr %q: want host:port, for example 127.0.0.1:4010", opts.addr)
	}
	if opts.maxBody <= 0 {
		return usageErrorf("--max-body %d: want a positive number of bytes", opts.maxBody)
	}
	logger, err := newLogger(a, opts.logFormat)
	if err != nil {
		return err
	}
	s, err := spec.Load(opts.specPath)
	if err != nil {
		return usageError(err)
	}
	files, err := fixtureFiles(opts, s)
	if err != nil {
		return usageError(err)
	}
	keys, dev := apiKeys(a, opts)
	srv, err := engine.New(engine.Options{
		Spec:         s,
		Keys:         keys,
		Fixtures:     files,
		MaxBodyBytes: opts.maxBody,
		Logger:       logger,
	})
	if err != nil {
		return usageError(err)
	}
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return failure(fmt.Errorf("cannot listen on %s: %v", opts.addr, err))
	}
	base := "http://" + ln.Addr().String() + s.BasePath
	printBanner(a, s, srv, base, keys, dev)
	if opts.ready != nil {
		opts.ready(base)
	}
	return failure(engine.Serve(a.ctx, ln, srv, engine.Timeouts{}, logger))
}

func newLogger(a *app, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(a.err, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(a.err, nil)), nil
	}
	return nil, usageErrorf("--log-format %q: want text or json", format)
}

// apiKeys returns the keys from the flags, else the environment, else the
// development key (and says so).
func apiKeys(a *app, opts *serveOptions) ([]string, bool) {
	if len(opts.keys) > 0 {
		return opts.keys, false
	}
	if v := a.getenv("PETCTL_API_KEYS"); v != "" {
		var keys []string
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			return keys, false
		}
	}
	if v := a.getenv("PETCTL_API_KEY"); v != "" {
		return []string{v}, false
	}
	return []string{devKey}, true
}

// fixtureFiles reads the --fixtures files, or the embedded Petstore animals
// when the embedded spec is served without any.
func fixtureFiles(opts *serveOptions, s *spec.Spec) ([]engine.FixtureFile, error) {
	var files []engine.FixtureFile
	for _, p := range opts.fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("fixtures %s: %v", p, unwrapPathErr(err))
		}
		files = append(files, engine.FixtureFile{Name: p, Data: data})
	}
	if len(files) > 0 || opts.specPath != "" {
		return files, nil
	}
	data, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	if err != nil {
		return nil, err
	}
	return append(files, engine.FixtureFile{Name: "embedded petstore/pets.json", Data: data}), nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func printBanner(a *app, s *spec.Spec, srv *engine.Server, base string, keys []string, dev bool) {
	w := a.out
	fmt.Fprintf(w, "petctl serving %s %s (%s)\n", s.Title, s.Version, s.Source)
	fmt.Fprintf(w, "  base URL   %s\n", base)
	if dev {
		fmt.Fprintf(w, "  API key    %s (development key; set --api-key or PETCTL_API_KEY for your own)\n", devKey)
	} else {
		fmt.Fprintf(w, "  API keys   %d configured\n", len(keys))
	}
	colls := srv.Collections()
	names := make([]string, 0, len(colls))
	for n := range colls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  store      %s: %d records\n", n, colls[n])
	}
	if len(s.Collections) > 0 {
		key := "<API_KEY>"
		if dev {
			key = devKey
		}
		c := s.Collections[0]
		fmt.Fprintf(w, "  try        curl -H 'Authorization: Bearer %s' '%s%s'\n", key, base, c.Path)
	}
	fmt.Fprintln(w, "  stop       Ctrl-C")
}
