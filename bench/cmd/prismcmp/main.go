// Command prismcmp compares petctl with Prism's mock server (Stoplight
// Prism 5, from npm) on the same requests and the same document: it installs
// @stoplight/prism-cli into a cache directory when npm is present (and says
// so and exits 0 when it is not), runs `prism mock` on the document
// `petctl spec` prints, and measures GET /v1/pets?limit=20 and
// POST /v1/pets on both in alternating rounds.
//
//	go run ./bench/cmd/prismcmp [-rounds 3] [-duration 5s] [-conns 16]
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
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/bench/load"
)

const (
	benchKey = "bench-key-0123456789"
	// prismPackage is the major version the figures are for.
	prismPackage = "@stoplight/prism-cli@5"
	target       = 10.0 // petctl's req/s over Prism's
)

type options struct {
	rounds    int
	cfg       load.Config
	cache     string
	petctlBin string
	strict    bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := &options{}
	fl := flag.NewFlagSet("prismcmp", flag.ContinueOnError)
	fl.IntVar(&o.rounds, "rounds", 3, "rounds per request; each server runs once per round")
	fl.DurationVar(&o.cfg.Duration, "duration", 5*time.Second, "measured time of one run")
	fl.DurationVar(&o.cfg.Warmup, "warmup", time.Second, "unmeasured time before each run")
	fl.IntVar(&o.cfg.Conns, "conns", 16, "concurrent keep-alive connections")
	fl.StringVar(&o.cache, "cache", "", "where Prism is installed (default: the user cache directory, petctl-bench/prism)")
	fl.StringVar(&o.petctlBin, "petctl", "", "petctl binary (default: build ./cmd/petctl)")
	fl.BoolVar(&o.strict, "strict", false, "exit 1 when the target is missed")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if o.rounds < 1 || o.cfg.Conns < 1 || o.cfg.Duration <= 0 {
		fmt.Fprintln(os.Stderr, "prismcmp: -rounds, -conns and -duration must be positive")
		os.Exit(2)
	}
	missed, err := compare(ctx, o, os.Stdout)
	if errors.Is(err, errSkipped) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prismcmp:", err)
		os.Exit(1)
	}
	if missed > 0 && o.strict {
		os.Exit(1)
	}
}

var errSkipped = errors.New("skipped")

// installPrism returns the prism executable, installing it into dir with
// npm when it is not there yet.
func installPrism(ctx context.Context, dir string, out io.Writer) (string, error) {
	bin := filepath.Join(dir, "node_modules", ".bin", "prism")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		fmt.Fprintln(out, "prismcmp: npm is not installed; the Prism comparison is skipped")
		return "", errSkipped
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmt.Fprintf(out, "installing %s into %s…\n", prismPackage, dir)
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel", "error", prismPackage)
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s: %w", prismPackage, err)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("npm installed %s but %s is missing", prismPackage, bin)
	}
	return bin, nil
}

func compare(ctx context.Context, o *options, out io.Writer) (missed int, err error) {
	cache := o.cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		cache = filepath.Join(dir, "petctl-bench", "prism")
	}
	prism, err := installPrism(ctx, cache, out)
	if err != nil {
		return 0, err
	}
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "petctl-prism-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bin := o.petctlBin
	if bin == "" {
		fmt.Fprintln(out, "building petctl…")
		if bin, err = harness.Build(ctx, root, tmp, "./cmd/petctl", "petctl"); err != nil {
			return 0, err
		}
	}
	// The document Prism mocks is the one petctl serves.
	doc, err := exec.CommandContext(ctx, bin, "spec").Output()
	if err != nil {
		return 0, fmt.Errorf("petctl spec: %w", err)
	}
	docPath := filepath.Join(tmp, "petstore.yaml")
	if err := os.WriteFile(docPath, doc, 0o644); err != nil {
		return 0, err
	}
	auth := map[string]string{"Authorization": "Bearer " + benchKey}
	h := http.Header{"Authorization": {"Bearer " + benchKey}}

	paddr, err := harness.FreeAddr()
	if err != nil {
		return 0, err
	}
	p, err := harness.Start("petctl", bin, []string{"serve", "--addr", paddr, "--api-key", benchKey, "--state", "none"}, nil, paddr, filepath.Join(tmp, "petctl.log"))
	if err != nil {
		return 0, err
	}
	defer p.Stop(10 * time.Second)
	if _, err := p.WaitReady(ctx, "http://"+paddr+"/v1/pets?limit=1", h, 10*time.Second); err != nil {
		return 0, err
	}
	maddr, err := harness.FreeAddr()
	if err != nil {
		return 0, err
	}
	_, port, _ := net.SplitHostPort(maddr)
	m, err := harness.Start("prism", prism, []string{"mock", "-h", "127.0.0.1", "-p", port, docPath}, nil, maddr, filepath.Join(tmp, "prism.log"))
	if err != nil {
		return 0, err
	}
	defer m.Stop(10 * time.Second)
	// Prism serves the paths without the servers' base path.
	ready, err := m.WaitReady(ctx, "http://"+maddr+"/pets?limit=1", h, 60*time.Second)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "prism ready in %s\n", ready.Round(time.Millisecond))
	servers := []harness.Server{
		{Name: "petctl", Addr: paddr, Header: auth},
		{Name: "prism", Addr: maddr, Header: auth, StripPrefix: "/v1"},
	}
	scenarios := []harness.Scenario{
		{Name: "GET /v1/pets?limit=20", Req: load.Request{Method: "GET", Path: "/v1/pets?limit=20"}, Want: 200},
		{Name: "POST /v1/pets", Req: load.Request{Method: "POST", Path: "/v1/pets",
			Header: http.Header{"Content-Type": {"application/json"}},
			Body:   []byte(`{"name":"Bench","categoryId":3,"status":"available"}`)}, Want: 201},
	}
	fmt.Fprintf(out, "%d connections, %s runs after %s warm-up, %d rounds, servers alternating\n",
		o.cfg.Conns, o.cfg.Duration, o.cfg.Warmup, o.rounds)
	results, err := harness.Compare(ctx, o.cfg, o.rounds, scenarios, servers, out)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "\nmedians of %d rounds, %d connections\n", o.rounds, o.cfg.Conns)
	t := &harness.Table{}
	t.Row("request", "server", "req/s", "p50", "p99", "petctl/prism", "target")
	for _, sc := range scenarios {
		prps, pp50, pp99 := results[sc.Name]["petctl"].Median()
		mrps, mp50, mp99 := results[sc.Name]["prism"].Median()
		ok := prps >= target*mrps
		if !ok {
			missed++
		}
		t.Row(sc.Name, "petctl", fmt.Sprintf("%.0f", prps), load.FormatDuration(pp50), load.FormatDuration(pp99),
			fmt.Sprintf("%.1f×", prps/mrps), fmt.Sprintf("≥ %.0f× %s", target, harness.Verdict(ok)))
		t.Row(sc.Name, "prism", fmt.Sprintf("%.0f", mrps), load.FormatDuration(mp50), load.FormatDuration(mp99), "", "")
	}
	t.Write(out)
	return missed, nil
}
