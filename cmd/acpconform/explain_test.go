package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/internal/killmatrix"
	"github.com/acpconform/acpconform/suite"
)

// checkLine is a line of explain RULE's list of checks: the ID, where the
// catalogue declares it, and, with a kill matrix, the mutants it kills.
var checkLine = regexp.MustCompile(`^  (\S+) +(\S+)(?:  (kills .*))?$`)

// TestExplainRuleListsItsChecks: explain TOK-2 lists by ID every check a
// run with --id TOK-2 selects (the checks citing it, DEF-3's among them),
// each at the line of scenarios/ that declares it, with the mutants the
// kill matrix says it kills.
func TestExplainRuleListsItsChecks(t *testing.T) {
	r := acpconform(t, nil, "explain", "TOK-2")
	expectCode(t, r, 0)
	rule := suite.MustLookup("TOK-2")
	if !strings.HasPrefix(r.stdout, "TOK-2 (MUST, agent role, area TOK)\nsource: "+wrapIndent(rule.Source, 68, 8)+"\n\n"+wrap(rule.Text, 76)+"\n\nChecked by ") {
		t.Errorf("explain TOK-2 does not open with the rule in full, its source, then its checks:\n%s", r.stdout)
	}
	var ids []string
	for _, line := range strings.Split(r.stdout, "\n") {
		m := checkLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, location, kills := m[1], m[2], m[3]
		ids = append(ids, id)
		expectDeclaration(t, id, location)
		if len(killmatrix.Matrix()) > 0 {
			if want := killsPhrase(killmatrix.Kills(id)); kills != want {
				t.Errorf("explain TOK-2 says %s %q; the kill matrix, %q", id, kills, want)
			}
		} else if kills != "" {
			t.Errorf("explain TOK-2 says %s %q, with no kill matrix", id, kills)
		}
	}
	if len(killmatrix.Matrix()) == 0 && !strings.Contains(r.stdout, "built without the kill matrix") {
		t.Errorf("explain TOK-2 does not say that this build has no kill matrix:\n%s", r.stdout)
	}

	selected := acpconform(t, nil, "list", "--id", "TOK-2")
	expectCode(t, selected, 0)
	_, want := listedIDs(t, selected)
	slices.Sort(ids)
	slices.Sort(want)
	if len(ids) < 30 || !slices.Contains(ids, "DEF-3/never-repairs-accept") || !slices.Equal(ids, want) {
		t.Errorf("explain TOK-2 lists %d checks, %q; list --id TOK-2 selects %d, %q", len(ids), ids, len(want), want)
	}
}

// expectDeclaration fails the test unless location is a line of
// scenarios/ in this repository that declares a check (e.it, or an entry
// of a table).
func expectDeclaration(t *testing.T, id, location string) {
	t.Helper()
	file, line, ok := strings.Cut(location, ":")
	n, err := strconv.Atoi(line)
	if !ok || err != nil || !regexp.MustCompile(`^scenarios/[a-z]+\.go$`).MatchString(file) {
		t.Errorf("%s is at %q, not at a line of scenarios/*.go relative to the repository", id, location)
		return
	}
	src, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Errorf("%s is at %s: %v", id, location, err)
		return
	}
	lines := strings.Split(string(src), "\n")
	if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], "e.it(") && !strings.Contains(lines[n-1], "e.entry(") {
		t.Errorf("%s is at %s, which declares no check", id, location)
	}
}

// TestExplainTOK4: the Done-when of issue 32, word for word: explain TOK-4
// lists the check IDs with file:line, each pasteable into --check.
func TestExplainTOK4(t *testing.T) {
	r := acpconform(t, nil, "explain", "TOK-4")
	expectCode(t, r, 0)
	m := regexp.MustCompile(`(?m)^  (TOK-4/token-per-request) +(scenarios/tok\.go:\d+)\b`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("explain TOK-4 does not list TOK-4/token-per-request with its file:line:\n%s", r.stdout)
	}
	expectDeclaration(t, m[1], m[2])
	src, _ := os.ReadFile("../../scenarios/tok.go")
	_, line, _ := strings.Cut(m[2], ":")
	n, _ := strconv.Atoi(line)
	if got := strings.Split(string(src), "\n")[n-1]; !strings.Contains(got, `e.it("token-per-request"`) {
		t.Errorf("%s is line %q, not the check's declaration", m[2], got)
	}
	pasted := acpconform(t, nil, "list", "--check", m[1])
	expectCode(t, pasted, 0)
	if head, ids := listedIDs(t, pasted); !strings.HasPrefix(head, "1 of ") || !slices.Equal(ids, []string{m[1]}) {
		t.Errorf("list --check %s selects %q (%s)", m[1], ids, head)
	}
}

