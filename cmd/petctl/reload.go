package main

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petctl/petctl/config"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/reference"
	"github.com/petctl/petctl/engine/store"
)

// reloadPoll is how often serve looks at the files it was made from.
const reloadPoll = 300 * time.Millisecond

// reloader serves the current version of the configuration and replaces
// it, without a restart, when the document (any of its files), the
// configuration file, the profile or a fixtures file changes, or on
// SIGHUP. The store is kept: the new server takes its records, checked
// again when the document changed. A reload that fails keeps the old version serving and
// logs each problem where it was found (file and line). The handler is
// swapped atomically: a request in flight finishes on the version it
// started with.
type reloader struct {
	a       *app
	opts    *serveOptions
	state   store.Journal
	logger  *slog.Logger
	logs    *engine.LogBuffer
	handler atomic.Pointer[http.Handler]

	mu      sync.Mutex // one reload at a time
	current *prepared
	version int
	watched map[string]fileStamp
}

// fileStamp is what tells a changed file: its size and time of change, or
// that it is missing.
type fileStamp struct {
	size    int64
	mod     time.Time
	missing bool
}

func newReloader(a *app, opts *serveOptions, p *prepared, state store.Journal, logger *slog.Logger, logs *engine.LogBuffer) *reloader {
	rl := &reloader{a: a, opts: opts, state: state, logger: logger, logs: logs, current: p, version: 1}
	rl.setHandler(p)
	rl.watched = stamps(watchedFiles(p, opts))
	return rl
}

func (rl *reloader) setHandler(p *prepared) {
	h := reference.Mount(p.spec, p.srv, referenceOptions)
	rl.handler.Store(&h)
}

// ServeHTTP answers with the current version.
func (rl *reloader) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*rl.handler.Load()).ServeHTTP(w, r)
}

// watchedFiles are the files a server was made from: every file of the
// document, the configuration file (or petctl.yaml, should one appear),
// the profile (--profile) and the fixtures files.
func watchedFiles(p *prepared, opts *serveOptions) []string {
	files := slices.Clone(p.spec.Files)
	switch {
	case p.cfg.File != "":
		files = append(files, p.cfg.File)
	case opts.configPath == "":
		files = append(files, config.FileName)
	}
	if p.cfg.Profile != "" {
		files = append(files, p.cfg.Profile)
	}
	files = append(files, p.cfg.Fixtures.Files...)
	for i, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			files[i] = abs
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

func stamps(files []string) map[string]fileStamp {
	out := make(map[string]fileStamp, len(files))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			out[f] = fileStamp{missing: true}
			continue
		}
		out[f] = fileStamp{size: fi.Size(), mod: fi.ModTime()}
	}
	return out
}

// run reloads on each signal from hup (SIGHUP) and when a watched file
// changes, until ctx is done.
func (rl *reloader) run(ctx context.Context, hup <-chan os.Signal) {
	tick := time.NewTicker(reloadPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			rl.reload("SIGHUP")
		case <-tick.C:
			rl.mu.Lock()
			var changed []string
			now := stamps(slices.Collect(maps.Keys(rl.watched)))
			for f, st := range now {
				if st != rl.watched[f] {
					changed = append(changed, f)
				}
			}
			rl.watched = now
			rl.mu.Unlock()
			if len(changed) > 0 {
				slices.Sort(changed)
				rl.reload("changed: " + strings.Join(changed, ", "))
			}
		}
	}
}

// reload builds the next version and swaps it in, or logs why it cannot.
func (rl *reloader) reload(why string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	old := rl.current
	next := rl.version + 1
	fail := func(err error) {
		rl.logger.Error("reload failed: version "+strconv.Itoa(rl.version)+" is still served", "reason", why)
		msg := err.Error()
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				rl.logger.Error("reload problem", "problem", p.String())
			}
			return
		}
		for _, line := range strings.Split(msg, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				rl.logger.Error("reload problem", "problem", line)
			}
		}
	}
	cfg, ps, err := loadConfig(rl.a, rl.opts.configPath, rl.opts.flags)
	if err != nil {
		fail(err)
		return
	}
	for _, key := range restartKeys(old.cfg.Config, cfg.Config) {
		rl.logger.Warn("reload: this setting takes effect at the next start", "setting", key)
	}
	// The store is frozen while the next version takes its records: reads
	// go on, changes wait and are then made in the next version's store.
	old.srv.Freeze()
	p, err := prepare(rl.a, cfg, ps, rl.logger, rl.logs, &stateChoice{journal: rl.state, previous: old.srv, version: engine.Version{Number: next, Loaded: time.Now()}})
	if err != nil {
		old.srv.Thaw()
		fail(err)
		return
	}
	old.srv.Retire(p.srv)
	rl.setHandler(p)
	old.srv.Thaw()
	rl.current, rl.version = p, next
	rl.watched = stamps(watchedFiles(p, rl.opts))
	go tuneGC(p.srv, rl.logger)
	rl.logger.Info("reloaded", "version", next, "reason", why, "document", p.spec.Source, "digest", p.spec.Digest)
}

// restartKeys are the settings a reload cannot change: where serve
// listens, where the records are kept, and the log.
func restartKeys(old, cur *config.Config) []string {
	var keys []string
	if old.Server.Addr != cur.Server.Addr {
		keys = append(keys, "server.addr")
	}
	if o, c := old.Store, cur.Store; o.Backend != c.Backend || o.Path != c.Path || o.URL != c.URL || o.Sync != c.Sync || o.SyncInterval != c.SyncInterval {
		keys = append(keys, "store (backend, path, url, sync)")
	}
	if old.Log != cur.Log || old.Server.LogFormat != cur.Server.LogFormat {
		keys = append(keys, "log")
	}
	return keys
}
