package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// MaxInjectedLatency bounds a configured delay: it stays below the server's
// write time-out, so a delayed answer is still delivered.
const MaxInjectedLatency = 20 * time.Second

// dice draws the random numbers of latency and fault injection from one
// seeded source, so the same seed and the same sequence of requests inject
// the same delays and faults.
type dice struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newDice(seed int64) *dice {
	return &dice{rng: rand.New(rand.NewPCG(uint64(seed), 0x706574637466))}
}

func (d *dice) float() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rng.Float64()
}

func (d *dice) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return lo + time.Duration(d.rng.Int64N(int64(hi-lo)+1))
}

// assignInjections gives each operation its delay and fault: its own entry,
// else the "*" entry.
func (s *Server) assignInjections(latency map[string]Delay, faults map[string]Fault) {
	for op, o := range s.ops {
		if d, ok := latency[op.ID]; ok {
			o.delay = &d
		} else if d, ok := latency[AllOperations]; ok {
			o.delay = &d
		}
		if f, ok := faults[op.ID]; ok {
			o.fault = &f
		} else if f, ok := faults[AllOperations]; ok {
			o.fault = &f
		}
		if o.fault != nil && (o.fault.Rate == 0) {
			o.fault = nil
		}
		if o.delay != nil && o.delay.Max == 0 {
			o.delay = nil
		}
	}
}

// injectFault makes the request fail where the configuration says so.
func (s *Server) injectFault(c *call) *response {
	res := s.drawFault(c.o)
	if res != nil {
		res.notes = append(res.notes, "fault injected")
	}
	return res
}

// drawFault decides whether this request of o fails by configuration.
func (s *Server) drawFault(o *operation) *response {
	f := o.fault
	if f == nil || s.dice.float() >= f.Rate {
		return nil
	}
	status := f.Status
	if status == 0 {
		status = codeStatus[CodeFaultInjected]
	}
	e := Errorf(CodeFaultInjected, "fault injected by configuration: %s fails at rate %g with status %d; nothing was done", o.op.ID, f.Rate, status)
	e.status = status
	return errorResponse(e)
}

// wait holds the answer of o for its configured delay, until the client
// goes away, or until the server begins to shut down (the answer is due
// within the grace period, and a rehearsed delay is no reason to drop it).
// It returns the delay drawn and the time it waited.
func (s *Server) wait(ctx context.Context, o *operation) (drawn, waited time.Duration) {
	if o == nil || o.delay == nil {
		return 0, 0
	}
	d := o.delay.draw(s.dice)
	if d <= 0 {
		return 0, 0
	}
	began := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return d, d
	case <-ctx.Done():
	case <-draining(ctx):
	}
	return d, time.Since(began)
}

// draw draws a delay: evenly between Min and Max, or along the
// distribution the percentiles shape.
func (d Delay) draw(dc *dice) time.Duration {
	if len(d.Percentiles) == 0 {
		return dc.between(d.Min, d.Max)
	}
	u := dc.float()
	lo := Percentile{Q: 0, D: d.Min}
	for i := 0; i <= len(d.Percentiles); i++ {
		hi := Percentile{Q: 1, D: d.Max}
		if i < len(d.Percentiles) {
			hi = d.Percentiles[i]
		}
		if u <= hi.Q {
			frac := (u - lo.Q) / (hi.Q - lo.Q)
			return lo.D + time.Duration(frac*float64(hi.D-lo.D))
		}
		lo = hi
	}
	return d.Max
}

// checkPercentiles says what is wrong with the percentiles, or "".
func (d Delay) checkPercentiles() string {
	prev := Percentile{Q: 0, D: d.Min}
	for _, p := range d.Percentiles {
		switch {
		case p.Q <= prev.Q || p.Q >= 1:
			return fmt.Sprintf("percentiles must increase between 0 and 100: p%g follows p%g", p.Q*100, prev.Q*100)
		case p.D < prev.D || p.D > d.Max:
			return fmt.Sprintf("p%g %s: want a delay from %s to %s that no lower percentile exceeds", p.Q*100, p.D, prev.D, d.Max)
		}
		prev = p
	}
	return ""
}

func (d Delay) String() string {
	if d.Min == d.Max && len(d.Percentiles) == 0 {
		return d.Min.String()
	}
	s := fmt.Sprintf("%s..%s", d.Min, d.Max)
	if len(d.Percentiles) > 0 {
		parts := make([]string, len(d.Percentiles))
		for i, p := range d.Percentiles {
			parts[i] = fmt.Sprintf("p%g %s", p.Q*100, p.D)
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}
