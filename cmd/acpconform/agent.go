package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const agentUsage = `usage: acpconform agent [flags] -- CMD ARGS...
       acpconform agent [flags] --url ws://HOST/acp/ws [--token-env VAR]

Checks an agent under test: acpconform plays the client. The agent is a
command speaking ACP on its stdio, started afresh for every check in its own
process group and always stopped (stdin closed, then SIGTERM, then SIGKILL),
or a WebSocket URL, connected to afresh for every check.

The agent joins through the probe contract of docs/probe.md §1: every prompt
is a probe request that it runs as its ask_choice, reporting the outcome. An
agent without such an adapter is checked on the wire alone: --no-probe with
a --prompt that makes it ask one typed choice.

Exit codes (acpconform help exit-codes, docs/cli.md): 0 conformant; 1 not
conformant; 2 usage error; 3 could not run; 4 nothing was checked; 5
interrupted or timed out; 6 a report could not be written.

flags:
`

// runAgent checks an agent under test.
func runAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("agent", agentUsage, stderr)
	var f checkFlags
	f.register(fs)
	url := fs.String("url", "", "check the agent served at this WebSocket URL")
	tokenEnv := fs.String("token-env", "", "with --url, send 'Authorization: Bearer' and the value of this environment variable")
	noProbe := fs.Bool("no-probe", false, "the agent has no probe adapter: run only the wire-only checks")
	prompt := fs.String("prompt", "", "with --no-probe, the prompt that makes the agent ask one typed choice")
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	argv := fs.Args()
	opts := f.wire()
	var subject suite.Subject
	switch {
	case *url == "" && len(argv) == 0:
		fmt.Fprintln(stderr, "acpconform agent: name the agent: -- CMD ARGS... or --url URL")
		return exitUsage
	case *url != "" && len(argv) > 0:
		fmt.Fprintln(stderr, "acpconform agent: a command and --url exclude each other")
		return exitUsage
	case *tokenEnv != "" && *url == "":
		fmt.Fprintln(stderr, "acpconform agent: --token-env goes with --url")
		return exitUsage
	case *noProbe != (*prompt != ""):
		fmt.Fprintln(stderr, "acpconform agent: --no-probe and --prompt go together")
		return exitUsage
	case *url != "":
		if err := webSocketURL("--url", *url); err != nil {
			fmt.Fprintf(stderr, "acpconform agent: %v\n", err)
			return exitUsage
		}
		var header http.Header
		if *tokenEnv != "" {
			token := os.Getenv(*tokenEnv)
			if token == "" {
				fmt.Fprintf(stderr, "acpconform agent: --token-env: $%s is empty or unset\n", *tokenEnv)
				return exitUsage
			}
			header = http.Header{"Authorization": {"Bearer " + token}}
		}
		subject = suite.WebSocket(*url, header, opts)
	default:
		if err := checkCommand(argv); err != nil {
			fmt.Fprintf(stderr, "acpconform agent: %v\n", err)
			return exitUsage
		}
		subject = suite.Command(argv, suite.AgentRole, opts)
	}
	filter := ""
	if *noProbe {
		filter = "wire-only"
	}
	return checkSubject(ctx, "agent", subject, filter, scenarios.Options{Prompt: *prompt}, &f, true, stdout, stderr)
}