// TestExplainCheck: explain CHECK-ID says the check's name, the rule in
// full, where the scenario is and the command that runs it alone against
// a subject of its role; as JSON too.
func TestExplainCheck(t *testing.T) {
	r := acpconform(t, nil, "explain", "tok-2/leading-zero") // as typed, in any case
	expectCode(t, r, 0)
	for _, want := range []string{
		"TOK-2/leading-zero (MUST, agent role)\nTOK: reading the answer: refuses every accept",
		"\nrun it:    acpconform agent --check TOK-2/leading-zero -v -- <your agent's command>\n",
		"           acpconform run --check TOK-2/leading-zero -v   (against the reference built in)\n",
		"\nTOK-2 (MUST, agent role, area TOK)\nsource: seed: \"an accepted response must still contain one of the offered\n        tokens\"; \"raises InvalidElicitationResponseError\"\n\n" + wrap(suite.MustLookup("TOK-2").Text, 76) + "\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain TOK-2/leading-zero lacks %q:\n%s", want, r.stdout)
		}
	}
	m := regexp.MustCompile(`(?m)^scenario:  (\S+)$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("explain TOK-2/leading-zero does not say where its scenario is:\n%s", r.stdout)
	}
	expectDeclaration(t, "TOK-2/leading-zero", m[1])

	r = acpconform(t, nil, "explain", "--json", "-", "TOK-2/leading-zero")
	expectCode(t, r, 0)
	var c explainedCheck
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("explain --json: %v\n%s", err, r.stdout)
	}
	wantKills := killsOf("TOK-2/leading-zero")
	if c.ID != "TOK-2/leading-zero" || c.Location != m[1] || len(c.Rules) != 1 || c.Rules[0].ID != "TOK-2" || c.Rules[0].Text == "" ||
		!slices.Equal(c.Kills, wantKills) || (c.Kills == nil) != (wantKills == nil) || len(c.Run) != 2 || c.Run[0] != "acpconform agent --check TOK-2/leading-zero -v -- <your agent's command>" {
		t.Errorf("explain --json TOK-2/leading-zero: %+v", c)
	}
	if len(killmatrix.Matrix()) > 0 && !slices.Contains(c.Kills, "leading-zero-accepted") {
		t.Errorf("TOK-2/leading-zero kills %q; the mutant that accepts choice_01 is not among them", c.Kills)
	}

	// Each role's command, and a check that needs the reference's Go API.
	for id, want := range map[string]string{
		"CLI-4/unadvertised-form-refused":   "run it:    acpconform client --check CLI-4/unadvertised-form-refused -v -- <your client's command>\n",
		"REL-1/ids-mapped-back":             "run it:    acpconform relay --check REL-1/ids-mapped-back -v -- <your relay's command, with {agent} or {url}>\n",
		"FB-6/panicking-comparison-skipped": "run it:    acpconform run --check FB-6/panicking-comparison-skipped -v   (it needs the reference's Go API: it runs against the reference built in alone)\n",
	} {
		r := acpconform(t, nil, "explain", id)
		expectCode(t, r, 0)
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain %s lacks %q:\n%s", id, want, r.stdout)
		}
	}

	r = acpconform(t, nil, "explain", "TOK-2/leading-zeroo")
	if r.code != exitUsage || !strings.Contains(r.stderr, `"TOK-2/leading-zeroo" is not a check ID; did you mean TOK-2/leading-zero?`) {
		t.Errorf("explain TOK-2/leading-zeroo: exit %d, %q", r.code, r.stderr)
	}
}
