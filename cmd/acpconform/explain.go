package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpconform/acpconform/internal/killmatrix"
	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

const explainLong = `
Given a CONTRACT ID (such as TOK-4; acpconform list shows them all), prints
the rule in full, with its level and role, then each check that cites it:
its ID (what --check takes), where the catalogue declares it
(scenarios/FILE.go:LINE, in this repository) and the mutants of the
reference it kills (docs/mutants.md).

Given a check ID (such as TOK-2/leading-zero), prints the check: its name,
where it is declared, the mutants it kills, the command that runs it alone
against a subject of its role, with its transcript (-v), and each rule it
checks, in full.

--json FILE writes the same as JSON, - for stdout.`

func (a *app) explainCommand() *cobra.Command {
	var jsonPath string
	cmd := a.command("explain [flags] ID", "Explain a CONTRACT rule or a check: the rule, its checks, and how to run them", explainLong,
		func(cmd *cobra.Command, args []string) (int, error) {
			arg := strings.TrimSpace(args[0])
			rule, slug, isCheck := strings.Cut(arg, "/")
			if _, ok := suite.Lookup(strings.ToUpper(rule)); !ok {
				err := notARule(args[0])
				if isCheck {
					err = fmt.Errorf("%q is not a check ID: %w", args[0], notARule(rule))
				}
				return exitUsage, usageError{cmd: cmd.CommandPath(), err: err}
			}
			checks, inProcess := catalogueChecks()
			if isCheck {
				id := strings.ToUpper(rule) + "/" + strings.ToLower(slug)
				for _, c := range checks {
					if c.ID == id {
						return a.explainCheck(cmd, jsonPath, explainedCheckOf(c, inProcess[c.ID]))
					}
				}
				return exitUsage, usageError{cmd: cmd.CommandPath(), err: notACheck(args[0], checks)}
			}
			return a.explainRule(cmd, jsonPath, explainedRuleOf(suite.MustLookup(strings.ToUpper(rule)), checks))
		})
	cmd.Args = exactlyOne("a CONTRACT ID, such as TOK-2, or a check ID, such as TOK-2/leading-zero")
	cmd.Flags().StringVar(&jsonPath, "json", "", "write JSON to `FILE` instead (- for stdout)")
	return cmd
}

// notACheck is the error of a check ID of a known rule that is no
// check's: the nearest IDs, or how to list the rule's checks.
func notACheck(id string, checks []reports.Check) error {
	var ids []string
	for _, c := range checks {
		ids = append(ids, c.ID)
	}
	if near := didYouMean(id, ids); near != "" {
		return fmt.Errorf("%q is not a check ID%s", id, near)
	}
	rule, _, _ := strings.Cut(id, "/")
	return fmt.Errorf("%q is not a check ID; acpconform explain %[2]s lists the checks of %[2]s", id, strings.ToUpper(rule))
}

// citingCheck is a check that cites a rule, as explain lists it.
type citingCheck struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Location string `json:"location"` // where the catalogue declares it: scenarios/tok.go:56
	// Kills is the mutants the check kills (docs/mutants.md); null when
	// this build has no kill matrix.
	Kills []string `json:"kills"`
}

// explainedRule is a rule as explain shows it.
type explainedRule struct {
	suite.Rule
	Pending string        `json:"pending,omitempty"`
	Checks  []citingCheck `json:"checks"`
}

// explainedCheck is a check as explain shows it.
type explainedCheck struct {
	citingCheck
	Level string       `json:"level"`
	Role  string       `json:"role"`
	Rules []suite.Rule `json:"rules"`
	// Run is the commands that run the check alone: against a subject of
	// its role, then against the reference built in.
	Run []string `json:"run"`
	// InProcess says the check needs the reference's Go API: it runs
	// only against the reference built in.
	InProcess bool `json:"inProcess,omitempty"`
}

// killsOf is what the kill matrix says check id kills: nil when this
// build has none, empty when it kills no mutant.
func killsOf(id string) []string {
	if len(killmatrix.Matrix()) == 0 {
		return nil
	}
	return append([]string{}, killmatrix.Kills(id)...)
}

func citingCheckOf(c reports.Check) citingCheck {
	return citingCheck{ID: c.Key(), Name: c.Name, Location: c.Location, Kills: killsOf(c.Key())}
}

func explainedRuleOf(r suite.Rule, checks []reports.Check) explainedRule {
	e := explainedRule{Rule: r, Pending: suite.Pending[r.ID], Checks: []citingCheck{}}
	for _, c := range checks {
		for _, id := range c.Rules {
			if id == r.ID {
				e.Checks = append(e.Checks, citingCheckOf(c))
				break
			}
		}
	}
	return e
}

