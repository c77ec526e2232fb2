// Command corpuscmp measures per-request throughput on the largest
// documents of the shared corpus beside the Petstore's: the largest
// single-file document (by bytes) and the multi-file one read from the
// most files, each served by its own petctl. For each it picks a
// collection it can list and create in (its parents created first), fills
// it with as many items as the Petstore's fixtures, and then a page of it
// and a create in it take turns with the Petstore's list and create,
// round after round, the order rotating; the medians are compared. The
// notes give each document's start-up to its first answer and its peak
// resident memory after the load (the start-up targets are `startup`'s).
// Without a corpus folder its targets are skipped, saying so.
//
//	go run ./bench/cmd/corpuscmp [-rounds 3] [-duration 3s] [-conns 16] [-corpus DIR] [-single NAME] [-multi NAME] [-rows FILE]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/corpusload"
	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

const benchKey = "bench-key-0123456789"

type options struct {
	rounds        int
	cfg           load.Config
	corpus        string
	single, multi string
	petctlBin     string
	rows          string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, out, errOut io.Writer) int {
	o := &options{}
	fl := flag.NewFlagSet("corpuscmp", flag.ContinueOnError)
	fl.SetOutput(errOut)
	fl.IntVar(&o.rounds, "rounds", 3, "rounds; each request takes one turn per round (median)")
	fl.DurationVar(&o.cfg.Duration, "duration", 3*time.Second, "measured time of one run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent keep-alive connections")
	fl.StringVar(&o.corpus, "corpus", "", "folder of OpenAPI documents (default: $PETCTL_CORPUS, else shared/corpus beside the module or above it)")
	fl.StringVar(&o.single, "single", "", "the single-file document to measure, by name (default: the largest)")
	fl.StringVar(&o.multi, "multi", "", "the multi-file document to measure, by name (default: the one read from the most files)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary to measure (default: build ./cmd/petctl)")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if o.rounds < 1 || o.cfg.Conns < 1 || o.cfg.Duration <= 0 || o.cfg.Warmup < 0 {
		fmt.Fprintln(errOut, "corpuscmp: -rounds, -conns and -duration must be positive, -warmup not negative")
		return 2
	}
	rows := &harness.Rows{}
	err := compare(ctx, o, rows, out)
	if err == nil {
		fmt.Fprintln(out)
		rows.Report(out)
		err = rows.Write(o.rows)
	}
	if err != nil {
		fmt.Fprintln(errOut, "corpuscmp:", err)
		return 1
	}
	return 0
}

// subject is one corpus document measured: which of the targets it
// answers ("single", "multi"), and, once served, its server and workload.
type subject struct {
	kind  string
	doc   harness.CorpusDoc
	proc  *harness.Process
	ready time.Duration
	work  *corpusload.Workload
	// list and create are the names of its turns.
	list, create string
}

func (sb *subject) skip(rows *harness.Rows, why string) {
	rows.Skip("corpus."+sb.kind+".list.rps", why)
	rows.Skip("corpus."+sb.kind+".create.rps", why)
}

