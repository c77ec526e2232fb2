package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/config"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// devKey is the key `petctl serve` accepts when none is given. It is printed
// at start-up; the server listens on loopback by default.
const devKey = config.DevKey

type serveOptions struct {
	configPath  string
	profilePath string
	flags       *pflag.FlagSet
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

Settings come from built-in defaults, then petctl.yaml in the working
directory (or --config FILE), then a --profile FILE recorded from a
deployment, then PETCTL_* environment variables, then these flags; 'petctl init' writes a starter file that shows every setting.
API keys come from --api-key (repeatable), PETCTL_API_KEYS (comma-separated),
PETCTL_API_KEY or auth.keys; with none, the development key is used and printed.`,
		Example: `  petctl serve
  petctl serve --addr 127.0.0.1:8080 --api-key secret1 --api-key secret2
  petctl serve --spec openapi.yaml --fixtures pets.json
  petctl serve --now 2031-01-01          # the API after getPet's removal
  petctl serve --profile staging.profile.yaml  # answer as staging does (petctl conform --profile-out)
  petctl serve --generate 10000 --seed 7 # ten thousand synthetic animals`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return serveRun(a, opts)
		},
	}
	f := cmd.Flags()
	opts.flags = f
	f.StringVar(&opts.configPath, "config", "", "configuration file (default: ./petctl.yaml when it exists)")
	f.StringVar(&opts.profilePath, "profile", "", "profile of a deployment (petctl conform --profile-out), applied over the configuration file")
	addConfigFlags(f)
	return cmd
}

// fileFlags are the serve flags that name files of settings rather than
// set one.
var fileFlags = map[string]bool{"config": true, "profile": true}

// addConfigFlags declares a flag for every setting with a flag tag, with
// the setting's help and default: the flags are declared once, by the
// tags (TestServeFlagsMatchConfigTags).
func addConfigFlags(f *pflag.FlagSet) {
	for _, cf := range config.Flags() {
		switch cf.Type {
		case "list":
			f.StringArray(cf.Name, nil, cf.Usage)
		case "bool":
			f.Bool(cf.Name, cf.Default == "true", cf.Usage)
		case "string":
			f.String(cf.Name, cf.Default, cf.Usage)
		default: // a number
			f.Var(&textValue{text: cf.Default, typ: cf.Type}, cf.Name, cf.Usage)
		}
	}
}

// textValue is a flag that keeps its text: the configuration parses it, so
// '--seed abc' is reported as a configuration problem, in a readable line,
// with the others, not as strconv's error.
type textValue struct{ text, typ string }

func (v *textValue) String() string     { return v.text }
func (v *textValue) Set(s string) error { v.text = s; return nil }
func (v *textValue) Type() string       { return v.typ }

// loadConfig layers defaults, file, environment and the flags that were set,
// and checks the result. The problems it finds are returned with the
// configuration, so that prepare can add the spec-dependent ones and
// report them all at once; an error means no configuration at all.
func loadConfig(a *app, path string, flags *pflag.FlagSet) (*config.Loaded, config.Problems, error) {
	var profile string
	if flags != nil {
		if f := flags.Lookup("profile"); f != nil {
			profile = f.Value.String()
		}
	}
	l, err := config.LoadWithProfile(path, profile, a.getenv)
	var ps config.Problems
	if err != nil && !errors.As(err, &ps) {
		return nil, nil, usageError(err)
	}
	if flags != nil {
		flags.Visit(func(f *pflag.Flag) {
			if fileFlags[f.Name] {
				return
			}
			values := []string{f.Value.String()}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				values = sv.GetSlice()
			}
			var more config.Problems
			if err := l.SetFlag(f.Name, values...); errors.As(err, &more) {
				ps = append(ps, more...)
			} else if err != nil {
				ps = append(ps, config.Problem{Source: "--" + f.Name, Msg: err.Error()})
			}
		})
	}
	var more config.Problems
	if errors.As(l.Check(), &more) {
		ps = append(ps, more...)
	}
	if l.Source("store.path") == "default" {
		l.Store.Path = engine.StatePathFor(l.Spec)
	}
	return l, ps, nil
}

// checkedConfig is loadConfig for commands that need no spec: any problem
// stops them.
func checkedConfig(a *app, path string) (*config.Loaded, error) {
	l, ps, err := loadConfig(a, path, nil)
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		return nil, usageError(ps)
	}
	return l, nil
}

// prepared is a server built from a configuration, not yet listening.
type prepared struct {
	cfg  *config.Loaded
	spec *spec.Spec
	srv  *engine.Server
}

