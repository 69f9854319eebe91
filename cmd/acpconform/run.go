package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const runUsage = `usage: acpconform run [flags]

Runs the catalogue against the reference ask_choice built into this binary,
prints a summary and writes the reports. It is what the README's first
command runs; acpconform agent, client and relay run the same catalogue
against other people's implementations.

Exit codes as acpconform agent (acpconform help exit-codes).

flags:
`

// runReference runs the catalogue against the built-in reference.
func runReference(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", runUsage, stderr)
	var f checkFlags
	f.register(fs)
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acpconform run: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	return checkSubject(ctx, "run", suite.Reference(), "", scenarios.Options{}, &f, false, stdout, stderr)
}
