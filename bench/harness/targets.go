package harness

import (
	"fmt"
	"time"
)

// Unit is what a measured value counts.
type Unit int

// The units of measured values.
const (
	PerSecond Unit = iota // requests per second
	Seconds               // a duration, in seconds
	Bytes                 // a size in bytes
)

// Format writes v in the unit, for a person.
func (u Unit) Format(v float64) string {
	switch u {
	case PerSecond:
		return fmt.Sprintf("%s req/s", thousands(v))
	case Seconds:
		d := time.Duration(v * float64(time.Second))
		switch {
		case d < time.Millisecond:
			return fmt.Sprintf("%.0f µs", v*1e6)
		case d < time.Second:
			return fmt.Sprintf("%.2f ms", v*1e3)
		default:
			return fmt.Sprintf("%.2f s", v)
		}
	default:
		return MB(int64(v))
	}
}

func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Target is one goal of the performance issue: what is measured, and what
// it must be, either against the baseline measured beside it (MinRatio,
// MaxRatio of the value over the baseline's) or absolutely (Max). A target
// with none of them is reported only (the comparisons with other tools).
type Target struct {
	ID   string // the key producers write rows under
	What string
	Unit Unit
	// MinRatio and MaxRatio bound value / baseline; 0 is no bound.
	MinRatio, MaxRatio float64
	// Max bounds the value itself, in the unit; 0 is no bound.
	Max float64
	// Producer is the comparison that measures it (a name in benchall's list).
	Producer string
}

// Goal states the target for a person.
func (t Target) Goal() string {
	switch {
	case t.MinRatio > 0:
		return fmt.Sprintf("≥ %g× the baseline", t.MinRatio)
	case t.MaxRatio > 0:
		return fmt.Sprintf("≤ %g× the baseline", t.MaxRatio)
	case t.Max > 0:
		return "≤ " + t.Unit.Format(t.Max)
	}
	return "reported"
}

// Verdict is "met", "missed", or "reported" for a target without a bound;
// a ratio target without a baseline value is "missed", since nothing shows
// that it holds.
func (t Target) Verdict(r Row) string {
	met := true
	switch {
	case t.MinRatio > 0:
		met = r.Baseline > 0 && r.Value >= t.MinRatio*r.Baseline
	case t.MaxRatio > 0:
		met = r.Baseline > 0 && r.Value <= t.MaxRatio*r.Baseline
	case t.Max > 0:
		met = r.Value <= t.Max
	default:
		return "reported"
	}
	if met {
		return "met"
	}
	return "missed"
}

const (
	mb   = 1 << 20
	msec = 1e-3
)

