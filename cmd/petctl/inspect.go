package main

import (
	"github.com/petctl/petctl/engine"
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
	"time"
)

type inspectOptions struct {
	configPath string
	spec       string
}

func newInspectCmd(a *app, runF func(*inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Print what petctl infers from the document: resources, ids, operations, lists, and what is not stateful and why",
		Long: `Print what 'petctl serve' makes of the document: each resource with its id
field and type, its parent, the fields the server assigns, each operation's kind
and the shapes of its request and answer, each list's envelope, paging, filters
and sort; then each operation that is not served from the store, and why.
The crud.operations overrides of petctl.yaml (or --config FILE) apply.`,
		Example: `  petctl inspect
  petctl inspect --spec openapi.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return inspectRun(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.spec, "spec", "", "OpenAPI document (default: the spec setting, else the embedded Petstore)")
	f.StringVar(&opts.configPath, "config", "", "configuration file (default: ./petctl.yaml when it exists)")
	return cmd
}

func inspectRun(a *app, opts *inspectOptions) error {
	cfg, err := checkedConfig(a, opts.configPath)
	if err != nil {
		return err
	}
	c := cfg.Config
	path := c.Spec
	if opts.spec != "" {
		path = opts.spec
	}
	s, err := spec.LoadWith(path, c.SpecOptions())
	if err != nil {
		return usageError(err)
	}
	o, err := c.EngineOptions(time.Now())
	if err != nil {
		return usageError(cfg.Combine(nil, err))
	}
	plan, err := engine.NewPlan(s, o.Overrides, o.ConfiguredOperations())
	if err != nil {
		return usageError(cfg.Combine(nil, err))
	}
	return failure(plan.WriteReport(a.out, s))
}
