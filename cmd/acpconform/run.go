package main

import (
	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

const runLong = `
Runs the catalogue against the reference ask_choice built into this binary,
prints a summary and writes the reports (to acpconform-reports/ unless
--junit, --json and --summary say otherwise). It is what the README's first
command runs; acpconform agent, client and relay run the same catalogue
against other people's implementations.

Exit codes: acpconform help exit-codes.`

func (a *app) runCommand() *cobra.Command {
	var f checkFlags
	cmd := a.command("run [flags]", "Run the catalogue against the built-in reference and write the reports", runLong,
		func(cmd *cobra.Command, _ []string) (int, error) {
			return a.checkSubject(cmd, suite.Reference(), nil, "", scenarios.Options{}, &f, false)
		})
	cmd.Args = cobra.NoArgs
	f.register(cmd.Flags())
	return cmd
}