// prepare does everything serve does before it listens: it is also what
// 'config validate' runs. ps are the problems loadConfig found; the spec,
// the fixtures and the spec-dependent settings are checked even so (unless
// the spec setting itself is wrong), and every problem is reported at once.
//
// st says where the records are kept and, for a reload, which server is
// replaced; nil for none (config validate).
func prepare(a *app, cfg *config.Loaded, ps config.Problems, logger *slog.Logger, logs *engine.LogBuffer, st *stateChoice) (*prepared, error) {
	c := cfg.Config
	for _, p := range ps {
		if p.Key == "spec" {
			return nil, usageError(ps) // any spec check would be against another document
		}
	}
	s, err := spec.LoadWith(c.Spec, c.SpecOptions())
	if err != nil {
		return nil, usageError(cfg.Combine(ps, &engine.OptionError{Key: "spec", Err: err}))
	}
	for _, w := range s.Warnings {
		logger.Warn(w)
	}
	files, errs := fixtureFiles(c, s)
	o, err := c.EngineOptions(time.Now())
	if err != nil {
		errs = append(errs, err)
	}
	if o.Auth.SigningKey, err = signingKey(c); err != nil {
		errs = append(errs, err)
	}
	o.Spec, o.Fixtures, o.Logger, o.LogBuffer = s, files, logger, logs
	if st != nil && len(ps) == 0 && len(errs) == 0 {
		// Only when nothing else is wrong: a start refused for another
		// reason leaves the state as it was.
		o.State, o.Previous, o.Version = st.journal, st.previous, st.version
		o.StateReset = c.Store.Reset && st.previous == nil // a reload never resets
	}
	srv, err := engine.New(o)
	if err := cfg.Combine(ps, errors.Join(append(errs, err)...)); err != nil {
		return nil, usageError(err)
	}
	return &prepared{cfg: cfg, spec: s, srv: srv}, nil
}

func serveRun(a *app, opts *serveOptions) error {
	// Taken before anything is loaded: a SIGHUP that arrives while petctl
	// starts, or just after the banner, is a reload once it serves, not
	// the end of the process (the signal's default action).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, ps, err := loadConfig(a, opts.configPath, opts.flags)
	if err != nil {
		return err
	}
	logger, logs, err := newLogger(a, cfg.Config)
	if err != nil {
		logger = slog.New(slog.NewTextHandler(a.err, nil)) // the problem is among ps
	} else {
		// Runs before run prints the error, if any, after the log lines.
		defer logs.Close(logFlushTimeout)
	}
	var state store.Journal
	if !ps.Names("store") {
		if state, err = openState(cfg.Config); err != nil {
			return usageError(cfg.Combine(ps, err))
		}
	}
	if state != nil {
		defer func() {
			if err := state.Close(); err != nil {
				logger.Error("the state could not be closed", "state", state.Name(), "error", err.Error())
			}
		}()
	}
	p, err := prepare(a, cfg, ps, logger, logs, &stateChoice{journal: state, version: engine.Version{Number: 1, Loaded: time.Now()}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Server.Addr)
	if err != nil {
		return usageError(listenError(cfg, err))
	}
	base := "http://" + ln.Addr().String() + p.spec.BasePath
	printBanner(a, p, base)
	warnIfExposed(a, cfg.Config, ln.Addr())
	rl := newReloader(a, opts, p, state, logger, logs)
	go rl.run(a.ctx, hup)
	go tuneGC(p.srv, logger)
	if opts.ready != nil {
		opts.ready(base)
	}
	return failure(engine.Serve(a.ctx, ln, rl, p.srv.Timeouts(), logger))
}

// tuneGC lets the garbage collector weigh the records srv's store holds
// (engine.TuneGC), off the serving path, and says what it set.
func tuneGC(srv *engine.Server, logger *slog.Logger) {
	if percent := engine.TuneGC(srv); percent > 0 && percent < 100 {
		logger.Debug("the garbage collector's percent is set for the records the store holds", "percent", percent)
	}
}

// stateChoice is where prepare's server keeps its records: journal (nil
// for memory only), and the server it replaces on a reload.
type stateChoice struct {
	journal  store.Journal
	previous *engine.Server
	version  engine.Version
}

// listenError says why the address cannot be used, where it was set and
// how to choose another: "address already in use" alone leaves a newcomer
// to guess which setting to change.
func listenError(cfg *config.Loaded, err error) error {
	reason := err.Error()
	var se *os.SyscallError
	if errors.As(err, &se) {
		reason = se.Err.Error() // "address already in use", without Go's "listen tcp ...: bind:"
	}
	from := "the default"
	if src := cfg.Source("server.addr"); src != "default" {
		from = "from " + src
	}
	return fmt.Errorf("cannot listen on %s (%s): %s; choose another address with %s (port 0 picks a free one)",
		cfg.Server.Addr, from, reason, config.SetBy("server.addr"))
}

// warnIfExposed warns, on stderr, when the public development key or the
// open mode is served where other hosts can reach it: both are meant for
// one developer on loopback.
func warnIfExposed(a *app, c *config.Config, addr net.Addr) {
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return
	}
	switch {
	case c.Auth.Mode == "open":
		fmt.Fprintf(a.err, "petctl: warning: %s is not a loopback address and auth.mode is open: anyone who can reach it can call the API with any token; use auth.mode keys with your own keys (auth.keys, PETCTL_API_KEYS, --api-key)\n", addr)
	case c.UsesDevKey():
		fmt.Fprintf(a.err, "petctl: warning: %s is not a loopback address and the public development key %s is in force: anyone who can reach it can call the API; set your own keys (auth.keys, PETCTL_API_KEYS, --api-key)\n", addr, devKey)
	}
}

