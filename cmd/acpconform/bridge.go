package main

import (
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/bridge"
)

func (a *app) bridgeCommand() *cobra.Command {
	cmd := a.command("bridge SOCKET", "Connect stdio to a check's unix socket: what {agent} runs", `
Connects to the unix socket SOCKET and copies bytes both ways between
stdin/stdout and the socket, frames unchanged. It is what {agent} runs: when
acpconform checks a client or a relay that spawns its agent (acpconform
client -- CLIENT --agent {agent}), it replaces {agent} with the command line
of this bridge to a socket of that one check, so the agent the subject
starts is acpconform's mock agent. The socket lives in a private directory
(mode 0700) made for the check and removed after it; there is nothing to run
by hand. A check takes one bridge: a second one to the same socket is
refused (its stdout ends at once), and the check says the subject connected
a second time.

It ends as an agent does: at the end of its stdin, after passing that end
on (acpconform reads the end of the connection), and when acpconform ends
the connection, after closing stdout.

Exit codes: 0 when either side ends (stdin, acpconform's side of the socket,
or a stdout no longer read); 2 usage error; 3 the socket could not be
reached.`,
		func(cmd *cobra.Command, args []string) (int, error) {
			signal.Ignore(syscall.SIGPIPE)                                      // a client that stops reading ends the bridge with 0, not a signal
			if err := bridge.Run(args[0], a.stdin, a.protocolOut); err != nil { // only ErrUnreachable
				fmt.Fprintf(a.stderr, "acpconform bridge: %v\n", err)
				return exitNoConnection, nil
			}
			return exitOK, nil
		})
	cmd.Args = exactlyOne("the unix socket's path")
	return cmd
}
