// Command acpconform checks ACP agents, clients and relays against the
// typed-choice elicitation contract, and serves the reference peers it
// checks them with.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/acpconform/acpconform/internal/proc"
)

func main() {
	// Orphans of subject processes become ours, not init's, so that
	// stopping a subject finds what it left behind (Linux only).
	_ = proc.BecomeSubreaper()
	ctx, stop := withInterrupts(context.Background())
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	proc.StopAll() // whatever a path out left running
	// What subjects orphaned, daemons that left their session and our
	// marker among them, came to us: none outlives the run.
	orphans, cancel := context.WithTimeout(context.Background(), proc.StopGrace)
	proc.EndOrphans(orphans)
	cancel()
	os.Exit(code)
}

// interruption is the cause of a context ended by a signal.
type interruption struct{ sig syscall.Signal }

func (i interruption) Error() string {
	return fmt.Sprintf("interrupted by %s", signalName(i.sig))
}
