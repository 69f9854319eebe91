package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const clientLong = `
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
for the validity of its answers. A client that does not advertise form
elicitation gets no form to answer: nothing is checked (exit 4).

Exit codes: acpconform help exit-codes.`

func (a *app) clientCommand() *cobra.Command {
	var f checkFlags
	var listen string
	var freeUser bool
	cmd := a.command("client [flags] -- CMD ARGS... | client [flags] --listen ADDR",
		"Check a client: a command acpconform starts, or one that connects", clientLong,
		func(cmd *cobra.Command, argv []string) (int, error) {
			var subject suite.Subject
			switch {
			case listen == "" && len(argv) == 0:
				return exitUsage, usagef(cmd, "name the client: -- CMD ARGS... or --listen ADDR")
			case listen != "" && len(argv) > 0:
				return exitUsage, usagef(cmd, "a command and --listen exclude each other")
			case listen != "":
				l, err := suite.ListeningForClients(listen, f.wire())
				if err != nil {
					return exitUsage, usagef(cmd, "--listen: %v", err)
				}
				defer l.Close()
				fmt.Fprintln(a.stdout, l.URL)
				subject = l
			default:
				if err := checkCommand(argv); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				subject = suite.Command(argv, suite.ClientRole, f.wire())
			}
			return a.checkSubject(cmd, subject, argv, "", scenarios.Options{FreeUser: freeUser}, &f, true)
		})
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&listen, "listen", "", "serve a WebSocket on this `ADDRESS` (such as 127.0.0.1:0), print its URL and check the clients that connect")
	cmd.Flags().BoolVar(&freeUser, "no-scripted-user", false, "the client does not follow scripted-user instructions: check only that its answers are valid")
	return cmd
}
