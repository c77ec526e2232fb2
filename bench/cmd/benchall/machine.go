package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine is what the figures were measured on.
type machine struct {
	cpus      int
	model     string
	memory    string
	goVersion string
	commit    string
	date      string
	loadBefore,
	loadAfter string
}

func readMachine(ctx context.Context, root string) machine {
	m := machine{cpus: runtime.NumCPU(), date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadBefore: loadAverage()}
	m.model = procField("/proc/cpuinfo", "model name")
	m.memory = procField("/proc/meminfo", "MemTotal")
	if kb, err := strconv.ParseInt(strings.TrimSuffix(m.memory, " kB"), 10, 64); err == nil {
		m.memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	}
	if out, err := exec.CommandContext(ctx, "go", "version").Output(); err == nil {
		m.goVersion = strings.TrimPrefix(strings.TrimSpace(string(out)), "go version ")
	}
	git := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty", "--abbrev=12")
	git.Dir = root
	if out, err := git.Output(); err == nil {
		m.commit = strings.TrimSpace(string(out))
	}
	return m
}

// loadAverage is the 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procField is the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
