// Command startup measures petctl's start-up against the size of the
// document it serves: for the embedded Petstore and each document of a
// corpus of public OpenAPI documents (a file, or a folder whose entry is
// openapi.yaml), it runs `petctl serve` -starts times and reports the
// medians of the time from exec to the first answer (GET /__petctl/health)
// and of the process's peak resident memory (VmHWM), then, in this
// process, the medians of the two parts of start-up: reading the document
// (spec.Load) and preparing the server (engine.New). A document petctl
// refuses is listed with the first line of the reason.
//
//	go run ./bench/cmd/startup [-corpus ../shared/corpus] [-starts 5] [-rows FILE] [NAME...]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/petctl/petctl/bench/harness"
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
)

const benchKey = "bench-key-0123456789"

// document is one document to start: path "" is the embedded Petstore.
type document struct {
	name, path string
	size       int64 // bytes, every file of a folder counted
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fl := flag.NewFlagSet("startup", flag.ContinueOnError)
	corpus := fl.String("corpus", "", "folder of OpenAPI documents (default: $PETCTL_CORPUS, else ../shared/corpus beside the module)")
	starts := fl.Int("starts", 5, "start-ups per document (medians)")
	bin := fl.String("petctl", "", "petctl binary (default: build ./cmd/petctl)")
	rowsPath := fl.String("rows", "", "write the targets' rows (the largest corpus documents) as JSON to this file (for benchall)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *starts < 1 {
		fmt.Fprintln(os.Stderr, "startup: -starts must be positive")
		os.Exit(2)
	}
	rows := &harness.Rows{}
	err := measure(ctx, *corpus, *bin, *starts, fl.Args(), rows, os.Stdout)
	if err == nil {
		err = rows.Write(*rowsPath)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

// targeted are the corpus documents the start-up targets name, by
// the prefix of their targets' IDs.
var targeted = map[string]string{
	"adyen-balance-platform-configuration": "corpus.adyen",
	"lago":                                 "corpus.lago",
	"eclipse-ditto":                        "corpus.ditto",
}

func measure(ctx context.Context, corpus, bin string, starts int, names []string, rows *harness.Rows, out io.Writer) error {
	root, err := harness.ModuleRoot(ctx)
	if err != nil {
		return err
	}
	if corpus == "" {
		corpus = harness.CorpusDir(root)
	}
	if corpus == "" {
		return errors.New("no shared/corpus beside the module or above it: give -corpus, or set PETCTL_CORPUS")
	}
	docs, err := documents(corpus, names)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "petctl-startup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin, err = harness.Petctl(ctx, bin, tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d start-ups per document, medians; corpus %s\n\n", starts, corpus)
	t := &harness.Table{}
	t.Row("document", "size", "operations", "exec to first answer", "its CPU time", "peak RSS", "spec.Load", "engine.New", "")
	for _, d := range docs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ops, load, prepare, refused := inProcess(d, starts)
		first, cpu, peak, err := serve(ctx, bin, d, starts, tmp)
		if err != nil && refused == "" {
			refused = firstLine(err.Error())
		}
		row := []string{d.name, kb(d.size), fmt.Sprint(ops), "-", "-", "-", ms(load), ms(prepare), refused}
		if err == nil {
			row[3], row[4], row[5] = ms(first), ms(cpu), harness.MB(peak)
		}
		t.Row(row...)
		if id, ok := targeted[d.name]; ok {
			if err != nil {
				rows.Skip(id+".first", refused)
				rows.Skip(id+".peak", refused)
			} else {
				rows.Add(harness.Row{ID: id + ".first", Value: first.Seconds(), Runs: starts,
					Note: fmt.Sprintf("its CPU time to the first answer %s (user and system, all threads: the wall time without the neighbours' share of the cores)", ms(cpu))})
				rows.Add(harness.Row{ID: id + ".peak", Value: float64(peak), Runs: starts})
			}
		}
	}
	t.Write(out)
	fmt.Fprintln(out)
	rows.Report(out)
	return nil
}

// documents lists the Petstore and the corpus documents, by size, or the
// ones named.
func documents(corpus string, names []string) ([]document, error) {
	docs := []document{{name: "petstore (embedded)", size: int64(len(spec.DefaultDocument()))}}
	listed, err := harness.ListCorpus(corpus)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w (give -corpus, or set PETCTL_CORPUS)", err)
	}
	for _, d := range listed {
		docs = append(docs, document{name: d.Name, path: d.Path, size: d.Size})
	}
	if len(names) > 0 {
		docs = slices.DeleteFunc(docs, func(d document) bool { return !slices.Contains(names, d.name) })
	}
	slices.SortStableFunc(docs, func(a, b document) int { return int(a.size - b.size) })
	return docs, nil
}

// inProcess times spec.Load and engine.New for d; refused is why New
// refuses it, "" when it does not.
func inProcess(d document, starts int) (ops int, load, prepare time.Duration, refused string) {
	var loads, news []time.Duration
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	for range starts {
		t0 := time.Now()
		var s *spec.Spec
		var err error
		if d.path == "" {
			s, err = spec.Default()
		} else {
			s, err = spec.Load(d.path)
		}
		t1 := time.Now()
		if err != nil {
			return 0, 0, 0, firstLine(err.Error())
		}
		ops = len(s.Operations)
		_, err = engine.New(engine.Options{Spec: s, Keys: []string{benchKey}, Logger: quiet})
		loads, news = append(loads, t1.Sub(t0)), append(news, time.Since(t1))
		if err != nil {
			refused = firstLine(err.Error())
		}
	}
	return ops, harness.MedianDuration(loads), harness.MedianDuration(news), refused
}

// serve starts petctl serve on d starts times and returns the medians of
// the time to its first answer, of the CPU time it used by then, and of its
// peak resident memory.
func serve(ctx context.Context, bin string, d document, starts int, tmp string) (time.Duration, time.Duration, int64, error) {
	var firsts, cpus []time.Duration
	var peaks []float64
	for range starts {
		addr, err := harness.FreeAddr()
		if err != nil {
			return 0, 0, 0, err
		}
		args := []string{"serve", "--addr", addr, "--api-key", benchKey, "--state", "none"}
		if d.path != "" {
			args = append(args, "--spec", d.path)
		}
		p, err := harness.Start("petctl", bin, args, nil, addr, filepath.Join(tmp, "petctl.log"))
		if err != nil {
			return 0, 0, 0, err
		}
		first, err := p.WaitReady(ctx, "http://"+addr+engine.AdminPrefix+"health", http.Header{}, 60*time.Second)
		var m harness.Memory
		var cpu time.Duration
		if err == nil {
			cpu, err = harness.ReadCPU(p.Pid())
		}
		if err == nil {
			m, err = harness.ReadMemory(p.Pid())
		}
		p.Stop(10 * time.Second)
		if err != nil {
			return 0, 0, 0, err
		}
		firsts, cpus, peaks = append(firsts, first), append(cpus, cpu), append(peaks, float64(m.HWM))
	}
	return harness.MedianDuration(firsts), harness.MedianDuration(cpus), int64(harness.Median(peaks)), nil
}

// firstLine is the first line of a refusal, after the word "petctl:" and
// the problem count that start it.
func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasSuffix(l, "problems:") {
			if len(l) > 140 {
				l = l[:140] + "…"
			}
			return "refused: " + l
		}
	}
	return "refused"
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func kb(n int64) string { return fmt.Sprintf("%.0f kB", float64(n)/1000) }
