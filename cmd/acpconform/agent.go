package main

import (
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const agentLong = `
Checks an agent under test: acpconform plays the client. The agent is a
command speaking ACP on its stdio, each process in its own process group and
always stopped (stdin closed, then SIGTERM, then SIGKILL), or a WebSocket
URL. Checks share a connection (a process) per set of initialize
capabilities, each with a session of its own; a check that ends its
connection, cancels or watches a first use gets a fresh one. A check that
fails on a shared connection runs again on a fresh one, only to say why: if
it passes there, it fails SES-1 (the agent does not serve the sessions of a
connection alike), so sharing never makes a verdict more lenient than
--isolate's. --isolate gives every check a fresh connection.

The agent joins through the probe contract of docs/probe.md §1: every prompt
is a probe request that it runs as its ask_choice, reporting the outcome. An
agent without such an adapter is checked on the wire alone: --no-probe with
a --prompt that makes it ask one typed choice. Such an agent is started
once first and given the prompt: one that refuses session/new could not
run (exit 3), one that answers without asking leaves nothing checked
(exit 4).

Every failure says which rule it breaks and why, with a command that runs
that check again. Exit codes: acpconform help exit-codes.`

func (a *app) agentCommand() *cobra.Command {
	var f checkFlags
	var url, tokenEnv, prompt string
	var noProbe, isolate bool
	cmd := a.command("agent [flags] -- CMD ARGS... | agent [flags] --url ws://HOST/acp/ws",
		"Check an agent: a command on stdio, or a WebSocket URL", agentLong,
		func(cmd *cobra.Command, argv []string) (int, error) {
			opts := f.wire()
			var subject suite.Subject
			switch {
			case url == "" && len(argv) == 0:
				return exitUsage, usagef(cmd, "name the agent: -- CMD ARGS... or --url URL")
			case url != "" && len(argv) > 0:
				return exitUsage, usagef(cmd, "a command and --url exclude each other")
			case tokenEnv != "" && url == "":
				return exitUsage, usagef(cmd, "--token-env goes with --url")
			case noProbe != (prompt != ""):
				return exitUsage, usagef(cmd, "--no-probe and --prompt go together")
			case url != "":
				if err := webSocketURL("--url", url); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				var header http.Header
				if tokenEnv != "" {
					token := os.Getenv(tokenEnv)
					if token == "" {
						return exitUsage, usagef(cmd, "--token-env: $%s is empty or unset", tokenEnv)
					}
					header = http.Header{"Authorization": {"Bearer " + token}}
				}
				subject = suite.WebSocket(url, header, opts)
			default:
				if err := checkCommand(argv); err != nil {
					return exitUsage, usagef(cmd, "%v", err)
				}
				subject = suite.Command(argv, suite.AgentRole, opts)
			}
			filter := ""
			if noProbe {
				filter = wireOnly
			}
			return a.checkSubject(cmd, subject, argv, filter, scenarios.Options{Prompt: prompt, Isolate: isolate}, &f, true)
		})
	f.register(cmd.Flags())
	cmd.Flags().BoolVar(&isolate, "isolate", false, "give every check a connection, and so an agent process, of its own; by default checks share them, and one that fails on a shared connection only runs again on a fresh one to tell a SES-1 failure from its own")
	cmd.Flags().StringVar(&url, "url", "", "check the agent served at this WebSocket `URL`")
	cmd.Flags().StringVar(&tokenEnv, "token-env", "", "with --url, send 'Authorization: Bearer' and the value of this environment `VARIABLE`")
	cmd.Flags().BoolVar(&noProbe, "no-probe", false, "the agent has no probe adapter: run only the wire-only checks")
	cmd.Flags().StringVar(&prompt, "prompt", "", "with --no-probe, the prompt `TEXT` that makes the agent ask one typed choice")
	return cmd
}
