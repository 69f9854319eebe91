package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/scenarios"
	"github.com/acpconform/acpconform/suite"
)

// listed is one rule with the checks that cite it.
type listed struct {
	suite.Rule
	Checks  []string `json:"checks"`
	Pending string   `json:"pending,omitempty"`
}

// catalogue walks the whole catalogue, every role, without running a
// check: each rule with the names of the checks that cite it.
func catalogue() []listed {
	checks, _ := catalogueChecks()
	byRule := map[string][]string{}
	for _, c := range checks {
		for _, id := range c.Rules {
			byRule[id] = append(byRule[id], c.Name)
		}
	}
	var out []listed
	for _, r := range suite.Rules() {
		out = append(out, listed{Rule: r, Checks: byRule[r.ID], Pending: suite.Pending[r.ID]})
	}
	return out
}

// catalogueChecks walks the whole catalogue, every role, without running
// a check. A check declared for several subjects of a role is listed
// once, named without its subject. inProcess holds the IDs of the checks
// that need the reference's Go API, which run only against the reference
// in-process.
func catalogueChecks() (checks []reports.Check, inProcess map[string]bool) {
	subjects := referenceRun().list
	report := suite.Run(suite.Config{Subject: suite.Reference(), DryRun: true}, func() {
		catalogues(subjects, scenarios.Options{})
	})
	inProcess = map[string]bool{}
	for _, s := range report.SpecReports {
		if slices.Contains(s.Labels(), "in-process") {
			for _, l := range s.Labels() {
				if id, ok := suite.CheckID(l); ok {
					inProcess[id] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range reports.FromGinkgo(report, "", nil, false).Checks {
		if seen[c.Key()] {
			continue
		}
		seen[c.Key()] = true
		for _, s := range subjects { // the container of a role's several subjects
			if rest, ok := reports.Within(c.Name, s.Name()); ok {
				c.Name = rest
			}
		}
		checks = append(checks, c)
	}
	return checks, inProcess
}

// contractStatus is list's first line: the contract's revision, and
// which of its rules no check cites yet (pending, or not even that).
func contractStatus(rules []listed) string {
	var pending, uncited []string
	for _, r := range rules {
		switch {
		case r.Pending != "":
			pending = append(pending, r.ID)
		case len(r.Checks) == 0:
			uncited = append(uncited, r.ID)
		}
	}
	line := fmt.Sprintf("CONTRACT revision %s: %d rules", suite.Revision(), len(rules))
	if len(pending)+len(uncited) == 0 {
		return line + ", each cited by a check, none pending"
	}
	if len(pending) > 0 {
		line += fmt.Sprintf("; %d pending: %s", len(pending), strings.Join(pending, ", "))
	}
	if len(uncited) > 0 {
		line += fmt.Sprintf("; %d cited by no check: %s", len(uncited), strings.Join(uncited, ", "))
	}
	return line
}

func (a *app) listCommand() *cobra.Command {
	var jsonPath, command string
	var f checkFlags
	var noProbe bool
	cmd := a.command("list [flags]", "List the CONTRACT rules and the checks that cite them, or what a selection selects", `
Says the CONTRACT's revision and which rules no check cites yet, then lists
every rule with its level, role and the checks that cite it.
--json FILE writes the same as JSON ([{id, area, level, role, text, checks,
pending}]), - for stdout.

With --check, --id, --label-filter, --shard, --for or --no-probe, it lists instead the
checks a run with the same flags would select, without running any: each
check's ID, level and rules, after a line saying how many of how many.
--for names the command whose catalogue it is (run, the default: every
role; agent, client or relay: that role's). A selection that selects
nothing exits 2, saying why, with the hint a run would give (a run
exits 4, nothing checked).`,
		func(cmd *cobra.Command, _ []string) (int, error) {
			if selectionFlagsSet(cmd) {
				if jsonPath != "" {
					return exitUsage, usagef(cmd, "--json lists the rules; a selection is listed as text")
				}
				return a.listSelection(cmd, command, &f, noProbe)
			}
			rules := catalogue()
			if jsonPath != "" {
				return a.writeJSON(cmd, jsonPath, rules)
			}
			fmt.Fprintln(a.stdout, contractStatus(rules))
			for _, r := range rules {
				fmt.Fprintf(a.stdout, "%-6s %-6s %-6s %d checks", r.ID, r.Level, r.Role, len(r.Checks))
				if r.Pending != "" {
					fmt.Fprintf(a.stdout, " (pending: %s)", r.Pending)
				}
				fmt.Fprintln(a.stdout)
				for _, c := range r.Checks {
					fmt.Fprintf(a.stdout, "         %s\n", c)
				}
			}
			return exitOK, nil
		})
	cmd.Args = cobra.NoArgs
	cmd.Flags().StringVar(&jsonPath, "json", "", "write JSON to `FILE` instead (- for stdout)")
	f.registerSelection(cmd.Flags(), "list")
	cmd.Flags().Var(&f.shard, "shard", "list the checks shard I of N would run (see acpconform run --help)")
	cmd.Flags().BoolVar(&noProbe, "no-probe", false, "with --for agent, list what acpconform agent --no-probe selects: the wire-only checks")
	cmd.Flags().StringVar(&command, "for", "run", "list the catalogue of this `COMMAND`: run (every role), agent, client or relay")
	return cmd
}

// writeJSON writes v as indented JSON to path, - for stdout.
func (a *app) writeJSON(cmd *cobra.Command, path string, v any) (int, error) {
	encode := func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // a rule's choice_<n> and a command's <your agent's command>, as written
		return enc.Encode(v)
	}
	var err error
	if path == "-" {
		err = encode(elide.NoCommands(a.protocolOut, elide.JSONEscapes))
	} else {
		err = reports.WriteFile(path, encode) // whole or not at all
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "acpconform %s: --json %s: %v\n", cmd.Name(), path, err)
		return exitOutput, nil
	}
	return exitOK, nil
}
