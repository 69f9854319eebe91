package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/acpconform/acpconform/reference/probeclient"
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

// catalogue walks the whole catalogue, every role, without running a check.
func catalogue() ([]listed, error) {
	report := suite.Run(suite.Config{Subject: suite.Reference(), DryRun: true}, func() {
		scenarios.Catalogue(scenarios.Options{Subject: suite.Reference()})
		scenarios.Catalogue(scenarios.Options{Subject: suite.ReferenceClient(probeclient.Options{})})
	})
	byRule := map[string][]string{}
	for _, c := range reports.FromGinkgo(report, "", nil, false).Checks {
		for _, id := range c.Rules {
			byRule[id] = append(byRule[id], c.Name)
		}
	}
	var out []listed
	for _, r := range suite.Rules() {
		out = append(out, listed{Rule: r, Checks: byRule[r.ID], Pending: suite.Pending[r.ID]})
	}
	return out, nil
}

// runList prints the catalogue: each rule with its level, role and checks.
func runList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("list", "usage: acpconform list [--json]\n\nLists every CONTRACT rule with its level, role and the checks that cite it.\n", stderr)
	asJSON := fs.Bool("json", false, "print JSON: [{ID, Area, Level, Role, Text, checks, pending}]")
	if !parse(fs, args, stderr) {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "acpconform list: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	rules, err := catalogue()
	if err != nil {
		fmt.Fprintf(stderr, "acpconform list: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rules); err != nil {
			return exitFailed
		}
		return exitOK
	}
	for _, r := range rules {
		fmt.Fprintf(stdout, "%-6s %-6s %-6s %d checks", r.ID, r.Level, r.Role, len(r.Checks))
		if r.Pending != "" {
			fmt.Fprintf(stdout, " (pending: %s)", r.Pending)
		}
		fmt.Fprintln(stdout)
		for _, c := range r.Checks {
			fmt.Fprintf(stdout, "         %s\n", c)
		}
	}
	return exitOK
}

// runExplain prints one rule and the checks that cite it.
func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: acpconform explain ID (such as TOK-2; acpconform list shows them all)")
		return exitUsage
	}
	id := strings.ToUpper(strings.TrimSpace(args[0]))
	if _, ok := suite.Lookup(id); !ok {
		fmt.Fprintf(stderr, "acpconform explain: %q is not a CONTRACT ID (see acpconform list)\n", args[0])
		return exitUsage
	}
	rules, err := catalogue()
	if err != nil {
		fmt.Fprintf(stderr, "acpconform explain: %v\n", err)
		return exitFailed
	}
	for _, r := range rules {
		if r.ID != id {
			continue
		}
		fmt.Fprintf(stdout, "%s (%s, %s role, area %s)\n\n%s\n\n", r.ID, r.Level, r.Role, r.Area, wrap(r.Text, 76))
		if r.Pending != "" {
			fmt.Fprintf(stdout, "No checks yet: %s.\n", r.Pending)
		}
		if len(r.Checks) > 0 {
			fmt.Fprintf(stdout, "Checked by:\n")
			for _, c := range r.Checks {
				fmt.Fprintf(stdout, "  %s\n", c)
			}
		}
	}
	return exitOK
}

// wrap breaks text into lines of at most width.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
