package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/elide"
	"github.com/acpconform/acpconform/internal/suggest"
	"github.com/acpconform/acpconform/kit/probeclient"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// wireOnly is the label filter of acpconform agent --no-probe: the
// checks of an agent without a probe adapter.
const wireOnly = "wire-only"

// listRoles are the commands whose catalogues acpconform list --for
// shows, in the order its help names them.
var listRoles = []string{"run", "agent", "client", "relay"}

// catalogueOf is what the command named checks, for listing: acpconform
// run's subjects, or a subject of the role of agent, client or relay.
// A role's catalogue is the same whatever its subject (a check a subject
// cannot take skips itself when it runs), so the reference stands in.
func catalogueOf(command string) (subjects, error) {
	switch command {
	case "run":
		return referenceRun(), nil
	case "agent":
		return subjects{name: "an agent (acpconform agent)", list: []suite.Subject{suite.Reference()}}, nil
	case "client":
		return subjects{name: "a client (acpconform client)", list: []suite.Subject{suite.ReferenceClient(probeclient.Options{})}}, nil
	case "relay":
		return subjects{name: "a relay (acpconform relay)", list: []suite.Subject{suite.ReferenceCommandRelay()}}, nil
	}
	return subjects{}, fmt.Errorf("--for %q: the commands that run checks are %s%s", command, strings.Join(listRoles, ", "), didYouMean(command, listRoles))
}

