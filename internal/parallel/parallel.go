// Package parallel raises how many of a test binary's tests run at once,
// for the packages whose tests mostly wait (on servers, processes, child
// test binaries) and would leave the CPU idle at go test's default of one
// test per CPU.
package parallel

import (
	"flag"
	"strconv"
)

// AtLeast makes -test.parallel n where the command line does not give it,
// and leaves a value given alone. It changes the flag's value without
// marking it set: Ginkgo, which conform runs in-process, exits when
// -test.parallel was given (conformance.ginkgoVetoes). TestMain calls it
// before m.Run.
func AtLeast(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	f := flag.Lookup("test.parallel")
	if given || f == nil {
		return
	}
	if cur, err := strconv.Atoi(f.Value.String()); err == nil && cur >= n {
		return
	}
	f.Value.Set(strconv.Itoa(n))
}
