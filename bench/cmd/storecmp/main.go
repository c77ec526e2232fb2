// Command storecmp measures petctl's stores side by side in one run: the
// memory store, the state file under each store.sync, and Redis (when a
// redis-server binary is installed) with one replica and with three
// replicas sharing it, each a petctl serve process, taking turns round
// after round under the same create and list load; then start-up with a
// state file of -n stored records (1,000,000 by default): exec to the
// first 200, resident memory, and a filtered page at one connection. Its
// rows: durable.* (create against the memory store; under sync always,
// what the disk allows beside it), redis.replicas3.create (three replicas
// against one, with where the CPU went) and million.durable.*.
//
//	go run ./bench/cmd/storecmp [-rounds 3] [-duration 3s] [-conns 16] [-n 1000000] [-starts 3] [-rows FILE]
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
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const benchKey = "bench-key-0123456789"

// targetRecords is the store size the million.durable targets name.
const targetRecords = 1000000

type options struct {
	rounds, starts, n, replicas int
	cfg                         load.Config
	petctlBin                   string
	rows                        string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &options{}
	fl := flag.NewFlagSet("storecmp", flag.ContinueOnError)
	fl.IntVar(&o.rounds, "rounds", 3, "rounds; each store takes one turn per round (median)")
	fl.DurationVar(&o.cfg.Duration, "duration", 3*time.Second, "measured time of one load run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", 500*time.Millisecond, "unmeasured time before each load run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent connections (spread over the replicas)")
	fl.IntVar(&o.replicas, "replicas", 3, "petctl replicas on one Redis, measured against one")
	fl.IntVar(&o.n, "n", targetRecords, "records in the state file whose start-up is timed (0: none)")
	fl.IntVar(&o.starts, "starts", 3, "start-ups to time (median)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary (default: build ./cmd/petctl)")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if o.rounds < 1 || o.starts < 1 || o.n < 0 || o.replicas < 2 || o.cfg.Conns < o.replicas || o.cfg.Duration <= 0 {
		fmt.Fprintln(os.Stderr, "storecmp: -rounds, -starts and -duration must be positive, -n not negative, -replicas at least 2 and -conns at least -replicas")
		os.Exit(2)
	}
	rows := &harness.Rows{}
	err := measure(ctx, o, rows, os.Stdout)
	if err == nil {
		fmt.Fprintln(os.Stdout)
		rows.Report(os.Stdout)
		err = rows.Write(o.rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storecmp:", err)
		os.Exit(1)
	}
}

// backend is one store to serve: its name, serve's flags and environment,
// and how many petctl serve share it.
type backend struct {
	name     string
	args     []string
	env      []string
	replicas int
}

// The backends whose figures the targets compare.
const (
	memoryName   = "memory"
	alwaysName   = "file, sync always"
	intervalName = "file, sync interval"
	redisOneName = "redis (1 replica)"
)

func measure(ctx context.Context, o *options, rows *harness.Rows, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "petctl-storecmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return err
	}
	backends := []backend{{name: memoryName, args: []string{"--state", "none"}}}
	for _, sync := range []string{"always", "interval", "never"} {
		backends = append(backends, backend{name: "file, sync " + sync,
			args: []string{"--state", filepath.Join(tmp, "state-"+sync), "--store-sync", sync}})
	}
	redisMany := fmt.Sprintf("redis (%d replicas)", o.replicas)
	var redisPid int
	if url, pid, stopRedis, err := startRedis(tmp); err != nil {
		fmt.Fprintf(out, "redis: not measured: %v\n", err)
		rows.Skip("redis.replicas3.create", err.Error())
	} else {
		defer stopRedis()
		redisPid = pid
		// Two databases of one Redis: the stores stay apart (docs/state.md).
		backends = append(backends,
			backend{name: redisOneName, env: []string{"PETCTL_STORE_BACKEND=redis", "PETCTL_STORE_URL=" + url + "/0"}},
			backend{name: redisMany, env: []string{"PETCTL_STORE_BACKEND=redis", "PETCTL_STORE_URL=" + url + "/1"}, replicas: o.replicas})
	}
	var servers []harness.Server
	pids := map[string][]int{}
	for _, b := range backends {
		srv := harness.Server{Name: b.name, Header: map[string]string{"Authorization": "Bearer " + benchKey}}
		for i := range max(b.replicas, 1) {
			name := b.name
			if b.replicas > 0 {
				name = fmt.Sprintf("%s #%d", b.name, i+1)
			}
			p, _, err := start(ctx, bin, name, b.args, b.env, tmp, 30*time.Second)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			defer p.Stop(10 * time.Second)
			pids[b.name] = append(pids[b.name], p.Pid())
			if i == 0 {
				srv.Addr = p.Addr
			} else {
				srv.More = append(srv.More, p.Addr)
			}
		}
		servers = append(servers, srv)
	}
	create := harness.Scenario{Name: "POST /v1/pets", Want: http.StatusCreated, Req: load.Request{Method: "POST", Path: "/v1/pets",
		Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"name":"Bench","categoryId":3,"status":"available"}`)}}
	list := harness.Scenario{Name: "GET /v1/pets?limit=20", Want: http.StatusOK, Req: load.Request{Method: "GET", Path: "/v1/pets?limit=20"}}
	fmt.Fprintf(out, "%d rounds of %s at %d connections, the stores taking turns (the replicas share the connections)\n", o.rounds, o.cfg.Duration, o.cfg.Conns)
	// Under the create load the Redis stores' CPU is counted: redis-server's
	// and the replicas', which says where their bottleneck is.
	usage := map[string]*cpuUse{}
	var turns []harness.Turn
	for _, srv := range servers {
		tn := harness.Turn{Name: srv.Name, Server: srv, Scenario: create}
		if redisPid != 0 && strings.HasPrefix(srv.Name, "redis") {
			u := &cpuUse{redis: redisPid, replicas: pids[srv.Name]}
			usage[srv.Name] = u
			tn.Before, tn.After = u.begin, u.end
		}
		turns = append(turns, tn)
	}
	creates, err := harness.Alternate(ctx, o.cfg, o.rounds, turns, out)
	if err != nil {
		return err
	}
	lists, err := harness.Compare(ctx, o.cfg, o.rounds, []harness.Scenario{list}, servers, out)
	if err != nil {
		return err
	}
	rate, err := harness.SyncRate(tmp, time.Second)
	if err != nil {
		return fmt.Errorf("the disk's fdatasync rate: %w", err)
	}
	t := &harness.Table{}
	t.Row("store", "create req/s", "create p99", "list req/s", "list p99", "create vs memory")
	memCreate, _, _ := creates[memoryName].Median()
	for _, b := range backends {
		crps, _, cp99 := creates[b.name].Median()
		lrps, _, lp99 := lists[list.Name][b.name].Median()
		t.Row(b.name, fmt.Sprintf("%.0f", crps), load.FormatDuration(cp99), fmt.Sprintf("%.0f", lrps), load.FormatDuration(lp99), harness.Ratio(crps, memCreate))
	}
	fmt.Fprintln(out)
	t.Write(out)
	fmt.Fprintf(out, "the disk under %s: %.0f fdatasyncs a second (4 KiB rewritten and flushed in a loop for 1 s)\n", tmp, rate)
	memory := func(id, name, note string) {
		v, _, _ := creates[name].Median()
		rows.Add(harness.Row{ID: id, Value: v, Baseline: memCreate, BaselineName: "memory store", Runs: o.rounds, Note: note})
	}
	memory("durable.interval.create", intervalName, "")
	always, _, _ := creates[alwaysName].Median()
	memory("durable.always.create", alwaysName, fmt.Sprintf("the disk alone allows %.0f fdatasyncs/s (4 KiB rewritten and flushed in a loop for 1 s): %.2f creates per fdatasync it allows",
		rate, always/rate))
	if u := usage[redisMany]; u != nil {
		many, _, _ := creates[redisMany].Median()
		one, _, _ := creates[redisOneName].Median()
		rows.Add(harness.Row{ID: "redis.replicas3.create", Value: many, Baseline: one, BaselineName: "one replica", Runs: o.rounds,
			Note: fmt.Sprintf("CPU under the create load, in cores: with %d replicas redis-server %.2f, the replicas %.2f together; with one, redis-server %.2f, the replica %.2f (%d cores in all, the load generator on them too)",
				o.replicas, u.redisCores(), u.replicaCores(), usage[redisOneName].redisCores(), usage[redisOneName].replicaCores(), runtime.NumCPU())})
		fmt.Fprintf(out, "CPU under the create load: %s redis-server %.2f cores, petctl %.2f; %s redis-server %.2f, petctl %.2f\n",
			redisMany, u.redisCores(), u.replicaCores(), redisOneName, usage[redisOneName].redisCores(), usage[redisOneName].replicaCores())
	}
	if o.n > 0 {
		return startup(ctx, o, bin, tmp, rows, out)
	}
	for _, id := range []string{"million.durable.first", "million.durable.peak", "million.durable.p99"} {
		rows.Skip(id, "storecmp -n 0: no state file of stored records")
	}
	return nil
}

// cpuUse sums the CPU time a Redis store's processes use during its runs,
// and the wall time of those runs.
type cpuUse struct {
	redis    int
	replicas []int
	// at are the CPU times when the current run began: redis-server's,
	// then the replicas'.
	at    []time.Duration
	began time.Time
	wall  time.Duration
	// used are the sums over every run, in the same order as at.
	used []time.Duration
}

func (u *cpuUse) read() ([]time.Duration, error) {
	var out []time.Duration
	for _, pid := range append([]int{u.redis}, u.replicas...) {
		c, err := harness.ReadCPU(pid)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (u *cpuUse) begin(context.Context) error {
	at, err := u.read()
	u.at, u.began = at, time.Now()
	return err
}

func (u *cpuUse) end(context.Context) error {
	now, err := u.read()
	if err != nil {
		return err
	}
	u.wall += time.Since(u.began)
	if u.used == nil {
		u.used = make([]time.Duration, len(now))
	}
	for i := range now {
		u.used[i] += now[i] - u.at[i]
	}
	return nil
}

// redisCores is redis-server's CPU time over the runs' wall time: 1.0 is
// one core busy the whole time, all Redis can use (it runs commands on one
// thread).
func (u *cpuUse) redisCores() float64 {
	if u == nil || u.wall == 0 || len(u.used) == 0 {
		return 0
	}
	return u.used[0].Seconds() / u.wall.Seconds()
}

// replicaCores is the replicas' CPU time together over the runs' wall time.
func (u *cpuUse) replicaCores() float64 {
	if u == nil || u.wall == 0 || len(u.used) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range u.used[1:] {
		sum += d
	}
	return sum.Seconds() / u.wall.Seconds()
}

// startup times start-ups on a state file of o.n records, then loads a
// filtered page of the last one at one connection.
func startup(ctx context.Context, o *options, bin, tmp string, rows *harness.Rows, out io.Writer) error {
	state := filepath.Join(tmp, "million")
	fmt.Fprintf(out, "\nwriting a state file of %d records (--generate %d, once)…\n", o.n, o.n)
	p, _, err := start(ctx, bin, "seed", []string{"--state", state, "--generate", fmt.Sprint(o.n)}, nil, tmp, 10*time.Minute)
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
	var peaks []float64
	// The last start stays up for the filtered page.
	for i := 0; i < o.starts; i++ {
		var ready time.Duration
		p, ready, err = start(ctx, bin, "reopen", []string{"--state", state}, nil, tmp, 2*time.Minute)
		if err != nil {
			return err
		}
		m, err := harness.ReadMemory(p.Pid())
		if err != nil {
			p.Stop(30 * time.Second)
			return err
		}
		if i < o.starts-1 {
			p.Stop(30 * time.Second)
		}
		readies, peaks = append(readies, ready), append(peaks, float64(m.HWM))
		t.Row(fmt.Sprintf("start %d", i+1), ms(ready), harness.MB(m.RSS), harness.MB(m.HWM))
	}
	defer p.Stop(30 * time.Second)
	first := harness.MedianDuration(readies)
	t.Row("median", ms(first), "", "")
	fmt.Fprintln(out)
	t.Write(out)

	const path = "/v1/pets?status=sold&limit=100"
	auth := http.Header{"Authorization": {"Bearer " + benchKey}}
	if err := harness.CheckPage(ctx, "http://"+p.Addr+path, auth, 100, "status", "sold"); err != nil {
		return err
	}
	cfg := o.cfg
	cfg.Conns = 1
	var runs harness.Runs
	for r := 0; r < o.rounds; r++ {
		res, err := harness.RunOn(ctx, cfg, harness.Server{Name: "reopened", Addr: p.Addr}, harness.Scenario{Name: "GET " + path, Want: http.StatusOK,
			Req: load.Request{Method: "GET", Path: path, Header: auth}})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  reopened, GET %s, 1 conn, run %d: %s\n", path, r+1, res)
		runs = append(runs, res)
	}
	_, _, p99 := runs.Median()
	after, err := harness.ReadMemory(p.Pid())
	if err != nil {
		return err
	}
	size := ""
	if o.n != targetRecords {
		size = fmt.Sprintf("%d records (-n), not the target's %d; ", o.n, targetRecords)
	}
	peak := harness.Median(peaks)
	rows.Add(harness.Row{ID: "million.durable.first", Value: first.Seconds(), Runs: o.starts, Note: strings.TrimSuffix(size, "; ")})
	rows.Add(harness.Row{ID: "million.durable.peak", Value: max(peak, float64(after.HWM)), Runs: o.starts,
		Note: fmt.Sprintf("%safter start-up %s, after the page's load %s", size, harness.MB(int64(peak)), harness.MB(after.HWM))})
	rows.Add(harness.Row{ID: "million.durable.p99", Value: p99.Seconds(), Runs: o.rounds, Note: strings.TrimSuffix(size, "; ")})
	return nil
}

// start runs petctl serve with args and env and waits for its first 200.
func start(ctx context.Context, bin, name string, args, env []string, tmp string, timeout time.Duration) (*harness.Process, time.Duration, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, 0, err
	}
	args = append([]string{"serve", "--addr", addr, "--api-key", benchKey, "--log-requests=false"}, args...)
	p, err := harness.Start("petctl "+name, bin, args, env, addr, filepath.Join(tmp, "petctl-"+strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "", "#", "").Replace(name)+".log"))
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

// startRedis runs redis-server on a free loopback port, without
// persistence, and returns its URL without a database number.
func startRedis(tmp string) (url string, pid int, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", 0, nil, fmt.Errorf("no redis-server binary (apt-get install redis-server)")
	}
	addr, err := harness.FreeAddr()
	if err != nil {
		return "", 0, nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	p, err := harness.Start("redis-server", bin, []string{"--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", tmp}, nil, addr, filepath.Join(tmp, "redis.log"))
	if err != nil {
		return "", 0, nil, err
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "redis://" + addr, p.Pid(), func() { p.Stop(5 * time.Second) }, nil
		}
	}
	p.Stop(time.Second)
	return "", 0, nil, fmt.Errorf("redis-server did not listen on %s", addr)
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
