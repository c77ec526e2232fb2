package config

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
	"go.yaml.in/yaml/v4"
)

// DevKey is the key accepted when auth.mode is keys and none is configured.
const DevKey = "petctl-dev-key"

// UsesDevKey says whether the development key is in force.
func (c *Config) UsesDevKey() bool { return c.Auth.Mode == "keys" && len(c.Auth.Keys) == 0 }

// EngineOptions turns the configuration into engine options. The caller
// adds the spec, the fixtures and the logger. start is when the clock of
// clock.now starts running. A value it cannot convert is reported as an
// *engine.OptionError, so that Combine locates it and merges it with the
// same problem found by Check; the other settings are converted even so,
// and the engine checks them.
func (c *Config) EngineOptions(start time.Time) (engine.Options, error) {
	var errs []error
	// Every setting is given; the options the file has no key for keep
	// the engine's defaults.
	o := engine.DefaultOptions()
	o.Keys = c.Auth.Keys
	o.OpenAuth = c.Auth.Mode == "open"
	o.AdminKey = c.Auth.AdminKey
	o.Auth.Issuer = c.Auth.OAuth.Issuer
	o.Auth.Audience = c.Auth.OAuth.Audience
	o.Auth.TokenLifetime = time.Duration(c.Auth.OAuth.TokenLifetime)
	for name, sc := range c.Auth.Schemes {
		if o.Auth.Schemes == nil {
			o.Auth.Schemes = map[string]engine.SchemeCredentials{}
		}
		creds := engine.SchemeCredentials{Keys: sc.Keys, Users: sc.Users, Clients: sc.Clients}
		for _, t := range sc.Tokens {
			creds.Tokens = append(creds.Tokens, engine.StaticToken{Token: t.Token, Scopes: t.Scopes})
		}
		o.Auth.Schemes[name] = creds
	}
	o.MaxBodyBytes = c.Server.MaxBodyBytes
	o.Timeouts = c.timeouts()
	o.QuietRequests = !c.Log.Requests
	o.Seed = c.Seed
	o.Generate = c.Fixtures.Generate
	o.RequestLogSize = c.Admin.RequestLog
	o.NoRequestLog = c.Admin.RequestLog == 0 // the engine's 0 is its default
	o.MaxImportBytes = c.Admin.MaxImportBytes
	o.StoreMaxRecords = c.Store.MaxRecords
	o.StoreMaxBytes = c.Store.MaxBytes
	o.Cascade = c.CRUD.Cascade
	o.Overrides = c.Overrides()
	o.ErrorFields = c.Errors.Fields
	o.CORS = engine.CORSOptions{
		Origins:       c.CORS.Origins,
		Credentials:   c.CORS.Credentials,
		ExposeHeaders: c.CORS.ExposeHeaders,
		MaxAge:        time.Duration(c.CORS.MaxAge),
	}
	o.Lists = engine.ListOptions{
		ClampLimit:  c.Lists.OutOfRangeLimit == "clamp",
		NewestFirst: c.Lists.Order == "newest-first",
	}
	if c.UsesDevKey() {
		o.Keys = []string{DevKey}
	}
	if c.Lists.Pagination == "cursor" {
		o.Lists.CursorParam = c.Lists.CursorParam
	}
	if c.Clock.Now != "" {
		if at, err := parseNow(c.Clock.Now); err != nil {
			errs = append(errs, &engine.OptionError{Key: "clock.now", Err: err})
		} else {
			offset := at.Sub(start)
			o.Now = func() time.Time { return time.Now().Add(offset) }
		}
	}
	for coll, fields := range c.Defaults {
		if o.Defaults == nil {
			o.Defaults = map[string]map[string]json.RawMessage{}
		}
		o.Defaults[coll] = map[string]json.RawMessage{}
		for f, v := range fields {
			raw, err := json.Marshal(v)
			if err != nil {
				errs = append(errs, &engine.OptionError{Key: join("defaults", coll+"."+f), Err: err})
				continue
			}
			o.Defaults[coll][f] = raw
		}
	}
	for id, r := range c.Responses {
		if o.Responses == nil {
			o.Responses = map[string]engine.Stub{}
		}
		st := engine.Stub{Status: r.Status, Headers: r.Headers}
		if r.Body != nil {
			raw, err := json.Marshal(r.Body)
			if err != nil {
				errs = append(errs, &engine.OptionError{Key: join("responses", id+".body"), Err: err})
				continue
			}
			st.Body = raw
		}
		o.Responses[id] = st
	}
	for id, r := range c.Latency {
		if o.Latency == nil {
			o.Latency = map[string]engine.Delay{}
		}
		o.Latency[id] = r.delay()
	}
	for id, h := range c.Headers {
		if o.Headers == nil {
			o.Headers = map[string]map[string]string{}
		}
		o.Headers[id] = h
	}
	o.ErrorCodes = c.ErrorCodes
	for id, f := range c.Faults {
		if o.Faults == nil {
			o.Faults = map[string]engine.Fault{}
		}
		o.Faults[id] = engine.Fault{Rate: f.Rate, Status: f.Status}
	}
	return o, errors.Join(errs...)
}

