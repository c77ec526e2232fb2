package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/petctl/petctl/conformance/junit"
	"github.com/petctl/petctl/spec"
	"github.com/petctl/petctl/spec/diff"
	"github.com/spf13/cobra"
)

type diffOptions struct {
	old, new    string
	baseRef     string
	now         string
	minNotice   string
	junitReport string
	jsonReport  string
}

func newDiffCmd(a *app, runF func(*diffOptions) error) *cobra.Command {
	opts := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | diff --base-ref REF NEW",
		Short: "List the changes between two versions of a spec, and fail on breaking ones",
		Long: `List every change between two versions of an OpenAPI document and classify
each for the API's clients: breaking (a removed operation, parameter or response
field, a type narrowed in a request, a new required request field, a new enum
value in a response, changed auth, ...), flagged (a deprecation without a
removal date, or with less notice than --min-notice) or safe. Removing an
operation after its removal date (x-sunset) is safe; before it, breaking.

With --base-ref, OLD is NEW as that git branch, tag or commit has it.
Exit status: 0 no breaking or flagged change, 1 some, 2 a usage or spec error.
See docs/spec-diff.md.`,
		Example: `  petctl diff old/openapi.yaml openapi.yaml
  petctl diff --base-ref origin/main api/openapi.yaml --junit-report reports/diff.xml
  petctl diff --min-notice 365d --now 2031-01-01 v1.yaml v2.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.baseRef != "" && len(args) == 1:
				opts.new = args[0]
			case opts.baseRef == "" && len(args) == 2:
				opts.old, opts.new = args[0], args[1]
			case opts.baseRef != "":
				return usageErrorf("diff --base-ref %s takes one document, NEW; got %d", opts.baseRef, len(args))
			default:
				return usageErrorf("diff takes two documents, OLD and NEW (or --base-ref REF and NEW); got %d", len(args))
			}
			if runF != nil {
				return runF(opts)
			}
			return diffRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.baseRef, "base-ref", "", "read OLD from git: NEW as this branch, tag or commit has it (origin/main)")
	f.StringVar(&opts.now, "now", "", "judge removal dates and notice as of this date (2031-01-01 or RFC 3339; default: the clock)")
	f.StringVar(&opts.minNotice, "min-notice", "", fmt.Sprintf("least notice a deprecation gives before its removal date: days (180d) or a duration (default %dd)", int(diff.DefaultMinNotice.Hours()/24)))
	f.StringVar(&opts.junitReport, "junit-report", "", "write a JUnit XML report to this file: a test case per change, failed when breaking or flagged")
	f.StringVar(&opts.jsonReport, "json-report", "", "write the changes as JSON to this file")
	return cmd
}

func diffRun(a *app, opts *diffOptions) error {
	var problems []error
	var p diff.Policy
	if opts.now != "" {
		t, ok := spec.ParseInstant(opts.now)
		if !ok {
			problems = append(problems, fmt.Errorf("--now %q: want a date such as 2031-01-01 or 2031-01-01T00:00:00Z", opts.now))
		}
		p.Now = t
	}
	if opts.minNotice != "" {
		d, err := parseNotice(opts.minNotice)
		if err != nil {
			problems = append(problems, fmt.Errorf("--min-notice %q: %v", opts.minNotice, err))
		}
		p.MinNotice = d
	}
	if opts.junitReport != "" && opts.junitReport == opts.jsonReport {
		problems = append(problems, errors.New("--junit-report and --json-report name the same file"))
	}
	if len(problems) > 0 {
		return usageError(errors.Join(problems...))
	}
	oldPath, oldName := opts.old, opts.old
	if opts.baseRef != "" {
		co, err := diff.AtRef(a.ctx, opts.baseRef, opts.new)
		if err != nil {
			return usageError(err)
		}
		defer co.Close()
		oldPath, oldName = co.Path, co.Name
	}
	old, err := loadForDiff(a, oldPath, oldName)
	if err != nil {
		return err
	}
	new, err := loadForDiff(a, opts.new, opts.new)
	if err != nil {
		return err
	}
	r, err := diff.Compare(old, new, p)
	if err != nil {
		return usageError(err)
	}
	r.Print(a.out)
	if opts.junitReport != "" {
		if err := junit.WriteFile(opts.junitReport, r.JUnit()); err != nil {
			return failure(fmt.Errorf("--junit-report: %v", err))
		}
	}
	if opts.jsonReport != "" {
		if err := writeJSON(opts.jsonReport, r); err != nil {
			return failure(fmt.Errorf("--json-report: %v", err))
		}
	}
	if !r.OK() {
		return failure(errors.New(r.Summary()))
	}
	return nil
}

// loadForDiff reads a document; name is how the report calls it.
func loadForDiff(a *app, path, name string) (*spec.Spec, error) {
	s, err := spec.LoadWith(path, spec.LoadOptions{})
	if err != nil {
		if name != path {
			err = errors.New(strings.ReplaceAll(err.Error(), path, name))
		}
		return nil, usageError(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(a.err, "warning: %s: %s\n", name, w)
	}
	s.Source = name
	return s, nil
}

// parseNotice reads a notice: whole days ("180d") or a Go duration ("4320h").
func parseNotice(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 {
			return 0, errors.New("want a positive number of days such as 180d, or a duration such as 4320h")
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive number of days such as 180d, or a duration such as 4320h")
	}
	return d, nil
}

// writeJSON writes v as indented JSON, creating the file's folder.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