func compare(ctx context.Context, o *options, rows *harness.Rows, out io.Writer) error {
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	subjects := []*subject{{kind: "single"}, {kind: "multi"}}
	corpus := o.corpus
	if corpus == "" {
		corpus = harness.CorpusDir(root)
	}
	if corpus == "" {
		for _, sb := range subjects {
			sb.skip(rows, "no corpus: no shared/corpus beside the module or above it, and no PETCTL_CORPUS or -corpus")
		}
		return nil
	}
	docs, err := harness.ListCorpus(corpus)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := pick(subjects, docs, o); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "petctl-corpuscmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return err
	}
	auth := map[string]string{"Authorization": "Bearer " + benchKey}
	// The Petstore is served as loadcmp serves it: in memory, the request
	// log to a file; so is every corpus document.
	pet, _, err := start(ctx, "petstore", bin, nil, tmp, "/v1/pets?limit=1", http.Header{"Authorization": {"Bearer " + benchKey}})
	if err != nil {
		return err
	}
	defer pet.Stop(10 * time.Second)
	var turns []harness.Turn
	for _, sc := range harness.PetstoreScenarios() {
		turns = append(turns, harness.Turn{Name: "petstore " + sc.Target, Server: harness.Server{Name: "petstore", Addr: pet.Addr, Header: auth}, Scenario: sc})
	}
	petPage, err := fetchSize(ctx, "http://"+pet.Addr+"/v1/pets?limit=20", auth)
	if err != nil {
		return err
	}
	var measured []*subject
	for _, sb := range subjects {
		if sb.doc.Path == "" {
			continue
		}
		if err := sb.serve(ctx, bin, tmp, out); err != nil {
			fmt.Fprintf(out, "%s (%s): not measured: %v\n", sb.doc.Name, sb.kind, err)
			sb.skip(rows, harness.FirstLine(err.Error()))
			continue
		}
		defer sb.proc.Stop(10 * time.Second)
		turns = append(turns, sb.turns()...)
		measured = append(measured, sb)
	}
	if len(measured) == 0 {
		return nil
	}
	fmt.Fprintf(out, "%d connections, %s runs after %s warm-up, %d rounds, turns rotating\n", o.cfg.Conns, o.cfg.Duration, o.cfg.Warmup, o.rounds)
	runs, err := harness.Alternate(ctx, o.cfg, o.rounds, turns, out)
	if err != nil {
		return err
	}
	petList, _, _ := runs["petstore list"].Median()
	petCreate, _, _ := runs["petstore create"].Median()
	t := &harness.Table{}
	t.Row("document", "request", "req/s", "p99", "vs the Petstore's")
	t.Row("petstore", "GET /v1/pets?limit=20", fmt.Sprintf("%.0f", petList), "", "")
	t.Row("petstore", "POST /v1/pets", fmt.Sprintf("%.0f", petCreate), "", "")
	for _, sb := range measured {
		m, err := harness.ReadMemory(sb.proc.Pid())
		if err != nil {
			return err
		}
		w := sb.work
		started := fmt.Sprintf("%s (%s, %s): started in %s (exec to first answer), peak RSS %s after the load",
			sb.doc.Name, files(sb.doc.Files), harness.MB(sb.doc.Size), sb.ready.Round(time.Millisecond), harness.MB(m.HWM))
		list, _, lp99 := runs[sb.list].Median()
		create, _, cp99 := runs[sb.create].Median()
		t.Row(sb.doc.Name, w.ShownList(), fmt.Sprintf("%.0f", list), load.FormatDuration(lp99), harness.Ratio(list, petList))
		t.Row(sb.doc.Name, w.ShownCreate(), fmt.Sprintf("%.0f", create), load.FormatDuration(cp99), harness.Ratio(create, petCreate))
		rows.Add(harness.Row{ID: "corpus." + sb.kind + ".list.rps", Value: list, Baseline: petList, BaselineName: "the Petstore's `GET /v1/pets?limit=20`", Runs: o.rounds,
			Note: fmt.Sprintf("`%s`, %d items in %d bytes (the Petstore's page: 20 in %d); %s", w.ShownList(), w.Items, w.ListBytes, petPage, started)})
		rows.Add(harness.Row{ID: "corpus." + sb.kind + ".create.rps", Value: create, Baseline: petCreate, BaselineName: "the Petstore's `POST /v1/pets`", Runs: o.rounds,
			Note: fmt.Sprintf("`%s`, a body of %d bytes", w.ShownCreate(), w.CreateBytes)})
	}
	fmt.Fprintf(out, "\nmedians of %d rounds, %d connections\n", o.rounds, o.cfg.Conns)
	t.Write(out)
	return nil
}

