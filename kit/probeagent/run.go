package probeagent

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
)

// Run serves the probe agent over stdin and stdout until stdin ends or ctx is
// done, and returns the process exit code. Diagnostics go to stderr. It is
// what `acpconform reference-agent` and acpconform-reference-agent run;
// args are the arguments after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reference-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: acpconform reference-agent, or acpconform-reference-agent\n\n"+
			"Serves the reference ask_choice as an ACP agent on stdin/stdout. Every prompt\n"+
			"is a probe request (docs/probe.md §1); the outcome comes back as an agent message.")
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "reference-agent: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	conn := Serve(stdout, stdin, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return 0
}
