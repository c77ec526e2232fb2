// Command loadcmp builds petctl and the unvalidated net/http baseline,
// starts them side by side, and measures GET /v1/pets?limit=20 and
// POST /v1/pets on each in alternating rounds; it prints the medians, the
// ratios to the baseline and the targets.
//
//	go run ./bench/cmd/loadcmp [-rounds 5] [-duration 5s] [-conns 16]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/baseline"
	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const benchKey = "bench-key-0123456789"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	rounds    int
	cfg       load.Config
	baselines []baseline.Encoding
	petctlLog string
	petctlBin string
	// others are more petctl binaries to measure beside it (name=path),
	// for before-and-after comparisons of an engine change.
	others []string
	strict bool
	rows   string
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

func parse(args []string, errOut io.Writer) (*options, error) {
	o := &options{}
	fl := flag.NewFlagSet("loadcmp", flag.ContinueOnError)
	fl.SetOutput(errOut)
	fl.IntVar(&o.rounds, "rounds", 5, "rounds per scenario; each server runs once per round")
	fl.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "measured time of one run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent keep-alive connections")
	bl := fl.String("baselines", "marshal,cached", "baseline variants: marshal (encoding/json per request), cached (stored JSON joined)")
	fl.StringVar(&o.petctlLog, "petctl-log", "", "file for petctl's request log (default: a file in the temporary directory)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary to measure (default: build ./cmd/petctl)")
	fl.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	fl.Var((*multi)(&o.others), "also", "another petctl binary to measure, as name=path (repeatable)")
	if err := fl.Parse(args); err != nil {
		return nil, err
	}
	if o.rounds < 1 || o.cfg.Conns < 1 || o.cfg.Duration <= 0 {
		return nil, fmt.Errorf("-rounds, -conns and -duration must be positive")
	}
	for _, a := range o.others {
		if name, path, ok := strings.Cut(a, "="); !ok || name == "" || path == "" || name == "petctl" || strings.HasPrefix(name, "baseline") {
			return nil, fmt.Errorf("-also %q: want name=path, with a name other than petctl and baseline*", a)
		}
	}
	for _, name := range strings.Split(*bl, ",") {
		enc, ok := baseline.ParseEncoding(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("-baselines: %q is not marshal or cached", name)
		}
		o.baselines = append(o.baselines, enc)
	}
	return o, nil
}

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	o, err := parse(args, errOut)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(errOut, "loadcmp:", err)
		}
		return 2
	}
	if err := compare(ctx, o, out); err != nil {
		fmt.Fprintln(errOut, "loadcmp:", err)
		return 1
	}
	return 0
}

