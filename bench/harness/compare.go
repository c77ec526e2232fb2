package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
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

// Compare runs every scenario on every server, round after round. Within a
// round the servers take turns, and the order rotates between rounds, so
// that noise from other work on the machine falls on all of them alike.
// Progress lines go to progress.
func Compare(ctx context.Context, cfg load.Config, rounds int, scenarios []Scenario, servers []Server, progress io.Writer) (map[string]map[string]Runs, error) {
	out := map[string]map[string]Runs{}
	for _, sc := range scenarios {
		out[sc.Name] = map[string]Runs{}
		for round := 0; round < rounds; round++ {
			for k := range servers {
				srv := servers[(k+round)%len(servers)]
				req := sc.Req
				req.Header = req.Header.Clone()
				if req.Header == nil {
					req.Header = map[string][]string{}
				}
				for name, v := range srv.Header {
					req.Header.Set(name, v)
				}
				req.Path = strings.TrimPrefix(req.Path, srv.StripPrefix)
				c := cfg
				c.Addr = srv.Addr
				res, err := load.Run(ctx, c, req)
				if err != nil {
					return nil, fmt.Errorf("%s on %s: %w", sc.Name, srv.Name, err)
				}
				if bad := res.Unexpected(sc.Want); bad > 0 {
					return nil, fmt.Errorf("%s on %s: %d of %d responses were not %d (%s); first transport error: %v",
						sc.Name, srv.Name, bad, res.Requests, sc.Want, res, res.FirstError)
				}
				fmt.Fprintf(progress, "  round %d  %-22s %-32s %s\n", round+1, srv.Name, sc.Name, res)
				out[sc.Name][srv.Name] = append(out[sc.Name][srv.Name], res)
			}
		}
	}
	return out, nil
}

// Ratio formats a/b as a percentage.
func Ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*a/b)
}
