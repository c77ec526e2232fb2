// Command crudcmp measures update (PUT), patch (PATCH) and delete on the
// Petstore-like document with full CRUD (fixtures/petstore-crud.yaml)
// beside the unvalidated net/http baseline's create, the yardstick issue
// 22's targets name: each a turn of every round, the order rotating, the
// medians of the rounds compared.
//
// Updates and patches go to animals of the Petstore's fixtures, a new name
// each time; deletes to a second petctl holding -records generated animals,
// a different one each time, its store reset before each run.
//
//	go run ./bench/cmd/crudcmp [-rounds 5] [-duration 3s] [-conns 16] [-records N] [-rows FILE]
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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
	"github.com/petctl/petctl/engine"
)

const benchKey = "bench-key-0123456789"

// document is the Petstore-like document with full CRUD, from the module root.
const document = "fixtures/petstore-crud.yaml"

// deleteRate is more deletes a second than two cores serve: -records by
// default holds this many for each second of a run's warm-up and measured
// time, so a delete run never runs out of animals.
const deleteRate = 60000

type options struct {
	rounds, records int
	cfg             load.Config
	petctlBin       string
	rows            string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	o := &options{}
	fl := flag.NewFlagSet("crudcmp", flag.ContinueOnError)
	fl.SetOutput(errOut)
	fl.IntVar(&o.rounds, "rounds", 5, "rounds; each request takes one turn per round (median)")
	fl.DurationVar(&o.cfg.Duration, "duration", 3*time.Second, "measured time of one run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent keep-alive connections")
	fl.IntVar(&o.records, "records", 0, fmt.Sprintf("animals the delete runs take from (default: %d for each second of -warmup and -duration)", deleteRate))
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary to measure (default: build ./cmd/petctl)")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if o.rounds < 1 || o.cfg.Conns < 1 || o.cfg.Duration <= 0 || o.cfg.Warmup < 0 || o.records < 0 {
		fmt.Fprintln(errOut, "crudcmp: -rounds, -conns and -duration must be positive, -warmup and -records not negative")
		return 2
	}
	if o.records == 0 {
		o.records = int(deleteRate * (o.cfg.Warmup + o.cfg.Duration).Seconds())
	}
	rows, err := compare(ctx, o, out)
	if err == nil {
		fmt.Fprintln(out)
		rows.Report(out)
		err = rows.Write(o.rows)
	}
	if err != nil {
		fmt.Fprintln(errOut, "crudcmp:", err)
		return 1
	}
	return 0
}

// The baseline the targets are against, and its create.
const (
	baselineName = "baseline-marshal"
	createName   = "baseline create"
)

