// Command genpets writes a deterministic fixtures file of n Petstore animals:
//
//	go run ./bench/cmd/genpets -n 1000000 -o /tmp/pets-1m.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/petctl/petctl/bench/genpets"
)

func main() {
	fl := flag.NewFlagSet("genpets", flag.ContinueOnError)
	n := fl.Int("n", 1000000, "number of animals")
	out := fl.String("o", "", "output file (required)")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *out == "" || *n < 0 {
		fmt.Fprintln(os.Stderr, "genpets: give -o FILE and a non-negative -n")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err == nil {
		err = genpets.Write(f, *n)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genpets:", err)
		os.Exit(1)
	}
}
