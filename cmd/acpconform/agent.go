package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/acpconform/acpconform/mocks/wire"
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

Exit codes: 0 conformant; 1 a MUST check failed (or, with --baseline, a new
one, or a stale entry); 2 usage error; 3 could not run: the agent did not
start, or did not answer initialize within --startup-timeout.

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
	maxFrame := fs.Int("max-frame", wire.DefaultMaxFrame, "refuse frames from the agent above this many bytes")
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	command := fs.Args()
	opts := wire.Options{MaxFrame: *maxFrame}
	var subject suite.Subject
	switch {
	case *url == "" && len(command) == 0:
		fmt.Fprintln(stderr, "acpconform agent: name the agent: -- CMD ARGS... or --url URL")
		return exitUsage
	case *url != "" && len(command) > 0:
		fmt.Fprintln(stderr, "acpconform agent: a command and --url exclude each other")
		return exitUsage
	case *tokenEnv != "" && *url == "":
		fmt.Fprintln(stderr, "acpconform agent: --token-env goes with --url")
		return exitUsage
	case *noProbe != (*prompt != ""):
		fmt.Fprintln(stderr, "acpconform agent: --no-probe and --prompt go together")
		return exitUsage
	case *url != "":
		if !strings.HasPrefix(*url, "ws://") && !strings.HasPrefix(*url, "wss://") {
			fmt.Fprintf(stderr, "acpconform agent: --url %q is not a ws:// or wss:// URL\n", *url)
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
		subject = suite.Command(command, suite.AgentRole, opts)
	}
	filter := ""
	if *noProbe {
		filter = "wire-only"
	}
	return checkSubject(ctx, "agent", subject, filter, scenarios.Options{Prompt: *prompt}, &f, stdout, stderr)
}