func compare(ctx context.Context, o *options, out io.Writer) error {
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "petctl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(out, "building petctl and the baseline…")
	bin := o.petctlBin
	if bin == "" {
		if bin, err = harness.Build(ctx, root, tmp, "./cmd/petctl", "petctl"); err != nil {
			return err
		}
	}
	baseBin, err := harness.Build(ctx, root, tmp, "./bench/cmd/baseline", "baseline")
	if err != nil {
		return err
	}
	auth := map[string]string{"Authorization": "Bearer " + benchKey}
	var servers []harness.Server
	// petctl first: its start-up is also measured.
	addr, err := harness.FreeAddr()
	if err != nil {
		return err
	}
	logPath := o.petctlLog
	if logPath == "" {
		logPath = filepath.Join(tmp, "petctl-requests.log")
	}
	p, err := startPetctl(bin, addr, logPath)
	if err != nil {
		return err
	}
	defer p.Stop(10 * time.Second)
	ready, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", header(auth), 10*time.Second)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "petctl ready in %s (exec to first 200, default fixtures)\n", ready.Round(time.Millisecond))
	servers = append(servers, harness.Server{Name: "petctl", Addr: addr, Header: auth})
	for _, a := range o.others {
		name, path, _ := strings.Cut(a, "=")
		addr, err := harness.FreeAddr()
		if err != nil {
			return err
		}
		p, err := harness.Start(name, path, []string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}, nil, addr, filepath.Join(tmp, name+".log"))
		if err != nil {
			return err
		}
		defer p.Stop(10 * time.Second)
		if _, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", header(auth), 10*time.Second); err != nil {
			return err
		}
		servers = append(servers, harness.Server{Name: name, Addr: addr, Header: auth})
	}
	for _, enc := range o.baselines {
		addr, err := harness.FreeAddr()
		if err != nil {
			return err
		}
		name := "baseline-" + enc.String()
		b, err := harness.Start(name, baseBin, []string{"-addr", addr, "-key", benchKey, "-encoding", enc.String()}, nil, addr, filepath.Join(tmp, name+".log"))
		if err != nil {
			return err
		}
		defer b.Stop(10 * time.Second)
		if _, err := b.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", header(auth), 10*time.Second); err != nil {
			return err
		}
		servers = append(servers, harness.Server{Name: name, Addr: addr, Header: auth})
	}
	scenarios := harness.PetstoreScenarios()
	fmt.Fprintf(out, "%d connections, %s runs after %s warm-up, %d rounds, servers alternating\n",
		o.cfg.Conns, o.cfg.Duration, o.cfg.Warmup, o.rounds)
	results, err := harness.Compare(ctx, o.cfg, o.rounds, scenarios, servers, out)
	if err != nil {
		return err
	}
	missed := report(out, o, scenarios, servers, results)
	if missed > 0 && o.strict {
		return fmt.Errorf("%d targets missed", missed)
	}
	return nil
}

func startPetctl(bin, addr, logPath string) (*harness.Process, error) {
	return harness.Start("petctl", bin, []string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}, nil, addr, logPath)
}

func header(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

// targetBaseline is the baseline the targets are against: the
// unvalidated server as one writes it by hand.
const targetBaseline = "baseline-marshal"

func report(out io.Writer, o *options, scenarios []harness.Scenario, servers []harness.Server, results map[string]map[string]harness.Runs) (missed int) {
	fmt.Fprintf(out, "\nmedians of %d rounds, %d connections; ratio = req/s of the server over req/s of the baseline\n", o.rounds, o.cfg.Conns)
	var baselines []string
	for _, srv := range servers {
		if strings.HasPrefix(srv.Name, "baseline") {
			baselines = append(baselines, srv.Name)
		}
	}
	t := &harness.Table{}
	head := []string{"request", "server", "req/s", "p50", "p99"}
	for _, b := range baselines {
		head = append(head, "vs "+b)
	}
	t.Row(head...)
	rows := &harness.Rows{}
	for _, sc := range scenarios {
		for _, srv := range servers {
			rps, p50, p99 := results[sc.Name][srv.Name].Median()
			row := []string{sc.Name, srv.Name, fmt.Sprintf("%.0f", rps), load.FormatDuration(p50), load.FormatDuration(p99)}
			for _, b := range baselines {
				brps, _, _ := results[sc.Name][b].Median()
				row = append(row, harness.Ratio(rps, brps))
			}
			t.Row(row...)
		}
		if _, ok := results[sc.Name][targetBaseline]; !ok {
			rows.Skip(sc.Target+".rps", "loadcmp ran without the marshal baseline (-baselines)")
			rows.Skip(sc.Target+".p99", "loadcmp ran without the marshal baseline (-baselines)")
			continue
		}
		rps, _, p99 := results[sc.Name]["petctl"].Median()
		brps, _, bp99 := results[sc.Name][targetBaseline].Median()
		rows.Add(harness.Row{ID: sc.Target + ".rps", Value: rps, Baseline: brps, BaselineName: "net/http, marshal", Runs: o.rounds})
		rows.Add(harness.Row{ID: sc.Target + ".p99", Value: p99.Seconds(), Baseline: bp99.Seconds(), BaselineName: "net/http, marshal", Runs: o.rounds})
	}
	t.Write(out)
	fmt.Fprintln(out)
	missed = rows.Report(out)
	if err := rows.Write(o.rows); err != nil {
		fmt.Fprintln(out, "loadcmp:", err)
		missed++
	}
	return missed
}
