// Command acpconform-reference-client is acpconform's reference client
// alone: what `acpconform reference-client` plays on stdio or over a
// WebSocket (docs/probe.md §2), in a binary that links nothing else. A
// client's catalogue starts the client again for every check, and this
// binary starts in under a third of the CPU time of the whole CLI (16 ms
// against 53 ms), whose harness, report writers and their package
// initialisers it leaves out.
// (To start an agent of its own, --agent, use the CLI's command.)
//
//	go install github.com/acpconform/acpconform/cmd/acpconform-reference-client@VERSION
//	acpconform client -- acpconform-reference-client
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpconform/acpconform/kit/probeclient"
)

func main() {
	// As under the CLI: a signal ends the session, and the client exits 1.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := probeclient.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
