// Command acpconform-reference-agent is acpconform's reference agent alone:
// what `acpconform reference-agent` serves (docs/probe.md §1), in a binary
// that links nothing else. A catalogue over stdio starts the agent again
// for every check that needs a fresh process, and this binary starts in
// about a fifth of the CPU time of the whole CLI (13 ms against 61), whose
// harness, report writers and their package initialisers it leaves out.
//
//	go install github.com/acpconform/acpconform/cmd/acpconform-reference-agent@VERSION
//	acpconform agent -- acpconform-reference-agent
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpconform/acpconform/kit/probeagent"
)

func main() {
	// As under the CLI: a signal ends the serving, and the agent exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := probeagent.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
