// Package waitbound lets a test package whose tests mostly wait run more
// of them at once than the machine has CPUs.
//
// go test runs at most GOMAXPROCS parallel tests of a package at a time
// (-parallel). That suits tests that compute; it wastes the machine on
// tests that start a subject process and wait out a bound it sets (a
// startup timeout, a stop grace, a check's promptness limit), as the CLI
// and mutant tests do. Those packages call Parallel in TestMain.
package waitbound

import (
	"flag"
	"runtime"
	"strconv"
)

// Parallel sets go test's -parallel to perCPU tests for each CPU, unless
// the command line gave -parallel. Call it in TestMain, before m.Run, and
// not in a process that runs Ginkgo, which refuses any other -parallel
// than its default.
func Parallel(perCPU int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(perCPU*runtime.GOMAXPROCS(0)))
	}
}
