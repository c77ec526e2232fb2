package main

import (
	"fmt"
	"time"

	"github.com/petctl/petctl/config"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/store"
)

// openState opens where the configuration keeps the records: the state
// file, Redis, or nothing (store.path none). A state that cannot be opened
// is a problem at the setting that names it.
func openState(c *config.Config) (store.Journal, error) {
	s := c.Store
	switch {
	case s.Backend == "redis":
		j, err := store.OpenRedis(s.URL, store.RedisOptions{Timeout: redisTimeout})
		if err != nil {
			return nil, &engine.OptionError{Key: "store.url", Err: err}
		}
		return j, nil
	case s.Path == engine.NoState || s.Path == "":
		return nil, nil
	}
	j, err := store.OpenFile(s.Path, store.FileOptions{Sync: store.SyncMode(s.Sync), Interval: time.Duration(s.SyncInterval), Fresh: s.Reset})
	if err != nil {
		return nil, &engine.OptionError{Key: "store.path", Err: err}
	}
	return j, nil
}

// redisTimeout bounds each exchange with Redis.
const redisTimeout = 5 * time.Second

// stateLine is the banner's line about where the records are kept.
func stateLine(c *config.Config) string {
	switch s := c.Store; {
	case s.Backend == "redis":
		return fmt.Sprintf("shared in %s", store.RedisName(s.URL))
	case s.Path == engine.NoState || s.Path == "":
		return "in memory only (store.path none): gone when petctl stops"
	default:
		return fmt.Sprintf("kept in %s (sync %s)", s.Path, s.Sync)
	}
}
