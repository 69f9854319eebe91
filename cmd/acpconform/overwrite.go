package main

import (
	"fmt"
	"os"

	"github.com/acpconform/acpconform/reports"
)

// outputIsInput refuses an output path that names a file the command
// reads (merge --json onto a shard's report, diff --markdown onto HEAD):
// writing it would destroy an input, and a second try would read the
// output instead. Files are compared as the system sees them, so a link
// or another spelling of the path is caught too. Paths that are empty,
// stdout or not yet there are no inputs.
func outputIsInput(outputs, inputs []string) error {
	for _, out := range outputs {
		if out == "" || out == reports.StdoutPath {
			continue
		}
		o, err := os.Stat(out)
		if err != nil {
			continue
		}
		for _, in := range inputs {
			if i, err := os.Stat(in); err == nil && os.SameFile(o, i) {
				return fmt.Errorf("the output %s is the input %s: name another file to write", out, in)
			}
		}
	}
	return nil
}