// selectionFlagsSet reports whether cmd was given a flag that selects checks.
func selectionFlagsSet(cmd *cobra.Command) bool {
	for _, name := range []string{"check", "id", "label-filter", "shard", "for", "no-probe"} {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}

// listSelection is acpconform list with a selection: the checks that
// command's run with the same --check, --id, --label-filter and --shard
// would select, found by the same code as the run (a dry run of its
// catalogue), each once. A selection that selects nothing is a usage
// error saying why, with the hint a run gives: exit 2, not a run's 4,
// since nothing was run and a script that checks a selection first
// wants it to fail.
func (a *app) listSelection(cmd *cobra.Command, command string, f *checkFlags, noProbe bool) (int, error) {
	s, err := catalogueOf(command)
	if err != nil {
		return exitUsage, usageError{cmd: cmd.CommandPath(), err: err}
	}
	own := "" // the command's own filter, as its run adds it
	if noProbe {
		if command != "agent" {
			return exitUsage, usagef(cmd, "--no-probe goes with --for agent")
		}
		own = wireOnly
	}
	filter, err := f.selection(own, s.scope)
	if err != nil {
		return exitUsage, usageError{cmd: cmd.CommandPath(), err: err}
	}
	run := dryRun(a.ctx, command, s, filter, f)
	// The run counts a check once for each subject it is declared for
	// (acpconform run's two reference clients), and so does list, naming
	// the subject of each.
	times := map[string]int{}
	var picked []reports.Check
	for _, ch := range run.Checks {
		times[ch.ID]++
		if ch.State != reports.StateDeselected {
			picked = append(picked, ch)
		}
	}
	of := fmt.Sprintf("acpconform %s's catalogue", command)
	if len(picked) == 0 {
		return exitUsage, usagef(cmd, "the selection selects no check of %s: %s", of, run.Reason)
	}
	fmt.Fprintf(a.stdout, "%d of %d checks of %s\n", len(picked), len(run.Checks), of)
	width := 0
	for _, ch := range picked {
		width = max(width, len(ch.ID))
	}
	for _, ch := range picked {
		line := fmt.Sprintf("%-*s  %-6s  %s", width, ch.ID, ch.Level, strings.Join(ch.Rules, " "))
		if times[ch.ID] > 1 {
			line += "  (" + subjectOf(ch, s.list) + ")"
		}
		fmt.Fprintln(a.stdout, line)
	}
	return exitOK, nil
}

// dryRun walks command's catalogue as its run would, selecting with
// filter and f's shard, and runs no check: the checks it would run are
// passed, the rest deselected, and a run that selects nothing has the
// reason and hint of a run's.
func dryRun(ctx context.Context, command string, s subjects, filter string, f *checkFlags) reports.Run {
	c := &checking{cmd: command, name: s.name, subjects: s.list, scope: s.scope, f: f, ctx: ctx,
		cfg:    suite.Config{Subject: s.list[0], LabelFilter: filter, DryRun: true, Shard: f.shard.shard},
		stdout: io.Discard, reports: io.Discard, stderr: io.Discard}
	run := c.catalogue()
	c.settle(&run)
	return run
}

// subjectOf names the subject of a check its role has several of: its
// name leads the check's, as the container catalogues declares.
func subjectOf(ch reports.Check, list []suite.Subject) string {
	for _, s := range list {
		if _, ok := reports.Within(ch.Name, s.Name()); ok {
			return s.Name()
		}
	}
	return "one of several subjects"
}

// otherRole is the role of the rules a glob's rule part (TOK-*, TOK-2)
// matches when none of them is of a role the run checks: "" when it
// matches none, or one of a checked role.
func otherRole(rule string, checked map[suite.Role]bool) string {
	other := ""
	for _, r := range suite.Rules() {
		if ok, _ := path.Match(strings.ToUpper(rule), r.ID); !ok {
			continue
		}
		if checked[r.Role] {
			return ""
		}
		other = string(r.Role)
	}
	return other
}

// globHint is a "did you mean" for each --check glob that matches no
// check of the catalogue: the nearest check IDs, or for a glob over a
// rule that does not exist (TOK-22/*), the nearest rules' globs. A rule
// ID given as a glob says to use --id. "" when there is none.
func globHint(globs []string, checks []reports.Check, subjects []suite.Subject) string {
	checked := map[suite.Role]bool{}
	var roles []string
	for _, s := range subjects {
		if !checked[s.Role()] {
			roles = append(roles, string(s.Role()))
		}
		checked[s.Role()] = true
	}
	var ids, rules []string
	seen := map[string]bool{}
	for _, ch := range checks {
		if ch.ID == "" || seen[ch.ID] {
			continue
		}
		seen[ch.ID] = true
		ids = append(ids, ch.ID)
		if rule, _, _ := strings.Cut(ch.ID, "/"); !seen[rule] {
			seen[rule] = true
			rules = append(rules, rule)
		}
	}
	var hints []string
	for _, g := range globs {
		g = strings.TrimSpace(g)
		re, err := checkGlob(g)
		if err != nil {
			continue
		}
		match := regexp.MustCompile(strings.Trim(re, "/")) // checkGlob quotes what it does not translate
		matched := false
		for _, id := range ids {
			if match.MatchString("check:" + strings.Replace(id, "/", ":", 1)) {
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		quoted := elide.EscapeLine(elide.Head(g, 200))
		rule, _, _ := strings.Cut(g, "/")
		switch other := otherRole(rule, checked); {
		case other != "":
			hints = append(hints, fmt.Sprintf("--check %s selects checks of the %s role, and this run checks the %s role", quoted, other, strings.Join(roles, " and ")))
		case seen[strings.ToUpper(g)]:
			hints = append(hints, fmt.Sprintf("--check %s names a rule, not a check: --id %s, or --check '%s/*'", quoted, strings.ToUpper(g), strings.ToUpper(g)))
		case !strings.ContainsAny(g, "*?"):
			hints = append(hints, fmt.Sprintf("--check %s matches no check%s", quoted, didYouMean(g, ids)))
		case !strings.ContainsAny(rule, "*?") && !seen[strings.ToUpper(rule)]:
			var globs []string
			for _, r := range suggest.Nearest(rule, rules, maxSuggestions) {
				globs = append(globs, "'"+r+"/*'")
			}
			if len(globs) > 0 {
				hints = append(hints, fmt.Sprintf("--check %s: no rule %s has checks here; did you mean %s?", quoted, elide.EscapeLine(elide.Head(rule, 200)), orList(globs)))
			}
		}
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}