// logFlushTimeout bounds how long serve waits, once stopped, for the log
// lines still buffered to be written: a stderr nobody reads must not keep
// the process from exiting.
const logFlushTimeout = 2 * time.Second

// newLogger builds the server's logger in the configured format and level.
// It writes through a LogBuffer, so that a stderr nobody reads never holds
// a request up; close the buffer once the server has stopped.
func newLogger(a *app, c *config.Config) (*slog.Logger, *engine.LogBuffer, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.Log.Level)); err != nil {
		return nil, nil, usageErrorf("--log-level %q: want debug, info, warn or error", c.Log.Level)
	}
	if f := c.Server.LogFormat; f != "text" && f != "json" {
		return nil, nil, usageErrorf("--log-format %q: want text or json", f)
	}
	opts := &slog.HandlerOptions{Level: level}
	logs := engine.NewLogBuffer(a.err, engine.DefaultLogBufferBytes)
	h := engine.NewTextHandler(logs, opts)
	if c.Server.LogFormat == "json" {
		h = engine.NewJSONHandler(logs, opts)
	}
	logger := slog.New(h)
	logs.ReportLossTo(logger)
	return logger, logs, nil
}

// fixtureFiles reads the configured fixture files, or the embedded Petstore
// animals when the embedded spec is served without any and nothing is
// generated. A file that cannot be read is a problem at fixtures.files; the
// others are still read, so that their records are checked too.
func fixtureFiles(c *config.Config, s *spec.Spec) ([]engine.FixtureFile, []error) {
	var files []engine.FixtureFile
	var errs []error
	for _, p := range c.Fixtures.Files {
		data, err := store.ReadFixtureFile(p)
		if err != nil {
			errs = append(errs, &engine.OptionError{Key: "fixtures.files", Err: fmt.Errorf("fixtures %s: %v", p, unwrapPathErr(err))})
			continue
		}
		files = append(files, engine.FixtureFile{Name: p, Data: data})
	}
	if len(c.Fixtures.Files) > 0 || c.Spec != "" || c.Fixtures.Generate > 0 {
		return files, errs
	}
	data, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	if err != nil {
		return nil, []error{err}
	}
	return append(files, engine.FixtureFile{Name: "embedded petstore/pets.json", Data: data}), nil
}