// subjectCommand is, for each role, what a user writes after -- to run
// checks against their own subject.
var subjectCommand = map[string]string{
	string(suite.AgentRole):  "agent --check %s -v -- <your agent's command>",
	string(suite.ClientRole): "client --check %s -v -- <your client's command>",
	string(suite.RelayRole):  "relay --check %s -v -- <your relay's command, with {agent} or {url}>",
}

func explainedCheckOf(c reports.Check, inProcess bool) explainedCheck {
	e := explainedCheck{citingCheck: citingCheckOf(c), Level: c.Level, Role: c.Role, InProcess: inProcess}
	for _, id := range c.Rules {
		if r, ok := suite.Lookup(id); ok {
			e.Rules = append(e.Rules, r)
		}
	}
	if f, ok := subjectCommand[c.Role]; ok && !inProcess {
		e.Run = append(e.Run, "acpconform "+fmt.Sprintf(f, e.ID))
	}
	e.Run = append(e.Run, "acpconform run --check "+e.ID+" -v")
	return e
}

func (a *app) explainRule(cmd *cobra.Command, jsonPath string, r explainedRule) (int, error) {
	if jsonPath != "" {
		return a.writeJSON(cmd, jsonPath, r)
	}
	w := a.stdout
	writeRule(w, r.Rule)
	if r.Pending != "" {
		fmt.Fprintf(w, "\nNo checks yet: %s.\n", r.Pending)
	}
	if len(r.Checks) == 0 {
		return exitOK, nil
	}
	fmt.Fprintf(w, "\nChecked by %s (an ID goes to --check, or to acpconform explain):\n", count(len(r.Checks), "check", "checks"))
	idWidth, locationWidth := 0, 0
	for _, c := range r.Checks {
		idWidth, locationWidth = max(idWidth, len(c.ID)), max(locationWidth, len(c.Location))
	}
	known := len(killmatrix.Matrix()) > 0
	for _, c := range r.Checks {
		line := fmt.Sprintf("  %-*s  %-*s", idWidth, c.ID, locationWidth, c.Location)
		if known {
			line += "  " + killsPhrase(c.Kills)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if !known {
		noMatrix(w)
	}
	return exitOK, nil
}

func (a *app) explainCheck(cmd *cobra.Command, jsonPath string, c explainedCheck) (int, error) {
	if jsonPath != "" {
		return a.writeJSON(cmd, jsonPath, c)
	}
	w := a.stdout
	fmt.Fprintf(w, "%s (%s, %s role)\n%s\n\n", c.ID, c.Level, c.Role, wrap(c.Name, 76))
	fmt.Fprintf(w, "scenario:  %s\n", c.Location)
	if c.Kills != nil {
		fmt.Fprintf(w, "kills:     %s\n", wrapIndent(strings.TrimPrefix(killsPhrase(c.Kills), "kills "), 66, 11))
	}
	for i, line := range c.Run {
		label := "run it:    "
		if i > 0 {
			label = "           "
		}
		switch {
		case !strings.HasPrefix(line, "acpconform run "):
		case c.InProcess:
			line += "   (it needs the reference's Go API: it runs against the reference built in alone)"
		default:
			line += "   (against the reference built in)"
		}
		fmt.Fprintf(w, "%s%s\n", label, line)
	}
	for _, r := range c.Rules {
		fmt.Fprintln(w)
		writeRule(w, r)
	}
	if c.Kills == nil {
		noMatrix(w)
	}
	return exitOK, nil
}

// killsPhrase says which mutants a check kills.
func killsPhrase(kills []string) string {
	if len(kills) == 0 {
		return "kills no mutant"
	}
	return "kills " + strings.Join(kills, ", ")
}

// noMatrix says that this build cannot say which mutants a check kills.
func noMatrix(w io.Writer) {
	fmt.Fprintf(w, "\nThis acpconform was built without the kill matrix (%s,\nwritten by go test ./mutants -update): docs/mutants.md says which mutants\neach check kills.\n", killmatrix.File)
}

// count is "1 check" or "3 checks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// wrap breaks text into lines of at most width.
func wrap(text string, width int) string {
	return wrapIndent(text, width, 0)
}

// wrapIndent breaks text into lines of at most width, the lines after the
// first indented by indent spaces.
func wrapIndent(text string, width, indent int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > width {
			b.WriteString("\n" + strings.Repeat(" ", indent))
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

// writeRule shows a rule: its head, its source (which decides its level,
// contract revision 5) and its text.
func writeRule(w io.Writer, r suite.Rule) {
	fmt.Fprintf(w, "%s (%s, %s role, area %s)\nsource: %s\n\n%s\n", r.ID, r.Level, r.Role, r.Area, wrapIndent(r.Source, 68, 8), wrap(r.Text, 76))
}