func compare(ctx context.Context, o *options, out io.Writer) (*harness.Rows, error) {
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "petctl-crudcmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return nil, err
	}
	baseBin, err := harness.Build(ctx, root, tmp, "./bench/cmd/baseline", "baseline")
	if err != nil {
		return nil, err
	}
	auth := map[string]string{"Authorization": "Bearer " + benchKey}
	doc := filepath.Join(root, document)
	// Both petctl serve as loadcmp's does: in memory, the request log to a file.
	petctl, err := start(ctx, "petctl", bin, []string{"serve", "--api-key", benchKey, "--state", "none",
		"--spec", doc, "--fixtures", filepath.Join(root, "fixtures/petstore/pets.json")}, tmp)
	if err != nil {
		return nil, err
	}
	defer petctl.Stop(10 * time.Second)
	deleter, err := start(ctx, "petctl-delete", bin, []string{"serve", "--api-key", benchKey, "--state", "none",
		"--spec", doc, "--generate", strconv.Itoa(o.records)}, tmp)
	if err != nil {
		return nil, err
	}
	defer deleter.Stop(10 * time.Second)
	base, err := start(ctx, baselineName, baseBin, []string{"-key", benchKey, "-encoding", "marshal"}, tmp)
	if err != nil {
		return nil, err
	}
	defer base.Stop(10 * time.Second)

	var updates, patches, deletes atomic.Int64
	reset := func(ctx context.Context) error {
		deletes.Store(0)
		return post(ctx, "http://"+deleter.Addr+engine.AdminPrefix+"reset", auth)
	}
	var create harness.Scenario
	for _, sc := range harness.PetstoreScenarios() {
		if sc.Target == "create" {
			create = sc
		}
	}
	turns := []harness.Turn{
		{Name: createName, Server: harness.Server{Name: baselineName, Addr: base.Addr, Header: auth}, Scenario: create},
		{Name: "update", Server: harness.Server{Name: "petctl", Addr: petctl.Addr, Header: auth}, Scenario: harness.Scenario{
			Name: "PUT /v1/pets/1", Target: "update", Want: http.StatusOK, Req: load.Request{Method: "PUT", Path: "/v1/pets/1", Header: http.Header{"Content-Type": {"application/json"}},
				Body: []byte(`{"name":"Bench ` + load.SeqMark + `","categoryId":3,"status":"available"}`), Seq: &updates}}},
		{Name: "patch", Server: harness.Server{Name: "petctl", Addr: petctl.Addr, Header: auth}, Scenario: harness.Scenario{
			Name: "PATCH /v1/pets/2", Target: "patch", Want: http.StatusOK, Req: load.Request{Method: "PATCH", Path: "/v1/pets/2",
				Header: http.Header{"Content-Type": {"application/merge-patch+json"}},
				Body:   []byte(`{"name":"Patched ` + load.SeqMark + `"}`), Seq: &patches}}},
		{Name: "delete", Server: harness.Server{Name: "petctl-delete", Addr: deleter.Addr, Header: auth}, Scenario: harness.Scenario{
			Name: "DELETE /v1/pets/{seq}", Target: "delete", Want: http.StatusNoContent,
			Req: load.Request{Method: "DELETE", Path: "/v1/pets/" + load.SeqMark, Seq: &deletes}}, Before: reset},
	}
	fmt.Fprintf(out, "%d connections, %s runs after %s warm-up, %d rounds, turns rotating; deletes take from %d generated animals\n",
		o.cfg.Conns, o.cfg.Duration, o.cfg.Warmup, o.rounds, o.records)
	runs, err := harness.Alternate(ctx, o.cfg, o.rounds, turns, out)
	if err != nil {
		if n := deletes.Load(); n > int64(o.records) {
			err = fmt.Errorf("%w (a delete run went past the %d animals it had: raise -records)", err, o.records)
		}
		return nil, err
	}
	return report(out, o, turns, runs), nil
}

// report prints each turn's medians beside the baseline's create and
// returns the rows of the targets.
func report(out io.Writer, o *options, turns []harness.Turn, runs map[string]harness.Runs) *harness.Rows {
	brps, _, bp99 := runs[createName].Median()
	fmt.Fprintf(out, "\nmedians of %d rounds, %d connections; ratio = req/s over the baseline's create\n", o.rounds, o.cfg.Conns)
	t := &harness.Table{}
	t.Row("request", "server", "req/s", "p50", "p99", "vs baseline create")
	rows := &harness.Rows{}
	for _, tn := range turns {
		rps, p50, p99 := runs[tn.Name].Median()
		t.Row(tn.Scenario.Name, tn.Server.Name, fmt.Sprintf("%.0f", rps), load.FormatDuration(p50), load.FormatDuration(p99), harness.Ratio(rps, brps))
		if tn.Name == createName {
			continue
		}
		rows.Add(harness.Row{ID: tn.Scenario.Target + ".rps", Value: rps, Baseline: brps, BaselineName: "net/http, marshal: create", Runs: o.rounds,
			Note: fmt.Sprintf("`%s`; p99 %s, the baseline's create %s", tn.Scenario.Name, load.FormatDuration(p99), load.FormatDuration(bp99))})
	}
	t.Write(out)
	return rows
}

// start runs a server on a free address and waits for its first 200.
func start(ctx context.Context, name, bin string, args []string, tmp string) (*harness.Process, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, err
	}
	addrFlag := "--addr"
	if name == baselineName {
		addrFlag = "-addr"
	}
	p, err := harness.Start(name, bin, append(args, addrFlag, addr), nil, addr, filepath.Join(tmp, name+".log"))
	if err != nil {
		return nil, err
	}
	if _, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", http.Header{"Authorization": {"Bearer " + benchKey}}, 60*time.Second); err != nil {
		p.Stop(10 * time.Second)
		return nil, err
	}
	return p, nil
}

// post sends an empty POST and wants 200.
func post(ctx context.Context, url string, header map[string]string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d", url, resp.StatusCode)
	}
	return nil
}
