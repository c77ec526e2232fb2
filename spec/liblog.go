package spec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// libraryLog receives libopenapi's log instead of stderr: a user sees one
// readable line per problem from petctl, never the library's JSON lines.
// Its errors are kept, for the few problems libopenapi only logs (a
// reference it could not resolve).
type libraryLog struct {
	mu     sync.Mutex
	errors []string
}

func (l *libraryLog) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelError
}

func (l *libraryLog) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "file", "error", "reference", "ref":
			msg += fmt.Sprintf(" (%s: %s)", a.Key, a.Value.String())
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errors) < maxRefErrors {
		l.errors = append(l.errors, msg)
	}
	return nil
}

func (l *libraryLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *libraryLog) WithGroup(string) slog.Handler      { return l }

// err returns what the library logged as errors, or nil.
func (l *libraryLog) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errors) == 0 {
		return nil
	}
	return errors.New(strings.Join(l.errors, "; "))
}

// joinLines makes one line of an error that errors.Join made of several.
func joinLines(err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
}
