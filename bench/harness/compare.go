package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/petctl/petctl/bench/load"
)

// Scenario is one request to measure on every server, with the status
// every response must have: a run that got anything else measured the
// wrong thing and fails.
type Scenario struct {
	Name string
	Req  load.Request
	Want int
	// Target is the prefix of the targets' IDs it measures ("list", "create").
	Target string
}

// PetstoreScenarios are the two requests of the Petstore comparisons, the
// same for every server compared: a page of 20 animals and a create.
func PetstoreScenarios() []Scenario {
	return []Scenario{
		{Name: "GET /v1/pets?limit=20", Target: "list", Req: load.Request{Method: "GET", Path: "/v1/pets?limit=20"}, Want: 200},
		{Name: "POST /v1/pets", Target: "create", Req: load.Request{Method: "POST", Path: "/v1/pets",
			Header: http.Header{"Content-Type": {"application/json"}},
			Body:   []byte(`{"name":"Bench","categoryId":3,"status":"available"}`)}, Want: 201},
	}
}

// Server is a running server to compare.
type Server struct {
	Name string
	Addr string
	// More are further addresses of the same service (replicas sharing a
	// store): a run spreads its connections over Addr and these, and its
	// result is theirs summed (see Merge).
	More []string
	// Header is added to every request (the server's credentials).
	Header map[string]string
	// StripPrefix is taken off every request path, for a server that
	// serves the API without its base path (Prism serves /pets for /v1/pets).
	StripPrefix string
}

// Runs are the results of one scenario on one server, one per round.
type Runs []load.Result

// Median returns the medians of the rounds' req/s, p50 and p99.
func (rs Runs) Median() (rps float64, p50, p99 time.Duration) {
	var r []float64
	var a, b []time.Duration
	for _, x := range rs {
		r = append(r, x.RPS)
		a = append(a, x.P50)
		b = append(b, x.P99)
	}
	return Median(r), MedianDuration(a), MedianDuration(b)
}

// Compare runs every scenario on every server, round after round (see
// Alternate), and returns the runs by scenario and server name.
func Compare(ctx context.Context, cfg load.Config, rounds int, scenarios []Scenario, servers []Server, progress io.Writer) (map[string]map[string]Runs, error) {
	out := map[string]map[string]Runs{}
	for _, sc := range scenarios {
		turns := make([]Turn, len(servers))
		for i, srv := range servers {
			turns[i] = Turn{Name: srv.Name, Server: srv, Scenario: sc}
		}
		runs, err := Alternate(ctx, cfg, rounds, turns, progress)
		if err != nil {
			return nil, err
		}
		out[sc.Name] = runs
	}
	return out, nil
}

// Turn is one run of each round of Alternate: a scenario on a server.
type Turn struct {
	// Name keys its runs in Alternate's result.
	Name     string
	Server   Server
	Scenario Scenario
	// Before and After, when set, run around each of its runs, outside
	// the measured time: Before resets a store, After reads what a
	// process used.
	Before, After func(context.Context) error
}

// Alternate runs every turn once a round, rounds times, and returns each
// turn's runs by its name. The turns take their runs one after another
// and the order rotates between rounds, so that noise from other work on
// the machine falls on all of them alike. A run that got any status but
// its scenario's measured the wrong thing, and fails. Progress lines go to
// progress.
func Alternate(ctx context.Context, cfg load.Config, rounds int, turns []Turn, progress io.Writer) (map[string]Runs, error) {
	out := map[string]Runs{}
	for round := 0; round < rounds; round++ {
		for k := range turns {
			tn := turns[(k+round)%len(turns)]
			if tn.Before != nil {
				if err := tn.Before(ctx); err != nil {
					return nil, fmt.Errorf("%s: before its run: %w", tn.Name, err)
				}
			}
			res, err := RunOn(ctx, cfg, tn.Server, tn.Scenario)
			if err != nil {
				return nil, err
			}
			if tn.After != nil {
				if err := tn.After(ctx); err != nil {
					return nil, fmt.Errorf("%s: after its run: %w", tn.Name, err)
				}
			}
			fmt.Fprintf(progress, "  round %d  %-22s %-32s %s\n", round+1, tn.Server.Name, tn.Scenario.Name, res)
			out[tn.Name] = append(out[tn.Name], res)
		}
	}
	return out, nil
}

// RunOn runs sc's request on srv with cfg's connections (spread over its
// addresses) and checks every response has sc's status.
func RunOn(ctx context.Context, cfg load.Config, srv Server, sc Scenario) (load.Result, error) {
	req := sc.Req
	req.Header = req.Header.Clone()
	if req.Header == nil {
		req.Header = map[string][]string{}
	}
	for name, v := range srv.Header {
		req.Header.Set(name, v)
	}
	req.Path = strings.TrimPrefix(req.Path, srv.StripPrefix)
	addrs := append([]string{srv.Addr}, srv.More...)
	conns, err := Spread(cfg.Conns, len(addrs))
	if err != nil {
		return load.Result{}, fmt.Errorf("%s: %w", srv.Name, err)
	}
	parts := make([]load.Result, len(addrs))
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cfg
			c.Addr, c.Conns = addr, conns[i]
			parts[i], errs[i] = load.Run(ctx, c, req)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return load.Result{}, fmt.Errorf("%s on %s: %w", sc.Name, srv.Name, err)
	}
	res := Merge(parts)
	if res.Requests == 0 {
		// Nothing answered within the run: no figure, and no status seen
		// to judge (a loaded machine can take a short run's whole time).
		return load.Result{}, fmt.Errorf("%s on %s: no response within the run's %v; first transport error: %v", sc.Name, srv.Name, cfg.Duration, res.FirstError)
	}
	if bad := res.Unexpected(sc.Want); bad > 0 {
		return load.Result{}, fmt.Errorf("%s on %s: %d of %d responses were not %d (%s); first transport error: %v",
			sc.Name, srv.Name, bad, res.Requests, sc.Want, res, res.FirstError)
	}
	return res, nil
}

// Spread shares conns connections among n addresses as evenly as they go
// (16 over 3: 6, 5, 5); each must get one.
func Spread(conns, n int) ([]int, error) {
	if n < 1 || conns < n {
		return nil, fmt.Errorf("%d connections cannot be spread over %d addresses", conns, n)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = conns / n
		if i < conns%n {
			out[i]++
		}
	}
	return out, nil
}

// Merge is the result of runs made at the same time on replicas of one
// service: requests, errors, statuses and throughput summed. The latencies
// of each request are the parts', so the percentiles and the maximum are
// the slowest part's: an upper bound of the whole's.
func Merge(parts []load.Result) load.Result {
	if len(parts) == 1 {
		return parts[0]
	}
	out := load.Result{Status: map[int]int64{}}
	for _, p := range parts {
		out.Requests += p.Requests
		out.Errors += p.Errors
		for code, n := range p.Status {
			out.Status[code] += n
		}
		out.RPS += p.RPS
		out.Elapsed = max(out.Elapsed, p.Elapsed)
		out.P50, out.P99, out.Max = max(out.P50, p.P50), max(out.P99, p.P99), max(out.Max, p.Max)
		if out.FirstError == nil {
			out.FirstError = p.FirstError
		}
	}
	return out
}

// Ratio formats a/b as a percentage.
func Ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*a/b)
}
