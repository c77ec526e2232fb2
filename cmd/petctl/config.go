package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"

	"github.com/petctl/petctl/config"
	"github.com/spf13/cobra"
)

// newConfigCmd is `petctl config`: validate, show and schema.
func newConfigCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check or show the configuration of petctl serve",
	}
	validate := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a configuration file, with the environment, against the spec, without serving",
		Long: `Check a configuration file (default: ./petctl.yaml), layered with the
PETCTL_* environment, exactly as 'petctl serve' would: keys, types and values,
then the spec, the fixtures and every spec-dependent setting. Exit 0 when
serve would start, 2 with every problem listed when it would not.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			cfg, ps, err := loadConfig(a, path, nil)
			if err != nil {
				return err
			}
			p, err := prepare(a, cfg, ps, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, nil)
			if err != nil {
				return err
			}
			src := cfg.File
			if src == "" {
				src = "the defaults (no petctl.yaml here)"
			}
			fmt.Fprintf(a.out, "%s is valid: serving %s %s", src, p.spec.Title, p.spec.Version)
			colls := p.srv.Collections()
			for _, name := range slices.Sorted(maps.Keys(colls)) { // as the banner lists them
				fmt.Fprintf(a.out, ", %s: %d records", name, colls[name])
			}
			fmt.Fprintln(a.out)
			return nil
		},
	}
	var showPath string
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration (keys redacted), with where each value came from",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := checkedConfig(a, showPath)
			if err != nil {
				return err
			}
			out, err := cfg.Show()
			if err != nil {
				return failure(err)
			}
			_, err = a.out.Write(out)
			return err
		},
	}
	show.Flags().StringVar(&showPath, "config", "", "configuration file (default: ./petctl.yaml when it exists)")
	schema := &cobra.Command{
		Use:   "schema [FILE]",
		Short: "Write the JSON Schema of petctl.yaml, for editors (to standard output, or FILE)",
		Long: `Write the JSON Schema of petctl.yaml (the same as docs/petctl.schema.json).
The starter file of 'petctl init' expects it next to itself:

  petctl config schema ` + config.SchemaFileName + `

An existing FILE is overwritten: the schema is generated, not edited.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-" {
				_, err := a.out.Write(config.Schema())
				return err
			}
			if err := os.WriteFile(args[0], config.Schema(), 0o644); err != nil {
				return usageErrorf("cannot write %s: %v", args[0], unwrapPathErr(err))
			}
			fmt.Fprintf(a.out, "wrote %s\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(validate, show, schema)
	return cmd
}
