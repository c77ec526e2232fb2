package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/petctl/petctl/config"
	"github.com/spf13/cobra"
)

// newInitCmd is `petctl init`: it writes the starter petctl.yaml.
func newInitCmd(a *app) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented starter petctl.yaml that shows every setting with its default",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := config.FileName
			if len(args) == 1 {
				path = args[0]
			}
			if path == "-" {
				_, err := a.out.Write(config.Template())
				return err
			}
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(path, flags, 0o644)
			if os.IsExist(err) {
				return usageErrorf("%s exists; use --force to overwrite it", path)
			}
			if err != nil {
				return usageErrorf("cannot write %s: %v", path, unwrapPathErr(err))
			}
			if _, err := f.Write(config.Template()); err != nil {
				f.Close()
				return failure(fmt.Errorf("writing %s: %v", path, err))
			}
			if err := f.Close(); err != nil {
				return failure(fmt.Errorf("writing %s: %v", path, err))
			}
			fmt.Fprintf(a.out, "wrote %s: edit it, check it with 'petctl config validate', then run 'petctl serve'; 'petctl config schema %s' lets editors check it\n", path, filepath.Join(filepath.Dir(path), config.SchemaFileName))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	return cmd
}
