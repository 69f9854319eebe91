package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const clientUsage = `usage: acpconform client [flags] -- CMD ARGS...
       acpconform client [flags] --listen ADDR

Checks a client under test: acpconform plays the agent. The client is a
command speaking ACP as the client on its stdio, started afresh for every
check in its own process group and always stopped; when an argument holds
{url}, acpconform serves a WebSocket for each check and passes its URL there
instead (-- my-client --agent-url {url}). With --listen, acpconform serves a
WebSocket, prints its URL, and takes the client's connections, one per check.

The client joins through the probe contract of docs/probe.md §2: it
initializes with its real capabilities, opens a session, sends one prompt,
answers what arrives and exits when the turn ends. Every elicitation/create
carries a scripted-user instruction in its _meta; a client in test mode
answers as told. A client that does not (--no-scripted-user) is checked only
for the validity of its answers.

Exit codes (acpconform help exit-codes, docs/cli.md): 0 conformant (SHOULD
failures are reported, never fatal); 1 not conformant; 2 usage error; 3 could
not run; 4 nothing was checked (a client that does not advertise form
elicitation gets no form to answer); 5 interrupted or timed out; 6 a report
could not be written.

flags:
`

// runClient checks a client under test.
func runClient(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("client", clientUsage, stderr)
	var f checkFlags
	f.register(fs)
	listen := fs.String("listen", "", "serve a WebSocket on this address (such as 127.0.0.1:0), print its URL and check the clients that connect")
	freeUser := fs.Bool("no-scripted-user", false, "the client does not follow scripted-user instructions: check only that its answers are valid")
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	argv := fs.Args()
	opts := f.wire()
	var subject suite.Subject
	switch {
	case *listen == "" && len(argv) == 0:
		fmt.Fprintln(stderr, "acpconform client: name the client: -- CMD ARGS... or --listen ADDR")
		return exitUsage
	case *listen != "" && len(argv) > 0:
		fmt.Fprintln(stderr, "acpconform client: a command and --listen exclude each other")
		return exitUsage
	case *listen != "":
		l, err := suite.ListeningForClients(*listen, opts)
		if err != nil {
			fmt.Fprintf(stderr, "acpconform client: %v\n", err)
			return exitUsage
		}
		defer l.Close()
		fmt.Fprintln(stdout, l.URL)
		subject = l
	default:
		if err := checkCommand(argv); err != nil {
			fmt.Fprintf(stderr, "acpconform client: %v\n", err)
			return exitUsage
		}
		subject = suite.Command(argv, suite.ClientRole, opts)
	}
	return checkSubject(ctx, "client", subject, "", scenarios.Options{FreeUser: *freeUser}, &f, true, stdout, stderr)
}
