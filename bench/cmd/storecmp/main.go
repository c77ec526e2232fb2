// Command storecmp measures petctl's stores side by side in one run: the
// memory store, the state file under each store.sync, and Redis (when a
// redis-server binary is installed), each a petctl serve process, taking
// turns round after round under the same create and list load; then
// start-up with a state file of -n stored records (1,000,000 by default):
// exec to the first 200, and resident memory.
//
//	go run ./bench/cmd/storecmp [-rounds 3] [-duration 3s] [-conns 16] [-n 1000000] [-starts 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const benchKey = "bench-key-0123456789"

type options struct {
	rounds, starts, n int
	cfg               load.Config
	petctlBin         string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &options{}
	fl := flag.NewFlagSet("storecmp", flag.ContinueOnError)
	fl.IntVar(&o.rounds, "rounds", 3, "rounds; each store takes one turn per round (median)")
	fl.DurationVar(&o.cfg.Duration, "duration", 3*time.Second, "measured time of one load run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", 500*time.Millisecond, "unmeasured time before each load run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent connections")
	fl.IntVar(&o.n, "n", 1000000, "records in the state file whose start-up is timed (0: none)")
	fl.IntVar(&o.starts, "starts", 3, "start-ups to time (median)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary (default: build ./cmd/petctl)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := measure(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "storecmp:", err)
		os.Exit(1)
	}
}

// backend is one store to serve: its name and serve's flags and environment.
type backend struct {
	name string
	args []string
	env  []string
}

func measure(ctx context.Context, o *options, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "petctl-storecmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return err
	}
	backends := []backend{{name: "memory", args: []string{"--state", "none"}}}
	for _, sync := range []string{"always", "interval", "never"} {
		backends = append(backends, backend{name: "file, sync " + sync,
			args: []string{"--state", filepath.Join(tmp, "state-"+sync), "--store-sync", sync}})
	}
	if url, stopRedis, err := startRedis(tmp); err != nil {
		fmt.Fprintf(out, "redis: not measured: %v\n", err)
	} else {
		defer stopRedis()
		backends = append(backends, backend{name: "redis (1 replica)", env: []string{"PETCTL_STORE_BACKEND=redis", "PETCTL_STORE_URL=" + url}})
	}
	var servers []harness.Server
	for _, b := range backends {
		p, _, err := start(ctx, bin, b, tmp, 30*time.Second)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		defer p.Stop(10 * time.Second)
		servers = append(servers, harness.Server{Name: b.name, Addr: p.Addr, Header: map[string]string{"Authorization": "Bearer " + benchKey}})
	}
	scenarios := []harness.Scenario{
		{Name: "POST /v1/pets", Want: http.StatusCreated, Req: load.Request{Method: "POST", Path: "/v1/pets",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"name":"Bench","categoryId":3,"status":"available"}`)}},
		{Name: "GET /v1/pets?limit=20", Want: http.StatusOK, Req: load.Request{Method: "GET", Path: "/v1/pets?limit=20"}},
	}
	fmt.Fprintf(out, "%d rounds of %s at %d connections, the stores taking turns\n", o.rounds, o.cfg.Duration, o.cfg.Conns)
	res, err := harness.Compare(ctx, o.cfg, o.rounds, scenarios, servers, out)
	if err != nil {
		return err
	}
	t := &harness.Table{}
	t.Row("store", "create req/s", "create p99", "list req/s", "list p99", "create vs memory")
	memCreate, _, _ := res[scenarios[0].Name]["memory"].Median()
	for _, b := range backends {
		crps, _, cp99 := res[scenarios[0].Name][b.name].Median()
		lrps, _, lp99 := res[scenarios[1].Name][b.name].Median()
		t.Row(b.name, fmt.Sprintf("%.0f", crps), load.FormatDuration(cp99), fmt.Sprintf("%.0f", lrps), load.FormatDuration(lp99), harness.Ratio(crps, memCreate))
	}
	fmt.Fprintln(out)
	t.Write(out)
	if o.n > 0 {
		return startup(ctx, o, bin, tmp, out)
	}
	return nil
}

// startup times start-ups on a state file of o.n records.
func startup(ctx context.Context, o *options, bin, tmp string, out io.Writer) error {
	state := filepath.Join(tmp, "million")
	fmt.Fprintf(out, "\nwriting a state file of %d records (--generate %d, once)…\n", o.n, o.n)
	seed := backend{name: "seed", args: []string{"--state", state, "--generate", fmt.Sprint(o.n)}}
	p, _, err := start(ctx, bin, seed, tmp, 10*time.Minute)
	if err != nil {
		return err
	}
	p.Stop(30 * time.Second)
	if st, err := os.Stat(state); err == nil {
		fmt.Fprintf(out, "state file: %s\n", harness.MB(st.Size()))
	}
	t := &harness.Table{}
	t.Row("start-up on the state file", "exec to first 200", "VmRSS", "VmHWM (peak)")
	var readies []time.Duration
	for i := 0; i < o.starts; i++ {
		p, ready, err := start(ctx, bin, backend{name: "reopen", args: []string{"--state", state}}, tmp, 2*time.Minute)
		if err != nil {
			return err
		}
		m, err := harness.ReadMemory(p.Pid())
		p.Stop(30 * time.Second)
		if err != nil {
			return err
		}
		readies = append(readies, ready)
		t.Row(fmt.Sprintf("start %d", i+1), ms(ready), harness.MB(m.RSS), harness.MB(m.HWM))
	}
	t.Row("median", ms(harness.MedianDuration(readies)), "", "")
	fmt.Fprintln(out)
	t.Write(out)
	return nil
}

// start runs petctl serve with b's flags and waits for its first 200.
func start(ctx context.Context, bin string, b backend, tmp string, timeout time.Duration) (*harness.Process, time.Duration, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, 0, err
	}
	args := append([]string{"serve", "--addr", addr, "--api-key", benchKey, "--log-requests=false"}, b.args...)
	p, err := harness.Start("petctl "+b.name, bin, args, b.env, addr, filepath.Join(tmp, "petctl-"+strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "").Replace(b.name)+".log"))
	if err != nil {
		return nil, 0, err
	}
	h := http.Header{"Authorization": {"Bearer " + benchKey}}
	ready, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", h, timeout)
	if err != nil {
		p.Stop(10 * time.Second)
		return nil, 0, fmt.Errorf("%w; log: %s", err, p.Tail(5))
	}
	return p, ready, nil
}

// startRedis runs redis-server on a free loopback port, without persistence.
func startRedis(tmp string) (url string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, fmt.Errorf("no redis-server binary (apt-get install redis-server)")
	}
	addr, err := harness.FreeAddr()
	if err != nil {
		return "", nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	p, err := harness.Start("redis-server", bin, []string{"--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", tmp}, nil, addr, filepath.Join(tmp, "redis.log"))
	if err != nil {
		return "", nil, err
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "redis://" + addr + "/0", func() { p.Stop(5 * time.Second) }, nil
		}
	}
	p.Stop(time.Second)
	return "", nil, fmt.Errorf("redis-server did not listen on %s", addr)
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