// timeouts are the server's connection time-outs.
func (c *Config) timeouts() engine.Timeouts {
	t := c.Server.Timeouts
	return engine.Timeouts{
		ReadHeader: time.Duration(t.ReadHeader),
		Read:       time.Duration(t.Read),
		Write:      time.Duration(t.Write),
		Idle:       time.Duration(t.Idle),
		Shutdown:   time.Duration(t.Shutdown),
	}
}

// Combine adds the problems of an engine start-up error to the problems
// found while loading, and returns them all, or nil when there are none.
// Each *engine.OptionError is located by its key in the file, the
// environment or a flag; any other error is not about a setting. Every
// line is a problem of its own. An engine problem about a key that already
// has a problem is the same problem seen twice, and is left out.
func (l *Loaded) Combine(ps Problems, err error) error {
	var found Problems
	for _, e := range joined(err) {
		var oe *engine.OptionError
		if !errors.As(e, &oe) {
			for _, line := range lines(e.Error()) {
				found = append(found, Problem{Msg: line})
			}
			continue
		}
		src := l.Source(oe.Key)
		if src == "default" {
			// Set by no one: told as the engine words it.
			for _, line := range lines(oe.Error()) {
				found = append(found, Problem{Msg: line})
			}
			continue
		}
		for _, line := range lines(oe.Err.Error()) {
			found = append(found, Problem{Source: src, Key: oe.Key, Msg: line})
		}
	}
	loaded := len(ps)
	for _, p := range found {
		if p.Key == "" || !ps[:loaded].names(p.Key) {
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return lineOf(ps[i]) < lineOf(ps[j]) })
	switch {
	case len(ps) == 0:
		return nil
	case len(ps) == 1 && len(found) == 1 && ps[0].Source == "":
		return err // not about a setting that was set: as the engine said it
	}
	return ps
}

// lines are the non-empty lines of a message.
func lines(msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

// joined lists the errors errors.Join put together in err, however deep.
func joined(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if err == nil {
			return nil
		}
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, joined(e)...)
	}
	return out
}

// lineOf orders problems: those of the file by line, then the others.
func lineOf(p Problem) int {
	if i := strings.LastIndexByte(p.Source, ':'); i >= 0 {
		if n, err := strconv.Atoi(p.Source[i+1:]); err == nil {
			return n
		}
	}
	return math.MaxInt
}

// names says whether a problem is about key, or inside it, or around it.
func (ps Problems) names(key string) bool {
	for _, p := range ps {
		if p.Key == key || within(p.Key, key) || within(key, p.Key) {
			return true
		}
	}
	return false
}

func within(key, outer string) bool {
	return strings.HasPrefix(key, outer+".") || strings.HasPrefix(key, outer+"[")
}

// Show is the effective configuration as YAML, secrets redacted, each
// value that is not a default followed by where it came from.
func (l *Loaded) Show() ([]byte, error) {
	c := withoutSecrets(reflect.ValueOf(*l.Config), false).Interface().(Config)
	var doc yaml.Node
	if err := doc.Encode(&c); err != nil {
		return nil, err
	}
	annotate(&doc, "", l)
	return yaml.Marshal(&doc)
}

// redacted replaces secrets in what petctl shows.
const redacted = "<redacted>"

// withoutSecrets is a copy of v in which every string under a field tagged
// secret is redacted: a key, each key of a list, each value of a map (the
// passwords of users; their names are kept). The copy shares no map or
// slice with v, so that showing the configuration never changes it.
func withoutSecrets(v reflect.Value, secret bool) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			out.Field(i).Set(withoutSecrets(v.Field(i), secret || t.Field(i).Tag.Get("secret") == "true"))
		}
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), withoutSecrets(it.Value(), secret))
		}
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(withoutSecrets(v.Index(i), secret))
		}
	case reflect.String:
		out.Set(v)
		if secret && v.String() != "" {
			out.SetString(redacted)
		}
	default:
		out.Set(v)
	}
	return out
}

func annotate(n *yaml.Node, key string, l *Loaded) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			annotate(c, key, l)
		}
		return
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := join(key, n.Content[i].Value)
		if src, ok := l.sources[k]; ok {
			if v := n.Content[i+1]; (v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode) && len(v.Content) == 0 {
				// An empty [] or {} is written in flow style; a comment on
				// its key would land on the next key's line.
				v.LineComment = "from " + src
			} else {
				n.Content[i].LineComment = "from " + src
			}
		}
		annotate(n.Content[i+1], k, l)
	}
}

// SpecOptions are how the document is read.
func (c *Config) SpecOptions() spec.LoadOptions {
	return spec.LoadOptions{
		Strict:          c.Strict,
		BasePath:        c.Server.BasePath,
		ServerVariables: c.Server.Variables,
		RefFolders:      c.RefFolders,
	}
}
