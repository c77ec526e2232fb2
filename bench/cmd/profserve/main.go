// Command profserve serves the embedded Petstore as `petctl serve` does
// (same engine, same http.Server settings) and writes CPU and heap profiles
// when it is interrupted, to find where a request's time goes under real
// network load:
//
//	go run ./bench/cmd/profserve -addr 127.0.0.1:4011 [-spec doc.yaml] -cpuprofile cpu.out &
//	go run ./bench/cmd/loadcmp ... (or any load) ; kill -INT %1
//	go tool pprof -top cpu.out
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/fixtures"
	"github.com/petctl/petctl/spec"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fl := flag.NewFlagSet("profserve", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:4011", "address to listen on")
	key := fl.String("key", "bench-key-0123456789", "accepted API key")
	specPath := fl.String("spec", "", "OpenAPI document (default: the embedded Petstore)")
	fixturesPath := fl.String("fixtures", "", "fixtures file (default: the embedded Petstore animals with the embedded Petstore, none with -spec)")
	cpu := fl.String("cpuprofile", "", "write a CPU profile here on exit")
	mem := fl.String("memprofile", "", "write a heap profile here on exit")
	logTo := fl.String("log", "stderr", "request log: stderr or discard")
	startProf := fl.String("startprofile", "", "write a CPU profile of start-up (engine.New) here")
	exit := fl.Bool("exit", false, "exit after start-up, printing memory figures")
	statePath := fl.String("state", "", "state file the records are kept in, as serve --state (default: memory only)")
	syncMode := fl.String("store-sync", "always", "with -state: always, interval or never, as serve --store-sync")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	var state store.Journal
	if *statePath != "" {
		j, err := store.OpenFile(*statePath, store.FileOptions{Sync: store.SyncMode(*syncMode)})
		if err != nil {
			fmt.Fprintln(os.Stderr, "profserve:", err)
			return 1
		}
		defer j.Close()
		state = j
	}
	if err := serve(*addr, *key, *specPath, *fixturesPath, *cpu, *mem, *logTo, *startProf, *exit, state); err != nil {
		fmt.Fprintln(os.Stderr, "profserve:", err)
		return 1
	}
	return 0
}

func serve(addr, key, specPath, fixturesPath, cpu, mem, logTo, startProf string, exit bool, state store.Journal) error {
	var w io.Writer = os.Stderr
	if logTo == "discard" {
		w = io.Discard
	}
	// serve's handler, through serve's buffer (cmd/petctl newLogger)
	logs := engine.NewLogBuffer(w, engine.DefaultLogBufferBytes)
	defer logs.Close(time.Second)
	logger := slog.New(engine.NewTextHandler(logs, nil))
	s, files, err := document(specPath, fixturesPath)
	if err != nil {
		return err
	}
	if startProf != "" {
		f, err := os.Create(startProf)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	start := time.Now()
	srv, err := engine.New(engine.Options{Spec: s, Keys: []string{key}, Fixtures: files, Logger: logger, State: state})
	if err != nil {
		return err
	}
	took := time.Since(start)
	if startProf != "" {
		pprof.StopCPUProfile()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(os.Stderr, "engine.New took %s; collections %v; heap in use %d MB, sys %d MB, GC cycles %d\n",
		took.Round(time.Millisecond), srv.Collections(), ms.HeapInuse>>20, ms.Sys>>20, ms.NumGC)
	if exit {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		status, _ := os.ReadFile("/proc/self/status")
		fmt.Fprintf(os.Stderr, "after GC: heap in use %d MB\n%s", ms.HeapInuse>>20, grepVm(string(status)))
		runtime.KeepAlive(srv)
		if mem != "" {
			f, err := os.Create(mem)
			if err != nil {
				return err
			}
			defer f.Close()
			return pprof.WriteHeapProfile(f)
		}
		return nil
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = engine.Serve(ctx, ln, srv, engine.Timeouts{Shutdown: time.Second}, logger)
	if mem != "" {
		runtime.GC()
		f, ferr := os.Create(mem)
		if ferr != nil {
			return ferr
		}
		defer f.Close()
		if werr := pprof.WriteHeapProfile(f); werr != nil {
			return werr
		}
	}
	return err
}

// document is the document served and its fixtures: the embedded
// Petstore and its animals by default; a -spec document starts empty
// unless -fixtures names records for it.
func document(specPath, fixturesPath string) (*spec.Spec, []engine.FixtureFile, error) {
	var s *spec.Spec
	var err error
	if specPath != "" {
		s, err = spec.Load(specPath)
	} else {
		s, err = spec.Default()
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case fixturesPath != "":
		data, err := store.ReadFixtureFile(fixturesPath) // as serve reads it
		return s, []engine.FixtureFile{{Name: fixturesPath, Data: data}}, err
	case specPath != "":
		return s, nil, nil
	}
	data, err := fs.ReadFile(fixtures.Files, "petstore/pets.json")
	return s, []engine.FixtureFile{{Name: "embedded petstore/pets.json", Data: data}}, err
}

func grepVm(status string) string {
	var out string
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") {
			out += l + "\n"
		}
	}
	return out
}
