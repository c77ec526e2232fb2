// Command mockcmp compares petctl with the mock servers a user would pick
// instead, on the same requests and the same document: Stoplight Prism 5
// and Mockoon's CLI, both from npm. It installs each into a cache directory
// outside the repository when npm is present (and says why a tool is
// skipped when it is not, or its install fails), runs each on the document
// `petctl spec` prints, and measures GET /v1/pets?limit=20 and
// POST /v1/pets on every server in alternating rounds.
//
//	go run ./bench/cmd/mockcmp [-rounds 3] [-duration 5s] [-conns 16] [-tools prism,mockoon] [-rows FILE]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const benchKey = "bench-key-0123456789"

// tool is another mock server, as npm installs it.
type tool struct {
	name    string
	pkg     string // what npm installs: the major version the figures are for
	bin     string // the executable in node_modules/.bin
	display string // the baseline's name in the table
	// args starts it on doc at 127.0.0.1:port.
	args func(doc, port string) []string
	// stripPrefix is taken off request paths: Prism serves /pets for /v1/pets.
	stripPrefix string
}

var tools = []tool{
	{name: "prism", pkg: "@stoplight/prism-cli@5", bin: "prism", display: "Prism 5", stripPrefix: "/v1",
		args: func(doc, port string) []string { return []string{"mock", "-h", "127.0.0.1", "-p", port, doc} }},
	// Mockoon imports the OpenAPI document (routes under the servers' /v1)
	// and keeps its default logging to stdout, as a user would run it; -X
	// only stops it writing a second copy to a file in the home directory.
	{name: "mockoon", pkg: "@mockoon/cli@9", bin: "mockoon-cli", display: "Mockoon 9",
		args: func(doc, port string) []string {
			return []string{"start", "--data", doc, "--hostname", "127.0.0.1", "--port", port, "-X"}
		}},
}

type options struct {
	rounds    int
	cfg       load.Config
	cache     string
	petctlBin string
	tools     []tool
	rows      string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &options{}
	fl := flag.NewFlagSet("mockcmp", flag.ContinueOnError)
	fl.IntVar(&o.rounds, "rounds", 3, "rounds per request; each server runs once per round")
	fl.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "measured time of one run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent keep-alive connections")
	fl.StringVar(&o.cache, "cache", "", "where the tools are installed, one folder each (default: the user cache directory, petctl-bench)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary (default: build ./cmd/petctl)")
	fl.StringVar(&o.rows, "rows", "", "write the targets' rows as JSON to this file (for benchall)")
	names := fl.String("tools", "prism,mockoon", "the other mock servers to compare, comma-separated")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if o.rounds < 1 || o.cfg.Conns < 1 || o.cfg.Duration <= 0 {
		fmt.Fprintln(os.Stderr, "mockcmp: -rounds, -conns and -duration must be positive")
		os.Exit(2)
	}
	for _, n := range strings.Split(*names, ",") {
		i := slices.IndexFunc(tools, func(t tool) bool { return t.name == n })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "mockcmp: -tools: %q is not prism or mockoon\n", n)
			os.Exit(2)
		}
		o.tools = append(o.tools, tools[i])
	}
	rows := &harness.Rows{}
	err := compare(ctx, o, rows, os.Stdout)
	if err == nil {
		err = rows.Write(o.rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mockcmp:", err)
		os.Exit(1)
	}
}

// skipped is an error that says why a tool is not compared; the run goes
// on without it.
type skipped struct{ why string }

func (s skipped) Error() string { return s.why }

// install returns t's executable, installing it into dir with npm when it
// is not there yet.
func install(ctx context.Context, t tool, dir string, out io.Writer) (string, error) {
	bin := filepath.Join(dir, "node_modules", ".bin", t.bin)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", skipped{"npm is not installed"}
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", skipped{"node is not installed"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "installing %s into %s…\n", t.pkg, dir)
	ictx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ictx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel", "error", t.pkg)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		return "", skipped{fmt.Sprintf("npm install %s failed (%v)", t.pkg, err)}
	}
	if _, err := os.Stat(bin); err != nil {
		return "", skipped{fmt.Sprintf("npm installed %s but %s is missing", t.pkg, bin)}
	}
	return bin, nil
}

