// Command million measures petctl with a large store, its records read
// from a deterministic fixtures file of -n animals (1,000,000 by default)
// written to a temporary directory, or made by --generate: start-up from
// exec to the first 200, resident memory (VmRSS and VmHWM), and
// GET /v1/pets?status=sold&limit=100 under load.
//
//	go run ./bench/cmd/million [-n 1000000] [-sources file,generate] [-starts 3] [-duration 5s] [-rows FILE]
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/genpets"
	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const benchKey = "bench-key-0123456789"

type options struct {
	n         int
	starts    int
	rounds    int
	cfg       load.Config
	conns     []int
	petctlBin string
	strict    bool
	rows      string
	sources   []string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &options{}
	fl := flag.NewFlagSet("million", flag.ContinueOnError)
	fl.IntVar(&o.n, "n", 1000000, "animals in the fixtures file")
	fl.IntVar(&o.starts, "starts", 3, "start-ups to time for each fixture set (median)")
	fl.IntVar(&o.rounds, "rounds", 3, "load runs per connection count (median)")
	fl.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "measured time of one load run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each load run")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary (default: build ./cmd/petctl)")
	fl.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	src := fl.String("sources", "file,generate", "where the records come from: file (--fixtures), generate (--generate N), comma-separated")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if o.n < 1 || o.starts < 1 || o.rounds < 1 {
		fmt.Fprintln(os.Stderr, "million: -n, -starts and -rounds must be positive")
		os.Exit(2)
	}
	o.conns = []int{1, 16}
	for _, name := range strings.Split(*src, ",") {
		if _, ok := sources[name]; !ok {
			fmt.Fprintf(os.Stderr, "million: -sources: %q is not file or generate\n", name)
			os.Exit(2)
		}
		o.sources = append(o.sources, name)
	}
	missed, err := measure(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "million:", err)
		os.Exit(1)
	}
	if missed > 0 && o.strict {
		os.Exit(1)
	}
}

func measure(ctx context.Context, o *options, out io.Writer) (missed int, err error) {
	tmp, err := os.MkdirTemp("", "petctl-million-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return 0, err
	}
	t := &harness.Table{}
	t.Row("measure", "median", "runs")
	// Start-up with the default fixtures, for scale.
	var def []time.Duration
	for i := 0; i < o.starts; i++ {
		p, ready, err := start(ctx, bin, nil, tmp, 10*time.Second)
		if err != nil {
			return 0, err
		}
		p.Stop(10 * time.Second)
		def = append(def, ready)
	}
	t.Row("start-up, default fixtures (exec to first 200)", ms(harness.MedianDuration(def)), list(def))
	rows := &harness.Rows{}
	for _, name := range o.sources {
		args, err := sources[name](o.n, tmp, out)
		if err != nil {
			return 0, err
		}
		if err := measureSource(ctx, o, bin, name, args, tmp, t, rows, out); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
	}
	fmt.Fprintln(out)
	t.Write(out)
	fmt.Fprintln(out)
	missed = rows.Report(out)
	return missed, rows.Write(o.rows)
}

// sources give serve's arguments for each way of holding n records.
var sources = map[string]func(n int, tmp string, out io.Writer) ([]string, error){
	"file": func(n int, tmp string, out io.Writer) ([]string, error) {
		// The file's base name names the collection.
		file := filepath.Join(tmp, "pets.json")
		f, err := os.Create(file)
		if err != nil {
			return nil, err
		}
		err = genpets.Write(f, n)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		st, _ := os.Stat(file)
		fmt.Fprintf(out, "fixtures: %d animals, %s (%s)\n", n, harness.MB(st.Size()), file)
		return []string{"--fixtures", file}, nil
	},
	"generate": func(n int, _ string, _ io.Writer) ([]string, error) {
		return []string{"--generate", strconv.Itoa(n)}, nil
	},
}

