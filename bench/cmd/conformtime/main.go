// Command conformtime measures what CI pays for a full `petctl conform`:
// it builds petctl, starts `petctl serve` on a free loopback port and times
// `petctl conform` against it, from exec to exit, -rounds times one after
// the other. Every run must exit 0 (every check passed); the median is
// compared with the target (harness.Targets, conform.time).
//
//	go run ./bench/cmd/conformtime [-rounds 7] [-rows FILE]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
)

const benchKey = "bench-key-0123456789"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fl := flag.NewFlagSet("conformtime", flag.ContinueOnError)
	rounds := fl.Int("rounds", 7, "conform runs to time (median)")
	bin := fl.String("petctl", "", "petctl binary (default: build ./cmd/petctl)")
	strict := fl.Bool("strict", false, "exit 1 when the target is missed")
	rowsPath := fl.String("rows", "", "write the target's row as JSON to this file (for benchall)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *rounds < 1 {
		fmt.Fprintln(os.Stderr, "conformtime: -rounds must be positive")
		os.Exit(2)
	}
	rows := &harness.Rows{}
	missed := 0
	med, err := measure(ctx, *bin, *rounds, os.Stdout)
	if err == nil {
		rows.Add(harness.Row{ID: "conform.time", Value: med.Seconds(), Runs: *rounds})
		fmt.Println()
		missed = rows.Report(os.Stdout)
		err = rows.Write(*rowsPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformtime:", err)
		os.Exit(1)
	}
	if missed > 0 && *strict {
		os.Exit(1)
	}
}

func measure(ctx context.Context, bin string, rounds int, out io.Writer) (time.Duration, error) {
	tmp, err := os.MkdirTemp("", "petctl-conformtime-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	if bin, err = harness.Petctl(ctx, bin, tmp, out); err != nil {
		return 0, err
	}
	addr, err := harness.FreeAddr()
	if err != nil {
		return 0, err
	}
	p, err := harness.Start("petctl serve", bin, []string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}, nil, addr, filepath.Join(tmp, "serve.log"))
	if err != nil {
		return 0, err
	}
	defer p.Stop(10 * time.Second)
	h := http.Header{"Authorization": {"Bearer " + benchKey}}
	if _, err := p.WaitReady(ctx, "http://"+addr+"/v1/pets?limit=1", h, 10*time.Second); err != nil {
		return 0, err
	}

	var runs []time.Duration
	for i := 0; i < rounds; i++ {
		cmd := exec.CommandContext(ctx, bin, "conform", "--url", "http://"+addr+"/v1")
		// The key goes through the environment, as a pipeline would pass it.
		cmd.Env = append(os.Environ(), "PETCTL_API_KEY="+benchKey, "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		began := time.Now()
		err := cmd.Run()
		took := time.Since(began)
		if err != nil {
			return 0, fmt.Errorf("conform run %d: %v\n%s%s", i+1, err, stdout.String(), stderr.String())
		}
		runs = append(runs, took)
		fmt.Fprintf(out, "  run %d: %s  %s\n", i+1, ms(took), summary(stdout.String()))
	}
	return harness.MedianDuration(runs), nil
}

// summary is conform's verdict line ("PASS 56 checks: ...").
func summary(report string) string {
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "PASS ") || strings.HasPrefix(line, "FAIL ") {
			return line
		}
	}
	return "(no verdict line)"
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
