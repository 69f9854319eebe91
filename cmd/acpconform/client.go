package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const clientLong = `
Checks a client under test: acpconform plays the agent. The client is a
command started afresh for every check in its own process group and always
stopped, with everything it started. It reaches its agent one of three ways:

  {agent}  it spawns its agent, as editors do: acpconform replaces {agent},
           alone or inside an argument, with the shell-quoted command line
           of acpconform bridge to a private unix socket of that check
           (-- acpx --approve-all --agent {agent} exec hello)
  {url}    it dials a WebSocket acpconform serves on loopback for the check
           (-- my-client --agent-url {url})
  neither  it speaks ACP as the client on its own stdio

With --listen, acpconform serves a WebSocket, prints its URL, and takes the
client's connections: one for the start-up probe, one per check that runs,
and one to read its capabilities. Checks of the WebSocket transport (REM-1)
run only for {url} and --listen; through {agent} or stdio they are skipped.

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
	cmd := a.command("client [flags] -- CMD ... [{agent}|{url}] ... | client [flags] --listen ADDR",
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
				if holds(argv, suite.AgentPlaceholder) && holds(argv, suite.URLPlaceholder) {
					return exitUsage, usagef(cmd, "the command holds both {agent} and {url}: give {agent} where it takes its agent's command, or {url} where it takes a WebSocket URL")
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
