// Command readcmp measures reading a large fixtures file, as serve does
// before it splits the records: os.ReadFile (one read) against
// store.ReadFixtureFile (a part on every core), alternating, each read
// into memory the process has not touched before. It prints the medians,
// and the page faults a read took and what each cost: on a virtual machine
// that cost, not the copy, is most of the read.
//
//	go run ./bench/cmd/readcmp [-n 1000000] [-rounds 5]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/genpets"
	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/engine/store"
)

func main() {
	fl := flag.NewFlagSet("readcmp", flag.ContinueOnError)
	n := fl.Int("n", 1000000, "animals in the fixtures file")
	rounds := fl.Int("rounds", 5, "reads of each kind (medians)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := run(*n, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "readcmp:", err)
		os.Exit(1)
	}
}

// reader is one way of reading the file.
type reader struct {
	name string
	read func(string) ([]byte, error)
}

func run(n, rounds int) error {
	tmp, err := os.MkdirTemp("", "petctl-readcmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "pets.json")
	if err := writePets(path, n); err != nil {
		return err
	}
	readers := []reader{{"os.ReadFile", os.ReadFile}, {"store.ReadFixtureFile", store.ReadFixtureFile}}
	took := make([][]time.Duration, len(readers))
	faults := make([][]float64, len(readers))
	// Every read stays alive to the end, so that the next one gets memory
	// the process has not touched yet, as serve's single read does.
	var kept [][]byte
	var size int
	for r := range rounds {
		for k := range readers {
			i := (k + r) % len(readers) // the order swapped each round
			before := minorFaults()
			start := time.Now()
			data, err := readers[i].read(path)
			if err != nil {
				return err
			}
			took[i] = append(took[i], time.Since(start))
			faults[i] = append(faults[i], float64(minorFaults()-before))
			kept = append(kept, data)
			size = len(data)
		}
	}
	fmt.Printf("%d animals, %.1f MB, %d rounds (medians)\n", n, float64(size)/1e6, rounds)
	for i, rd := range readers {
		d := harness.MedianDuration(took[i])
		f := harness.Median(faults[i])
		fmt.Printf("%-22s %8.1f ms  %7.0f page faults  %5.1f µs a fault (the whole read's time over its faults)\n",
			rd.name, float64(d)/1e6, f, float64(d)/1e3/max(f, 1))
	}
	base := harness.MedianDuration(took[0])
	fmt.Printf("ratio: %.2f× os.ReadFile's time\n", float64(harness.MedianDuration(took[1]))/float64(base))
	return nil
}

func writePets(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := genpets.Write(w, n); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// minorFaults is the process's minor page faults so far, every thread's.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
