package engine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// TuneGC sets the garbage collector's percent (what GOGC sets) for the
// records srv's store holds, and returns it; 0 when it leaves it alone.
//
// The store keeps its records in memory the collector marks without
// scanning (their JSON in large blocks, their order, their index lists)
// and that stays until the records change. By default the collector lets
// the heap grow by as much again as is live before it collects (GOGC=100),
// so a million records (90 MB) take the process near twice that once
// requests make garbage, though they make none themselves. TuneGC sets the
// percent so that the heap may grow by what the rest of it earns, as if
// the store were empty, and by a quarter of what the records hold: a
// collection still marks the whole heap (milliseconds for a million
// records), and one every few megabytes of garbage would show in a
// one-connection p99. The records then cost their size and a quarter,
// not twice. Under minTunedBytes of records the default stands (100).
//
// GOGC or GOMEMLIMIT in the process's environment is the user's choice,
// which TuneGC leaves alone. It collects once first, to know what is live:
// call it off the serving path (it takes milliseconds), after a start or
// a reload.
func TuneGC(srv *Server) int {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(name); set {
			return 0
		}
	}
	held := srv.data.HeldBytes()
	percent := 100
	if held >= minTunedBytes {
		runtime.GC()
		// What the collection just found live, without stopping the world.
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		// srv's records are what is weighed: live until measured.
		runtime.KeepAlive(srv)
		percent = gcPercent(int64(live[0].Value.Uint64()), held)
	}
	debug.SetGCPercent(percent)
	return percent
}

// minTunedBytes is the store's size from which TuneGC sets a percent.
const minTunedBytes = 32 << 20

// minHeadroom is the least the heap may grow between collections: the
// runtime's own least heap goal.
const minHeadroom = 4 << 20

// gcPercent is the percent that lets a heap of live bytes, held of them
// the store's, grow by the rest and a quarter of what the store holds (at
// least minHeadroom) before the next collection; at most the default, 100.
func gcPercent(live, held int64) int {
	if live <= 0 {
		return 100
	}
	held = min(held, live) // a miscount past live
	grow := max(live-held+held/4, minHeadroom)
	return int(min(100, (100*grow+live-1)/live))
}