func compare(ctx context.Context, o *options, rows *harness.Rows, out io.Writer) error {
	scenarios := harness.PetstoreScenarios()
	skip := func(t tool, why string) {
		fmt.Fprintf(out, "mockcmp: %s is skipped: %s\n", t.display, why)
		for _, sc := range scenarios {
			rows.Skip(t.name+"."+sc.Target+".rps", why)
			rows.Skip(t.name+"."+sc.Target+".p99", why)
		}
	}
	cache := o.cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cache = filepath.Join(dir, "petctl-bench")
	}
	tmp, err := os.MkdirTemp("", "petctl-mockcmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := harness.Petctl(ctx, o.petctlBin, tmp, out)
	if err != nil {
		return err
	}
	// The document the others mock is the one petctl serves.
	doc, err := exec.CommandContext(ctx, bin, "spec").Output()
	if err != nil {
		return fmt.Errorf("petctl spec: %w", err)
	}
	docPath := filepath.Join(tmp, "petstore.yaml")
	if err := os.WriteFile(docPath, doc, 0o644); err != nil {
		return err
	}
	auth := map[string]string{"Authorization": "Bearer " + benchKey}
	h := http.Header{"Authorization": {"Bearer " + benchKey}}

	paddr, err := harness.FreeAddr()
	if err != nil {
		return err
	}
	p, err := harness.Start("petctl", bin, []string{"serve", "--addr", paddr, "--api-key", benchKey, "--state", "none"}, nil, paddr, filepath.Join(tmp, "petctl.log"))
	if err != nil {
		return err
	}
	defer p.Stop(10 * time.Second)
	if _, err := p.WaitReady(ctx, "http://"+paddr+"/v1/pets?limit=1", h, 10*time.Second); err != nil {
		return err
	}
	servers := []harness.Server{{Name: "petctl", Addr: paddr, Header: auth}}
	var compared []tool
	for _, t := range o.tools {
		exe, err := install(ctx, t, filepath.Join(cache, t.name), out)
		var s skipped
		if errors.As(err, &s) {
			skip(t, s.why)
			continue
		}
		if err != nil {
			return err
		}
		addr, err := harness.FreeAddr()
		if err != nil {
			return err
		}
		_, port, _ := net.SplitHostPort(addr)
		m, err := harness.Start(t.name, exe, t.args(docPath, port), nil, addr, filepath.Join(tmp, t.name+".log"))
		if err != nil {
			return err
		}
		defer m.Stop(10 * time.Second)
		ready, err := m.WaitReady(ctx, "http://"+addr+strings.TrimPrefix("/v1/pets?limit=1", t.stripPrefix), h, 60*time.Second)
		if err != nil {
			skip(t, harness.FirstLine(err.Error()))
			continue
		}
		fmt.Fprintf(out, "%s ready in %s\n", t.display, ready.Round(time.Millisecond))
		servers = append(servers, harness.Server{Name: t.name, Addr: addr, Header: auth, StripPrefix: t.stripPrefix})
		compared = append(compared, t)
	}
	if len(compared) == 0 {
		return nil
	}
	fmt.Fprintf(out, "%d connections, %s runs after %s warm-up, %d rounds, servers alternating\n",
		o.cfg.Conns, o.cfg.Duration, o.cfg.Warmup, o.rounds)
	results, err := harness.Compare(ctx, o.cfg, o.rounds, scenarios, servers, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nmedians of %d rounds, %d connections\n", o.rounds, o.cfg.Conns)
	tb := &harness.Table{}
	tb.Row("request", "server", "req/s", "p50", "p99", "petctl/server req/s")
	for _, sc := range scenarios {
		prps, _, pp99 := results[sc.Name]["petctl"].Median()
		for _, srv := range servers {
			rps, p50, p99 := results[sc.Name][srv.Name].Median()
			tb.Row(sc.Name, srv.Name, fmt.Sprintf("%.0f", rps), load.FormatDuration(p50), load.FormatDuration(p99), fmt.Sprintf("%.1f×", prps/rps))
		}
		for _, t := range compared {
			rps, _, p99 := results[sc.Name][t.name].Median()
			note := ""
			if sc.Target == "list" {
				note = "it answers one example animal where petctl answers 20 stored ones"
			}
			rows.Add(harness.Row{ID: t.name + "." + sc.Target + ".rps", Value: prps, Baseline: rps, BaselineName: t.display, Runs: o.rounds, Note: note})
			rows.Add(harness.Row{ID: t.name + "." + sc.Target + ".p99", Value: pp99.Seconds(), Baseline: p99.Seconds(), BaselineName: t.display, Runs: o.rounds})
		}
	}
	tb.Write(out)
	fmt.Fprintln(out)
	rows.Report(out)
	return nil
}