// Targets are issue 22's targets, in the order of the table: the one home
// of every bound the bench commands check. A producer writes a Row under a
// target's ID; a target no producer measured is listed as not measured.
var Targets = []Target{
	{ID: "list.rps", What: "Petstore `GET /v1/pets?limit=20`, 16 conns: throughput vs net/http (marshal)", Unit: PerSecond, MinRatio: 0.9, Producer: "loadcmp"},
	{ID: "list.p99", What: "Petstore `GET /v1/pets?limit=20`: p99 vs net/http (marshal)", Unit: Seconds, MaxRatio: 1.2, Producer: "loadcmp"},
	{ID: "create.rps", What: "Petstore `POST /v1/pets`, 16 conns: throughput vs net/http (marshal)", Unit: PerSecond, MinRatio: 0.9, Producer: "loadcmp"},
	{ID: "create.p99", What: "Petstore `POST /v1/pets`: p99 vs net/http (marshal)", Unit: Seconds, MaxRatio: 1.2, Producer: "loadcmp"},
	{ID: "update.rps", What: "update (PUT) on the Petstore-like fixture: throughput vs the baseline's create", Unit: PerSecond, MinRatio: 0.8, Producer: "crudcmp"},
	{ID: "patch.rps", What: "patch (PATCH) on the Petstore-like fixture: throughput vs the baseline's create", Unit: PerSecond, MinRatio: 0.8, Producer: "crudcmp"},
	{ID: "delete.rps", What: "delete on the Petstore-like fixture: throughput vs the baseline's create", Unit: PerSecond, MinRatio: 0.8, Producer: "crudcmp"},
	{ID: "million.file.first", What: "1,000,000 animals from a file: exec to first 200", Unit: Seconds, Max: 1, Producer: "million"},
	{ID: "million.file.peak", What: "1,000,000 animals from a file: peak RSS (VmHWM)", Unit: Bytes, Max: 200 * mb, Producer: "million"},
	{ID: "million.file.p99", What: "1,000,000 animals from a file: `?status=sold&limit=100` p99, 1 conn", Unit: Seconds, Max: 1 * msec, Producer: "million"},
	{ID: "million.generate.first", What: "`--generate 1000000`: exec to first 200", Unit: Seconds, Max: 1, Producer: "million"},
	{ID: "million.generate.peak", What: "`--generate 1000000`: peak RSS (VmHWM)", Unit: Bytes, Max: 200 * mb, Producer: "million"},
	{ID: "million.generate.p99", What: "`--generate 1000000`: `?status=sold&limit=100` p99, 1 conn", Unit: Seconds, Max: 1 * msec, Producer: "million"},
	{ID: "million.durable.first", What: "1,000,000 records reopened from the durable store: exec to first 200", Unit: Seconds, Max: 1, Producer: "storecmp"},
	{ID: "million.durable.peak", What: "1,000,000 records reopened from the durable store: peak RSS", Unit: Bytes, Max: 200 * mb, Producer: "storecmp"},
	{ID: "million.durable.p99", What: "1,000,000 records reopened from the durable store: filtered page p99, 1 conn", Unit: Seconds, Max: 1 * msec, Producer: "storecmp"},
	{ID: "corpus.adyen.first", What: "adyen (0.6 MB, one file): exec to first answer", Unit: Seconds, Max: 1, Producer: "startup"},
	{ID: "corpus.adyen.peak", What: "adyen (0.6 MB, one file): peak RSS", Unit: Bytes, Max: 150 * mb, Producer: "startup"},
	{ID: "corpus.lago.first", What: "lago (517 files, 0.76 MB): exec to first answer", Unit: Seconds, Max: 1, Producer: "startup"},
	{ID: "corpus.lago.peak", What: "lago (517 files, 0.76 MB): peak RSS", Unit: Bytes, Max: 150 * mb, Producer: "startup"},
	{ID: "corpus.ditto.first", What: "eclipse-ditto (231 files, 0.57 MB): exec to first answer", Unit: Seconds, Max: 1, Producer: "startup"},
	{ID: "corpus.ditto.peak", What: "eclipse-ditto (231 files, 0.57 MB): peak RSS", Unit: Bytes, Max: 150 * mb, Producer: "startup"},
	{ID: "corpus.single.list.rps", What: "largest single-file corpus document: a page of one of its collections, 16 conns: throughput vs the Petstore's list", Unit: PerSecond, MinRatio: 0.8, Producer: "corpuscmp"},
	{ID: "corpus.single.create.rps", What: "largest single-file corpus document: a create in that collection: throughput vs the Petstore's create", Unit: PerSecond, MinRatio: 0.8, Producer: "corpuscmp"},
	{ID: "corpus.multi.list.rps", What: "largest multi-file corpus document: a page of one of its collections, 16 conns: throughput vs the Petstore's list", Unit: PerSecond, MinRatio: 0.8, Producer: "corpuscmp"},
	{ID: "corpus.multi.create.rps", What: "largest multi-file corpus document: a create in that collection: throughput vs the Petstore's create", Unit: PerSecond, MinRatio: 0.8, Producer: "corpuscmp"},
	{ID: "durable.interval.create", What: "durable store, `sync: interval`: create throughput vs the memory store", Unit: PerSecond, MinRatio: 0.7, Producer: "storecmp"},
	{ID: "durable.always.create", What: "durable store, `sync: always`: create throughput vs the memory store", Unit: PerSecond, Producer: "storecmp"},
	{ID: "redis.replicas3.create", What: "Redis store, 3 replicas on one Redis: aggregate create vs one replica", Unit: PerSecond, MinRatio: 2, Producer: "storecmp"},
	{ID: "prism.list.rps", What: "Prism 5 beside petctl, `GET /v1/pets?limit=20`: petctl's throughput vs Prism's", Unit: PerSecond, Producer: "mockcmp"},
	{ID: "prism.list.p99", What: "Prism 5 beside petctl, `GET /v1/pets?limit=20`: petctl's p99 vs Prism's", Unit: Seconds, Producer: "mockcmp"},
	{ID: "prism.create.rps", What: "Prism 5 beside petctl, `POST /v1/pets`: petctl's throughput vs Prism's", Unit: PerSecond, Producer: "mockcmp"},
	{ID: "prism.create.p99", What: "Prism 5 beside petctl, `POST /v1/pets`: petctl's p99 vs Prism's", Unit: Seconds, Producer: "mockcmp"},
	{ID: "mockoon.list.rps", What: "Mockoon beside petctl, `GET /v1/pets?limit=20`: petctl's throughput vs Mockoon's", Unit: PerSecond, Producer: "mockcmp"},
	{ID: "mockoon.list.p99", What: "Mockoon beside petctl, `GET /v1/pets?limit=20`: petctl's p99 vs Mockoon's", Unit: Seconds, Producer: "mockcmp"},
	{ID: "mockoon.create.rps", What: "Mockoon beside petctl, `POST /v1/pets`: petctl's throughput vs Mockoon's", Unit: PerSecond, Producer: "mockcmp"},
	{ID: "mockoon.create.p99", What: "Mockoon beside petctl, `POST /v1/pets`: petctl's p99 vs Mockoon's", Unit: Seconds, Producer: "mockcmp"},
	{ID: "conform.time", What: "a full `petctl conform` against a local `petctl serve`: exec to exit", Unit: Seconds, Max: 2, Producer: "conformtime"},
	{ID: "test.time", What: "`make test` (its run with -race and its run without, side by side), warm build cache: wall time", Unit: Seconds, Max: 90, Producer: "maketest"},
}

// TargetByID returns the target with id.
func TargetByID(id string) (Target, bool) {
	for _, t := range Targets {
		if t.ID == id {
			return t, true
		}
	}
	return Target{}, false
}
