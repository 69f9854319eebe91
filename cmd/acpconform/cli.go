package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/acpconform/acpconform/reference/probeagent"
	"github.com/acpconform/acpconform/reference/probeclient"
)

// command is one subcommand: it gets its own arguments and the standard
// streams, and returns the exit code.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands = map[string]command{
	"reference-agent":  {"serve the reference ask_choice as an ACP agent on stdio (PROBE.md §1)", probeagent.Run},
	"mock":             {"play a scripted mock client or agent (docs/scripts.md)", runMock},
	"run":              {"run the catalogue against the built-in reference; write the reports", runReference},
	"reference-client": {"play the reference client of PROBE.md §2 on stdio or WebSocket", probeclient.Run},
	"agent":            {"check an agent under test: -- CMD ARGS... or --url URL", runAgent},
	"client":           {"check a client under test: -- CMD ARGS... or --listen ADDR", runClient},
	"list":             {"list the CONTRACT rules and the checks that cite them", runList},
	"explain":          {"explain a CONTRACT rule and the checks that cite it", runExplain},
	"relay":            {"check a relay under test: -- CMD ... {url} ...", runRelay},
	"serve":            {"serve the reference agent over WebSocket", runServe},
	"serve-command":    {"serve a stdio command over WebSocket, frames unchanged", runServeCommand},
	"mirror":           {"serve a WebSocket agent on stdio; --unstable-protocol opts into elicitation", runMirror},
}

// run dispatches to the subcommand named by args[0].
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "acpconform: unknown command %q (see acpconform --help)\n", args[0])
		return exitUsage
	}
	return cmd.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("usage: acpconform <command> [flags]\n\ncommands:\n")
	for _, name := range names {
		fmt.Fprintf(&b, "  %-16s %s\n", name, commands[name].summary)
	}
	fmt.Fprint(w, b.String())
}
