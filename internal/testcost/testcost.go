// Package testcost counts what the project's own tests cost, in units that
// do not depend on the machine or its load: subject processes started,
// catalogue runs and checks executed. Time is the wrong unit for a guard:
// the same change takes twice as long on a busy runner, and a test of wall
// time fails or passes with the neighbours' jobs. A count does not.
//
// A test binary whose TestMain is budget.Main names a file in Env; every
// process of the test (the test binary itself, and each acpconform it
// starts, which inherits the environment) appends one line per event to
// it, and budget.Main compares the totals with the package's line in
// ci/budget.txt. Outside the tests Env is unset and Note does nothing.
package testcost

import (
	"os"
	"sync"
)

// Env names the file the events are appended to.
const Env = "ACPCONFORM_TEST_COST"

// Kind is what an event counts.
type Kind string

const (
	// Process is a subject process started (proc.Start): the unit that
	// costs most, a fork, an exec and the subject's own start-up.
	Process Kind = "process"
	// Run is a catalogue that executed at least one check.
	Run Kind = "run"
	// Check is a check's first attempt; a rerun after a failure is not
	// counted, so that the count does not depend on what failed.
	Check Kind = "check"
)

// Kinds are the kinds, in the order ci/budget.txt gives them.
var Kinds = []Kind{Process, Run, Check}

var mu sync.Mutex

// Note appends one event of kind k to the file Env names, if any. A line
// of a few bytes written with O_APPEND is written whole, so the processes
// of one package may note at once.
func Note(k Kind) {
	name := os.Getenv(Env)
	if name == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return // the file is the test's: without it there is nothing to count
	}
	_, _ = f.Write([]byte(string(k) + "\n"))
	f.Close()
}
