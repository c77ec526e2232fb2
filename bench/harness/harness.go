// Package harness builds, starts, times and stops the servers the bench
// commands compare, and does their arithmetic (medians, ratios, memory).
package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Build compiles the main package pkg (as `go build` names it, relative to
// the module root) into dir and returns the binary's path.
func Build(ctx context.Context, root, dir, pkg, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	return out, nil
}

// Petctl returns the petctl binary a comparison runs: given, when the
// caller names one (benchall builds it once for every comparison), else
// one built now from this module into dir, saying so on out first.
func Petctl(ctx context.Context, given, dir string, out io.Writer) (string, error) {
	if given != "" {
		return given, nil
	}
	root, err := ModuleRoot(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintln(out, "building petctl…")
	return Build(ctx, root, dir, "./cmd/petctl", "petctl")
}

// FreeAddr returns a loopback address with a port free right now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Process is a server under test.
type Process struct {
	Name    string
	Addr    string
	cmd     *exec.Cmd
	started time.Time
	done    chan error
	logPath string
}

// Start runs bin with args; its stdout and stderr go to the file logPath
// (os.DevNull discards them).
func Start(name, bin string, args []string, env []string, addr, logPath string) (*Process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	p := &Process{Name: name, Addr: addr, cmd: cmd, done: make(chan error, 1), logPath: logPath}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.done <- cmd.Wait()
		log.Close()
	}()
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// WaitReady polls url with header until it answers 200 and returns the time
// from exec to that first 200.
func (p *Process) WaitReady(ctx context.Context, url string, header http.Header, timeout time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := p.started.Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		req.Header = header.Clone()
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(p.started), nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return 0, fmt.Errorf("%s exited before it answered (%v); its log:\n%s", p.Name, err, p.Tail(20))
		default:
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s did not answer 200 at %s within %s; its log:\n%s", p.Name, url, timeout, p.Tail(20))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// Stop interrupts the process and waits for it; it kills it after grace.
func (p *Process) Stop(grace time.Duration) {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Tail returns the last n lines of the process's output.
func (p *Process) Tail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Memory is what /proc/PID/status says of a process's resident memory.
type Memory struct {
	RSS, HWM int64 // bytes: VmRSS now, VmHWM its peak
}

// ReadMemory reads VmRSS and VmHWM of pid.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	defer f.Close()
	return parseStatus(f)
}

func parseStatus(r io.Reader) (Memory, error) {
	var m Memory
	found := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return Memory{}, fmt.Errorf("%s: unexpected value %q", name, value)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %v", name, err)
		}
		if name == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.HWM = kb << 10
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return Memory{}, err
	}
	if found != 2 {
		return Memory{}, errors.New("VmRSS or VmHWM missing")
	}
	return m, nil
}

// MB formats bytes as mebibytes.
func MB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// Median returns the median of xs (the mean of the middle two for an even count).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// MedianDuration is Median for durations.
func MedianDuration(ds []time.Duration) time.Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	return time.Duration(Median(xs))
}

// Verdict says whether got meets a target: "ok" or "MISSED".
func Verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// Table prints rows as aligned columns.
type Table struct {
	rows [][]string
}

// Row adds a row.
func (t *Table) Row(cells ...string) { t.rows = append(t.rows, cells) }

// Write prints the table to w.
func (t *Table) Write(w io.Writer) {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// ModuleRoot returns the directory of the main module's go.mod, where the
// builds run.
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the petctl module: run from its checkout")
	}
	return filepath.Dir(mod), nil
}

// CorpusDir finds the shared corpus of public OpenAPI documents:
// $PETCTL_CORPUS, else a shared/corpus folder beside the module root or
// above it (worktrees live a level deeper than the main checkout); "" when
// there is none.
func CorpusDir(root string) string {
	if d := os.Getenv("PETCTL_CORPUS"); d != "" {
		return d
	}
	for dir := root; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "corpus")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
	return ""
}

// FirstLine is the first non-empty line of s, at most 160 characters, for a
// one-line reason in a table.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > 160 {
				l = string(r[:160]) + "…"
			}
			return l
		}
	}
	return ""
}

// ticksPerSecond is the unit of /proc/PID/stat's CPU times (USER_HZ, 100
// on every Linux architecture Go supports).
const ticksPerSecond = 100

// ReadCPU is the CPU time pid has used so far, user and system: on a
// shared machine, the part of a start-up that is the process's own work
// rather than waiting for a core.
func ReadCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStat(string(data))
}

func parseStat(s string) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("/proc/PID/stat: no command name")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("/proc/PID/stat: too few fields")
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/PID/stat: %v", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / ticksPerSecond, nil
}
