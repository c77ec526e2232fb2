package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/petctl/petctl/bench/harness"
)

// producer is one comparison: a command under bench/cmd that writes the
// rows of the targets whose Producer is its name.
type producer struct {
	name string
	// pkg is the command's package; empty for a producer benchall runs
	// itself (measure).
	pkg string
	// args are its arguments for the table (medians of alternating
	// rounds, a few seconds a round); shortArgs for -short.
	args, shortArgs []string
	// measure is a producer benchall runs in its own process; howto is
	// its command for a person.
	measure func(ctx context.Context, root string, short bool, out io.Writer) ([]harness.Row, error)
	howto   string
	// missing says which work brings the command, for a package that does
	// not exist yet.
	missing string
}

// producers run in this order; a target's row comes from the producer its
// Producer names.
var producers = []producer{
	{name: "loadcmp", pkg: "./bench/cmd/loadcmp",
		args:      []string{"-rounds", "5", "-duration", "3s", "-baselines", "marshal"},
		shortArgs: []string{"-rounds", "1", "-duration", "1s", "-warmup", "200ms", "-baselines", "marshal"}},
	{name: "crudcmp", pkg: "./bench/cmd/crudcmp",
		args:      []string{"-rounds", "5", "-duration", "3s"},
		shortArgs: []string{"-rounds", "1", "-duration", "1s", "-warmup", "200ms"}},
	{name: "million", pkg: "./bench/cmd/million",
		args:      []string{"-starts", "3", "-rounds", "3", "-duration", "3s"},
		shortArgs: []string{"-n", "100000", "-starts", "1", "-rounds", "1", "-duration", "1s", "-warmup", "200ms"}},
	{name: "startup", pkg: "./bench/cmd/startup",
		args:      []string{"-starts", "3", "adyen-balance-platform-configuration", "lago", "eclipse-ditto"},
		shortArgs: []string{"-starts", "1", "adyen-balance-platform-configuration", "lago", "eclipse-ditto"}},
	{name: "corpuscmp", pkg: "./bench/cmd/corpuscmp",
		args:      []string{"-rounds", "3", "-duration", "3s"},
		shortArgs: []string{"-rounds", "1", "-duration", "1s", "-warmup", "200ms"}},
	{name: "storecmp", pkg: "./bench/cmd/storecmp",
		args:      []string{"-rounds", "3", "-duration", "3s"},
		shortArgs: []string{"-rounds", "1", "-duration", "1s", "-n", "100000", "-starts", "1"}},
	{name: "mockcmp", pkg: "./bench/cmd/mockcmp",
		args:      []string{"-rounds", "3", "-duration", "3s"},
		shortArgs: []string{"-rounds", "1", "-duration", "1s", "-warmup", "200ms"}},
	{name: "conformtime", pkg: "./bench/cmd/conformtime",
		args:      []string{"-rounds", "7"},
		shortArgs: []string{"-rounds", "1"}},
	{name: "maketest", measure: makeTest, howto: "make test (timed after the test binaries are built)"},
}

// result is what one producer gave: its rows, or why it gave none.
type result struct {
	producer   producer
	rows       []harness.Row
	reason     string // why the producer's targets are not measured
	command    string
	loadBefore string
	loadAfter  string
	took       time.Duration
}

func (p producer) run(ctx context.Context, root, tmp, petctl string, short bool, out io.Writer) (r result) {
	r = result{producer: p, loadBefore: loadAverage(), command: p.command(short)}
	began := time.Now()
	defer func() { r.took, r.loadAfter = time.Since(began), loadAverage() }()
	args := p.args
	if short {
		args = p.shortArgs
	}
	if p.measure != nil {
		rows, err := p.measure(ctx, root, short, out)
		if err != nil {
			r.reason = err.Error()
		}
		r.rows = rows
		return r
	}
	if _, err := os.Stat(filepath.Join(root, p.pkg)); err != nil {
		r.reason = fmt.Sprintf("%s does not exist yet: %s", strings.TrimPrefix(p.pkg, "./"), p.missing)
		return r
	}
	exe, err := harness.Build(ctx, root, tmp, p.pkg, p.name)
	if err != nil {
		r.reason = harness.FirstLine(err.Error())
		return r
	}
	rowsPath := filepath.Join(tmp, p.name+".rows.json")
	cmd := exec.CommandContext(ctx, exe, append([]string{"-petctl", petctl, "-rows", rowsPath}, args...)...)
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = out, io.MultiWriter(out, &stderr)
	if err := cmd.Run(); err != nil {
		why := harness.FirstLine(lastLine(stderr.String()))
		if why == "" {
			why = err.Error()
		}
		r.reason = fmt.Sprintf("%s failed: %s", p.name, why)
		return r
	}
	rows, err := harness.ReadRows(rowsPath)
	if err != nil {
		r.reason = fmt.Sprintf("%s wrote no rows (%v)", p.name, err)
		return r
	}
	r.rows = rows
	return r
}

// command is how to run the producer by hand.
func (p producer) command(short bool) string {
	if p.measure != nil {
		return p.howto
	}
	args := p.args
	if short {
		args = p.shortArgs
	}
	return strings.TrimSpace("go run " + p.pkg + " " + strings.Join(args, " "))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// makeTest times `make test` (every test with the race detector, and the
// Makefile's NORACE_TESTS without it) after a build of the test binaries
// both ways, so the time is a warm cache's, as a developer runs it again.
func makeTest(ctx context.Context, root string, short bool, out io.Writer) ([]harness.Row, error) {
	if short {
		return nil, fmt.Errorf("not run with -short")
	}
	if _, err := exec.LookPath("make"); err != nil {
		return nil, fmt.Errorf("make is not installed")
	}
	for _, race := range []string{"-race=true", "-race=false"} {
		warm := exec.CommandContext(ctx, "go", "test", race, "-count=1", "-run", "^$", "./...")
		warm.Dir, warm.Stdout, warm.Stderr = root, io.Discard, out
		if err := warm.Run(); err != nil {
			return nil, fmt.Errorf("building the tests (%s): %v", race, err)
		}
	}
	cmd := exec.CommandContext(ctx, "make", "test")
	cmd.Dir = root
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	fmt.Fprint(out, log.String())
	if err != nil {
		return nil, fmt.Errorf("make test failed after %s", took.Round(time.Second))
	}
	return []harness.Row{{ID: "test.time", Value: took.Seconds(), Runs: 1}}, nil
}
