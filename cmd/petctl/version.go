package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print petctl's version and the versions of the libraries it validates with",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(a.out, versionLine())
			return err
		},
	}
}

func versionLine() string {
	v := version
	deps := map[string]string{}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, d := range info.Deps {
			deps[d.Path] = d.Version
		}
	}
	if v == "" {
		v = "devel"
	}
	return fmt.Sprintf("petctl %s (%s, libopenapi %s, libopenapi-validator %s)", v, runtime.Version(),
		orUnknown(deps["github.com/pb33f/libopenapi"]), orUnknown(deps["github.com/pb33f/libopenapi-validator"]))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