// measureSource times start-ups with args, reads the memory, then loads
// the filtered page; its rows go under million.<name>.
func measureSource(ctx context.Context, o *options, bin, name string, args []string, tmp string, t *harness.Table, rows *harness.Rows, out io.Writer) error {
	// The last start stays up for the load.
	var large []time.Duration
	var mem []harness.Memory
	var p *harness.Process
	for i := 0; i < o.starts; i++ {
		var ready time.Duration
		var err error
		p, ready, err = start(ctx, bin, args, tmp, 60*time.Second)
		if err != nil {
			return err
		}
		large = append(large, ready)
		m, err := harness.ReadMemory(p.Pid())
		if err != nil {
			p.Stop(10 * time.Second)
			return err
		}
		mem = append(mem, m)
		fmt.Fprintf(out, "  %s, start %d: first 200 after %s, VmRSS %s, VmHWM %s\n", name, i+1, ms(ready), harness.MB(m.RSS), harness.MB(m.HWM))
		if i < o.starts-1 {
			p.Stop(10 * time.Second)
		}
	}
	defer p.Stop(10 * time.Second)
	ml := harness.MedianDuration(large)
	rss, hwm := medianMemory(mem)
	t.Row(fmt.Sprintf("%s: start-up, %d records (exec to first 200)", name, o.n), ms(ml), list(large))
	t.Row(name+": VmRSS after start-up", harness.MB(rss), "")
	t.Row(name+": VmHWM after start-up (peak)", harness.MB(hwm), "")
	rows.Add(harness.Row{ID: "million." + name + ".first", Value: ml.Seconds(), Runs: o.starts})

	// The filtered page: check it once, then load it.
	const path = "/v1/pets?status=sold&limit=100"
	auth := http.Header{"Authorization": {"Bearer " + benchKey}}
	if err := harness.CheckPage(ctx, "http://"+p.Addr+path, auth, 100, "status", "sold"); err != nil {
		return err
	}
	req := load.Request{Method: "GET", Path: path, Header: auth}
	for _, conns := range o.conns {
		var runs harness.Runs
		for r := 0; r < o.rounds; r++ {
			cfg := o.cfg
			cfg.Addr, cfg.Conns = p.Addr, conns
			res, err := load.Run(ctx, cfg, req)
			if err != nil {
				return err
			}
			if bad := res.Unexpected(200); bad > 0 {
				return fmt.Errorf("%s: %d responses were not 200 (%s)", path, bad, res)
			}
			fmt.Fprintf(out, "  %s, %d conn, run %d: %s\n", name, conns, r+1, res)
			runs = append(runs, res)
		}
		rps, p50, p99 := runs.Median()
		t.Row(fmt.Sprintf("%s: GET %s, %d conn: req/s, p50, p99", name, path, conns), fmt.Sprintf("%.0f, %s, %s", rps, load.FormatDuration(p50), load.FormatDuration(p99)), "")
		if conns == 1 {
			rows.Add(harness.Row{ID: "million." + name + ".p99", Value: p99.Seconds(), Runs: o.rounds})
		}
	}
	m, err := harness.ReadMemory(p.Pid())
	if err != nil {
		return err
	}
	t.Row(name+": VmRSS / VmHWM after the load", harness.MB(m.RSS)+" / "+harness.MB(m.HWM), "")
	// The peak is the process's, loading and serving both.
	rows.Add(harness.Row{ID: "million." + name + ".peak", Value: float64(max(hwm, m.HWM)), Runs: o.starts,
		Note: fmt.Sprintf("after start-up %s, after the load %s", harness.MB(hwm), harness.MB(m.HWM))})
	return nil
}

// start runs petctl serve and waits for its first 200.
func start(ctx context.Context, bin string, extra []string, tmp string, timeout time.Duration) (*harness.Process, time.Duration, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, 0, err
	}
	args := append([]string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}, extra...)
	// The output (banner, request log) goes to a file.
	p, err := harness.Start("petctl", bin, args, nil, addr, filepath.Join(tmp, "petctl.log"))
	if err != nil {
		return nil, 0, err
	}
	h := http.Header{"Authorization": {"Bearer " + benchKey}}
	ready, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", h, timeout)
	if err != nil {
		p.Stop(10 * time.Second)
		return nil, 0, err
	}
	return p, ready, nil
}

func medianMemory(ms []harness.Memory) (rss, hwm int64) {
	var r, h []float64
	for _, m := range ms {
		r = append(r, float64(m.RSS))
		h = append(h, float64(m.HWM))
	}
	return int64(harness.Median(r)), int64(harness.Median(h))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func list(ds []time.Duration) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		s += ms(d)
	}
	return s
}
