package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/petctl/petctl/config"
	"github.com/spf13/cobra"
)

// Exit codes, in one place.
const (
	exitOK          = 0
	exitFailure     = 1 // a failed conformance spec, a server error
	exitUsage       = 2 // a usage, configuration or spec error
	exitUnreachable = 3 // conform could not reach the target at all
)

// app is what every command needs from the outside world, injected so tests
// can capture output and set the environment.
type app struct {
	ctx    context.Context
	out    io.Writer
	err    io.Writer
	getenv func(string) string
}

// exitError carries an exit code with the one line petctl prints for it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

func failure(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitFailure, err: err}
}

// run executes petctl with args and returns the exit code. Errors are
// printed once, here, as one line.
func run(ctx context.Context, args []string, out, errOut io.Writer, getenv func(string) string) int {
	a := &app{ctx: ctx, out: out, err: errOut, getenv: getenv}
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitUsage // cobra's own errors (unknown command or flag) are usage errors
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if code != exitOK {
		msg := oneLine(err.Error())
		var ps config.Problems
		if errors.As(err, &ps) {
			msg = ps.Error() // every configuration problem, one per line
		}
		fmt.Fprintf(errOut, "petctl: %s\n", msg)
	}
	return code
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "petctl",
		Short: "Serve an OpenAPI description as a validating mock, and check deployments against it",
		Long: `petctl turns an OpenAPI description into a stateful, validating mock server
(petctl serve) and a conformance suite for any deployment (petctl conform).
It serves the Petstore Animals API by default.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(a.out)
	root.SetErr(a.err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(
		newServeCmd(a, nil),
		newConformCmd(a, nil),
		newDiffCmd(a, nil),
		newDriftCmd(a, nil),
		newDomainCmd(a),
		newDocsCmd(a),
		newInitCmd(a),
		newConfigCmd(a),
		newSpecCmd(a),
		newInspectCmd(a, nil),
		newVersionCmd(a),
	)
	return root
}

// oneLine keeps the first line of a message: the CLI prints one readable line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