// signingKey reads the PEM file of auth.oauth.signingKey; the engine
// checks what it holds.
func signingKey(c *config.Config) ([]byte, error) {
	p := c.Auth.OAuth.SigningKey
	if p == "" {
		return nil, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, &engine.OptionError{Key: "auth.oauth.signingKey", Err: fmt.Errorf("signing key %s: %v", p, unwrapPathErr(err))}
	}
	return data, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

func printBanner(a *app, p *prepared, base string) {
	w, s, c := a.out, p.spec, p.cfg.Config
	fmt.Fprintf(w, "petctl serving %s %s (%s)\n", s.Title, s.Version, s.Source)
	fmt.Fprintf(w, "  base URL   %s\n", base)
	if p.cfg.File != "" {
		fmt.Fprintf(w, "  config     %s\n", p.cfg.File)
	}
	if p.cfg.Profile != "" {
		fmt.Fprintf(w, "  profile    %s\n", p.cfg.Profile)
	}
	switch {
	case c.Auth.Mode == "open":
		fmt.Fprintf(w, "  API keys   open: any non-empty key is accepted\n")
	case c.UsesDevKey():
		fmt.Fprintf(w, "  API key    %s (development key; set --api-key or PETCTL_API_KEY for your own)\n", devKey)
	default:
		fmt.Fprintf(w, "  API keys   %d configured\n", len(c.Auth.Keys))
	}
	key := "<API_KEY>"
	if c.UsesDevKey() {
		key = devKey
	}
	origin := strings.TrimSuffix(base, s.BasePath)
	access := map[string]engine.SchemeAccess{}
	for _, acc := range p.srv.Access() {
		access[acc.Scheme.Name] = acc
		fmt.Fprintf(w, "  auth       %s\n", howToAuthenticate(acc, origin, key))
	}
	colls := p.srv.Collections()
	names := make([]string, 0, len(colls))
	for n := range colls {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "  state      %s\n", stateLine(c))
	for _, n := range names {
		fmt.Fprintf(w, "  store      %s: %d records\n", n, colls[n])
	}
	if c.Clock.Now != "" {
		fmt.Fprintf(w, "  clock      starts at %s\n", c.Clock.Now)
	}
	fmt.Fprintf(w, "  admin      %s%s (health, ready, reset, store, requests)\n", origin, engine.AdminPrefix)
	printReferenceLine(w, s, origin)
	if len(s.Collections) > 0 {
		fmt.Fprintf(w, "  try        %s\n", tryCommand(s.Collections[0], base, key, access))
	}
	fmt.Fprintln(w, "  stop       Ctrl-C")
}

// howToAuthenticate is the banner's line for one security scheme: what to
// send, and for oauth2 and openIdConnect the curl command that gets a
// token. key is the development key, or a placeholder when the keys are
// the user's own; configured secrets are never printed.
func howToAuthenticate(acc engine.SchemeAccess, origin, key string) string {
	sc := acc.Scheme
	switch sc.Kind {
	case spec.SchemeUnsupported:
		return fmt.Sprintf("%s: not served; the operations that need it answer 501", sc)
	case spec.SchemeBasic:
		user, password := "me", key
		note := "any user name, with an API key as the password"
		if acc.Restricted {
			user, password = acc.Users[0], "<PASSWORD>"
			note = "users " + strings.Join(acc.Users, ", ") + " (auth.schemes." + sc.Name + ")"
		}
		return fmt.Sprintf("%s: %s: curl -u '%s:%s'", sc, note, user, password)
	case spec.SchemeOAuth2, spec.SchemeOpenID:
		line := fmt.Sprintf("%s: a token: %s", sc, tokenCommand(acc, origin, key))
		if acc.DiscoveryPath != "" {
			line += "; discovery " + origin + acc.DiscoveryPath
		}
		if !acc.Restricted {
			line += "; an API key is a token with every scope too"
		}
		return line
	}
	secret := key
	if acc.Restricted {
		secret = "<API_KEY>"
		if sc.Kind == spec.SchemeBearer {
			secret = "<TOKEN>"
		}
	}
	return fmt.Sprintf("%s: '%s'", sc, sc.Example(secret))
}

// tokenCommand is a curl command that asks the token endpoint of an
// oauth2 or openIdConnect scheme for a token: with the client credentials
// grant, or the password grant when the configuration names users and no
// client.
func tokenCommand(acc engine.SchemeAccess, origin, key string) string {
	url := origin + acc.TokenPath
	scope := ""
	if len(acc.Scopes) > 0 {
		// Encoded by curl: a scope may hold '+' or '&'.
		scope = fmt.Sprintf(" --data-urlencode 'scope=%s'", strings.Join(acc.Scopes, " "))
	}
	switch {
	case !acc.Restricted:
		return fmt.Sprintf("curl -u 'client:%s' -d grant_type=client_credentials%s '%s'", key, scope, url)
	case len(acc.Clients) > 0:
		return fmt.Sprintf("curl -u '%s:<SECRET>' -d grant_type=client_credentials%s '%s'", acc.Clients[0], scope, url)
	case len(acc.Users) > 0:
		return fmt.Sprintf("curl -d grant_type=password -d username=%s -d 'password=<PASSWORD>'%s '%s'", acc.Users[0], scope, url)
	}
	return "static tokens only (auth.schemes." + acc.Scheme.Name + ".tokens)"
}

// tryCommand is a curl command that lists coll, carrying key where the list
// operation's first security alternative takes it.
func tryCommand(coll *spec.Collection, base, key string, access map[string]engine.SchemeAccess) string {
	target := base + coll.Path
	var args []string
	if op := coll.List; op != nil && len(op.Requirements) > 0 {
		for _, use := range op.Requirements[0] {
			sc, acc := use.Scheme, access[use.Scheme.Name]
			secret := key
			switch {
			case acc.Restricted && sc.Bearer():
				secret = "<TOKEN>"
			case acc.Restricted:
				secret = "<API_KEY>"
			}
			switch {
			case sc.Kind == spec.SchemeBasic:
				user := "me"
				if acc.Restricted {
					user, secret = acc.Users[0], "<PASSWORD>"
				}
				args = append(args, "-u '"+user+":"+secret+"' ")
			case sc.Kind == spec.SchemeUnsupported:
			default:
				ex := sc.Example(secret)
				if q, ok := strings.CutPrefix(ex, "?"); ok {
					sep := "?"
					if strings.Contains(target, "?") {
						sep = "&"
					}
					target += sep + q
				} else {
					args = append(args, "-H '"+ex+"' ")
				}
			}
		}
	}
	return "curl " + strings.Join(args, "") + "'" + target + "'"
}