// pick gives each subject its document: the one named, else the largest
// of its kind.
func pick(subjects []*subject, docs []harness.CorpusDoc, o *options) error {
	single, multi, _, _ := harness.Largest(docs)
	for _, sb := range subjects {
		name, folder, largest := o.single, false, single
		if sb.kind == "multi" {
			name, folder, largest = o.multi, true, multi
		}
		if name == "" {
			sb.doc = largest
			continue
		}
		for _, d := range docs {
			if d.Name == name && d.Folder == folder {
				sb.doc = d
			}
		}
		if sb.doc.Path == "" {
			return fmt.Errorf("-%s %s: no such %s document in the corpus", sb.kind, name, sb.kind+"-file")
		}
	}
	return nil
}

// serve starts petctl on the subject's document and finds a collection to
// measure: the first of the candidates whose creates and list answer as
// the document says.
func (sb *subject) serve(ctx context.Context, bin, tmp string, out io.Writer) error {
	s, err := spec.Load(sb.doc.Path)
	if err != nil {
		return fmt.Errorf("petctl cannot read it: %w", err)
	}
	sb.proc, sb.ready, err = start(ctx, sb.doc.Name, bin, []string{"--spec", sb.doc.Path}, tmp, engine.AdminPrefix+"health", nil)
	if err != nil {
		return err
	}
	var tried []string
	for _, r := range corpusload.Candidates(s) {
		w, err := corpusload.Plan(s, r, benchKey)
		if err == nil {
			err = w.Prepare(ctx, sb.proc.Addr)
		}
		if err != nil {
			tried = append(tried, r.Key+": "+harness.FirstLine(err.Error()))
			continue
		}
		sb.work = w
		for _, why := range tried {
			fmt.Fprintf(out, "%s: passed over %s\n", sb.doc.Name, why)
		}
		fmt.Fprintf(out, "%s (%s): measuring %s (%d items listed) and %s\n", sb.doc.Name, sb.kind, w.ShownList(), w.Items, w.ShownCreate())
		return nil
	}
	sb.proc.Stop(10 * time.Second)
	if len(tried) == 0 {
		return errors.New("no collection with a list and a create")
	}
	return fmt.Errorf("no collection could be listed and created in: %s", strings.Join(tried, "; "))
}

// turns are the subject's list and create.
func (sb *subject) turns() []harness.Turn {
	var seq atomic.Int64
	seq.Store(corpusload.Stored) // the stored items took the first numbers
	list, create := sb.work.Requests(&seq)
	srv := harness.Server{Name: sb.doc.Name}
	srv.Addr = sb.proc.Addr
	sb.list, sb.create = sb.doc.Name+" list", sb.doc.Name+" create"
	return []harness.Turn{
		{Name: sb.list, Server: srv, Scenario: harness.Scenario{Name: sb.work.ShownList(), Want: http.StatusOK, Req: list}},
		{Name: sb.create, Server: srv, Scenario: harness.Scenario{Name: sb.work.ShownCreate(), Want: sb.work.CreateStatus, Req: create}},
	}
}

// start runs petctl serve with extra flags and waits for a 200 at path.
func start(ctx context.Context, name, bin string, extra []string, tmp, path string, header http.Header) (*harness.Process, time.Duration, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, 0, err
	}
	args := append([]string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}, extra...)
	p, err := harness.Start(name, bin, args, nil, addr, filepath.Join(tmp, name+".log"))
	if err != nil {
		return nil, 0, err
	}
	ready, err := p.WaitReady(ctx, "http://"+addr+path, header, 60*time.Second)
	if err != nil {
		p.Stop(10 * time.Second)
		return nil, 0, err
	}
	return p, ready, nil
}

// fetchSize is the size of the body GET url answers.
func fetchSize(ctx context.Context, url string, header map[string]string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	return int(n), err
}

func files(n int) string {
	if n == 1 {
		return "one file"
	}
	return fmt.Sprintf("%d files", n)
}
