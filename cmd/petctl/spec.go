package main

import (
	"github.com/petctl/petctl/spec"
	"github.com/spf13/cobra"
)

func newSpecCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "spec",
		Short: "Print the embedded OpenAPI document, to generate a client offline",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := a.out.Write(spec.DefaultDocument())
			return failure(err)
		},
	}
}
